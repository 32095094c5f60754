package stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// countingReader counts the bytes taken from the wire.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func readCapped(t *testing.T, body []byte, encoding string, max int64) ([]byte, int, error) {
	t.Helper()
	wire := &countingReader{r: bytes.NewReader(body)}
	resp := &http.Response{Header: http.Header{}, Body: io.NopCloser(wire)}
	if encoding != "" {
		resp.Header.Set("Content-Encoding", encoding)
	}
	r, err := ReplyBody(resp, max)
	if err != nil {
		return nil, wire.n, err
	}
	data, err := io.ReadAll(r)
	return data, wire.n, err
}

// The reply cap holds on the bytes on the wire and on the inflated bytes,
// as they are read: a gzip bomb stops at the cap of inflated bytes, a large
// body at the cap of wire bytes, and an honest gzip reply reads whole.
func TestReplyCapCompressedAndDecompressed(t *testing.T) {
	t.Parallel()
	const max = 64 << 10
	bomb := gzipped(t, make([]byte, 64*max)) // 4 MiB of zeros in a few KiB
	if len(bomb) > max {
		t.Fatalf("the bomb is %d bytes: not a bomb", len(bomb))
	}
	_, _, err := readCapped(t, bomb, "gzip", max)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Compressed {
		t.Fatalf("gzip bomb: %v", err)
	}

	big := bytes.Repeat([]byte("x"), 2*max)
	_, wireN, err := readCapped(t, big, "", max)
	if !errors.As(err, &tl) || wireN > max+1+32<<10 {
		t.Fatalf("large body: %v after %d wire bytes", err, wireN)
	}

	// Incompressible bytes, gzipped: over the cap on the wire already.
	noise := make([]byte, 2*max)
	rand.Read(noise)
	_, _, err = readCapped(t, gzipped(t, noise), "gzip", max)
	if !errors.As(err, &tl) || !tl.Compressed {
		t.Fatalf("large gzip body: %v", err)
	}

	honest := []byte(strings.Repeat(`{"a":1}`, 1000))
	got, _, err := readCapped(t, gzipped(t, honest), "gzip", max)
	if err != nil || !bytes.Equal(got, honest) {
		t.Fatalf("honest gzip reply: %v, %d bytes", err, len(got))
	}
	got, _, err = readCapped(t, make([]byte, max), "", max)
	if err != nil || len(got) != max {
		t.Fatalf("a reply of exactly the cap: %v, %d bytes", err, len(got))
	}
	if _, _, err := readCapped(t, []byte("x"), "br", max); err == nil || !strings.Contains(err.Error(), "Content-Encoding") {
		t.Fatalf("unasked encoding: %v", err)
	}
}

// JSON replies are asked for gzip by aipwatch itself, so net/http hands
// over the wire bytes, and a gzip reply decodes as before.
func TestJSONRepliesAreReadThroughTheCap(t *testing.T) {
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(t, []byte(`{"action_status":{"action_id":"act_1","state":"streaming"}}`)))
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(context.Background())
	if err != nil || st.State != "streaming" || asked != "gzip" {
		t.Fatalf("status %+v, err %v, Accept-Encoding %q", st, err, asked)
	}
}
