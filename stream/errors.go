package stream

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Error is one failure of a request to aipd, reduced to what an operator
// needs: what aipwatch was doing, the AIP error code (from the envelope at
// /body/error/error, or from an aip.error frame), the HTTP status, and the
// server's message. It never carries a Go stack, a struct dump or the token.
type Error struct {
	Op         string // "status", "follow", "page", "result", "cancel"
	Code       string // AIP code; "" when the reply was not AIP JSON
	HTTPStatus int    // 0 when no HTTP reply (transport error)
	Message    string
	Retryable  bool
	// Details is the error's details object as aipd sent it (untrusted:
	// read fields with DetailString, never print it whole).
	Details json.RawMessage

	retryAfter time.Duration // Retry-After / retry_after_ms, when the server gave one
	transport  bool          // no reply at all: refused, reset, TLS, a timeout (transportError)
	plain      bool          // an https:// URL whose port answered in plain HTTP
}

// PlainHTTP reports whether an https:// URL's port answered in plain HTTP:
// the scheme is wrong, and no retry changes that.
func (e *Error) PlainHTTP() bool { return e != nil && e.plain }

// Transport reports whether the request got no reply at all (a refused or
// reset connection, a TLS failure, a timeout), as opposed to a reply that
// was wrong.
func (e *Error) Transport() bool { return e != nil && e.transport }

// Denied reports whether aipd refused the credentials: an auth.* code, or
// HTTP 401 or 403 without an AIP code. No retry changes that (design
// §2.6): the one rule of every caller that stops on it. A 401 with another
// code is not the token: the provider refusing aipd's own key for it
// (connector.hermes_agent.authentication, protocol open point
// 8), or a replayed message_id (replay.message_id, category auth, §1.1).
func (e *Error) Denied() bool {
	if e == nil {
		return false
	}
	if e.Code != "" {
		return strings.HasPrefix(e.Code, "auth.")
	}
	return e.HTTPStatus == 401 || e.HTTPStatus == 403
}

// Error is one clear line, e.g.
// "follow: auth.native_http_unauthorized (HTTP 401): missing bearer token",
// "status: HTTP 502: 502 Bad Gateway", "follow: connection refused (127.0.0.1:8080)".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	switch {
	case e.Code != "" && e.HTTPStatus != 0:
		fmt.Fprintf(&b, "%s (HTTP %d)", e.Code, e.HTTPStatus)
	case e.Code != "":
		b.WriteString(e.Code)
	case e.HTTPStatus != 0:
		fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
	case e.Message != "":
		b.WriteString(e.Message) // a transport or local failure: the message says it all
		return b.String()
	default:
		b.WriteString("request failed")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// DetailString is one string field of the error's details ("" when absent
// or not a string), made one short line.
func (e *Error) DetailString(key string) string {
	if e == nil {
		return ""
	}
	return detailString(e.Details, key)
}

func detailString(details json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(details, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return oneLine(s, 200)
}
