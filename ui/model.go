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

// Model is the Bubble Tea model. It is used through a pointer: Update
// mutates it and returns it.
type Model struct {
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
	log logRows   // the connection log's rows (ui/logpanel.go)

	search searchState

	// The connection's state is the model's (Action.Connection, set by
	// stream.Apply): m.conn, m.review, m.runDone, m.attached, m.fatal.
	exitErr     *stream.Error // the backend's exit error, when the stream sent no ErrorMsg
	inConsole   bool          // the console's live view: full screen from the start (attached)
	startFailed bool
	// inlineShown: the start line was drawn; inlineCleared: the empty
	// frame that erases it before the alt screen was drawn.
	inlineShown, inlineCleared bool
	cancelled                  bool // the cancel request was sent (once)
	notifyArmed                bool // ring and notify when the action settles (ui/notify.go)

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

	head header    // the top row (ui/header.go)
	bar  statusBar // the rule, the verdict badge, the meters (ui/statusbar.go)
	scr  screen    // the frame's buffer, reused between frames (Render)

	viewHook func(string) // tests: sees every frame's content
}

// newModel builds the model; ctx bounds the backend.
func newModel(ctx context.Context, opts Options) *Model {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	color := !opts.NoColor
	st := render.NewStyles(color)
	md := render.NewMarkdown(color)
	m := &Model{
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
	m.notifyArmed = opts.Notify && opts.Notification != nil
	m.action.SetRawCap(opts.RawCap)
	m.action.SubmittedSession = opts.Session
	m.search.input = transcript.NewQueryLine(st, maxQuery)
	return m
}

// Init starts the backend, its listener and the clock tick.
func (m *Model) Init() tea.Cmd {
	m.ticking = true
	return tea.Batch(m.run.startCmd(), m.run.listen(), m.tick())
}

// tickMsg drives elapsed times, ages, countdowns and the spinner.
type tickMsg struct{}

// tick schedules the next tick: fast while a spinner turns, else once a
// second; none once the run is over and the action settled (idle costs
// nothing).
func (m *Model) tick() tea.Cmd {
	d := time.Second
	if m.spinning() {
		d = 100 * time.Millisecond
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) spinning() bool {
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

// keyContext is the help/keys context now.
func (m *Model) keyContext() KeyContext {
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
	}
}

func (m *Model) cancelReason() string {
	if m.opts.CancelReason != "" {
		return m.opts.CancelReason
	}
	return DefaultCancelReason
}

func (m *Model) setNotice(s string, ok bool) {
	m.notice, m.noticeAt, m.noticeOK, m.noticeWaits = s, m.clock(), ok, false
}

// noticeFor is how long a notice stays.
const noticeFor = 6 * time.Second
