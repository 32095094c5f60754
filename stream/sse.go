package stream

import (
	"bytes"
	"errors"
	"io"
	"time"
	"unsafe"

	sse "github.com/r3labs/sse/v2"
)

// MaxFrameSize is the largest SSE frame the reader accepts (16 MiB). aipd
// pages are at most 4 MiB, so a larger frame is a broken or hostile server.
const MaxFrameSize = 16 << 20

// errFrameCut: the body ended in the middle of a frame. The partial frame is
// not dispatched (WHATWG HTML §9.2.6: an event without its blank line is
// discarded at end of stream); the run treats it as a lost connection.
var errFrameCut = errors.New("connection closed in the middle of a frame")

// normReader turns every line ending of the SSE grammar (CRLF, lone CR, LF)
// into LF and drops a leading UTF-8 BOM, in place, so the splitter only ever
// sees "\n\n" as a frame end. It also counts the bytes it hands on (to tell
// a complete last frame from one cut by EOF). Bytes are not liveness: the
// idle watchdog counts complete frames (readFrames in run.go).
type normReader struct {
	r       io.Reader
	skipLF  bool   // the previous byte was CR: a following LF belongs to it
	bomSeen int    // BOM bytes matched so far at the start; -1 once past
	pending []byte // held BOM prefix that turned out not to be a BOM
	total   int64  // normalised bytes handed on
	err     error  // sticky error of the underlying reader
	eof     bool   // that error is io.EOF
}

var bom = []byte{0xEF, 0xBB, 0xBF}

func (n *normReader) Read(p []byte) (int, error) {
	for {
		if len(n.pending) > 0 {
			k := copy(p, n.pending)
			n.pending = n.pending[k:]
			n.total += int64(k)
			return k, nil
		}
		if n.err != nil {
			return 0, n.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		m, err := n.r.Read(p)
		k := n.normalise(p[:m])
		if err != nil {
			n.err = err
			n.eof = errors.Is(err, io.EOF)
			if n.bomSeen > 0 { // a lone BOM prefix at the end is data after all
				n.pending = append(n.pending, bom[:n.bomSeen]...)
			}
			n.bomSeen = -1
		}
		if k > 0 {
			n.total += int64(k)
			return k, nil
		}
	}
}

// normalise rewrites b in place and returns the new length. Output never
// outgrows input except for a held BOM prefix, which goes to pending.
func (n *normReader) normalise(b []byte) int {
	if n.bomSeen < 0 && !n.skipLF && bytes.IndexByte(b, '\r') < 0 {
		return len(b) // nothing to rewrite: the common case
	}
	w := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if n.bomSeen >= 0 {
			if c == bom[n.bomSeen] {
				n.bomSeen++
				if n.bomSeen == len(bom) {
					n.bomSeen = -1
				}
				continue
			}
			// Not a BOM: the held prefix is data. It must come before c, so
			// everything from here on goes through pending.
			held := bom[:n.bomSeen]
			n.bomSeen = -1
			if len(held) > 0 {
				rest := append([]byte(nil), b[i:]...)
				n.pending = append(n.pending, held...)
				n.pending = append(n.pending, n.normaliseCopy(rest)...)
				return w
			}
		}
		if n.skipLF {
			n.skipLF = false
			if c == '\n' {
				continue
			}
		}
		if c == '\r' {
			c = '\n'
			n.skipLF = true
		}
		b[w] = c
		w++
	}
	return w
}

func (n *normReader) normaliseCopy(b []byte) []byte {
	return b[:n.normalise(b)]
}

// frameReader splits a body into frames with r3labs/sse's EventStreamReader
// (our named SSE library; only its reader, never its Client, whose
// connection loop has the defects stream/README.md lists), over normReader,
// so its "\n\n" rule is exact for LF, CRLF and CR bodies alike, and tells a
// frame cut by EOF from a complete one.
type frameReader struct {
	norm     *normReader
	feed     *frameFeed
	esr      *sse.EventStreamReader
	consumed int64 // normalised bytes taken by the frames returned so far
}

func newFrameReader(r io.Reader, maxSize int) *frameReader {
	n := &normReader{r: r}
	f := &frameFeed{r: n, buf: make([]byte, feedSize)}
	return &frameReader{norm: n, feed: f, esr: sse.NewEventStreamReader(f, maxSize)}
}

// arrived is when the bytes of the frame next returned were read: the
// frames of one read all arrived together.
func (fr *frameReader) arrived() time.Time { return fr.feed.at }

// feedSize is how much frameFeed reads from the body at a time.
const feedSize = 32 << 10

// frameFeed hands the splitter at most one frame a read, from reads of up
// to feedSize bytes. The splitter looks for each of five line-ending
// patterns in everything it holds, on every call: with a buffer of many
// small frames that is many times the bytes of each (it was a sixth of the
// follow's CPU). Fed a frame at a time, it looks at that frame only. Only
// speed depends on where these reads end: the splitter still finds every
// frame end itself, so a frame split across two reads is whole all the
// same. The error of the reader below comes once the bytes before it are
// handed on.
type frameFeed struct {
	r      io.Reader
	buf    []byte
	lo, hi int
	err    error
	at     time.Time // when the bytes in buf were read
}

func (f *frameFeed) Read(p []byte) (int, error) {
	if f.lo == f.hi {
		if f.err != nil {
			return 0, f.err
		}
		m, err := f.r.Read(f.buf)
		f.lo, f.hi, f.err = 0, m, err
		f.at = time.Now()
		if m == 0 {
			return 0, err
		}
	}
	rest := f.buf[f.lo:f.hi]
	if i := bytes.Index(rest, frameEnd); i >= 0 {
		rest = rest[:i+len(frameEnd)]
	}
	n := copy(p, rest)
	f.lo += n
	return n, nil
}

var frameEnd = []byte("\n\n")

// next returns the raw text of the next frame (LF line endings, without its
// terminating blank line), valid until the following call. At the end of
// the body it returns io.EOF, or errFrameCut when the body ended inside a
// frame. Other errors are the transport's (or bufio.ErrTooLong).
func (fr *frameReader) next() ([]byte, error) {
	tok, err := fr.esr.ReadEvent()
	if err != nil {
		return nil, err
	}
	// The splitter returns "frame" for "frame\n\n", advancing by len+2; when
	// the reader has failed or ended (bufio.Scanner then calls it with atEOF
	// set, for io.EOF and for any other error alike) it returns the
	// unterminated rest as a token. Only that last token ends exactly at the
	// end of the data read.
	if fr.norm.err != nil && fr.consumed+int64(len(tok)) == fr.norm.total {
		fr.consumed += int64(len(tok))
		switch {
		case !fr.norm.eof:
			return nil, fr.norm.err // the transport failed inside a frame
		case len(bytes.Trim(tok, "\n")) == 0:
			return nil, io.EOF // only stray newlines after the last frame
		}
		return nil, errFrameCut
	}
	fr.consumed += int64(len(tok)) + 2
	return tok, nil
}

// parseFrame applies the SSE field grammar to one frame's text: any field
// order, "field:value" with one optional space after the colon, several
// data lines joined with "\n", comment lines (":" first), a line without a
// colon as a field with an empty value, unknown fields ignored. ok is false
// when the frame holds nothing at all (only blank lines or retry:).
func parseFrame(tok []byte, at time.Time) (f Frame, ok bool) {
	f.At = at
	var data, comment, id []byte
	hasData, hasComment, hasID, hasEvent := false, false, false, false
	dataLines := 0
	for len(tok) > 0 {
		var line []byte
		if i := bytes.IndexByte(tok, '\n'); i >= 0 {
			line, tok = tok[:i], tok[i+1:]
		} else {
			line, tok = tok, nil
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == ':' {
			v := line[1:]
			if len(v) > 0 && v[0] == ' ' {
				v = v[1:]
			}
			if hasComment {
				comment = append(comment, '\n')
			}
			comment = append(comment, v...)
			hasComment = true
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "event":
			f.Event, hasEvent = eventName(value), true
		case "data":
			switch {
			case !hasData:
				data = value // a frame's one data line is copied only once, below
			case dataLines == 1:
				data = append(append(append([]byte{}, data...), '\n'), value...)
			default:
				data = append(append(data, '\n'), value...)
			}
			hasData = true
			dataLines++
		case "id":
			if bytes.IndexByte(value, 0) < 0 { // the spec ignores ids with NUL
				id, hasID = value, true
			}
		}
	}
	// The data and the id share one copy: the id is a view of its end,
	// and the data is capped so that appending to it cannot reach the id.
	if hasData || len(id) > 0 {
		buf := make([]byte, 0, len(data)+len(id))
		buf = append(append(buf, data...), id...)
		if hasData {
			f.Data = buf[:len(data):len(data)]
		}
		if len(id) > 0 {
			f.ID = unsafe.String(&buf[len(data)], len(id))
		}
	}
	if hasComment {
		f.Comment = string(comment)
	}
	return f, hasData || hasComment || hasID || hasEvent
}

// eventName is the frame's event name as a string, without a copy for
// the names aipd sends on every frame.
func eventName(v []byte) string {
	switch string(v) {
	case evChunk:
		return evChunk
	case evCursor:
		return evCursor
	case evTerminal:
		return evTerminal
	}
	return string(v)
}

// keepalive reports a comment-only frame.
func (f *Frame) keepalive() bool {
	return f.Data == nil && f.Event == "" && f.ID == ""
}
