package sim

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// frameWriter writes the follow body: frames as axum writes them
// ("event: X\ndata: {...}\nid: Y\n\n"), keep-alive comments, and the
// transport faults of the knobs.
type frameWriter struct {
	ctx    context.Context
	w      http.ResponseWriter
	rc     *http.ResponseController
	k      *Knobs
	frames int       // frames written on this connection
	last   time.Time // last write of anything
	buf    []byte
	// scratch is for callers rendering a payload.
	scratch []byte
}

// errDropped ends a connection that DropAfterFrames cut.
var errDropped = errors.New("sim: connection dropped on purpose")

// item writes an Event or StreamChunk frame: data is {"<key>": payload}.
func (fw *frameWriter) item(event, key string, payload []byte, id string) error {
	b := append(fw.buf[:0], "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: {\""...)
	b = append(b, key...)
	b = append(b, "\":"...)
	b = append(b, payload...)
	b = append(b, "}\nid: "...)
	b = append(b, id...)
	b = append(b, "\n\n"...)
	fw.buf = b
	return fw.emit(b)
}

// frame writes a frame with literal data; id "" leaves the id line out.
func (fw *frameWriter) frame(event, data, id string) error {
	b := append(fw.buf[:0], "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	if id != "" {
		b = append(b, "\nid: "...)
		b = append(b, id...)
	}
	b = append(b, "\n\n"...)
	fw.buf = b
	return fw.emit(b)
}

// errorFrame writes aip.error (no id); the stream ends after it.
func (fw *frameWriter) errorFrame(e *protoErr) {
	if fw.frame("aip.error", `{"error":`+string(e.json())+`}`, "") == nil {
		_ = fw.flush()
	}
}

func (fw *frameWriter) emit(b []byte) error {
	if err := fw.ctx.Err(); err != nil {
		return err
	}
	if n := fw.k.DropAfterFrames; n > 0 && fw.frames+1 >= n {
		if fw.k.CutFrame {
			b = b[:len(b)/2]
		}
		_ = fw.write(b)
		fw.abort()
		return errDropped
	}
	fw.frames++
	return fw.write(b)
}

func (fw *frameWriter) write(b []byte) error {
	if fw.k.SlowBytes <= 0 {
		_, err := fw.w.Write(b)
		fw.last = time.Now()
		return err
	}
	for i := range b {
		if _, err := fw.w.Write(b[i : i+1]); err != nil {
			return err
		}
		if err := fw.rc.Flush(); err != nil {
			return err
		}
		fw.last = time.Now()
		if err := sleep(fw.ctx, fw.k.SlowBytes); err != nil {
			return err
		}
	}
	return nil
}

func (fw *frameWriter) flush() error {
	if err := fw.rc.Flush(); err != nil {
		return err
	}
	return fw.ctx.Err()
}

// abort closes the connection under the response, without the chunked
// terminator, so the client sees the body cut off.
func (fw *frameWriter) abort() {
	_ = fw.rc.Flush()
	if conn, _, err := fw.rc.Hijack(); err == nil {
		_ = conn.Close()
	}
}

func (fw *frameWriter) keepalive() error {
	if err := fw.write([]byte(": keep-alive\n\n")); err != nil {
		return err
	}
	return fw.flush()
}

// idle waits d. With keepalive, a comment goes out whenever nothing was
// written for the keep-alive interval.
func (fw *frameWriter) idle(d time.Duration, keepalive bool) error {
	end := time.Now().Add(d)
	for {
		now := time.Now()
		if !now.Before(end) {
			return fw.ctx.Err()
		}
		wake := end
		if keepalive {
			due := fw.last.Add(fw.k.KeepaliveInterval)
			if !now.Before(due) {
				if err := fw.keepalive(); err != nil {
					return err
				}
				continue
			}
			wake = minTime(wake, due)
		}
		if err := sleep(fw.ctx, wake.Sub(now)); err != nil {
			return err
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
