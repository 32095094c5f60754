package stream

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// TooLargeError is a reply over the cap, counted as it was read: on the
// wire (compressed) or after inflating it.
type TooLargeError struct {
	Max        int64
	Compressed bool // the bytes on the wire were over the cap
}

func (e *TooLargeError) Error() string {
	if e.Compressed {
		return fmt.Sprintf("the reply is larger than %d MiB on the wire", e.Max>>20)
	}
	return fmt.Sprintf("the reply is larger than %d MiB", e.Max>>20)
}

// capReader reads at most max bytes from r: the read that would pass the
// cap fails with a TooLargeError instead, so no more than max+1 bytes are
// ever taken from r.
type capReader struct {
	r          io.Reader
	n, max     int64
	compressed bool
}

// CapReader bounds r to max bytes (see capReader); compressed says which
// count it is, for the error.
func CapReader(r io.Reader, max int64, compressed bool) io.Reader {
	return &capReader{r: r, max: max, compressed: compressed}
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.max {
		return 0, &TooLargeError{Max: c.max, Compressed: c.compressed}
	}
	if room := c.max - c.n + 1; int64(len(p)) > room {
		p = p[:room] // one byte past the cap is enough to know
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.max {
		return 0, &TooLargeError{Max: c.max, Compressed: c.compressed}
	}
	return n, err
}

// acceptGzip is set on requests whose replies go through ReplyBody: with
// the header set by us, net/http does not inflate the body itself, so the
// bytes on the wire can be counted before they are inflated.
const acceptGzip = "gzip"

// ReplyBody is a reply's body bounded to max bytes both as received and
// as decoded: the wire bytes are counted as they are read, and a gzip body
// is inflated through a second count, so neither a large body nor a small
// one that inflates to gigabytes is read past the cap. Any encoding but
// gzip and identity is refused (only gzip is asked for).
func ReplyBody(resp *http.Response, max int64) (io.Reader, error) {
	wire := CapReader(resp.Body, max, true)
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return CapReader(wire, max, false), nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(wire)
		if err != nil {
			return nil, err
		}
		return CapReader(zr, max, false), nil
	default:
		return nil, fmt.Errorf("the reply has an unsupported Content-Encoding %q", oneLine(enc, 40))
	}
}
