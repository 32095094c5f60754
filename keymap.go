package main

import (
	"charm.land/bubbles/v2/key"

	"aipwatch/ui"
)

// Every key binding of aipwatch, with its help text. ui declares the types
// and decides which help a context shows (ui/keymap.go); main passes these
// maps in ui.Options and console.Options. The ui tests read this file
// (ui/keymap_test.go, realKeys), so keep each value a call of bind or hint
// with string literals.

// keyMap is the live view's bindings.
func keyMap() ui.KeyMap {
	return ui.KeyMap{
		Up:       bind("↑/k", "scroll up", "up", "k"),
		Down:     bind("↓/j", "scroll down", "down", "j"),
		PageUp:   bind("pgup", "page up", "pgup", "b"),
		PageDown: bind("pgdn", "page down", "pgdown", "f"),
		HalfUp:   bind("ctrl+u", "half page up", "ctrl+u"),
		HalfDown: bind("ctrl+d", "half page down", "ctrl+d"),
		Top:      bind("g/home", "top", "g", "home"),
		Bottom:   bind("G/end", "bottom, follow", "G", "end"),
		Next:     bind("tab/]", "next item", "tab", "]"),
		Prev:     bind("⇧tab/[", "previous item", "shift+tab", "["),
		Toggle:   bind("enter/space", "expand/collapse", "enter", "space"),
		Tools:    bind("t", "tools pane", "t"),
		Help:     bind("?", "all keys", "?"),
		Raw:      bind("r", "raw chunk", "r"),
		Markdown: bind("m", "markdown on/off", "m"),
		Copy:     bind("y", "copy item (OSC 52)", "y"),
		Plain:    bind("p", "plain view", "p"),
		Cancel:   bind("c", "cancel", "c"),
		Quit:     bind("q", "detach", "q", "ctrl+c"),
		Yes:      bind("enter", "send cancel once typed", "enter"),
		No:       bind("n/esc", "keep running", "n", "esc"),
		RawPrev:  bind("←/h", "prev chunk", "left", "h"),
		RawNext:  bind("→/l", "next chunk", "right", "l"),
		Close:    bind("esc/q", "close", "esc", "r", "q"),
		Log:      bind("l", "connection log", "l"),
		CloseLog: bind("esc/q", "close", "esc", "l", "q"),

		Search:       bind("/", "search", "/"),
		SearchNext:   bind("n", "next match", "n"),
		SearchPrev:   bind("N", "previous match", "N"),
		SearchClear:  bind("esc", "clear search", "esc"),
		SearchGo:     bind("enter", "find", "enter"),
		SearchCancel: bind("esc", "cancel", "esc"),
		Export:       bind("e", "export (Markdown or HTML)", "e"),
		RetryNow:     bind("ctrl+r", "retry now", "ctrl+r"),
		Times:        bind("T", "timestamps", "T"),
		Wrap:         bind("w", "wrap on/off", "w"),
		Reconcile:    bind("R", "reconcile (one read-only action)", "R"),
		Notify:       bind("n", "notify when it settles (bell, OSC 9)", "n"),
		NextPane:     bind("ctrl+w", "next pane", "ctrl+w"),
		Zoom:         bind("z", "zoom the pane, and back", "z"),
		Timeline:     bind("v", "timeline", "v"),
		ZoomIn:       bind("+", "zoom in", "+", "="),
		ZoomOut:      bind("-", "zoom out", "-", "_"),
		PanLeft:      bind("←/h", "earlier", "left", "h"),
		PanRight:     bind("→/l", "later", "right", "l"),

		ExportMarkdown: bind("m", "Markdown", "m"),
		ExportHTML:     bind("h", "HTML report", "h"),
		ExportCancel:   bind("esc", "no export", "esc", "q"),

		Suspend: bind("ctrl+z", "suspend (fg resumes)", "ctrl+z"),

		In: ui.ContextHelp{
			QuitLive:     hint("q", "detach (keeps running)"),
			QuitSettled:  hint("q", "quit"),
			MarkdownOn:   hint("m", "markdown on"),
			MarkdownOff:  hint("m", "markdown off"),
			PlainOn:      hint("p", "plain view (clean selection)"),
			PlainOff:     hint("p", "framed view"),
			Follow:       hint("G/end", "follow"),
			NewSearch:    hint("/", "new search"),
			ReconcileYes: hint("y", "submit the read"),
			ReconcileNo:  hint("n/esc", "submit nothing"),
		},
		Short: ui.ShortHelp{
			Follow:   hint("G", "follow"),
			NextPrev: hint("n/N", "next/prev"),
			Scroll:   hint("↑↓", "scroll"),
			Next:     hint("tab", "item"),
			Toggle:   hint("enter", "expand"),
			Tools:    hint("t", "tools"),
			Search:   hint("/", "search"),
			Export:   hint("e", "export"),
			Detach:   hint("q", "detach"),
			Quit:     hint("q", "quit"),
			More:     hint("?", "more"),
			// The split view's key line (design §12).
			Zoom:       hint("z", "zoom"),
			CancelPane: hint("c", "cancel (this pane)"),
			DetachAll:  hint("q", "detach all"),
			// The timeline (design §16).
			TimelineZoom:  hint("+/-", "zoom"),
			TimelinePan:   hint("←→", "pan"),
			TimelineClose: hint("v", "close"),
		},
	}
}

// consoleKeyMap is the operator console's list (design §7).
func consoleKeyMap() ui.ConsoleKeyMap {
	return ui.ConsoleKeyMap{
		Open:      bind("enter", "follow the action", "enter"),
		Back:      bind("esc", "back to the list (detach, never cancel)", "esc"),
		Filter:    bind("/", "filter by the text the rows show", "/"),
		States:    bind("1-5", "all, live, settled; 4: judged failed, 5: not verified", "1", "2", "3", "4", "5"),
		Refresh:   bind("ctrl+r", "read the list now", "ctrl+r"),
		Cancel:    bind("c", "cancel (the live view's confirmation)", "c"),
		Reconcile: bind("R", "reconcile", "R"),
		Notify:    bind("n", "notify when it settles (bell, OSC 9)", "n"),
		Context:   bind("x", "across contexts: one context, the next, all", "x"),
		Mark:      bind("space", "mark the row for a split view (up to 4; enter opens them)", "space"),
		Pulse:     bind("p", "fold the pulse away, or back", "p"),
		Figures:   bind("s", "the figures per capability (first token, duration, verdicts)", "s"),
		Copy:      bind("y", "copy the selected row's action ID (OSC 52)", "y"),
		Sort:      bind("o", "order by: updated, started, state, capability", "o"),
		Help:      bind("?", "all keys", "?"),
		Quit:      bind("q", "quit", "q"),
		Select:    hint("↑↓ j k g G", "select a row (g/G: first/last, pgup/pgdn: a page)"),

		Suspend: bind("ctrl+z", "suspend (fg resumes)", "ctrl+z"),

		Short: ui.ConsoleShortHelp{
			Select:    hint("↑↓", "select"),
			Open:      hint("enter", "follow"),
			Cancel:    hint("c", "cancel"),
			Reconcile: hint("R", "reconcile"),
			Notify:    hint("n", "notify"),
			Filter:    hint("/", "filter"),
			States:    hint("1-5", "filters"),
			Pulse:     hint("p", "pulse"),
			Figures:   hint("s", "figures"),
			Context:   hint("x", "context"),
			Help:      hint("?", "more"),
			Quit:      hint("q", "quit"),
		},
	}
}

// bind is a binding: its help (key, description), then the keys it matches.
func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// hint is a help text (key, description) without keys of its own.
func hint(k, desc string) key.Help { return key.Help{Key: k, Desc: desc} }
