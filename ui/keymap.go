package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// The key map's types. The bindings themselves, and every help text, are in
// the top-level keymap.go, beside main.go: main builds a KeyMap there and
// passes it in Options.Keys (console.Options for the console).
//
// The help shown depends on what the operator can do right now
// (KeyContext): a pending cancel confirmation offers only enter and n; the
// raw view offers its own keys; a settled action no longer offers cancel,
// and q then quits rather than detaches; n and N (next and previous match)
// exist only while a search is active, and the query line offers only
// enter and esc.

// KeyMode is what the keys currently act on.
type KeyMode int

const (
	ModeNormal  KeyMode = iota // the transcript
	ModeConfirm                // the cancel confirmation: type the ID's last characters, enter; n / esc keep it
	ModeRaw                    // the raw chunk view of the focused item
	ModeLog                    // the connection timeline
	ModeSearch                 // typing a search query: enter finds, esc cancels
)

// The timeline's and the export's modes (design §16).
const (
	ModeTimeline KeyMode = ModeSearch + 1 + iota // the timeline (v): zoom and pan
	ModeExport                                   // e: the export's format (Markdown, HTML), or none
)

// KeyContext is the state the help depends on.
type KeyContext struct {
	Mode     KeyMode
	Settled  bool // the action has a final verdict: no cancel; q quits
	Stopped  bool // the run stopped on an error: no cancel from here; q quits
	Paused   bool // follow is paused: G resumes
	HasTools bool // there are tool calls: t toggles their pane
	Redact   bool // --redact: no raw view, no copy
	Plain    bool // the borderless plain view is on
	Markdown bool // markdown rendering is on
	Search   bool // a search is active: n / N move between matches, esc clears it
	// Notify: n can ask for a notification when the action settles
	// (ui/notify.go): the output is a terminal and nothing has settled.
	Notify   bool
	Replay   bool // a --replay: there is no live action to cancel
	Retrying bool // waiting before the next try to reach aipd: ctrl+r retries now
	// Reconcile: R can submit the read-only reconcile action (design §8).
	Reconcile bool
	// Reconciling: the confirmation shown is R's (y / n), not the cancel's.
	Reconciling bool
	// Pane: the view is one pane of a split view (design §12): ctrl+w
	// and z are the split's.
	Pane bool
}

// KeyMap is every binding of the live view, with its help texts. main
// builds it (keymap.go); For adapts the help to a context.
type KeyMap struct {
	Up, Down, PageUp, PageDown, HalfUp, HalfDown key.Binding
	Top, Bottom                                  key.Binding
	Next, Prev, Toggle                           key.Binding
	Tools, Help, Raw, Markdown, Copy, Plain, Log key.Binding
	Cancel, Quit                                 key.Binding
	Yes, No                                      key.Binding // cancel confirmation
	RawPrev, RawNext, Close, CloseLog            key.Binding // raw view, log
	Search, SearchNext, SearchPrev, SearchClear  key.Binding // search
	SearchGo, SearchCancel                       key.Binding // the query line
	Export                                       key.Binding
	RetryNow                                     key.Binding // while reconnecting
	Times, Wrap                                  key.Binding // timestamps, wrapping
	Reconcile                                    key.Binding // R: read the stored state (design §8)
	Notify                                       key.Binding // n: notify when the action settles (design §10)
	// Suspend: ctrl+z hands the terminal back to the shell, as other TUIs
	// do (fg resumes).
	Suspend key.Binding
	// NextPane and Zoom are the split view's (design §12): the focus to
	// the next pane, the focused pane on the whole screen and back.
	NextPane, Zoom key.Binding
	// Timeline (v) shows the turn on a time axis (design §16); ZoomIn,
	// ZoomOut, PanLeft and PanRight move its window.
	Timeline, ZoomIn, ZoomOut, PanLeft, PanRight key.Binding
	// ExportMarkdown, ExportHTML and ExportCancel answer e's question
	// (ModeExport).
	ExportMarkdown, ExportHTML, ExportCancel key.Binding

	// In is the help text that depends on the context (For).
	In ContextHelp
	// Short is the compact form of each entry of the one help line.
	Short ShortHelp

	ctx KeyContext
}

// ContextHelp is the help text of the bindings whose meaning depends on
// the context.
type ContextHelp struct {
	QuitLive, QuitSettled   key.Help // q before and after the action settled
	MarkdownOn, MarkdownOff key.Help // m while markdown is off, on
	PlainOn, PlainOff       key.Help // p while the framed view, the plain view shows
	Follow                  key.Help // G/end while follow is paused
	NewSearch               key.Help // / while a search is active
	// ReconcileYes, ReconcileNo: y and n/esc while the R confirmation is
	// shown (the confirmation's keys are the cancel's otherwise).
	ReconcileYes, ReconcileNo key.Help
}

// ShortHelp is the one help line's compact forms, in its display order.
type ShortHelp struct {
	Follow, NextPrev, Scroll, Next, Toggle key.Help
	Tools, Search, Export                  key.Help
	Detach, Quit, More                     key.Help
	// Zoom, CancelPane and DetachAll are z, c and q on the split view's
	// key line (design §12).
	Zoom, CancelPane, DetachAll key.Help
	// TimelineZoom, TimelinePan and TimelineClose: the line while the
	// timeline is shown (design §16).
	TimelineZoom, TimelinePan, TimelineClose key.Help
}

// For returns the key map with its help adapted to the context: texts that
// depend on it are rewritten and bindings that do nothing there are
// disabled (disabled bindings are left out of the help).
func (k KeyMap) For(c KeyContext) KeyMap {
	k.ctx = c
	sethelp := func(b *key.Binding, h key.Help) { b.SetHelp(h.Key, h.Desc) }
	if c.Settled || c.Stopped {
		sethelp(&k.Quit, k.In.QuitSettled)
	} else {
		sethelp(&k.Quit, k.In.QuitLive)
	}
	if c.Markdown {
		sethelp(&k.Markdown, k.In.MarkdownOff)
	} else {
		sethelp(&k.Markdown, k.In.MarkdownOn)
	}
	if c.Plain {
		sethelp(&k.Plain, k.In.PlainOff)
	} else {
		sethelp(&k.Plain, k.In.PlainOn)
	}
	k.Bottom.SetEnabled(true)
	if c.Paused {
		sethelp(&k.Bottom, k.In.Follow)
	}
	if c.Mode == ModeConfirm && c.Reconciling {
		sethelp(&k.Yes, k.In.ReconcileYes)
		sethelp(&k.No, k.In.ReconcileNo)
	}
	k.Cancel.SetEnabled(!c.Settled && !c.Stopped && !c.Replay)
	k.Reconcile.SetEnabled(c.Reconcile && c.Settled && !c.Replay)
	k.SearchNext.SetEnabled(c.Search)
	k.SearchPrev.SetEnabled(c.Search)
	k.SearchClear.SetEnabled(c.Search)
	if c.Search {
		sethelp(&k.Search, k.In.NewSearch)
	}
	// n is the next match while a search is on.
	k.Notify.SetEnabled(c.Notify && !c.Search && !c.Settled && !c.Stopped)
	k.RetryNow.SetEnabled(c.Retrying)
	k.Tools.SetEnabled(c.HasTools)
	k.Raw.SetEnabled(!c.Redact)
	k.Copy.SetEnabled(!c.Redact)
	k.NextPane.SetEnabled(c.Pane)
	k.Zoom.SetEnabled(c.Pane)
	return k
}

// Context is the context the map was adapted to.
func (k KeyMap) Context() KeyContext { return k.ctx }

// ShortHelp is the one help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	switch k.ctx.Mode {
	case ModeConfirm:
		return []key.Binding{k.Yes, k.No}
	case ModeRaw:
		return enabled(k.Up, k.Down, k.RawPrev, k.RawNext, k.Close)
	case ModeLog:
		return enabled(k.Up, k.Down, k.CloseLog)
	case ModeTimeline:
		s := k.Short
		both := func(a, b key.Binding, h key.Help) key.Binding {
			return key.NewBinding(key.WithKeys(append(a.Keys(), b.Keys()...)...), key.WithHelp(h.Key, h.Desc))
		}
		cl := k.Timeline
		cl.SetHelp(s.TimelineClose.Key, s.TimelineClose.Desc)
		more := k.Help
		more.SetHelp(s.More.Key, s.More.Desc)
		return []key.Binding{both(k.ZoomIn, k.ZoomOut, s.TimelineZoom), both(k.PanLeft, k.PanRight, s.TimelinePan), cl, more}
	case ModeSearch:
		return []key.Binding{k.SearchGo, k.SearchCancel}
	case ModeExport:
		return []key.Binding{k.ExportMarkdown, k.ExportHTML, k.ExportCancel}
	}
	out, _ := k.short()
	return out
}

// short is the normal help line in display order, with each binding's
// priority: ShortHelpFit leaves out the lowest first.
func (k KeyMap) short() ([]key.Binding, []int) {
	// Compact forms of the main bindings.
	short := func(b key.Binding, h key.Help) key.Binding {
		b.SetHelp(h.Key, h.Desc)
		return b
	}
	s := k.Short
	var out []key.Binding
	var prio []int
	add := func(b key.Binding, p int) {
		if b.Enabled() {
			out, prio = append(out, b), append(prio, p)
		}
	}
	add(k.RetryNow, 9)
	if k.ctx.Paused {
		add(short(k.Bottom, s.Follow), 9)
	}
	if k.ctx.Search {
		add(key.NewBinding(key.WithKeys(append(k.SearchNext.Keys(), k.SearchPrev.Keys()...)...), key.WithHelp(s.NextPrev.Key, s.NextPrev.Desc)), 8)
		add(k.SearchClear, 8)
	}
	add(key.NewBinding(key.WithKeys(append(append(k.Up.Keys(), k.Down.Keys()...), append(k.PageUp.Keys(), k.PageDown.Keys()...)...)...), key.WithHelp(s.Scroll.Key, s.Scroll.Desc)), 7)
	add(short(k.Next, s.Next), 6)
	add(short(k.Toggle, s.Toggle), 6)
	add(k.Cancel, 7)
	add(short(k.Tools, s.Tools), 5)
	add(short(k.Search, s.Search), 4)
	add(short(k.Export, s.Export), 3)
	q := short(k.Quit, s.Detach)
	if k.ctx.Settled || k.ctx.Stopped {
		q = short(k.Quit, s.Quit)
	}
	add(q, 9)
	add(short(k.Help, s.More), 10)
	return out, prio
}

// ShortHelpFit is the help line for a width: the bindings of ShortHelp
// that fit, the least important left out first (the later of two equals
// first). width measures a line of bindings as it will be drawn.
func (k KeyMap) ShortHelpFit(max int, width func([]key.Binding) int) []key.Binding {
	if k.ctx.Mode != ModeNormal {
		return k.ShortHelp()
	}
	out, prio := k.short()
	return FitHelp(out, prio, max, width)
}

// FitHelp is a help line of bindings, each with its priority, for a width:
// the least important left out first (the later of two equals first)
// until width, which measures a line of bindings as it will be drawn,
// says it fits in max. The live view's line and the console's.
func FitHelp(out []key.Binding, prio []int, max int, width func([]key.Binding) int) []key.Binding {
	for len(out) > 1 && width(out) > max {
		lo := len(prio) - 1
		for i := len(prio) - 1; i >= 0; i-- {
			if prio[i] < prio[lo] {
				lo = i
			}
		}
		out = append(out[:lo:lo], out[lo+1:]...)
		prio = append(prio[:lo:lo], prio[lo+1:]...)
	}
	return out
}

// FullHelp is the ? view, in columns (help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	switch k.ctx.Mode {
	case ModeConfirm:
		return [][]key.Binding{{k.Yes, k.No}}
	case ModeRaw:
		return [][]key.Binding{
			enabled(k.Up, k.Down, k.PageUp, k.PageDown),
			enabled(k.Top, k.Bottom, k.RawPrev, k.RawNext),
			enabled(k.Close),
		}
	case ModeLog:
		return [][]key.Binding{enabled(k.Up, k.Down, k.PageUp, k.PageDown), enabled(k.Top, k.Bottom, k.CloseLog)}
	case ModeTimeline:
		return [][]key.Binding{enabled(k.ZoomIn, k.ZoomOut, k.PanLeft, k.PanRight), enabled(k.Top, k.Bottom, k.Timeline, k.Help)}
	case ModeSearch:
		return [][]key.Binding{{k.SearchGo, k.SearchCancel}}
	case ModeExport:
		return [][]key.Binding{{k.ExportMarkdown, k.ExportHTML, k.ExportCancel}}
	}
	return [][]key.Binding{
		enabled(k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown),
		enabled(k.Top, k.Bottom, k.Next, k.Prev, k.Toggle),
		enabled(k.Tools, k.Timeline, k.Markdown, k.Plain, k.Times, k.Wrap, k.Raw, k.Copy, k.Log),
		enabled(k.Search, k.SearchNext, k.SearchPrev, k.SearchClear, k.Export),
		enabled(k.Cancel, k.RetryNow, k.Reconcile, k.Notify, k.NextPane, k.Zoom, k.Help, k.Quit),
	}
}

func enabled(bs ...key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

var _ help.KeyMap = KeyMap{}

// ConsoleKeyMap is the operator console's list (design §7). In the live
// view opened from it, the live view's own keys apply, and Back returns to
// the list.
type ConsoleKeyMap struct {
	Open, Back, Filter, States, Refresh, Cancel, Reconcile, Help, Quit key.Binding
	// Notify: n on a live row, notify when it settles (design §10).
	Notify key.Binding
	// Context narrows a console across contexts to one context, then the
	// next, then all again.
	Context key.Binding
	// Mark marks a row, at most four; Open then opens the marked ones in
	// a split view (design §12).
	Mark key.Binding
	// Pulse folds the pulse away or back; Figures opens the figures per
	// capability under it (design §13).
	Pulse, Figures key.Binding
	// Select is the list's own keys (the table moves the selection).
	Select key.Help
	// Suspend: ctrl+z, as in the live view.
	Suspend key.Binding
	// Copy copies the selected row's action ID (OSC 52, as the live
	// view's y); Sort orders the list by the next key.
	Copy, Sort key.Binding
	// Short is the one help line's compact forms.
	Short ConsoleShortHelp
}

// ConsoleShortHelp is the console's one help line, compact, in its display
// order.
type ConsoleShortHelp struct {
	Select, Open, Cancel, Reconcile, Notify, Filter, States, Context, Help, Quit key.Help
	// Pulse and Figures: the pulse's keys (design §13), the first left out.
	Pulse, Figures key.Help
}
