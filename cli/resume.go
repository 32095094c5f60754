package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"aipwatch/safe"
	"aipwatch/stream"
)

// resume is the shell command that resumes the actions ids name (one,
// or several: design §12, each as given) from cursor (aipwatch/run words
// the lines around it): the binary as it was invoked, and every flag the
// run needs to reach aipd and to stay as private and as shaped as it was.
// Every part is quoted; nothing secret is in it (the token stays in its
// file, credentials in the URL are dropped). Paths become absolute, so the
// command works from another directory. --export is left out on purpose:
// the export of a resumed run holds only what follows the cursor, and the
// same path would overwrite the export this run just wrote.
func (w *watch) resume(cursor string, ids ...string) string {
	o, g, r := &w.conn, &w.g, &w.r
	parts := []string{invokedAs()}
	flag := func(given bool, words ...string) {
		if given {
			parts = append(parts, words...)
		}
	}
	path := func(name, p string, fromContext bool) { flag(p != "" && !fromContext, name, shellQuote(absPath(p))) }
	// The context names the daemon and its credentials: what it gave is
	// not repeated, what flags or variables gave still is.
	flag(o.ctx.Name != "", "--context", shellQuote(o.ctx.Name))
	flag(!o.ctx.URL, "--url", shellQuote(redactURL(o.url)))
	path("--token-file", o.tokenFile, o.ctx.TokenFile)
	path("--cacert", o.cacert, o.ctx.CACert)
	flag(o.allowInsecureHTTP, "--allow-insecure-http")
	flag(g.redact, "--redact")
	flag(g.output != "", "--output", g.output)
	flag(g.noColor, "--no-color")
	flag(r.timestamps, "--timestamps")
	path("--record", r.record, false)
	flag(r.rawCapMiB != defaultRawCapMiB, "--raw-cap-mib", strconv.Itoa(r.rawCapMiB))
	flag(r.appearTimeout != 0 && r.appearTimeout != stream.DefaultAppearTimeout, "--appear-timeout", r.appearTimeout.String())
	flag(r.stallTimeout != 0 && r.stallTimeout != stream.DefaultStallTimeout, "--stall-timeout", r.stallTimeout.String())
	flag(r.reason != "" && r.reason != defaultReason, "--reason", shellQuote(r.reason))
	flag(cursor != "", "--cursor", shellQuote(cursor))
	for _, id := range ids {
		parts = append(parts, shellQuote(id))
	}
	return safe.Line(strings.Join(parts, " "))
}

// argv0 is how aipwatch was started (a variable for tests).
var argv0 = func() string { return os.Args[0] }

// invokedAs names the binary as the operator invoked it: the name found
// on $PATH, or the path given. A binary that `go run` built lives in the
// Go build cache or a temporary go-build directory and is gone (or
// replaced) once the run ends, and `go run` reports every non-zero exit
// code as 1, so that a script could not tell pending (8) from an error:
// the command printed is the installed name, aipwatch.
func invokedAs() string {
	a := argv0()
	if a == "" || isGoRunBinary(a) {
		return "aipwatch"
	}
	return shellQuote(a)
}

// isGoRunBinary reports whether p is a binary `go run` built: one under
// $GOCACHE (default: the user cache directory's go-build), or under a
// go-build* directory of $GOTMPDIR or the temporary directory.
func isGoRunBinary(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	p = filepath.Clean(p)
	under := func(dir string) bool {
		rel, err := filepath.Rel(filepath.Clean(dir), p)
		return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
	}
	cache := os.Getenv("GOCACHE")
	if cache == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(d, "go-build")
		}
	}
	if cache != "" && cache != "off" && under(cache) {
		return true
	}
	for _, tmp := range []string{os.Getenv("GOTMPDIR"), os.TempDir()} {
		if tmp == "" || !under(tmp) {
			continue
		}
		rel, _ := filepath.Rel(filepath.Clean(tmp), p)
		if strings.HasPrefix(filepath.ToSlash(rel), "go-build") {
			return true
		}
	}
	return false
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// startupHint is the line that follows an error that stopped aipwatch
// before aipd ever answered: what to check, by the kind of failure; ""
// when there is nothing to check (aipd answered with an error of its own).
func startupHint(o *conn, actionID string, err error) string {
	var se *stream.Error
	errors.As(err, &se)
	tokenSrc := "no token file"
	if o.tokenFile != "" {
		tokenSrc = "token file " + o.tokenFile
	} else if o.token != "" {
		tokenSrc = "the token in $AIP_TOKEN"
	}
	urlSrc, tokenFlags := "--url or $AIP_URL", "--token-file, $AIP_TOKEN_FILE or $GETAIP_NATIVE_BEARER_TOKEN_FILE"
	if o.ctx.URL {
		urlSrc = "context " + o.ctx.Name + "'s url (aipwatch contexts)"
	}
	if o.ctx.TokenFile {
		tokenFlags = "context " + o.ctx.Name + "'s token_file (aipwatch contexts)"
	}
	switch {
	case se.PlainHTTP():
		return "hint: this port speaks plain HTTP: use " + "http://" + strings.TrimPrefix(redactURL(o.url), "https://") +
			" in " + urlSrc + " (off loopback with --allow-insecure-http), or aipd's TLS port"
	case se.Denied():
		return "hint: aipd refused the credentials (" + tokenSrc + "): check " + tokenFlags
	case se != nil && actionID == "" && se.HTTPStatus == 404:
		// ls and the console: the list route itself is missing.
		return "hint: " + redactURL(o.url) + " has no AIP action list (GET /aip/v1/actions): check " + urlSrc
	case se != nil && (se.HTTPStatus == 404 || strings.Contains(se.Code, "not_found") || strings.Contains(se.Code, "unknown")):
		return "hint: check the ACTION_ID " + actionID + " and that --url " + redactURL(o.url) + " is the aipd that runs it"
	case se != nil && strings.HasPrefix(se.Code, "connector.") && (se.HTTPStatus == 401 || se.HTTPStatus == 403):
		// The provider refused aipd's own key for it (protocol
		// open point 8): the token was accepted, so it is not the one to check.
		return "hint: aipd accepted the credentials, but Hermes refused aipd's own key for it (" + safe.Line(se.Code) + "): check the endpoint's api_key in aipd's configuration, not --token-file"
	case se != nil && se.Code != "":
		// aipd's own error envelope (a submission's id_conflict, a
		// handler failure): its line says it all, and --url is right.
		return ""
	case se != nil && se.HTTPStatus != 0:
		return "hint: " + redactURL(o.url) + " answered, but not as aipd would: check " + urlSrc
	}
	msg := ""
	if err != nil {
		msg = strings.ToLower(err.Error())
	}
	if strings.Contains(msg, "certificate") || strings.Contains(msg, "x509") || strings.Contains(msg, "tls") {
		return "hint: the TLS check of " + redactURL(o.url) + " failed: for a private CA give --cacert FILE"
	}
	return "hint: is aipd running at " + redactURL(o.url) + "? check " + urlSrc + " (and the token)"
}

// printHint prints the start-up hint of a daemon-wide read (ls, the
// console), if it has one.
func printHint(w io.Writer, o *conn, err error) {
	if h := startupHint(o, "", err); h != "" {
		fmt.Fprintln(w, safe.Line(h))
	}
}

// redactURL is a URL as it is shown (safe.ShownURL): without user:password
// and credential query parameters, and, when it carried any, without any
// query value.
func redactURL(raw string) string {
	clean := safe.ShownURL(raw)
	if clean == "" && raw != "" {
		return "(unparsable URL)"
	}
	return clean
}
