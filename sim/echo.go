package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// echoToken makes the simulator a hostile server that echoes a secret (the
// bearer token) into every field a client prints, records or exports
// (Knobs.EchoToken). It models no daemon behaviour: docs/protocol.md
// describes none that echoes a credential; it is the hostile server of design §5,
// against design §5 ("whatever the server echoes").
//
// Responses: the secret is appended to every SSE id (the client's cursor)
// and to the values of the JSON string keys in echoKeys (text, tool
// fields, IDs, cursors, error messages); into "message" it goes as
// \u-escapes, so only a decoder sees it. Requests: every copy of the secret
// is removed from the query and Last-Event-ID before the simulator reads
// them, so the cursors it handed out still resolve.
func echoToken(h http.Handler, secret string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		q := strings.ReplaceAll(r.URL.RawQuery, url.QueryEscape(secret), "")
		r2.URL.RawQuery = strings.ReplaceAll(q, secret, "")
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			r2.Header.Set("Last-Event-ID", strings.ReplaceAll(id, secret, ""))
		}
		ew := &echoWriter{ResponseWriter: w, secret: secret}
		h.ServeHTTP(ew, r2)
		_ = ew.flushLines(true) // the client sees a failed write
	})
}

var echoKeys = regexp.MustCompile(`"(content|delta|text|label|tool|toolCallId|emoji|name|id|item_id|call_id|next_cursor|cursor|message|reason|details|arguments|output)":\s*"`)

// echoWriter rewrites the response line by line as it is written.
type echoWriter struct {
	http.ResponseWriter
	secret string
	buf    []byte
}

func (e *echoWriter) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	if err := e.flushLines(false); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes on every complete line, then flushes.
func (e *echoWriter) Flush() {
	_ = e.flushLines(false) // the client sees a failed write
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (abort).
func (e *echoWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

func (e *echoWriter) flushLines(all bool) error {
	i := bytes.LastIndexByte(e.buf, '\n')
	if all {
		i = len(e.buf) - 1
	}
	if i < 0 {
		return nil
	}
	out := e.rewrite(string(e.buf[:i+1]))
	e.buf = append(e.buf[:0], e.buf[i+1:]...)
	_, err := e.ResponseWriter.Write([]byte(out))
	return err
}

func (e *echoWriter) rewrite(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "id: ") || strings.HasPrefix(l, "id:") {
			body := strings.TrimRight(l, "\r\n")
			lines[i] = body + e.secret + l[len(body):]
			continue
		}
		lines[i] = e.intoStrings(l)
	}
	return strings.Join(lines, "")
}

// intoStrings appends the secret to the value of each echo key in l.
func (e *echoWriter) intoStrings(l string) string {
	locs := echoKeys.FindAllStringSubmatchIndex(l, -1)
	if locs == nil {
		return l
	}
	var b strings.Builder
	last := 0
	for _, m := range locs {
		end := stringEnd(l, m[1])
		if end < 0 || end < last {
			continue
		}
		b.WriteString(l[last:end])
		if l[m[2]:m[3]] == "message" {
			for _, c := range e.secret {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		} else {
			b.WriteString(e.secret)
		}
		last = end
	}
	b.WriteString(l[last:])
	return b.String()
}

// stringEnd is the offset of the closing quote of the JSON string whose
// contents start at i, or -1.
func stringEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
