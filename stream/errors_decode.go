package stream

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"aipwatch/model"
	"aipwatch/safe"
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
		e.Details = pe.Details
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
	return oneLine(strings.Join(strings.Fields(s), " "), 80) // the page's layout is not its words
}

// oneLine makes untrusted text one short line with safe.Line, the one
// sanitiser (design §5: a control shows as its placeholder, ␛ for ESC,
// whichever output prints it later), and cuts the result at max bytes on a
// rune boundary with "…".
func oneLine(s string, max int) string {
	out := safe.Line(s)
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}
