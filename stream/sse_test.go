package stream

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	sse "github.com/r3labs/sse/v2"
)

// readAll splits s into parsed frames with the package's reader, and
// returns the error that ended it (io.EOF or errFrameCut).
func readAll(t testing.TB, r io.Reader, max int) ([]Frame, error) {
	t.Helper()
	fr := newFrameReader(r, max)
	var out []Frame
	for {
		tok, err := fr.next()
		if err != nil {
			return out, err
		}
		if f, ok := parseFrame(tok, time.Time{}); ok {
			out = append(out, f)
		}
	}
}

func frames(t *testing.T, s string) ([]Frame, error) {
	t.Helper()
	return readAll(t, strings.NewReader(s), MaxFrameSize)
}

// TestLibrarySplitter records what r3labs/sse's EventStreamReader does on
// its own, which is why the package puts normReader under it and checks
// the last token itself (stream/README.md cites this test).
func TestLibrarySplitter(t *testing.T) {
	split := func(s string) []string {
		esr := sse.NewEventStreamReader(strings.NewReader(s), 1<<20)
		var out []string
		for {
			tok, err := esr.ReadEvent()
			if err != nil {
				return out
			}
			out = append(out, string(tok))
		}
	}
	// Fine on its own: LF, CRLF and CR blank lines; comment-only frames are
	// returned (only its Client drops them).
	if got := split("data: a\n\ndata: b\r\n\r\ndata: c\r\r: keep-alive\n\n"); !reflect.DeepEqual(got,
		[]string{"data: a", "data: b", "data: c", ": keep-alive"}) {
		t.Errorf("plain endings: %q", got)
	}
	// Defect 1: a frame cut by EOF comes back like a complete one.
	if got := split("data: a\n\ndata: cut"); !reflect.DeepEqual(got, []string{"data: a", "data: cut"}) {
		t.Errorf("EOF tail: %q", got)
	}
	// Defect 2: "\n\r" (an LF line, then a CR blank line) is a frame end in
	// the SSE grammar but not to the splitter: two frames come back as one.
	if got := split("data: a\n\rdata: b\n\n"); !reflect.DeepEqual(got, []string{"data: a\n\rdata: b"}) {
		t.Errorf("LF then CR: %q", got)
	}
	// Lines inside a token keep their CR / CRLF endings: field parsing
	// would have to split on all three.
	if got := split("event: x\rdata: y\r\r"); !reflect.DeepEqual(got, []string{"event: x\rdata: y"}) {
		t.Errorf("CR lines: %q", got)
	}
}

func TestFramingLineEndings(t *testing.T) {
	want := []Frame{
		{Event: "aip.stream.cursor", ID: "aev_cursor_1_0", Data: []byte(`{"next_cursor":"aev_cursor_1_0"}`)},
		{Comment: "keep-alive"},
		{Event: "x", Data: []byte("line1\nline2")},
	}
	body := "event: aip.stream.cursor\ndata: {\"next_cursor\":\"aev_cursor_1_0\"}\nid: aev_cursor_1_0\n\n" +
		": keep-alive\n\n" +
		"event: x\ndata: line1\ndata: line2\n\n"
	for name, conv := range map[string]func(string) string{
		"LF":   func(s string) string { return s },
		"CRLF": func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"CR":   func(s string) string { return strings.ReplaceAll(s, "\n", "\r") },
		"mixed": func(s string) string {
			// LF lines ended by a CR blank line, CR lines, CRLF lines.
			s = strings.Replace(s, "\n\n", "\n\r", 1)
			s = strings.Replace(s, "keep-alive\n\n", "keep-alive\r\r", 1)
			return strings.Replace(s, "line1\n", "line1\r\n", 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, rd := range []func(string) io.Reader{
				func(s string) io.Reader { return strings.NewReader(s) },
				func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
			} {
				got, err := readAll(t, rd(conv(body)), MaxFrameSize)
				if err != io.EOF {
					t.Fatalf("end: %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %+v\nwant %+v", got, want)
				}
			}
		})
	}
}

func TestFramingFields(t *testing.T) {
	got, err := frames(t, "\ufeffid: chunk:3\nevent: aip.stream.chunk\ndata:{\"a\":1}\nretry: 10\nfoo: bar\ndata\n: note\n\n"+
		"data: x\nid\n\n"+ // an "id" line without a colon: an empty id
		"id: a\x00b\ndata: y\n\n"+ // an id with NUL is ignored
		"\n\n\n"+ // stray blank lines
		"retry: 5\n\n") // nothing to dispatch
	if err != io.EOF {
		t.Fatal(err)
	}
	want := []Frame{
		{Event: "aip.stream.chunk", ID: "chunk:3", Data: []byte("{\"a\":1}\n"), Comment: "note"},
		{Data: []byte("x")},
		{Data: []byte("y")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestFramingEOF(t *testing.T) {
	for _, tc := range []struct {
		body   string
		frames int
		err    error
	}{
		{"data: a\n\n", 1, io.EOF},
		{"data: a\n\n\n", 1, io.EOF},
		{"data: a\r\n\r\n\r\n", 1, io.EOF},
		{"", 0, io.EOF},
		{"data: a\n\ndata: b", 1, errFrameCut},
		{"data: a\n\ndata: b\n", 1, errFrameCut},
		{"data: a\n\n: keep-al", 1, errFrameCut},
		{"data: a\r\n\r\nevent: x\r\n", 1, errFrameCut},
		{"\xef\xbb", 0, errFrameCut}, // a BOM prefix alone is data
	} {
		got, err := frames(t, tc.body)
		if len(got) != tc.frames || err != tc.err {
			t.Errorf("%q: %d frames, %v; want %d, %v", tc.body, len(got), err, tc.frames, tc.err)
		}
	}
}

func TestFramingBigAndTooBig(t *testing.T) {
	big := strings.Repeat("x", 1<<20) // far over the library's 64 KiB default
	got, err := frames(t, "data: "+big+"\n\n")
	if err != io.EOF || len(got) != 1 || len(got[0].Data) != len(big) {
		t.Fatalf("1 MiB frame: %d frames, %v", len(got), err)
	}
	_, err = readAll(t, strings.NewReader("data: "+big+"\n\n"), 64<<10)
	if !errors.Is(err, bufio.ErrTooLong) {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestNormReaderBOMSplit(t *testing.T) {
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader("\ufeff: hi\n\n")), 1024)
	if err != io.EOF || len(got) != 1 || got[0].Comment != "hi" {
		t.Fatalf("%+v %v", got, err)
	}
	// A BOM prefix that is not a BOM is data, in order.
	n := &normReader{r: iotest.OneByteReader(strings.NewReader("\xef\xbbA\r\nB\rC"))}
	b, err := io.ReadAll(n)
	if err != nil || string(b) != "\xef\xbbA\nB\nC" || n.total != int64(len(b)) {
		t.Fatalf("%q %v total %d", b, err, n.total)
	}
}

// A transport error inside a frame (a chunked body cut short gives
// io.ErrUnexpectedEOF, not io.EOF) must not dispatch the partial frame:
// bufio.Scanner hands the splitter atEOF=true for any reader error.
func TestFramingTransportErrorMidFrame(t *testing.T) {
	boom := errors.New("unexpected EOF")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: {\"half"), iotest.ErrReader(boom))
	got, err := readAll(t, r, 1024)
	if len(got) != 1 || err != boom {
		t.Fatalf("%+v %v", got, err)
	}
	// ... and an error right after a complete frame is just the error.
	r = io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom))
	if got, err = readAll(t, r, 1024); len(got) != 1 || err != boom {
		t.Fatalf("%+v %v", got, err)
	}
}

// twoReads returns its parts a read each (or less, as p allows), the
// last with io.EOF.
type twoReads struct {
	parts []string
}

func (c *twoReads) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
		if len(c.parts) == 0 {
			return n, io.EOF // data and the end in one read
		}
	}
	return n, nil
}

// The feed under the splitter decides only where its reads end; every
// frame comes out the same wherever the body's reads are cut, including
// inside a "\n\n" and with the end of the body in the same read as data.
func TestFramingAnyCut(t *testing.T) {
	body := "event: aip.stream.chunk\ndata: {\"chunk\":{\"sequence\":1}}\nid: chunk:1\n\n" +
		": keep-alive\r\n\r\n" +
		"event: aip.stream.cursor\rdata: {\"next_cursor\":\"c\"}\rid: c\r\r" +
		"data: a\ndata: b\n\n"
	want, err := frames(t, body)
	if err != io.EOF || len(want) != 4 {
		t.Fatalf("whole body: %d frames, %v", len(want), err)
	}
	for n := range len(body) + 1 {
		got, err := readAll(t, &twoReads{parts: []string{body[:n], body[n:]}}, MaxFrameSize)
		if err != io.EOF || !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %d: %+v %v", n, got, err)
		}
	}
}

// readLog records each read the splitter makes.
type readLog struct {
	r     io.Reader
	reads []string
}

func (c *readLog) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.reads = append(c.reads, string(p[:n]))
	return n, err
}

// What makes the feed worth having: the splitter is handed at most one
// frame end a read, so it never searches a buffer of many frames again
// and again (see frameFeed).
func TestFeedHandsOneFrameARead(t *testing.T) {
	body := strings.Repeat("event: aip.stream.chunk\ndata: {\"x\":1}\nid: chunk:1\n\n", 50)
	f := &frameFeed{r: strings.NewReader(body), buf: make([]byte, feedSize)}
	c := &readLog{r: f}
	esr := sse.NewEventStreamReader(c, 1<<20)
	n := 0
	for {
		if _, err := esr.ReadEvent(); err != nil {
			break
		}
		n++
	}
	if n != 50 {
		t.Fatalf("%d frames, want 50", n)
	}
	for i, r := range c.reads {
		if k := strings.Count(r, "\n\n"); k > 1 {
			t.Fatalf("read %d holds %d frame ends: %q", i, k, r)
		}
	}
}

// A frame's id is a view of the same copy as its data: appending to the
// data must not reach it, and the frames of one read share its time.
func TestFrameIDAndTime(t *testing.T) {
	fr := newFrameReader(strings.NewReader("data: {}\nid: abc\n\ndata: x\nid: def\n\n"), 1024)
	var got []Frame
	for {
		tok, err := fr.next()
		if err != nil {
			break
		}
		f, _ := parseFrame(tok, fr.arrived())
		got = append(got, f)
	}
	if len(got) != 2 || got[0].ID != "abc" || got[1].ID != "def" {
		t.Fatalf("%+v", got)
	}
	_ = append(got[0].Data, "zzzz"...)
	if got[0].ID != "abc" || string(got[0].Data) != "{}" {
		t.Fatalf("append reached the id: %q %q", got[0].Data, got[0].ID)
	}
	if got[0].At.IsZero() || !got[0].At.Equal(got[1].At) {
		t.Fatalf("times %v %v: one read, one time", got[0].At, got[1].At)
	}
}
