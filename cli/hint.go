package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"aipwatch/safe"
	"aipwatch/stream"
)

// startupHint is the line that follows an error that stopped aipwatch
// before aipd ever answered (run.Attached): what to check, by the kind of failure; ""
// when there is nothing to check (aipd answered with an error of its own).
// printHint prints it.
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
	if o.ctx.url {
		urlSrc = "context " + o.ctx.name + "'s url (aipwatch contexts)"
	}
	if o.ctx.token {
		tokenFlags = "context " + o.ctx.name + "'s token_file (aipwatch contexts)"
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

// printHint prints startupHint's line, if it has one.
func printHint(w io.Writer, o *conn, actionID string, err error) {
	if h := startupHint(o, actionID, err); h != "" {
		fmt.Fprintln(w, safe.Line(h))
	}
}
