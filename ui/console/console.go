// Package console is the operator console (design §7): the daemon's
// actions in a live list, newest first; enter opens the live view of the
// chosen action, esc comes back to the list with its selection kept. The
// list is polled gently; the global event log, when the token may read it,
// adds live synchronous streams (which the list shows only once settled)
// and last activity. The live view is a component (ui.Live) the console
// hosts, as the split view does.
//
// What it costs follows what is live, not the daemon's history (design
// §7): a poll reads the live states and the list's tail (stream.Poller),
// the global log is joined near its head, and an older page is read only
// when the operator scrolls past the last row. It holds the live rows, the
// recent ones, the pages scrolled to and a bounded window of events.
package console

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/table"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/render"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/ui"
	"aipwatch/ui/pulse"
	"aipwatch/ui/split"
)

// Daemon is what the console needs of the daemon-wide client.
// *stream.Poller implements it.
type Daemon interface {
	Poll(ctx context.Context) (stream.Window, error)
	ListAt(ctx context.Context, q stream.ListQuery, offset, n int) (stream.ListPage, error)
	FollowGlobal(ctx context.Context, o stream.GlobalOptions, sink stream.Sink) error
}

// Options configure the console.
type Options struct {
	// Daemon is the one daemon the console reads, its rows acted on by
	// Follow, Judge, Journal and Reconcile (aipwatch serve's hub's).
	Daemon Daemon
	// Keys are the list's bindings, LiveKeys the live view's (main builds
	// both in keymap.go).
	Keys     ui.ConsoleKeyMap
	LiveKeys ui.KeyMap
	// Follow returns the backend that follows one action (nil = cannot).
	Follow func(actionID string) stream.Runner
	// Sources, when set, are the console's daemons in place of those
	// five, each a Source: one with no name is the console of one daemon;
	// several are a console across the config file's contexts (design §9:
	// a CONTEXT column, the Context key, each row acted on by its own
	// daemon's Source; contexts.go).
	Sources []Source
	// ListHint follows the list's error on the status line while nothing
	// was ever listed (across contexts: while no context's daemon ever
	// answered): what to check, and where a console can be seen without a
	// daemon ("" = none).
	ListHint string
	// Journal lists the action IDs this machine's submission journal knows.
	// It reads a file: the poll's command calls it, never Update.
	Journal func() []string
	// Judge judges the settled rows drawn (verdict.go; nil = the
	// VERDICT column shows the AIP status, dimmed).
	Judge Judge
	// Notification is what the terminal is sent when an action n armed
	// settles (design §10; ui.Options.Notification's); nil = n is off.
	// NotificationAs, when set, is the same naming the action name
	// (CONTEXT/act_… across contexts: one ID on two daemons reads as two).
	Notification   func(*model.Action) string
	NotificationAs func(name string, a *model.Action) string
	// NotifyOn are the verdicts --notify-on (a context's notify_on)
	// notifies on when any action settles with one while the console
	// watches (design §13; pulse.go); NotifyOnBytes makes a notification's
	// bytes of its text (nil: the output is no terminal, nothing is sent);
	// NotifyHint is said once, when the first notification goes out, when
	// the multiplexer drops them (safe.PassthroughHint).
	NotifyOn      []string
	NotifyOnBytes func(text string) string
	NotifyHint    string
	// Reconcile is the live view's R (nil = no R).
	Reconcile    ui.ReconcileFunc
	Redact       bool
	NoColor      bool
	CancelReason string
	// NoCancel and NoExport are the live views' (ui.Options): a console
	// whose c sends nothing (a watch key of `aipwatch serve`), and whose
	// e writes no file.
	NoCancel  string
	NoExport  string
	Version   string
	PollEvery time.Duration // 0 = 3 s (protocol §2.1: poll gently)
	Clock     func() time.Time
}

// DefaultPollEvery is the list's polling period.
const DefaultPollEvery = 3 * time.Second

// olderPage is how many rows one scroll past the end reads.
const olderPage = 100

// journalRecent bounds the journal entries the console marks: the most
// recent ones (a year of submissions is not held for ever).
const journalRecent = 100

// consoleKinds are the global-log events the console reads (§2.4).
var consoleKinds = []string{"aip.stream.chunk", "aip.action.result", "aip.action.cancelled",
	"aip.action.worker_result", "aip.action.retry_scheduled"}

// stateFilters are the console's filter keys 1 to 5: by state, and by
// verdict (design §7, §13: filters select by verdict). A filter by verdict
// keeps the settled rows judged one of its verdicts, and those not judged
// yet: they are judged as they are drawn, and leave when their verdict is
// another (verdict.go).
var stateFilters = []struct {
	name    string
	states  []string
	verdict func(word string) bool // nil: by state alone
}{
	{"all", nil, nil},
	{"live", []string{model.StateQueued, model.StateRunning, model.StateStreaming, model.StatePendingApproval}, nil},
	{"settled", model.SettledStates, nil},
	{"failed", model.SettledStates, func(w string) bool { return w == model.VerdictFailed }},
	{"unverified", model.SettledStates, func(w string) bool { return w != model.VerdictVerified }},
}

// Console messages.
type (
	listMsg struct {
		w   stream.Window
		err error
		// manual: ctrl+r's read, which schedules no next poll (the
		// periodic one is already pending: a second loop would double
		// the polls and run two at once on one Poller).
		manual bool
		// journal: the journal's action IDs, read with the list by the
		// poll's command (Options.Journal is I/O: never in Update).
		journal []string
		part    int // the daemon read (polls.go)
	}
	olderMsg struct {
		page stream.ListPage
		err  error
	}
	globalMsg struct{ m stream.Msg }
)

// Console is the console's program model. It hosts the live views it opens
// as a component (split.Split: one live view, or up to four in panes): it
// gives it its size, the keys while it is open and the messages the views'
// commands tagged with their IDs, and reads its Done; the views' private
// state is their own.
type Console struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	keys   ui.ConsoleKeyMap
	st     *render.Styles
	clock  func() time.Time
	// after is tea.Tick; a test that drives the clock (Options.Clock)
	// swaps it for one that answers at once, rather than sleep the time
	// the console asks to wait on the real clock.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	fleet      *model.Fleet
	rows       []model.ActionRow
	trows      []table.Row // the table's rows as last given
	tableGen   int         // moves whenever the table may draw otherwise
	frameKey   consoleFrameKey
	frame      string // the frame drawn for frameKey
	table      table.Model
	filter     textinput.Model
	filtering  bool
	stateIdx   int
	parts      []*part // a poll loop a daemon (polls.go)
	ctxIdx     int     // 0: every context; i: contexts[i-1] (contexts.go)
	listErr    string
	listNote   string // the faults of the list's paging the last polls met
	listEnd    int    // where the last polls found the lists' ends: their sizes
	olderOff   int    // rows below this offset are not read (-1: before the first poll)
	loading    bool   // an older page is being read
	fatal      error  // why the console stopped on its own (Run returns it)
	done       bool   // quit, or stopped on its own: the program ends (Done)
	picked     bool   // the operator moved the selection: it follows its action
	showHelp   bool   // the ? overlay (help.go)
	orderIdx   int    // the list's order: listOrders[orderIdx] (o, sortkey.go)
	note       string // a key's answer ("nothing to cancel"), until the next key
	globalNote string
	events     chan tea.Msg
	// The order drawn, kept while the operator presses keys
	// (order.go).
	lastKey   time.Time
	drawn     []string
	drawnView listView

	// What New made of Options' daemons (daemonsOf, contexts.go): the
	// one polled, the contexts' names (nil: one daemon), and each
	// context's Source ("" the one daemon's).
	daemon   Daemon
	contexts []string
	sources  map[string]Source

	verdict verdicts // the VERDICT column and the pending notifications (verdict.go)

	pulse     *pulse.Strip     // the fleet at a glance (design §13; pulse.go)
	pulseRows int              // the lines the layout gave it
	notifyOn  *output.NotifyOn // --notify-on's burst (nil: off)
	watch     watch            // the rows --notify-on saw settle
	hinted    bool             // NotifyHint was said

	shortLine shortLine // the one help line of the last frame (help.go)

	split      *split.Split // the live views open (one, or several split), nil in the list
	liveCancel context.CancelFunc
	marks      []string // the rows marked for a split view, by key, in order (marks.go)

	width, height int
}

// New returns the console model (for tests; Run runs it).
func New(ctx context.Context, opts Options) *Console {
	if opts.PollEvery <= 0 {
		opts.PollEvery = DefaultPollEvery
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	daemon, contexts, sources := daemonsOf(opts)
	st := render.NewStyles(!opts.NoColor)
	fi := textinput.New()
	fi.Prompt = "/"
	fi.Placeholder = "filter by the text the rows show (ID, capability, state, verdict, lease…)"
	t := table.New(table.WithColumns(consoleColumns(100, contexts)), table.WithFocused(true), table.WithHeight(10))
	c := &Console{opts: opts, ctx: ctx, cancel: cancel, keys: opts.Keys, st: st, clock: clock, after: tea.Tick,
		fleet: model.NewFleet(), table: t, filter: fi, events: make(chan tea.Msg, 64),
		globalNote: "global event log: connecting", olderOff: -1, verdict: newVerdicts(),
		pulse: pulse.New(), watch: newWatch(), daemon: daemon, contexts: contexts, sources: sources, parts: newParts(daemon)}
	if opts.NotifyOnBytes != nil {
		c.notifyOn = output.NewNotifyOn(opts.NotifyOn)
	}
	c.table.SetStyles(tableStyles(opts.NoColor)) // sortkey.go
	return c
}

// Run runs the console on t until the operator quits (the program shell,
// ui.Run); t.NoColor is opts.NoColor.
func Run(ctx context.Context, opts Options, t ui.Terminal) error {
	c := New(ctx, opts)
	defer c.Close()
	t.NoColor = opts.NoColor
	if err := ui.Run(ctx, c, t); err != nil {
		return err
	}
	return c.fatal
}

// Fatal is why the console stopped on its own (aipd refused the
// credentials), nil when the operator quit: what Run returns, for a host
// that runs the console itself (aipwatch serve's sessions).
func (c *Console) Fatal() error { return c.fatal }

// Close stops the live view, the list polling and the global follow.
func (c *Console) Close() {
	c.closeLive()
	c.cancel()
}

// Init starts the list read and the global-log follow.
func (c *Console) Init() tea.Cmd {
	return tea.Batch(c.watchedPolls(false), c.globalCmd(), c.listen())
}

// olderCmd reads the page before the oldest row read so far.
func (c *Console) olderCmd() tea.Cmd {
	if c.loading || c.olderOff <= 0 {
		return nil
	}
	c.loading = true
	d, ctx := c.daemon, c.ctx
	off := max(0, c.olderOff-olderPage)
	n := c.olderOff - off
	return func() tea.Msg {
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		p, err := d.ListAt(rctx, stream.ListQuery{}, off, n)
		return olderMsg{p, err}
	}
}

// globalCmd starts the global follow in a goroutine; its messages come back
// through listen.
func (c *Console) globalCmd() tea.Cmd {
	d, ctx, ch := c.daemon, c.ctx, c.events
	return func() tea.Msg {
		go func() {
			err := d.FollowGlobal(ctx, stream.GlobalOptions{Kinds: consoleKinds}, stream.SinkFunc(func(m stream.Msg) {
				select {
				case ch <- globalMsg{m}:
				case <-ctx.Done():
				}
			}))
			if err != nil && ctx.Err() == nil {
				var se *stream.Error
				if !errors.As(err, &se) || !se.Denied() {
					select {
					case ch <- globalMsg{stream.GlobalLinkMsg{Cause: "stopped: " + err.Error()}}:
					case <-ctx.Done():
					}
				}
			}
		}()
		return nil
	}
}

func (c *Console) listen() tea.Cmd {
	ch, ctx := c.events, c.ctx
	return func() tea.Msg {
		select {
		case m := <-ch:
			return m
		case <-ctx.Done():
			return nil
		}
	}
}

// Update handles one message: the live view's, when it is open, else the
// list's; then the list's rows drawn are judged and the notifications due
// sent (verdict.go).
func (c *Console) Update(msg tea.Msg) tea.Cmd {
	cmd := c.update(msg)
	if more := tea.Batch(c.judgeVisible(), c.judgeSettling(), c.notifySettled()); more != nil {
		cmd = tea.Batch(cmd, more)
	}
	return cmd
}

// SetSize lays the console out for the terminal's size, and the live
// views open in it.
func (c *Console) SetSize(width, height int) tea.Cmd {
	c.width, c.height = width, height
	c.layout()
	if c.split != nil {
		return c.split.SetSize(c.width, c.height)
	}
	return nil
}

// Done: the operator quit (q in the list, ctrl+c anywhere), or the console
// stopped on its own (Run returns why).
func (c *Console) Done() bool { return c.done }

func (c *Console) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case judgedMsg:
		c.onJudged(msg)
		return c.pulseJudged(msg.key, msg.j)
	case notifyDueMsg:
		return c.onNotifyDue()
	case notifiedMsg:
		return c.onNotified(msg)
	case tea.WindowSizeMsg:
		return c.SetSize(msg.Width, msg.Height)
	case listMsg:
		if c.onList(msg) {
			c.done = true
			return nil
		}
		probes := c.probeCmds(msg.part)
		if msg.manual {
			return probes
		}
		return tea.Batch(c.nextPoll(msg.part), probes)
	case pollMsg:
		// ctrl+r's read may still be out: then a period from now.
		return c.onPollDue(msg.part)
	case staleMsg:
		c.onStale(msg)
		return nil
	case probedMsg:
		c.onProbed(msg)
		return nil
	case olderMsg:
		c.onOlder(msg)
		return nil
	case globalMsg:
		c.onGlobal(msg.m)
		return c.listen()
	case ui.ViewMsg:
		if c.split == nil {
			return nil // a live view's closed meanwhile
		}
		return c.liveUpdate(msg) // the split view drops one of no pane of its own
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			c.done = true
			return nil
		}
		if key.Matches(msg, c.keys.Suspend) { // from the list or a live view, as other TUIs
			return tea.Suspend
		}
		if c.split != nil {
			if c.split.Mode() == ui.ModeNormal && key.Matches(msg, c.keys.Back) {
				c.closeLive()
				return nil
			}
			return c.liveUpdate(msg)
		}
		return c.onKey(msg)
	case tea.MouseWheelMsg, tea.PasteMsg:
		if c.split != nil {
			return c.liveUpdate(msg)
		}
	}
	return nil
}

// onList takes a list read of one daemon (polls.go); it reports true when
// the console must stop: the one daemon refused the credentials (401/403),
// which no later poll changes (design §2.6). Other failures are shown, and
// the next poll tries again; a failure of one daemon of several is its own
// row, its last rows kept and marked stale.
func (c *Console) onList(msg listMsg) (stop bool) {
	if msg.part < 0 || msg.part >= len(c.parts) {
		return false
	}
	p := c.parts[msg.part]
	p.polling, p.overdue = false, false
	if msg.err != nil {
		p.failed = msg.err.Error()
		if p.multi {
			c.fleet.MarkUnreachable(p.name, msg.err.Error(), c.clock())
			c.refresh()
			return false
		}
		c.listErr = render.Line(msg.err.Error()) // "list: …": the error names its operation
		var se *stream.Error
		if errors.As(msg.err, &se) && se.Denied() {
			c.fatal = se
			return true
		}
		return false
	}
	p.failed, p.answered, p.notes, p.end = "", true, msg.w.Notes, msg.w.Recent.End
	if !p.multi {
		c.listErr = ""
	}
	clear(c.verdict.later) // judged again once drawn (verdict.go)
	c.retryUnknown()
	c.listNote, c.listEnd = c.partNotes()
	c.fleet.SetWindowOf(p.name, msg.w.Live, msg.w.Recent.Rows)
	defer c.pulseList() // after the journal's marks: the rows as held
	if c.olderOff < 0 && !p.multi {
		c.olderOff = msg.w.Recent.Offset
	}
	if c.sources[p.name].Journal != nil {
		ids := msg.journal
		c.fleet.MarkJournalIn(p.name, ids[max(0, len(ids)-journalRecent):])
	}
	c.watchLog(p)
	c.refresh()
	return false
}

// partNotes are the paging faults of every daemon's last answer (named by
// context across several), and the sum of their lists' ends.
func (c *Console) partNotes() (string, int) {
	var notes []string
	end := 0
	for _, p := range c.parts {
		end += p.end
		for _, n := range p.notes {
			if p.multi {
				n = p.name + ": " + n
			}
			notes = append(notes, n)
		}
	}
	return render.Line(strings.Join(notes, "; ")), end
}

// onOlder takes an older page: its rows stay, and the next scroll past the
// end reads the page before it.
func (c *Console) onOlder(msg olderMsg) {
	c.loading = false
	if msg.err != nil {
		c.listErr = render.Line(msg.err.Error())
		return
	}
	c.fleet.AddOlder(msg.page.Rows)
	c.olderOff = msg.page.Offset
	if len(msg.page.Rows) == 0 {
		c.olderOff = 0 // the list shrank under it: nothing older
	}
	c.refresh()
}

func (c *Console) onGlobal(m stream.Msg) {
	switch m := m.(type) {
	case stream.GlobalEventsMsg:
		c.onLogEvents(m.Events)
		c.fleet.AddEvents(m.Events)
		c.pulse.AddEvents(m.Events, c.clock())
		c.refresh()
	case stream.GlobalProgressMsg:
		c.globalNote = "global event log: " + progressText(m)
	case stream.GlobalLinkMsg:
		c.onLink(m)
		switch {
		case m.Denied:
			c.globalNote = "the token may not read the global event log (scope events:read:any): synchronous actions appear only once settled"
		case m.Live:
			c.globalNote = "global event log: live"
		default:
			c.globalNote = "global event log: " + render.Line(m.Cause)
		}
	}
}

func (c *Console) onKey(msg tea.KeyPressMsg) tea.Cmd {
	c.tableGen++ // the table may move
	k := c.keys
	c.note = ""
	c.lastKey = c.clock()
	if c.filtering {
		switch {
		case msg.String() == "enter":
			c.filtering = false
			c.filter.Blur()
		case msg.String() == "esc":
			c.filtering = false
			c.filter.Blur()
			c.filter.SetValue("")
		default:
			var cmd tea.Cmd
			c.filter, cmd = c.filter.Update(msg)
			c.refresh()
			return cmd
		}
		c.refresh()
		return nil
	}
	if c.showHelp {
		c.showHelp = false // any key closes it; ? and esc only that
		if key.Matches(msg, k.Help) || key.Matches(msg, k.Back) {
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		c.done = true
		return nil
	case key.Matches(msg, k.Help):
		c.showHelp = true
	case key.Matches(msg, k.Filter):
		c.filtering = true
		return c.filter.Focus()
	case key.Matches(msg, k.Back) && c.filter.Value() != "":
		c.filter.SetValue("")
		c.refresh()
	case key.Matches(msg, k.Context) && len(c.contexts) > 0:
		c.nextContext()
	case key.Matches(msg, k.States):
		c.stateIdx = int(msg.String()[0]-'1') % len(stateFilters)
		c.refresh()
	case key.Matches(msg, k.Refresh):
		return c.watchedPolls(true)
	case key.Matches(msg, k.Pulse):
		c.pulse.ToggleFold()
		c.layout()
		c.refresh()
	case key.Matches(msg, k.Figures):
		c.pulse.ToggleCapabilities()
		c.layout()
		c.refresh()
	case key.Matches(msg, k.Notify):
		c.toggleNotify()
	case key.Matches(msg, k.Open):
		return c.open(askNothing)
	case key.Matches(msg, k.Mark):
		c.toggleMark()
	case key.Matches(msg, k.Copy):
		return c.copyID()
	case key.Matches(msg, k.Sort):
		c.nextOrder()
	case key.Matches(msg, k.Cancel):
		if c.opts.NoCancel != "" {
			c.note = c.opts.NoCancel
			return nil
		}
		if why := c.noCancel(); why != "" {
			c.note = why
			return nil
		}
		// The live view's own confirmation, so it is the same one.
		return c.open(askCancel)
	case key.Matches(msg, k.Reconcile):
		return c.open(askReconcile)
	default:
		var cmd tea.Cmd
		before := c.table.Cursor()
		c.table, cmd = c.table.Update(msg)
		c.picked = c.picked || c.table.Cursor() != before
		tk := c.table.KeyMap
		if len(c.rows) > 0 && before == len(c.rows)-1 && c.table.Cursor() == before &&
			key.Matches(msg, tk.LineDown, tk.PageDown, tk.HalfPageDown, tk.GotoBottom) {
			// Past the last row: the page of older actions before it.
			return tea.Batch(cmd, c.olderCmd())
		}
		return cmd
	}
	return nil
}

// progressText says how far the global follow has caught up.
func progressText(m stream.GlobalProgressMsg) string {
	switch {
	case m.FromStart:
		return "catching up from its start (the daemon refused a seek): " + count(m.Read) + " events read, only the latest kept"
	case m.Of > 0:
		return "catching up: " + count(m.Read) + " of " + count(m.Of) + " events"
	}
	return "catching up: " + count(m.Read) + " events"
}

// count is a number for a status line: 950, 12.3K, 1.2M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// refresh rebuilds the visible rows, keeping the selected action selected.
func (c *Console) refresh() {
	// The selection stays on its action as rows come and go, once the
	// operator chose one; until then it is the top row (the newest),
	// whatever arrives above the row that was first.
	sel := ""
	if c.picked || c.holding() {
		sel = c.selectedKey()
	}
	if len(c.pulseLines()) != c.pulseRows {
		c.layout() // the figures per capability grew or shrank
	}
	rows := c.arrange(c.verdictFilter(c.fleet.Rows(model.Filter{States: stateFilters[c.stateIdx].states, Context: c.context()})))
	now := c.clock()
	trows := make([]table.Row, 0, len(rows))
	c.rows = rows[:0]
	cursor := 0
	q := textQuery(c.filter.Value())
	for i := range rows {
		r := rows[i]
		row := consoleRow(&r, now, c.table.Columns()[c.idColumn()].Width, c.verdictCell(&r), len(c.contexts) > 0, c.marked(&r))
		if c.isStale(r.Context) && r.Unreachable == "" {
			row[len(row)-4] = "stale" // UPDATED: its daemon's rows are not current (polls.go)
		}
		if q != "" && !rowMatches(&r, row, q) {
			continue
		}
		if sel != "" && r.Key() == sel {
			cursor = len(c.rows)
		}
		c.rows = append(c.rows, r)
		trows = append(trows, row)
	}
	// The table renders its rows when given them, a lipgloss style a cell:
	// a batch of the global log that changes nothing on screen (the usual
	// case: a live stream's next chunk) must not pay that (design §7).
	if !slices.EqualFunc(trows, c.trows, slices.Equal) {
		c.table.SetRows(trows)
		c.trows = trows
		c.tableGen++
	}
	if len(trows) > 0 && c.table.Cursor() != cursor {
		c.table.SetCursor(cursor)
		c.tableGen++
	}
}

// selectedKey is the selected row's key (model.ActionRow.Key).
func (c *Console) selectedKey() string {
	if i := c.table.Cursor(); i >= 0 && i < len(c.rows) && c.rows[i].ActionID != "" {
		return c.rows[i].Key()
	}
	return ""
}

func (c *Console) selectedID() string {
	if i := c.table.Cursor(); i >= 0 && i < len(c.rows) {
		return c.rows[i].ActionID
	}
	return ""
}

// What open asks of the live view it opens.
type ask int

const (
	askNothing   ask = iota
	askCancel        // the live view's cancel confirmation (its c)
	askReconcile     // its R, once the action has settled
)

// open shows the live view of the selected action, or (enter with rows
// marked) the split view of the marked ones, and asks the focused view for
// what the key pressed on the row means there.
func (c *Console) open(what ask) tea.Cmd {
	rows := c.toOpen(what)
	if len(rows) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(c.ctx)
	neighbours := c.listedIDs()
	var panes []ui.Options
	for _, r := range rows {
		follow, reconcile := c.inContext(r.Context) // Context: "" on one daemon
		var b stream.Runner
		if follow != nil {
			b = follow(r.ActionID)
		}
		if b == nil {
			c.listErr = "cannot follow " + render.Line(r.ActionID)
			cancel()
			return nil
		}
		// Inside the console the screen is already full: no start line, and
		// an error before aipd answers stays on it instead of quitting the
		// console.
		panes = append(panes, ui.Options{ActionID: r.ActionID, Backend: b, Keys: c.opts.LiveKeys, Redact: c.opts.Redact,
			NoColor: c.opts.NoColor, CancelReason: c.opts.CancelReason, NoCancel: c.opts.NoCancel, NoExport: c.opts.NoExport, Version: c.opts.Version, Clock: c.opts.Clock,
			Reconcile: reconcile, Neighbours: neighbours, Context: r.Context})
	}
	c.picked = true // back in the list, the selection is this action
	c.marks = nil
	c.liveCancel = cancel
	c.split = split.New(ctx, panes)
	cmds := []tea.Cmd{c.split.Init()}
	if c.width > 0 {
		cmds = append(cmds, c.split.SetSize(c.width, c.height))
	}
	switch what {
	case askCancel:
		c.split.Focused().AskCancel()
	case askReconcile:
		cmds = append(cmds, c.split.Focused().AskReconcileOnceSettled())
	}
	return tea.Batch(cmds...)
}

// closeLive detaches from the live views (never a cancellation) and shows
// the list again, its selection and scroll kept. Their messages still out
// name their IDs, which no view has any more: they are dropped.
func (c *Console) closeLive() {
	if c.split == nil {
		return
	}
	c.split.Close()
	c.liveCancel()
	c.split = nil
	c.refresh()
}

// liveUpdate gives the open views a message (the split view routes it);
// their detach (q) comes back to the list.
func (c *Console) liveUpdate(msg tea.Msg) tea.Cmd {
	cmd := c.split.Update(msg)
	if c.split.Done() {
		c.closeLive()
	}
	return cmd
}

// ---- drawing ----

func consoleColumns(width int, contexts []string) []table.Column {
	// Fixed narrow columns, then the rest shared: the ID first, whole when
	// it fits (act_ and 32 hex digits).
	const fixed = 10 + 7 + 5 + 2 + 2*8 // verdict, updated, tries, journal, cell padding
	var ctxCol []table.Column
	if len(contexts) > 0 {
		w := len("CONTEXT")
		for _, n := range contexts {
			w = max(w, min(16, len([]rune(n))))
		}
		ctxCol = []table.Column{{Title: "CONTEXT", Width: w}}
		width -= w + 2
	}
	rest := max(width-fixed, 40)
	id := min(36, max(14, rest*45/100))
	rem := rest - id
	// The state whole first (completed, streaming: 9; dead_lettered: 13),
	// then the capability and the lease share the rest.
	state := min(13, max(9, rem*32/100))
	lease := max(7, (rem-state)*40/100) // EXPIRED whole
	capw := max(rem-state-lease, 4)
	return append(ctxCol, []table.Column{{Title: "ACTION", Width: id}, {Title: "CAPABILITY", Width: capw}, {Title: "STATE", Width: state},
		{Title: "VERDICT", Width: 10}, {Title: "UPDATED", Width: 7}, {Title: "LEASE", Width: lease}, {Title: "TRIES", Width: 5}, {Title: "J", Width: 2}}...)
}

// tail keeps the end of an ID that does not fit: the end of a UUIDv7 is
// its random part, the start is a timestamp shared by its neighbours.
func tail(s string, w int) string {
	r := []rune(s)
	if w <= 1 || len(r) <= w {
		return s
	}
	return "…" + string(r[len(r)-w+1:])
}

// consoleRow is r's cells; verdict is its VERDICT cell (verdictCell);
// contexts puts its context first (a console across contexts); a marked
// row's ID starts with + (marks.go).
func consoleRow(r *model.ActionRow, now time.Time, idWidth int, verdict string, contexts, marked bool) table.Row {
	c := r.Cells(now, true, render.Line)
	id := tail(render.Line(r.ActionID), idWidth)
	if marked {
		id = "+ " + tail(render.Line(r.ActionID), idWidth-2)
	}
	if r.Unreachable != "" {
		id = "(daemon not read)"
	}
	row := table.Row{id, c.Capability, c.State, verdict, c.Updated, c.Lease, c.Tries, c.Journal}
	if contexts {
		row = append(table.Row{render.Line(r.Context)}, row...)
	}
	return row
}

// journalRows reports whether a row shown is marked from the journal
// (the J column's legend is shown then).
func (c *Console) journalRows() bool {
	for i := range c.rows {
		if c.rows[i].Journal {
			return true
		}
	}
	return false
}

func (c *Console) layout() {
	c.tableGen++
	c.trows = nil // drawn again at the new width
	c.table.SetColumns(consoleColumns(c.width, c.contexts))
	c.table.SetWidth(c.width)
	c.pulseRows = len(c.pulseLines())
	c.table.SetHeight(max(3, c.height-5-c.pulseRows))
	c.filter.SetWidth(max(10, c.width-4))
}

// Frame draws the list, or the live views when some are open, at the
// size SetSize gave (ui.Screen).
func (c *Console) Frame(_, _ int) ui.Frame {
	if c.split != nil {
		return c.split.Frame(c.width, c.height)
	}
	title := fmt.Sprintf("aipwatch · console · %d actions · filter %s", len(c.rows), c.filterTitle()) + c.blindTitle() + c.contextTitle() + c.marksTitle()
	switch {
	case c.listEnd > c.fleet.Len() && len(c.contexts) > 0:
		title += fmt.Sprintf(" · live and recent of %d listed", c.listEnd) // older pages: one daemon's (stream.Multi)
	case c.listEnd > c.fleet.Len():
		title += fmt.Sprintf(" · live and recent of %d listed (↓ past the end: older)", c.listEnd)
	}
	if c.journalRows() { // the J column's legend
		title += " · J: j in this machine's journal, j! only there (not in aipd's recent)"
	}
	var status string
	style, kind := c.st.Dim, 0
	// The filter line, while typing it and while it filters, but a key's
	// answer (c, n) shows over it until the next key, or the key looks dead.
	filterLine := c.filtering || (c.filter.Value() != "" && c.note == "")
	switch {
	case filterLine:
		status = c.filter.View()
	case c.listErr != "":
		status, style, kind = c.listErr+c.listHint(), c.st.Error, 1
	case c.note != "":
		status, style, kind = c.note, c.st.Warn, 2
	case c.loading:
		status = "reading older actions…"
	case c.noneAnswered(): // each row says why; the status line, what to check
		status, style, kind = "no context answered"+c.listHint(), c.st.Error, 1
	case c.staleLine() != "":
		status, style, kind = c.staleLine(), c.st.Warn, 2
	case c.listNote != "":
		status, style, kind = "list: "+c.listNote, c.st.Warn, 2
	default:
		status = c.globalNote
	}
	// The frame is drawn again only when what it shows changed: a batch
	// of the global log that moves nothing on screen costs no drawing.
	c.pulseLines() // drawn again, if at all, at the next step of aipd's clock
	key := consoleFrameKey{table: c.tableGen, width: c.width, height: c.height, title: title, status: status,
		filtering: filterLine, style: kind, help: c.showHelp, pulse: c.pulse.Gen()}
	if key != c.frameKey || c.frame == "" {
		c.frameKey, c.frame = key, c.drawFrame(title, status, style, key.filtering)
	}
	return ui.Frame{Content: c.frame}
}

// consoleFrameKey is what the console's frame shows.
type consoleFrameKey struct {
	table, width, height int // table: tableGen
	title, status        string
	style                int // which style the status line has
	filtering, help      bool
	pulse                uint64 // the pulse's lines (pulse.Strip.Gen)
}

func (c *Console) drawFrame(title, status string, style lipgloss.Style, filtering bool) string {
	var b strings.Builder
	b.WriteString(render.Truncate(c.st.Header.Render(title), c.width, "…") + "\n")
	// The pulse takes the lines the layout gave it, no more, no fewer.
	pl := c.pulseLines()
	for i := range c.pulseRows {
		if i < len(pl) {
			b.WriteString(pl[i])
		}
		b.WriteString("\n")
	}
	if c.showHelp {
		lines := c.helpLines(max(c.width, 1))
		for i := 0; i < max(c.table.Height()+1, len(lines)); i++ {
			if i < len(lines) {
				b.WriteString(lines[i])
			}
			b.WriteString("\n")
		}
	} else {
		b.WriteString(c.table.View() + "\n")
	}
	if filtering {
		b.WriteString(status + "\n")
	} else {
		b.WriteString(render.Truncate(style.Render(status), c.width, "…") + "\n")
	}
	b.WriteString(c.shortHelp(max(c.width, 1)))
	// The same last check as the live view's rows: no control but our own
	// colours reaches the terminal, and no piece of the token.
	lines := strings.Split(lipgloss.NewStyle().MaxWidth(max(c.width, 1)).Render(b.String()), "\n")
	for i, l := range lines {
		lines[i] = safe.Row(l)
	}
	return safe.Scrub(strings.Join(lines, "\n"))
}
