package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"aipwatch/model"
)

// Config says where and how to follow one action.
type Config struct {
	BaseURL  string       // e.g. http://127.0.0.1:8080 (a trailing slash is fine; a path prefix is kept)
	Token    string       // bearer token; "" = no Authorization header. Never appears in any error or message.
	ActionID string       // act_…
	Cursor   string       // start cursor ("" = from the beginning)
	HTTP     *http.Client // nil = a client with connect/TLS/header timeouts and no overall timeout

	IdleTimeout   time.Duration // 0 = 45 s: no complete frame (keep-alives included) for this long → reconnect
	BackoffMin    time.Duration // 0 = 250 ms
	BackoffMax    time.Duration // 0 = 10 s; doubling with jitter, reset after a healthy connection
	BatchInterval time.Duration // 0 = 33 ms

	// AppearTimeout bounds the wait for an action aipd has no record of
	// (state unknown) to show its first event or chunk (design §2 step 1).
	AppearTimeout time.Duration // 0 = 1 min
	// StallTimeout: an action with chunks but no record and no result that
	// shows no new chunk for this long will never settle (§2 step 6b).
	StallTimeout time.Duration // 0 = 6 min
	// PollInterval is the pause between reads in cursor-free reading (§2
	// step 6), used once aipd has refused its own cursors.
	PollInterval time.Duration // 0 = 1 s
	// SubmitTimeout bounds an async POST of a submission (the ack comes at
	// once); a sync POST has no client timeout: the daemon holds it open
	// until the stream ends.
	SubmitTimeout time.Duration // 0 = 1 min
	// RequestTimeout bounds the wait for a daemon to start answering a
	// non-follow request (its reply's headers; the body may take longer):
	// a daemon that accepts and never answers is given up after it, with
	// a NoAnswerError's words (0: only the transport's own bounds).
	RequestTimeout time.Duration

	// OnFrame, when set, sees every received frame exactly as received
	// (keep-alive comments included), from Run's goroutine, before the frame
	// is acted on. Frames rebuilt from JSON pages have Frame.Page set.
	OnFrame func(Frame)

	// InFlight (stream/submit.go): this run follows an action
	// aipwatch is submitting; while it reports true (a POST awaits its
	// reply, or an uncertain one is being resolved) the appear timeout
	// does not give up: it starts again from when InFlight turns false
	// (design §6.4, §6.6).
	InFlight func() bool
}

// Defaults of Config's zero values.
const (
	DefaultIdleTimeout   = 45 * time.Second
	DefaultBackoffMin    = 250 * time.Millisecond
	DefaultBackoffMax    = 10 * time.Second
	DefaultBatchInterval = 33 * time.Millisecond
	DefaultAppearTimeout = time.Minute
	DefaultStallTimeout  = 6 * time.Minute
	DefaultPollInterval  = time.Second
	DefaultSubmitTimeout = time.Minute

	pageLimit      = 1000
	requestTimeout = 60 * time.Second // each non-follow request, when ctx has no deadline
	// maxReply bounds a JSON reply. A result carries the connector's
	// aggregate with every provider frame (protocol §8.3), which for a long
	// stream is far larger than one page (4 MiB).
	maxReply = 512 << 20
)

// Client talks to aipd about one action. Status, Result, Page and Cancel
// may be called from any goroutine, also while Run is running.
type Client struct {
	cfg    Config
	base   *url.URL // without userinfo, for messages
	reqURL *url.URL // as configured, for requests
	http   *http.Client
	follow *http.Client // the same, without an overall timeout

	lastPage     atomic.Int64 // the size of the last events page read
	lastPageSize atomic.Int64 // its events (high half) and chunks (low half): the next page's room
}

// New checks the configuration and fills in the defaults.
func New(cfg Config) (*Client, error) {
	if cfg.ActionID == "" {
		return nil, errors.New("stream: no action ID")
	}
	return newClient(cfg)
}

// NewDaemon is a client for the daemon-wide routes (the action list, the
// global event log): the configuration of New without an action.
func NewDaemon(cfg Config) (*Client, error) {
	cfg.ActionID = ""
	return newClient(cfg)
}

func newClient(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("stream: base URL must be http://host[:port] or https://host[:port]")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	shown := *u
	shown.User = nil

	orDefault(&cfg.IdleTimeout, DefaultIdleTimeout)
	orDefault(&cfg.BackoffMin, DefaultBackoffMin)
	orDefault(&cfg.BackoffMax, DefaultBackoffMax)
	cfg.BackoffMax = max(cfg.BackoffMax, cfg.BackoffMin)
	orDefault(&cfg.BatchInterval, DefaultBatchInterval)
	orDefault(&cfg.AppearTimeout, DefaultAppearTimeout)
	orDefault(&cfg.StallTimeout, DefaultStallTimeout)
	orDefault(&cfg.PollInterval, DefaultPollInterval)
	orDefault(&cfg.SubmitTimeout, DefaultSubmitTimeout)

	var hc http.Client
	if cfg.HTTP != nil {
		hc = *cfg.HTTP // a copy: the caller's client is not changed
	} else {
		hc.Transport = newTransport()
	}
	hc.CheckRedirect = safeRedirect(hc.CheckRedirect)
	fc := hc
	fc.Timeout = 0
	return &Client{cfg: cfg, base: &shown, reqURL: u, http: &hc, follow: &fc}, nil
}

// orDefault puts the contract's duration where the caller left none (zero
// or negative).
func orDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// closeIdle ends the transport's idle keep-alive connections, and so their
// goroutines, when a Run or a Cancel is over.
func (c *Client) closeIdle() { c.http.CloseIdleConnections() }

// Config is the client's configuration, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// ActionID is the action this client follows.
func (c *Client) ActionID() string { return c.cfg.ActionID }

// actionURL builds /aip/v1/actions/{id}{suffix}?query.
func (c *Client) actionURL(suffix string, q url.Values) string {
	u := *c.reqURL
	u.Path = c.reqURL.Path + "/aip/v1/actions/" + c.cfg.ActionID + suffix
	u.RawPath = c.reqURL.Path + "/aip/v1/actions/" + url.PathEscape(c.cfg.ActionID) + suffix
	u.RawQuery = q.Encode()
	return u.String()
}

func (c *Client) newRequest(ctx context.Context, method, target string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, err
	}
	if c.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "aipwatch")
	return req, nil
}

// doJSON does one non-follow request and returns its whole body.
func (c *Client) doJSON(ctx context.Context, op, method, target string, body []byte) ([]byte, *Error) {
	return c.doJSONHint(ctx, op, method, target, body, 0)
}

// doJSONHint is doJSON with a guess of the reply's size for a reply
// without a Content-Length (hint > 0): the buffer starts there instead of
// doubling up to it.
func (c *Client) doJSONHint(ctx context.Context, op, method, target string, body []byte, hint int64) ([]byte, *Error) {
	var data []byte
	e := c.doReply(ctx, op, method, target, body, func(r io.Reader, size int64) (err error) {
		if size <= 0 && hint > 0 {
			size = hint
		}
		data, err = readReply(r, size)
		if err != nil {
			return readError{err}
		}
		return nil
	}, nil)
	return data, e
}

// doReply does one non-follow request and hands its body to read, as a
// stream capped at maxReply bytes (and the Content-Length, -1 if unknown).
// An error of read that is a readError is a transport failure; any other
// is a reply that is not what was asked for, reported by bad.
func (c *Client) doReply(ctx context.Context, op, method, target string, body []byte,
	read func(r io.Reader, size int64) error, bad func(error) *Error) *Error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	answered := func() bool { return true }
	if d := c.cfg.RequestTimeout; d > 0 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		t := time.AfterFunc(d, func() { cancel(NoAnswerError{Op: op, After: d}) })
		answered = t.Stop
	}
	req, err := c.newRequest(ctx, method, target, body)
	if err != nil {
		return c.clean(&Error{Op: op, Message: "cannot build the request"})
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", acceptGzip) // ReplyBody counts the wire bytes, then inflates
	resp, err := c.http.Do(req)
	if !answered() && err != nil {
		var na NoAnswerError
		if errors.As(context.Cause(ctx), &na) {
			return c.clean(&Error{Op: op, Message: "no answer from " + c.base.Host + " within " + na.After.String(), Retryable: true, transport: true})
		}
	}
	if err != nil {
		return c.transportError(op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.httpError(op, resp)
	}
	// The reply's size caps (replycap.go): on the wire and, when it is
	// compressed, inflated.
	reply, err := ReplyBody(resp, maxReply)
	if err != nil {
		return &Error{Op: op, HTTPStatus: resp.StatusCode, Message: err.Error()}
	}
	size := resp.ContentLength
	if resp.Header.Get("Content-Encoding") != "" {
		size = -1 // the length on the wire, not of the reply
	}
	err = read(reply, size)
	var tl *TooLargeError
	var re readError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tl):
		return &Error{Op: op, HTTPStatus: resp.StatusCode, Message: tl.Error()}
	case errors.As(err, &re):
		return c.transportError(op, re.err)
	case bad != nil:
		return bad(err)
	}
	return c.transportError(op, err)
}

// readReply reads a whole reply body. A result can be hundreds of MiB:
// it reads into one buffer sized by Content-Length when there is one, else
// doubling, so the bytes are copied at most once more (io.ReadAll grows by
// a quarter at a time, copying and clearing a large body over and over).
func readReply(r io.Reader, size int64) ([]byte, error) {
	n := 64 << 10
	if size > 0 && size <= maxReply {
		n = int(size) + 1 // +1: EOF is seen without another grow
	}
	buf := make([]byte, 0, n)
	for {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), 2*cap(buf))
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// unwrap returns the value under key when the body is {key: …}; a body
// that is the bare value is accepted too. It looks only at the start of the
// body, so a large reply is not scanned one more time.
func unwrap(data []byte, key string) []byte {
	b := bytes.TrimLeft(data, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return data
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	quoted := `"` + key + `"`
	if !bytes.HasPrefix(b, []byte(quoted)) {
		return data
	}
	b = bytes.TrimLeft(b[len(quoted):], " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return data
	}
	b = bytes.TrimRight(b[1:], " \t\r\n")
	if len(b) == 0 || b[len(b)-1] != '}' {
		return data
	}
	return b[:len(b)-1] // json.Unmarshal checks what is left
}

// decodeBody decodes the value under key (see unwrap) with fn; when that
// fails it tries again the slow, general way (other keys beside key).
func decodeBody(data []byte, key string, fn func([]byte) error) error {
	err := fn(unwrap(data, key))
	if err == nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		if v, ok := top[key]; ok {
			return fn(v)
		}
	}
	return err
}

func badReply(op, what string, err error) *Error {
	msg := "the reply is not " + what
	if err != nil {
		msg += ": " + oneLine(err.Error(), 120)
	}
	return &Error{Op: op, Message: msg}
}

// ctxErr returns ctx's error when it ended, so callers see cancellation as
// such and not as a transport failure.
func ctxErr(ctx context.Context, e *Error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if e == nil {
		return nil
	}
	return e
}

// Status reads GET /aip/v1/actions/{id}. Like Result and Page, it closes
// the idle keep-alive connections when done, so no goroutine outlives it.
func (c *Client) Status(ctx context.Context) (model.ActionStatus, error) {
	defer c.closeIdle()
	st, e := c.status(ctx)
	if e != nil {
		return model.ActionStatus{}, ctxErr(ctx, e)
	}
	return st, nil
}

func (c *Client) status(ctx context.Context) (model.ActionStatus, *Error) {
	data, e := c.doJSON(ctx, "status", http.MethodGet, c.actionURL("", nil), nil)
	if e != nil {
		return model.ActionStatus{}, e
	}
	var st model.ActionStatus
	err := decodeBody(data, "action_status", func(b []byte) error { st = model.ActionStatus{}; return json.Unmarshal(b, &st) })
	if err != nil || st.State == "" {
		return model.ActionStatus{}, badReply("status", "an action status", err)
	}
	return st, nil
}

// Result reads GET /aip/v1/actions/{id}/result once.
func (c *Client) Result(ctx context.Context) (model.ActionResult, error) {
	defer c.closeIdle()
	r, e := c.result(ctx, false)
	if e != nil {
		return model.ActionResult{}, ctxErr(ctx, e)
	}
	return r, nil
}

// result reads the result; keepEvents keeps its output.events (a follow
// that saw no chunk: design §14), which are dropped otherwise.
func (c *Client) result(ctx context.Context, keepEvents bool) (model.ActionResult, *Error) {
	var r model.ActionResult
	noStatus := errors.New("no status")
	bad := func(err error) *Error {
		if err == noStatus {
			err = nil
		}
		return badReply("result", "an action result", err)
	}
	e := c.doReply(ctx, "result", http.MethodGet, c.actionURL("/result", nil), nil, func(body io.Reader, _ int64) error {
		// Streamed: the aggregate's events arrays (every provider frame,
		// twice) are skipped by their structure, never held
		// (result_stream.go); the rest is validated.
		data, err := reduceResultKeeping(body, keepEvents)
		if err != nil {
			return err
		}
		if err := decodeBody(data, "action_result", func(b []byte) (err error) { r, err = model.DecodeResult(b); return err }); err != nil {
			return err
		}
		if r.Status == "" {
			return noStatus
		}
		return nil
	}, bad)
	if e != nil {
		return model.ActionResult{}, e
	}
	return r, nil
}

// Page reads one non-follow page of events and chunks from cursor
// ("" = from the beginning), include_chunks=true, limit=1000.
func (c *Client) Page(ctx context.Context, cursor string) (Page, error) {
	defer c.closeIdle()
	p, e := c.page(ctx, cursor)
	if e != nil {
		return Page{}, ctxErr(ctx, e)
	}
	return p, nil
}

func (c *Client) page(ctx context.Context, cursor string) (Page, *Error) {
	data, e := c.fetchPage(ctx, cursor)
	if e != nil {
		return Page{}, e
	}
	return c.decodePage(data)
}

// fetchPage reads the events page at cursor, undecoded.
func (c *Client) fetchPage(ctx context.Context, cursor string) ([]byte, *Error) {
	q := url.Values{"include_chunks": {"true"}, "limit": {fmt.Sprint(pageLimit)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	// The chunks keep the page's bytes: a buffer sized by the last page,
	// not doubled up to this one (copies, and up to twice the bytes kept).
	last := c.lastPage.Load()
	data, e := c.doJSONHint(ctx, "page", http.MethodGet, c.actionURL("/events", q), nil, last+last/8)
	if e != nil {
		return nil, e
	}
	c.lastPage.Store(int64(len(data)))
	return data, nil
}

// decodePage decodes an events page fetchPage read.
func (c *Client) decodePage(data []byte) (Page, *Error) {
	// One pass over the page decodes its items too; the chunks keep the
	// reply's bytes (data is not reused) as their Raw.
	var mp model.Page
	size := c.lastPageSize.Load()
	err := decodeBody(data, "action_events", func(b []byte) (err error) {
		mp, err = model.DecodePageSized(b, model.PageSize{Events: int(size >> 32), Chunks: int(uint32(size))})
		return err
	})
	if err != nil {
		return Page{}, badReply("page", "an events page", err)
	}
	// This page's counts size the next one's slices (pages are at most
	// pageLimit items, so each fits in 32 bits).
	c.lastPageSize.Store(int64(min(len(mp.Events), pageLimit))<<32 | int64(min(len(mp.Chunks), pageLimit)))
	p := Page{Terminal: mp.Terminal, Events: mp.Events, Chunks: mp.Chunks, rawEvents: mp.RawEvents,
		Bad: mp.BadEvents + mp.BadChunks, BadChunks: mp.BadChunks}
	if mp.Cursor != nil && validCursor(*mp.Cursor) {
		p.Cursor = strings.TrimSpace(*mp.Cursor)
	}
	return p, nil
}

// Cancel sends POST /aip/v1/actions/{id}/cancel with {"reason": reason},
// once. A 2xx reply is an acceptance, not an outcome (design §2.9).
func (c *Client) Cancel(ctx context.Context, reason string) CancelMsg {
	defer c.closeIdle()
	body, _ := json.Marshal(struct {
		Reason string `json:"reason"`
	}{reason})
	_, e := c.doJSON(ctx, "cancel", http.MethodPost, c.actionURL("/cancel", nil), body)
	if e != nil {
		if ctx.Err() != nil {
			e = c.clean(&Error{Op: "cancel", Message: "not sent: " + ctx.Err().Error()})
		}
		return CancelMsg{Err: e}
	}
	return CancelMsg{Accepted: true}
}
