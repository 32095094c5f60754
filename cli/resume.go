package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The closing lines of a run that did not settle: the detach message, the
// resume command, and the report of an internal error (which resumes too).

// detachMessage says that the action keeps running and how to resume
// (design §2.8). A demo's simulator dies with aipwatch, so a demo gets
// the command that starts it again instead. A replay cut mid-stream gets
// the command that follows the recorded action on the recorded daemon.
func detachMessage(o *options, a *model.Action) string {
	switch {
	case o.demo != "":
		return "aipwatch stopped watching the demo; its built-in simulator stopped with it, so there is nothing to resume.\n" +
			"run the demo again with: " + safe.Line(invokedAs()+" --demo="+shellQuote(o.demo)) + "\n"
	}
	first := "aipwatch stopped watching; the action keeps running (quitting is not cancellation).\n"
	switch {
	case o.replay != "":
		// Nothing runs in a replay: the recording just stops there.
		first = "the recording ends before the action settled; on its daemon it may have settled since.\n"
	case a.Ended():
		// Never claim that an action runs on when aipd said it is over (an
		// async action cancelled in flight reads cancelled with no result).
		first = "aipwatch stopped watching; the action has ended, but its outcome was not read yet (quitting is not cancellation).\n"
	case !attached(a):
		first = "aipwatch stopped watching before aipd answered: whether the action runs is not known (quitting is not cancellation).\n"
	case unseen(a):
		first = "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events yet: " +
			"it may not exist, or a synchronous run has not streamed yet (quitting is not cancellation).\n"
	}
	return first + heldOpenLines(o, a) + "resume with: " + resumeCommand(o, a.Cursor) + "\n"
}

// heldOpenLines say what quitting did to a held-open submission (sync or
// streaming, protocol §13): the POST is closed, the run goes on and its
// result is stored on both deployments, only the reply is lost; unless
// the handler fails, the daemon restarts or the fleet's call to its host
// breaks, when no record is ever written. "" for any other run.
func heldOpenLines(o *options, a *model.Action) string {
	if o.submission == nil || !o.submission.HeldOpen() || a.Settled() {
		return ""
	}
	return "the submission's POST was held open and is closed now: aipd goes on running " + safe.Line(a.ID) +
		" and stores its result; only the reply is lost (nothing was cancelled).\n" +
		"if it never settles, aipd may have lost its record (a failed handler, a daemon restart, or the fleet's call to its connector host broken): " +
		"never submit " + safe.Line(a.ID) + " again without its idempotency key " + safe.Line(o.submission.IdempotencyKey) + " (the journal keeps it).\n"
}

// unseen: aipd has no record of the action (state unknown) and nothing of
// it came, no chunk and no event: nothing says it runs.
func unseen(a *model.Action) bool {
	return a.Status != nil && a.Status.State == model.StateUnknown && a.ChunkCount() == 0 && len(a.Events()) == 0
}

// resumeCommand is the shell command that resumes from a cursor: the
// binary as it was invoked, and every flag the run needs to reach aipd
// (--context, --url, --token-file, --cacert, --allow-insecure-http) and to stay as
// private and as shaped as it was (--redact, --output, --record, …).
// Every part is quoted; nothing secret is in it (the token stays in its
// file, credentials in the URL are dropped). Paths become absolute, so the
// command works from another directory. --export is left out on purpose:
// the export of a resumed run holds only what follows the cursor, and the
// same path would overwrite the export this run just wrote.
func resumeCommand(o *options, cursor string) string {
	return resumeWith(o, cursor, o.actionID)
}

// resumeWith is resumeCommand for the actions ids name (several: design
// §12, each as given, CONTEXT/act_… too).
func resumeWith(o *options, cursor string, ids ...string) string {
	parts := []string{invokedAs()}
	flag := func(given bool, words ...string) {
		if given {
			parts = append(parts, words...)
		}
	}
	path := func(name, p string, fromContext bool) { flag(p != "" && !fromContext, name, shellQuote(absPath(p))) }
	// The context names the daemon and its credentials: what it gave is
	// not repeated, what flags or variables gave still is.
	flag(o.ctx.name != "", "--context", shellQuote(o.ctx.name))
	flag(!o.ctx.url, "--url", shellQuote(redactURL(o.url)))
	path("--token-file", o.tokenFile, o.ctx.token)
	path("--cacert", o.cacert, o.ctx.cacert)
	flag(o.allowInsecureHTTP, "--allow-insecure-http")
	flag(o.redact, "--redact")
	flag(o.output != "", "--output", o.output)
	flag(o.noColor, "--no-color")
	flag(o.timestamps, "--timestamps")
	path("--record", o.record, false)
	flag(o.rawCapMiB != defaultRawCapMiB, "--raw-cap-mib", strconv.Itoa(o.rawCapMiB))
	flag(o.appearTimeout != 0 && o.appearTimeout != stream.DefaultAppearTimeout, "--appear-timeout", o.appearTimeout.String())
	flag(o.stallTimeout != 0 && o.stallTimeout != stream.DefaultStallTimeout, "--stall-timeout", o.stallTimeout.String())
	flag(o.reason != "" && o.reason != defaultReason, "--reason", shellQuote(o.reason))
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

// panicReport is the short report of an internal error: the panic value on
// one sanitised line with the token scrubbed, no stack.
func panicReport(r any, o *options) string {
	msg := fmt.Sprint(r)
	if o != nil {
		safe.Protect(o.token) // scrubbed with the contract's mark by safe.Line (held once)
	}
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	report := "aipwatch: internal error: " + safe.Line(msg) + "\n" +
		"aipwatch stopped watching; the action, if any, keeps running (this was not a cancellation).\n"
	if o != nil && o.actionID != "" && o.replay == "" && o.demo == "" {
		report += "resume with: " + resumeCommand(o, o.cursor) + "\n"
	}
	return report
}
