// Package keys holds aipwatch's key bindings, each with its help text, and
// the help.KeyMap the TUI's help line is fed from.
//
// The project layout names a top-level keymap.go, but package main cannot be
// imported by the ui package, so the bindings live here. The help shown
// depends on what the operator can do right now (Context): a pending cancel
// confirmation offers only y and n; the raw view offers its own keys; a
// settled action no longer offers cancel, and q then quits rather than
// detaches; n and N (next and previous match) exist only while a search
// is active, and the query line offers only enter and esc.
package keys

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// Mode is what the keys currently act on.
type Mode int

const (
	Normal  Mode = iota // the transcript
	Confirm             // the cancel confirmation: type the ID's last characters, enter; n / esc keep it
	Raw                 // the raw chunk view of the focused item
	Log                 // the connection timeline
	Search              // typing a search query: enter finds, esc cancels
)

// Context is the state the help depends on.
type Context struct {
	Mode     Mode
	Settled  bool // the action has a final verdict: no cancel; q quits
	Paused   bool // follow is paused: G resumes
	HasTools bool // there are tool calls: t toggles their pane
	Redact   bool // --redact: no raw view, no copy
	Plain    bool // the borderless plain view is on
	Markdown bool // markdown rendering is on
	Search   bool // a search is active: n / N move between matches, esc clears it
	Replay   bool // a --replay: there is no live action to cancel
	Retrying bool // waiting before the next try to reach aipd: ctrl+r retries now
	// Reconcile: R can submit the read-only reconcile action (contract §8).
	Reconcile bool
}

// KeyMap is every binding. Use Default, then For to get the help for a
// context.
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
	Reconcile                                    key.Binding // R: read the stored state (contract §8)

	ctx Context
}

// Default returns the bindings with their help texts.
func Default() KeyMap {
	b := func(help, desc string, ks ...string) key.Binding {
		return key.NewBinding(key.WithKeys(ks...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:       b("↑/k", "scroll up", "up", "k"),
		Down:     b("↓/j", "scroll down", "down", "j"),
		PageUp:   b("pgup", "page up", "pgup", "b"),
		PageDown: b("pgdn", "page down", "pgdown", "f"),
		HalfUp:   b("ctrl+u", "half page up", "ctrl+u"),
		HalfDown: b("ctrl+d", "half page down", "ctrl+d"),
		Top:      b("g/home", "top", "g", "home"),
		Bottom:   b("G/end", "bottom, follow", "G", "end"),
		Next:     b("tab/]", "next item", "tab", "]"),
		Prev:     b("⇧tab/[", "previous item", "shift+tab", "["),
		Toggle:   b("enter/space", "expand/collapse", "enter", "space"),
		Tools:    b("t", "tools pane", "t"),
		Help:     b("?", "all keys", "?"),
		Raw:      b("r", "raw chunk", "r"),
		Markdown: b("m", "markdown on/off", "m"),
		Copy:     b("y", "copy item (OSC 52)", "y"),
		Plain:    b("p", "plain view", "p"),
		Cancel:   b("c", "cancel", "c"),
		Quit:     b("q", "detach", "q", "ctrl+c"),
		Yes:      b("enter", "send cancel once typed", "enter"),
		No:       b("n/esc", "keep running", "n", "esc"),
		RawPrev:  b("←/h", "prev chunk", "left", "h"),
		RawNext:  b("→/l", "next chunk", "right", "l"),
		Close:    b("esc/q", "close", "esc", "r", "q"),
		Log:      b("l", "connection log", "l"),
		CloseLog: b("esc/q", "close", "esc", "l", "q"),

		Search:       b("/", "search", "/"),
		SearchNext:   b("n", "next match", "n"),
		SearchPrev:   b("N", "previous match", "N"),
		SearchClear:  b("esc", "clear search", "esc"),
		SearchGo:     b("enter", "find", "enter"),
		SearchCancel: b("esc", "cancel", "esc"),
		Export:       b("e", "export markdown", "e"),
		RetryNow:     b("ctrl+r", "retry now", "ctrl+r"),
		Times:        b("T", "timestamps", "T"),
		Wrap:         b("w", "wrap on/off", "w"),
		Reconcile:    b("R", "reconcile (one read-only action)", "R"),
	}
}

// For returns the key map with its help adapted to the context: texts that
// depend on it are rewritten and bindings that do nothing there are
// disabled (disabled bindings are left out of the help).
func (k KeyMap) For(c Context) KeyMap {
	k.ctx = c
	if c.Settled {
		k.Quit.SetHelp("q", "quit")
	} else {
		k.Quit.SetHelp("q", "detach (keeps running)")
	}
	if c.Markdown {
		k.Markdown.SetHelp("m", "markdown off")
	} else {
		k.Markdown.SetHelp("m", "markdown on")
	}
	if c.Plain {
		k.Plain.SetHelp("p", "framed view")
	} else {
		k.Plain.SetHelp("p", "plain view (clean selection)")
	}
	k.Bottom.SetEnabled(true)
	if c.Paused {
		k.Bottom.SetHelp("G/end", "follow")
	}
	k.Cancel.SetEnabled(!c.Settled && !c.Replay)
	k.Reconcile.SetEnabled(c.Reconcile && c.Settled && !c.Replay)
	k.SearchNext.SetEnabled(c.Search)
	k.SearchPrev.SetEnabled(c.Search)
	k.SearchClear.SetEnabled(c.Search)
	if c.Search {
		k.Search.SetHelp("/", "new search")
	}
	k.RetryNow.SetEnabled(c.Retrying)
	k.Tools.SetEnabled(c.HasTools)
	k.Raw.SetEnabled(!c.Redact)
	k.Copy.SetEnabled(!c.Redact)
	return k
}

// Context is the context the map was adapted to.
func (k KeyMap) Context() Context { return k.ctx }

// ShortHelp is the one help line (help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	switch k.ctx.Mode {
	case Confirm:
		return []key.Binding{k.Yes, k.No}
	case Raw:
		return enabled(k.Up, k.Down, k.RawPrev, k.RawNext, k.Close)
	case Log:
		return enabled(k.Up, k.Down, k.CloseLog)
	case Search:
		return []key.Binding{k.SearchGo, k.SearchCancel}
	}
	out, _ := k.short()
	return out
}

// short is the normal help line in display order, with each binding's
// priority: ShortHelpFit leaves out the lowest first.
func (k KeyMap) short() ([]key.Binding, []int) {
	// Compact forms of the main bindings.
	short := func(b key.Binding, k, desc string) key.Binding {
		b.SetHelp(k, desc)
		return b
	}
	var out []key.Binding
	var prio []int
	add := func(b key.Binding, p int) {
		if b.Enabled() {
			out, prio = append(out, b), append(prio, p)
		}
	}
	add(k.RetryNow, 9)
	if k.ctx.Paused {
		add(short(k.Bottom, "G", "follow"), 9)
	}
	if k.ctx.Search {
		add(key.NewBinding(key.WithKeys("n", "N"), key.WithHelp("n/N", "next/prev")), 8)
		add(k.SearchClear, 8)
	}
	add(key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown"), key.WithHelp("↑↓", "scroll")), 7)
	add(short(k.Next, "tab", "item"), 6)
	add(short(k.Toggle, "enter", "expand"), 6)
	add(k.Cancel, 7)
	add(short(k.Tools, "t", "tools"), 5)
	add(short(k.Search, "/", "search"), 4)
	add(short(k.Export, "e", "export"), 3)
	q := short(k.Quit, "q", "detach")
	if k.ctx.Settled {
		q = short(k.Quit, "q", "quit")
	}
	add(q, 9)
	add(short(k.Help, "?", "more"), 10)
	return out, prio
}

// ShortHelpFit is the help line for a width: the bindings of ShortHelp
// that fit, the least important left out first (the later of two equals
// first). width measures a line of bindings as it will be drawn.
func (k KeyMap) ShortHelpFit(max int, width func([]key.Binding) int) []key.Binding {
	if k.ctx.Mode != Normal {
		return k.ShortHelp()
	}
	out, prio := k.short()
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
	case Confirm:
		return [][]key.Binding{{k.Yes, k.No}}
	case Raw:
		return [][]key.Binding{
			enabled(k.Up, k.Down, k.PageUp, k.PageDown),
			enabled(k.Top, k.Bottom, k.RawPrev, k.RawNext),
			enabled(k.Close),
		}
	case Log:
		return [][]key.Binding{enabled(k.Up, k.Down, k.PageUp, k.PageDown), enabled(k.Top, k.Bottom, k.CloseLog)}
	case Search:
		return [][]key.Binding{{k.SearchGo, k.SearchCancel}}
	}
	return [][]key.Binding{
		enabled(k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown),
		enabled(k.Top, k.Bottom, k.Next, k.Prev, k.Toggle),
		enabled(k.Tools, k.Markdown, k.Plain, k.Times, k.Wrap, k.Raw, k.Copy, k.Log),
		enabled(k.Search, k.SearchNext, k.SearchPrev, k.SearchClear, k.Export),
		enabled(k.Cancel, k.RetryNow, k.Reconcile, k.Help, k.Quit),
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
