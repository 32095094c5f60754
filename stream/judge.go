package stream

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"

	"aipwatch/model"
)

// The judge (design §7, "The verdict, not the AIP status"): the verdict of
// a settled action, read the way a review reads it (Run: the status, every
// page of the log, the result, the final status, each message through
// Apply into a model.Action) and decided by model.Action.Verdict, the one
// place a verdict is decided. The console judges the rows on screen and
// `ls --verdict` the rows it prints.
//
// What it costs: one judgement reads the action's whole log (one request a
// page of up to 1000 chunks, plus status and result reads) and holds that
// action's model until the verdict is decided, so it is paid per row
// judged, never for the daemon's history: callers judge what they show.
// A settled action does not change, so judgements are cached by action ID
// and a second one reads nothing.

// VerdictUnknown is a judgement's word when the action could not be read
// (Judgement.Err says why); it is not cached, so a later judgement tries
// again.
const VerdictUnknown = "unknown"

// Judge defaults.
const (
	DefaultJudgeLimit   = 4                // judgements at once (design §7)
	DefaultJudgeTimeout = 30 * time.Second // one judgement, all its reads
	DefaultJudgeCache   = 4096             // judgements kept, by action ID
)

// JudgeOptions tunes a Judge; zero values take the defaults above.
type JudgeOptions struct {
	Limit   int           // judgements at once
	Timeout time.Duration // bound on one judgement
	Cache   int           // judgements kept (least recently used dropped)
}

// Judgement is the verdict of one action.
type Judgement struct {
	ID string
	// Word is a verdict word of model (verified, partial, failed,
	// truncated, incomplete, cancelled), VerdictUnknown when the action
	// could not be read, or "" when it had not settled (Live).
	Word    string
	Verdict model.Verdict
	Usage   model.TurnUsage
	Timing  model.TurnTiming
	Live    bool  // the action had not settled: nothing to judge yet (not cached)
	Err     error // why the word is unknown
}

// Judge judges settled actions, at most Limit at once, and caches their
// judgements. Safe for concurrent use.
type Judge struct {
	cfg  Config
	opt  JudgeOptions
	slot chan struct{} // one token per judgement running

	mu       sync.Mutex
	cache    map[string]*list.Element // of *Judgement, in lru
	lru      *list.List               // front: most recently used
	inflight map[string]*judgeCall    // one read per ID at a time
}

type judgeCall struct {
	done chan struct{}
	j    Judgement
}

// NewJudge returns a judge that reads actions of the daemon cfg names
// (BaseURL, Token, HTTP and the timeouts; ActionID and Cursor are
// ignored).
func NewJudge(cfg Config, opt JudgeOptions) *Judge {
	if opt.Limit <= 0 {
		opt.Limit = DefaultJudgeLimit
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultJudgeTimeout
	}
	if opt.Cache <= 0 {
		opt.Cache = DefaultJudgeCache
	}
	cfg.ActionID, cfg.Cursor, cfg.OnFrame, cfg.InFlight = "", "", nil, nil
	return &Judge{cfg: cfg, opt: opt, slot: make(chan struct{}, opt.Limit),
		cache: map[string]*list.Element{}, lru: list.New(), inflight: map[string]*judgeCall{}}
}

// Cached returns the cached judgement of id, reading nothing.
func (j *Judge) Cached(id string) (Judgement, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e, ok := j.cache[id]; ok {
		j.lru.MoveToFront(e)
		return *e.Value.(*Judgement), true
	}
	return Judgement{}, false
}

// Judge returns the judgement of the action id: from the cache, or read
// (waiting for a free slot first; one read per ID however many ask).
func (j *Judge) Judge(ctx context.Context, id string) Judgement {
	j.mu.Lock()
	if e, ok := j.cache[id]; ok {
		j.lru.MoveToFront(e)
		jg := *e.Value.(*Judgement)
		j.mu.Unlock()
		return jg
	}
	if c, ok := j.inflight[id]; ok {
		j.mu.Unlock()
		select {
		case <-c.done:
			return c.j
		case <-ctx.Done():
			return Judgement{ID: id, Word: VerdictUnknown, Err: ctx.Err()}
		}
	}
	c := &judgeCall{done: make(chan struct{})}
	j.inflight[id] = c
	j.mu.Unlock()

	c.j, _ = j.read(ctx, id)
	j.mu.Lock()
	delete(j.inflight, id)
	j.keep(&c.j)
	j.mu.Unlock()
	close(c.done)
	return c.j
}

// Review reads id whatever the cache holds and returns the model it built
// as well (nil when unknown or live), for what needs more than the
// verdict: the notification of an action that settled (design §10) is the
// review's verdict line. The judgement is cached as Judge's.
func (j *Judge) Review(ctx context.Context, id string) (*model.Action, Judgement) {
	jg, a := j.read(ctx, id)
	j.mu.Lock()
	if e, ok := j.cache[id]; ok {
		j.lru.Remove(e)
		delete(j.cache, id)
	}
	j.keep(&jg)
	j.mu.Unlock()
	return a, jg
}

// keep caches a settled judgement. j.mu is held.
func (j *Judge) keep(jg *Judgement) {
	if jg.Word != VerdictUnknown && !jg.Live {
		j.store(jg)
	}
}

// store caches jg, dropping the least recently used beyond the bound.
// j.mu is held.
func (j *Judge) store(jg *Judgement) {
	cp := *jg
	j.cache[jg.ID] = j.lru.PushFront(&cp)
	for j.lru.Len() > j.opt.Cache {
		old := j.lru.Back()
		j.lru.Remove(old)
		delete(j.cache, old.Value.(*Judgement).ID)
	}
}

// errLive ends a judgement's read of an action that has not settled.
var errLive = errors.New("the action has not settled")

// read judges id once: a review run into a fresh model, within the
// timeout and a slot.
func (j *Judge) read(ctx context.Context, id string) (Judgement, *model.Action) {
	unknown := func(err error) (Judgement, *model.Action) {
		return Judgement{ID: id, Word: VerdictUnknown, Err: err}, nil
	}
	select {
	case j.slot <- struct{}{}:
		defer func() { <-j.slot }()
	case <-ctx.Done():
		return unknown(ctx.Err())
	}
	ctx, cancel := context.WithTimeoutCause(ctx, j.opt.Timeout, errors.New("no verdict within "+j.opt.Timeout.String()))
	defer cancel()
	cfg := j.cfg
	cfg.ActionID = id
	c, err := New(cfg)
	if err != nil {
		return unknown(err)
	}
	a := model.NewAction(id)
	a.SetRawCap(1) // the verdict reads no raw bytes: keep none
	live := false
	err = c.Run(ctx, SinkFunc(func(m Msg) {
		if mm, ok := m.(ModeMsg); ok && !mm.Review {
			// Run follows an action that has not settled: nothing to judge
			// yet, and following is not a judge's job.
			live = true
			cancel()
			return
		}
		Apply(a, m)
	}))
	if live {
		return Judgement{ID: id, Live: true, Err: errLive}, nil
	}
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != nil {
			err = context.Cause(ctx)
		}
		return unknown(err)
	}
	v := a.Verdict()
	if !v.Final {
		return unknown(errors.New("no verdict: " + v.Word))
	}
	return Judgement{ID: id, Word: v.Word, Verdict: v, Usage: a.Usage(), Timing: a.Timing()}, a
}

// VerdictNotJudged is the word of a row a listing did not judge within its
// bound (Listing): neither a verdict nor a failed read.
const VerdictNotJudged = model.NotJudged

// DefaultListingBound bounds the judgements of one listing as a whole
// (`ls --verdict`): each judgement has its own bound (DefaultJudgeTimeout),
// but a daemon that stalls every read would otherwise cost that for every
// four rows, without end on a long listing.
const DefaultListingBound = 2 * time.Minute

// Listing judges the rows of one listing within one bound for them all.
// Safe for concurrent use; Close it when the listing ends.
type Listing struct {
	j      *Judge
	ctx    context.Context
	cancel context.CancelFunc
	bound  time.Duration

	mu        sync.Mutex
	notJudged []string

	rows  sync.Mutex // JudgeRows's count, and its calls of each one at a time
	done  int        // rows judged so far, over every batch
	total int        // rows to judge: a batch's size is known, the list's is not
}

// errListingBound is the cause of a listing's end.
var errListingBound = errors.New("the listing's bound for judging ran out")

// NewListing starts a listing's bound (DefaultListingBound when bound <= 0).
func (j *Judge) NewListing(bound time.Duration) *Listing {
	if bound <= 0 {
		bound = DefaultListingBound
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), bound, errListingBound)
	return &Listing{j: j, ctx: ctx, cancel: cancel, bound: bound}
}

// Judge is the judgement of id, or VerdictNotJudged once the listing's
// bound has run out (before or while it was read), and then id is kept
// among NotJudged.
func (l *Listing) Judge(id string) Judgement {
	jg := l.j.Judge(l.ctx, id)
	if jg.Word == VerdictUnknown && l.ctx.Err() != nil {
		jg.Word, jg.Err = VerdictNotJudged, errListingBound
		l.mu.Lock()
		l.notJudged = append(l.notJudged, id)
		l.mu.Unlock()
	}
	return jg
}

// NotJudged are the IDs the bound stopped, in the order they were stopped,
// and the bound.
func (l *Listing) NotJudged() ([]string, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.notJudged...), l.bound
}

// JudgeRows sets the Verdict of each settled row of batch (Judge: the
// judge lets Limit read at once, the rest wait their turn) and returns once
// all of them are judged, so that a batch is printed whole and in order.
// each, when set, is called for each row judged, one at a time, with the
// rows judged so far and the rows to judge, counted over every batch of
// the listing.
func (l *Listing) JudgeRows(batch []model.ActionRow, each func(r *model.ActionRow, jg Judgement, done, total int)) {
	var todo []int
	for i := range batch {
		if batch[i].Settled() {
			todo = append(todo, i)
		}
	}
	l.rows.Lock()
	l.total += len(todo)
	l.rows.Unlock()
	var wg sync.WaitGroup
	for _, i := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jg := l.Judge(batch[i].ActionID)
			batch[i].Verdict = jg.Word
			l.rows.Lock()
			defer l.rows.Unlock()
			l.done++
			if each != nil {
				each(&batch[i], jg, l.done, l.total)
			}
		}()
	}
	wg.Wait()
}

// Close ends the listing's bound.
func (l *Listing) Close() { l.cancel() }
