package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
	"aipwatch/ui/transcript"
)

// Live is the live view of one action, a component (view.go, update.go):
// it owns its state, its Update returns its commands, and View(width,
// height) draws it in the cell its host gives it. Every message its
// commands make is tagged with its ID where the command is made (ViewMsg,
// tag.go), so that a host of several live views (the screen of one
// action, Single; the console; the split view) routes each to its own view,
// and a closed view's late messages reach no other. It is used through a
// pointer: Update mutates it and returns it.
type Live struct {
	id     ViewID
	opts   Options
	clock  func() time.Time
	action *model.Action
	run    *runner
	rec    reconcileState // the R key (ui/reconcile.go)

	keys KeyMap
	help keyHelp // the help line and the ? overlay (ui/help.go)
	st   *render.Styles
	md   *render.Markdown
	tr   *transcript.Transcript

	width, height int
	started       time.Time // when the viewer started (elapsed fallback)
	endedAt       time.Time // when the action settled or the run stopped on an error: the elapsed time stops there

	// The transcript (tr) keeps the reading position, follow and focus
	// (ui/transcript/window.go).

	mode KeyMode
	// confirmInput is what the operator typed in the cancel confirmation;
	// confirmBad: enter was pressed before it matched.
	confirmInput string
	confirmBad   bool
	showTools    bool
	showHelp     bool
	markdown     bool
	plain        bool
	stamps       bool // T: timestamps on item headings and inline tools
	nowrap       bool // w: cut long lines instead of wrapping them

	raw textPanel // the raw chunk or the connection log (ui/panel.go)
	tl  tlState   // the timeline's zoom, window and rows (ui/timeline.go)
	log logRows   // the connection log's rows (ui/logpanel.go)

	search searchState

	// The connection's state is the model's (Action.Connection, set by
	// stream.Apply): m.conn, m.review, m.runDone, m.attached, m.fatal.
	exitErr     *stream.Error // the backend's exit error, when the stream sent no ErrorMsg
	cancelled   bool          // the cancel request was sent (once)
	notifyArmed bool          // ring and notify when the action settles (ui/notify.go)
	// detached: q or ctrl+c asked to detach from this view; its host
	// reads it (Detached) after Update and decides what a detach is.
	detached bool
	// reconcileOnSettle: R is asked for once the action has settled
	// (AskReconcileOnceSettled: the console's R on a live row).
	reconcileOnSettle bool

	notice   string
	noticeAt time.Time
	noticeOK bool
	// noticeWaits: the notice waits for the action's first event or
	// chunk, and goes when one comes.
	noticeWaits bool
	// appearBy: aipd had no record of the action; the status bar counts
	// down to when the wait for it ends (zero once something of it came).
	appearBy time.Time

	ticking bool
	// version counts the changes of what the view shows (changed,
	// FrameKey): Update, resize and every host call that changes the
	// state count one.
	version uint64

	head header    // the top row (ui/header.go)
	bar  statusBar // the rule, the verdict badge, the meters (ui/statusbar.go)
	scr  screen    // the frame's rows, reused between frames (View, Rows)
	in   barInput  // what the last frame's status bar showed (Title reads it)
}

// Look is how live views draw: their styles and their Markdown renderer
// (safe for concurrent use), made once for every view a host shows.
type Look struct {
	st *render.Styles
	md *render.Markdown
}

// NewLook is the look with colour, or without.
func NewLook(noColor bool) *Look {
	return &Look{st: render.NewStyles(!noColor), md: render.NewMarkdown(!noColor)}
}

// Styles are the look's styles, for the host's own rows.
func (l *Look) Styles() *render.Styles { return l.st }

// NewLive returns the live view of opts.ActionID, with an ID of its own;
// ctx bounds its backend. Its host calls Init, then SetSize before the
// first View, and Close when it lets the view go.
func NewLive(ctx context.Context, opts Options) *Live {
	return newLive(ctx, opts)
}

// newLive builds the live view; ctx bounds the backend.
func newLive(ctx context.Context, opts Options) *Live {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	look := opts.Look
	if look == nil {
		look = NewLook(opts.NoColor)
	}
	st, md := look.st, look.md
	m := &Live{
		id:        newViewID(),
		opts:      opts,
		clock:     clock,
		action:    model.NewAction(opts.ActionID),
		run:       newRunner(ctx, opts.Backend),
		keys:      opts.Keys,
		help:      newKeyHelp(st),
		st:        st,
		md:        md,
		tr:        transcript.New(st, md),
		head:      header{st: st, context: opts.Context},
		bar:       statusBar{st: st},
		started:   clock(),
		showTools: true,
		markdown:  true,
	}
	if opts.Gather != nil && opts.Backend != nil {
		opts.Gather.add(m.id, m.run)
	}
	m.notifyArmed = opts.Notify && opts.Notification != nil
	m.action.SetRawCap(opts.RawCap)
	m.action.SubmittedSession = opts.Session
	m.search.input = transcript.NewQueryLine(st, maxQuery)
	return m
}

// Init starts the backend, its listener and the clock tick.
func (m *Live) Init() tea.Cmd {
	m.ticking = true
	return tea.Batch(m.run.startCmd(), m.tag(m.run.listen()), m.tick())
}

// tickMsg drives elapsed times, ages, countdowns and the spinner.
type tickMsg struct{}

// tick schedules the next tick: fast while a spinner turns, else once a
// second; none once the run is over and the action settled (idle costs
// nothing).
func (m *Live) tick() tea.Cmd {
	return m.tag(tea.Tick(m.tickEvery(), func(time.Time) tea.Msg { return tickMsg{} }))
}

// tickEvery is the tick's period, the step in which the screen follows
// the clock (FrameKey too).
func (m *Live) tickEvery() time.Duration {
	if m.spinning() {
		return 100 * time.Millisecond
	}
	return time.Second
}

func (m *Live) spinning() bool {
	if m.action.Settled() || m.runDone() {
		return false
	}
	for _, t := range m.action.Tools() {
		if t.Status != model.ToolCompleted {
			return true
		}
	}
	return false
}

// markdownMsg is a finished markdown render.
type markdownMsg struct{ res transcript.MarkdownResult }

// Mode is what the view's keys act on now (a host's own keys, such as the
// console's esc, apply only in ModeNormal).
func (m *Live) Mode() KeyMode { return m.mode }

// keyContext is the help/keys context now.
func (m *Live) keyContext() KeyContext {
	return KeyContext{
		Mode:     m.mode,
		Settled:  m.action.Settled(),
		Stopped:  m.stopped(),
		Paused:   !m.tr.Following(),
		HasTools: len(m.action.Tools()) > 0,
		Redact:   m.opts.Redact,
		Plain:    m.plain,
		Markdown: m.markdown,
		Search:   m.searching(),
		Replay:   m.opts.Replay,
		Retrying: m.conn().Phase == model.ConnReconnecting,
		// R (ui/reconcile.go): only when main gave a reconciler.
		Reconcile:   m.opts.Reconcile != nil,
		Notify:      m.opts.Notification != nil,
		Reconciling: m.rec.pending,
		Pane:        m.opts.Pane,
	}
}

func (m *Live) cancelReason() string {
	if m.opts.CancelReason != "" {
		return m.opts.CancelReason
	}
	return DefaultCancelReason
}

func (m *Live) setNotice(s string, ok bool) {
	m.notice, m.noticeAt, m.noticeOK, m.noticeWaits = s, m.clock(), ok, false
}

// noticeFor is how long a notice stays.
const noticeFor = 6 * time.Second
