package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"aipwatch/safe"
)

// fuzzRead frames and routes b, returning a printable trace.
func fuzzRead(t testing.TB, r io.Reader) ([]Frame, []routed, error) {
	fs, err := readAll(t, r, 1<<16)
	var rs []routed
	for i := range fs {
		rs = append(rs, route(&fs[i]))
	}
	return fs, rs, err
}

// cutReader hands b on in pieces of pseudo-random size (1 to 64 bytes),
// the same pieces for the same b.
type cutReader struct {
	b   []byte
	rnd *rand.Rand
}

func newCutReader(b []byte) *cutReader {
	sum := uint64(crc32.ChecksumIEEE(b))
	return &cutReader{b: b, rnd: rand.New(rand.NewPCG(sum, sum^0x9e3779b97f4a7c15))}
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rnd.IntN(64))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// refFrames is an independent, line-by-line reading of the SSE event
// stream grammar (WHATWG HTML §9.2.6) over the whole body, with aipwatch's
// two documented departures: a frame is dispatched when it has any field or
// comment (keep-alives and id-only frames count, not only data), and its id
// is its own (no last-event-ID inheritance). Bytes are compared as they
// are, without UTF-8 decoding. The end is io.EOF, or errFrameCut when
// anything after the last blank line was left undispatched.
func refFrames(b []byte) ([]Frame, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var out []Frame
	var cur Frame
	var data, comment []byte
	hasData, hasComment, anyField := false, false, false
	pending := false
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			return out, errFrameCut // an unterminated last line
		}
		line := b[:i]
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			b = b[i+2:]
		} else {
			b = b[i+1:]
		}
		if len(line) == 0 {
			if anyField {
				if hasData {
					cur.Data = append([]byte{}, data...)
				}
				if hasComment {
					cur.Comment = string(comment)
				}
				out = append(out, cur)
			}
			cur, data, comment = Frame{}, nil, nil
			hasData, hasComment, anyField, pending = false, false, false, false
			continue
		}
		pending = true
		if line[0] == ':' {
			v := bytes.TrimPrefix(line[1:], []byte(" "))
			if hasComment {
				comment = append(comment, '\n')
			}
			comment = append(comment, v...)
			hasComment, anyField = true, true
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "event":
			cur.Event, anyField = string(value), true
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData, anyField = true, true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				cur.ID, anyField = string(value), true
			}
		}
	}
	if pending {
		return out, errFrameCut
	}
	return out, io.EOF
}

// FuzzFrames: on any body, framing and routing never panic; frames do not
// depend on how the body is cut into reads (one read, one-byte reads,
// random pieces); they equal an independent reading of the SSE grammar
// (refFrames), including which endings are a cut frame; a transport error
// at the end never dispatches a partial frame; routing is deterministic;
// and no cursor ever comes from a chunk or event id.
func FuzzFrames(f *testing.F) {
	f.Add([]byte("event: aip.stream.cursor\ndata: {\"next_cursor\":\"aev_cursor_1_0\"}\nid: aev_cursor_1_0\n\n"))
	f.Add([]byte("id: chunk:0\r\nevent: aip.stream.chunk\r\ndata: {\"chunk\":{\"action_id\":\"act_1\",\"sequence\":0,\"kind\":\"data\"}}\r\n\r\n"))
	f.Add([]byte(": keep-alive\r\r\ndata: x\n\rdata"))
	f.Add([]byte("\xef\xbb\xbf\xef\xbb\xbfdata: twice BOM\n\n\r"))
	f.Add([]byte("event: aip.error\ndata: {\"error\":{\"code\":\"stream.cursor_expired\",\"category\":\"permanent\"}}\n\nevent: aip.stream.terminal\ndata: {\"terminal\":true}\nid: evt_9\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs1, rs1, err1 := fuzzRead(t, bytes.NewReader(b))
		fs2, rs2, err2 := fuzzRead(t, iotest.OneByteReader(bytes.NewReader(b)))
		fs3, rs3, err3 := fuzzRead(t, newCutReader(b))
		if err1 != err2 || err1 != err3 || !reflect.DeepEqual(fs1, fs2) || !reflect.DeepEqual(fs1, fs3) {
			t.Fatalf("read boundaries matter: %v/%v/%v\n%+v\n%+v\n%+v", err1, err2, err3, fs1, fs2, fs3)
		}
		tooLong := errors.Is(err1, bufio.ErrTooLong)
		if !tooLong {
			want, wantErr := refFrames(b)
			if err1 != wantErr || !reflect.DeepEqual(fs1, want) {
				t.Fatalf("differs from the SSE grammar: %v, want %v\n got %+v\nwant %+v", err1, wantErr, fs1, want)
			}
			// A transport error instead of EOF: the same complete frames,
			// never the partial one, and the error itself.
			boom := errors.New("unexpected EOF")
			fs4, _, err4 := fuzzRead(t, io.MultiReader(newCutReader(b), iotest.ErrReader(boom)))
			if err4 != boom || !reflect.DeepEqual(fs4, fs1) {
				t.Fatalf("transport error at the end: %v\n%+v\n%+v", err4, fs4, fs1)
			}
		}
		for _, rs := range [][]routed{rs2, rs3} {
			if len(rs) != len(rs1) {
				t.Fatal("routing differs")
			}
			for i, rt := range rs {
				if rt.kind != rs1[i].kind || rt.cursor != rs1[i].cursor || rt.reason != rs1[i].reason {
					t.Fatalf("routing differs at %d", i)
				}
			}
		}
		for i, rt := range rs1 {
			switch rt.kind {
			case routeCursor:
				if !validCursor(rt.cursor) {
					t.Fatalf("cursor %q", rt.cursor)
				}
			case routeTerminal:
				if rt.cursor != "" && !validCursor(rt.cursor) {
					t.Fatalf("terminal cursor %q", rt.cursor)
				}
			case routeChunk:
				if rt.chunk.Raw == nil || !json.Valid(rt.chunk.Raw) {
					t.Fatal("chunk without its raw bytes")
				}
			case routeError:
				if rt.perr == nil {
					t.Fatal("error without ProtocolError")
				}
			case routeBad:
				if strings.ContainsAny(rt.reason, "\n\r") || len(rt.reason) > 200 {
					t.Fatalf("bad-frame reason %q", rt.reason)
				}
			}
			if rt.cursor != "" && rt.cursor != strings.TrimSpace(fs1[i].ID) {
				var top struct {
					NextCursor string `json:"next_cursor"`
				}
				if json.Unmarshal(fs1[i].Data, &top) != nil || strings.TrimSpace(top.NextCursor) != rt.cursor {
					t.Fatalf("cursor %q from neither the id %q nor next_cursor", rt.cursor, fs1[i].ID)
				}
			}
		}
	})
}

// fuzzToken is the bearer token of the error fuzzing: random-looking, so
// a fragment of it in a line cannot be a coincidence.
const fuzzToken = "Zq7xK2pW9mB4vT6nR1sY"

// tokenLeak returns a fragment of the token (8 bytes or more) that is in
// line but not in what the server sent (with every whole token cut out):
// aipwatch itself cut the token short. "" when there is none.
func tokenLeak(line string, sent ...string) string {
	var src []string
	for _, s := range sent {
		src = append(src, strings.ReplaceAll(s, fuzzToken, "\x00"))
	}
	from := strings.Join(src, "\x00")
	for n := len(fuzzToken); n >= 8; n-- {
		for i := 0; i+n <= len(fuzzToken); i++ {
			frag := fuzzToken[i : i+n]
			if strings.Contains(line, frag) && !strings.Contains(from, frag) {
				return frag
			}
		}
	}
	return ""
}

// checkLine: an Error line is one line of printable, valid UTF-8 without
// the token.
func checkLine(t *testing.T, what, line string) {
	t.Helper()
	// The real property, not one of its own: the line is what the one
	// sanitiser (safe.Line) leaves as it is, so an output that applies it
	// again shows the same.
	if !utf8.ValidString(line) || safe.Line(line) != line {
		t.Fatalf("%s: not one safe line: %q", what, line)
	}
	if strings.Contains(line, fuzzToken) {
		t.Fatalf("%s: the token in %q", what, line)
	}
}

var fuzzCategories = []string{"auth", "policy", "temporary", "transport", "connector", "economic", "permanent", ""}

// statusFor is the HTTP status of a category (protocol §7.3).
func statusFor(category string) int {
	switch category {
	case "auth":
		return http.StatusUnauthorized
	case "policy":
		return http.StatusForbidden
	case "temporary", "transport":
		return http.StatusServiceUnavailable
	case "connector":
		return http.StatusBadGateway
	case "economic":
		return http.StatusPaymentRequired
	}
	return http.StatusBadRequest
}

func replyOf(status int, ctype string, body []byte) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}},
		Body: io.NopCloser(bytes.NewReader(body))}
}

// frameError runs an aip.error frame through the follow handling and
// returns the Error the run would report.
func frameError(t *testing.T, c *Client, data []byte) *Error {
	t.Helper()
	r := newRunner(c, SinkFunc(func(Msg) {}))
	defer r.batchTimer.Stop()
	end, done := r.handle(&Frame{Event: evError, Data: data})
	if !done || end.err == nil {
		t.Fatalf("aip.error frame %q did not end the connection: %+v", data, end)
	}
	return end.err
}

// FuzzErrorLine: whatever code and message the server puts in an error
// envelope or an aip.error frame, and whatever other body it sends with any
// status, the Error line is one line of printable UTF-8 that names the code
// and never holds the token, not even cut short.
func FuzzErrorLine(f *testing.F) {
	f.Add("auth.native_http_unauthorized", "missing bearer token", uint8(0), []byte("<html><title>502 Bad Gateway</title></html>"))
	f.Add("stream.cursor_expired", strings.Repeat("x", 190)+fuzzToken, uint8(6), []byte(`{"error":{"code":"x","message":"`+fuzzToken+`"}}`))
	f.Add("storage.unavailable", "line one\nline two\x1b[31m\u0085", uint8(2), []byte("plain text\r\nsecond"))
	f.Add(fuzzToken, "Bearer "+fuzzToken, uint8(4), []byte(nil))
	f.Fuzz(func(t *testing.T, code, message string, cat uint8, raw []byte) {
		c, err := New(Config{BaseURL: "http://127.0.0.1:9", Token: fuzzToken, ActionID: "act_1"})
		if err != nil {
			t.Fatal(err)
		}
		category := fuzzCategories[int(cat)%len(fuzzCategories)]
		pe := map[string]any{"code": code, "message": message, "category": category}
		inner, _ := json.Marshal(map[string]any{"error": pe})
		env, _ := json.Marshal(map[string]any{"aip_version": "1.0", "message_type": "aip.core.v1.error",
			"body": map[string]any{"error": map[string]any{"error": pe}}})
		// What the server meant to say, as the client decodes it.
		var sent struct{ Code, Message string }
		_ = json.Unmarshal(inner, &struct{ Error any }{&sent})

		status := statusFor(category)
		lines := map[string]*Error{
			"envelope": c.httpError("follow", replyOf(status, "application/json", env)),
			"frame":    frameError(t, c, inner),
		}
		for what, e := range lines {
			line := e.Error()
			checkLine(t, what, line)
			if frag := tokenLeak(line, sent.Code, sent.Message); frag != "" {
				t.Fatalf("%s: token cut short to %q in %q", what, frag, line)
			}
			if sent.Code != "" && oneLine(sent.Code, 80) == sent.Code && !strings.Contains(sent.Code, fuzzToken) &&
				!strings.Contains(line, sent.Code) {
				t.Fatalf("%s: %q does not name the code %q", what, line, sent.Code)
			}
		}

		// Any other reply body with any status: still one clean line.
		for _, ctype := range []string{"application/json", "text/html", "text/plain"} {
			e := c.httpError("result", replyOf(400+int(cat)%200, ctype, raw))
			checkLine(t, "raw "+ctype, e.Error())
		}
		checkLine(t, "raw frame", frameError(t, c, raw).Error())
	})
}
