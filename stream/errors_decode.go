package stream

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"aipwatch/model"
)

// Codes the run treats specially.
const (
	codeCursorExpired  = "stream.cursor_expired"
	codeInvalidCursor  = "query.invalid_cursor"
	codeResultNotReady = "action.result_not_ready"
	codeGone           = "action.gone"
	codeDeadLettered   = "action.dead_lettered"
	codeUnknown        = "action.unknown" // ours: status said "unknown" and nothing of it appeared
	codeNotFound       = "action.not_found"
)

func cursorRefused(code string) bool { return code == codeCursorExpired || code == codeInvalidCursor }

// protocolErrorIn finds the ProtocolError in an error body: the full
// envelope (/body/error/error), a bare ErrorBody (/body/error or /error
// holding {"error": …}), or the smaller {"error":{"code","message"}} shape.
func protocolErrorIn(body []byte) *model.ProtocolError {
	var probe struct {
		Body *struct {
			Error json.RawMessage `json:"error"`
		} `json:"body"`
		Error json.RawMessage `json:"error"`
		Code  string          `json:"code"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return nil
	}
	var cands []json.RawMessage
	if probe.Body != nil && probe.Body.Error != nil {
		cands = append(cands, probe.Body.Error)
	}
	if probe.Error != nil {
		cands = append(cands, probe.Error)
	}
	for _, raw := range cands {
		var inner struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &inner) == nil && inner.Error != nil {
			if pe := decodePE(inner.Error); pe != nil {
				return pe
			}
		}
		if pe := decodePE(raw); pe != nil {
			return pe
		}
	}
	if probe.Code != "" {
		return decodePE(body)
	}
	return nil
}

func decodePE(raw json.RawMessage) *model.ProtocolError {
	var pe model.ProtocolError
	if json.Unmarshal(raw, &pe) != nil || pe.Code == "" {
		return nil
	}
	return &pe
}

// retryablePE: the error says trying again may work.
func retryablePE(pe *model.ProtocolError) bool {
	if pe.Retryable {
		return true
	}
	switch pe.Category {
	case "temporary", "transport":
		return true
	}
	switch pe.Code {
	case "storage.unavailable", "runtime.handler_failed", "stream.encode_failed", codeResultNotReady:
		return true
	}
	return false
}

// httpError reduces a non-2xx reply to one Error: the AIP code and message
// when the body is AIP JSON; else the status with a short sanitised snippet
// (a proxy's HTML page, axum's plain-text 400).
func (c *Client) httpError(op string, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Op: op, HTTPStatus: resp.StatusCode}
	if pe := protocolErrorIn(body); pe != nil {
		e.Code = pe.Code
		e.Message = pe.Message
		e.Retryable = retryablePE(pe)
		if pe.RetryAfterMs > 0 {
			e.retryAfter = time.Duration(pe.RetryAfterMs) * time.Millisecond
		}
	} else {
		e.Message = snippet(resp.Header.Get("Content-Type"), body)
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout {
		e.Retryable = true
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		e.Retryable = false
	}
	if d := parseRetryAfter(resp.Header.Get("Retry-After")); d > e.retryAfter {
		e.retryAfter = d
	}
	return c.clean(e)
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// snippet is at most a short line of a non-AIP body: an HTML page's title
// (or its text), else the first line of the text.
func snippet(ctype string, body []byte) string {
	s := string(body)
	if strings.Contains(strings.ToLower(ctype), "html") || strings.HasPrefix(strings.TrimSpace(s), "<") {
		if m := titleRE.FindStringSubmatch(s); m != nil {
			s = m[1]
		} else {
			s = tagRE.ReplaceAllString(s, " ")
		}
	}
	return oneLine(s, 80)
}

// oneLine makes untrusted text one short line: control characters (C0, C1,
// DEL, so also escape sequences' ESC) become spaces, runs of space collapse,
// invalid UTF-8 is replaced, and the result is cut at max bytes on a rune
// boundary with "…".
func oneLine(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

// transportError turns a failed request into a one-liner such as
// "connection refused (127.0.0.1:8080)", never a Go struct dump or a URL
// with userinfo.
func (c *Client) transportError(op string, err error) *Error {
	return c.clean(&Error{Op: op, Message: c.transportMessage(err), Retryable: true})
}

func (c *Client) transportMessage(err error) string {
	host := c.base.Host
	var dnsErr *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr *x509.CertificateInvalidError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (" + host + ")"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by " + host
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable (" + host + ")"
	case errors.As(err, &dnsErr):
		return "cannot resolve host " + dnsErr.Name
	case errors.As(err, &unknownCA):
		return "TLS certificate of " + host + " is not signed by a trusted CA (see --cacert)"
	case errors.As(err, &hostErr):
		return "TLS certificate is not valid for " + host
	case errors.As(err, &certErr):
		return "TLS certificate of " + host + " is invalid"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed by " + host
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out talking to " + host
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out talking to " + host
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop "Get \"http://user:pw@…\":"
	}
	msg := err.Error()
	if strings.Contains(msg, "server gave HTTP response to HTTPS client") {
		return host + " speaks plain HTTP, not HTTPS"
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg)-i > 8 {
		msg = msg[i+2:] // the innermost cause, e.g. "no route to host"
	}
	return oneLine(msg+" ("+host+")", 160)
}

// clean makes an Error safe to show: one line, never the token. The token
// goes before the line is cut to length: cutting first left a token the
// server echoed near the end as a prefix that redact no longer matched
// (FuzzErrorLine). The second pass is only a cheap belt and braces.
func (c *Client) clean(e *Error) *Error {
	e.Message = c.redact(oneLine(c.redact(e.Message), 200))
	e.Code = c.redact(oneLine(c.redact(e.Code), 80))
	return e
}

func (c *Client) redact(s string) string {
	if c.cfg.Token != "" && strings.Contains(s, c.cfg.Token) {
		s = strings.ReplaceAll(s, c.cfg.Token, "[redacted]")
	}
	return s
}
