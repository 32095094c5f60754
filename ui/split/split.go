// Package split is the split view (design §12): up to four live views
// (ui.Live) on one screen, each in its pane with its own transcript and
// status bar; the focused pane takes the keys, ctrl+w moves the focus, z
// zooms the focused pane and back, c cancels the focused pane's action
// only, q detaches from all. It is a ui.Screen: the program shell runs it
// for `aipwatch ID1 ID2 …` (aipwatch/run), and the console opens one on the
// rows marked with space.
//
// The split view is a component, as the live view is: it hosts its panes
// through their methods only, routes each ui.ViewMsg to the pane whose ID
// it names, and gives a pane its cell with SetSize; one pane is drawn as
// the live view alone (the console's enter on one row). Its panes' streams
// are listened for together (ui.Gather): the batches of one tick come as
// one message, each pane's part tagged with its ID, given to each pane in
// one Update and drawn in one frame, so that four panes cost a frame a
// tick as one does (design §12).
package split

import (
	"context"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/render"
	"aipwatch/ui"
)

// MaxPanes is how many actions a split view follows at once (design §12).
const MaxPanes = 4

// Split is the split view: its panes, which one has the focus, the zoom.
type Split struct {
	panes  []*ui.Live
	gather *ui.Gather // the panes' streams, one message a tick
	focus  int
	zoom   bool
	done   bool // q: detach from all

	names names // each pane's, in its title and its shrunk row (names.go)
	keys  ui.KeyMap
	st    *render.Styles
	hm    help.Model
	line  keyLine // the key line, cached by width

	width, height int
	cells         []cell  // the layout for width x height (layout.go)
	blocks        []block // each pane as the last frame drew it (block.go)
	drawn         int     // blocks drawn since New (the tests count them)
	cursorAt      [2]int  // where the focused pane's cell starts (x, y)
	lastRows      int     // the rows of the focused pane's last frame (in its box, or the screen alone), for Cursor
}

// New makes the split view of the actions panes name (one to MaxPanes;
// more are left out), each a live view bounded by ctx. With more than one,
// each is a pane (ui.Options.Pane) and its cancel's confirmation asks for
// as many characters of its ID as tell it from the others'. The split's
// own keys and colour are the first pane's (its host gives every pane the
// same).
func New(ctx context.Context, panes []ui.Options) *Split {
	panes = panes[:min(len(panes), MaxPanes)]
	var first ui.Options
	if len(panes) > 0 {
		first = panes[0]
	}
	keys := first.Keys
	look := ui.NewLook(first.NoColor) // one for every pane
	st := look.Styles()
	s := &Split{keys: keys, st: st, hm: help.New(), gather: ui.NewGather(), names: paneNames(panes)}
	s.hm.Styles = help.Styles{Ellipsis: st.HelpSep, ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep}
	for _, o := range panes {
		o.Look, o.Gather = look, s.gather
		if len(panes) > 1 {
			o.Pane = true
			for _, other := range panes {
				o.Neighbours = append(o.Neighbours, other.ActionID)
			}
		}
		s.panes = append(s.panes, ui.NewLive(ctx, o))
	}
	s.blocks = make([]block, len(s.panes))
	return s
}

// Init starts every pane, and the listen for their streams.
func (s *Split) Init() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(s.panes)+1)
	for _, p := range s.panes {
		cmds = append(cmds, p.Init())
	}
	cmds = append(cmds, s.gather.Listen())
	return tea.Batch(cmds...)
}

// Panes are the live views, in the order given.
func (s *Split) Panes() []*ui.Live { return s.panes }

// Focused is the pane that takes the keys.
func (s *Split) Focused() *ui.Live { return s.panes[s.focus] }

// Mode is what the focused pane's keys act on (a host's own keys apply
// only in ui.ModeNormal).
func (s *Split) Mode() ui.KeyMode { return s.Focused().Mode() }

// Done: q (or ctrl+c) detached from every pane; the host decides what that
// is. Nothing is cancelled.
func (s *Split) Done() bool { return s.done }

// Close detaches from every pane (never a cancel), all at once: each waits
// briefly for its stream to stop.
func (s *Split) Close() {
	s.gather.Close()
	var wg sync.WaitGroup
	for _, p := range s.panes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Close()
		}()
	}
	wg.Wait()
}

// SetSize gives the split view its cell and each pane its own.
func (s *Split) SetSize(width, height int) tea.Cmd {
	s.width, s.height = width, height
	return s.layout()
}

// Update gives a pane its own messages (by the ID they carry: the
// gather's message is each pane's part, each given to its pane, and the
// gather listens again) and the focused pane the keys, the wheel and
// pastes; ctrl+w and z are the split's while the focused pane is not
// asking for something (a confirmation, a query: the screen never re-flows
// while one is typed).
func (s *Split) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ui.ViewMsg:
		if parts, ok := s.gather.Parts(msg); ok {
			cmds := make([]tea.Cmd, 0, len(parts)+1)
			for _, part := range parts {
				cmds = append(cmds, s.route(part))
			}
			return tea.Batch(append(cmds, s.gather.Listen())...)
		}
		return s.route(msg)
	case tea.KeyPressMsg:
		if len(s.panes) > 1 && s.Mode() == ui.ModeNormal {
			switch {
			case key.Matches(msg, s.keys.NextPane):
				s.focus = (s.focus + 1) % len(s.panes)
				return s.layout()
			case key.Matches(msg, s.keys.Zoom):
				s.zoom = !s.zoom
				return s.layout()
			}
		}
		return s.give(s.Focused(), msg)
	case tea.MouseWheelMsg, tea.PasteMsg:
		return s.give(s.Focused(), msg)
	}
	return nil
}

// route gives a view's message to the pane it names; one of a pane that is
// gone (or of another gather's) is dropped.
func (s *Split) route(msg ui.ViewMsg) tea.Cmd {
	for _, p := range s.panes {
		if p.ID() == msg.ID {
			return s.give(p, msg)
		}
	}
	return nil
}

// give is one pane's Update; its detach is every pane's.
func (s *Split) give(p *ui.Live, msg tea.Msg) tea.Cmd {
	_, cmd := p.Update(msg)
	if p.Detached() {
		s.done = true
	}
	return cmd
}

// Title is the terminal's title: the focused pane's.
func (s *Split) Title() string { return s.Focused().Title() }

// Mouse: the focused pane scrolls with the wheel.
func (s *Split) Mouse() bool { return s.Focused().Mouse() }

// Frame is the split view as a whole screen (ui.Screen): its frame, the
// focused pane's title, wheel and cursor.
func (s *Split) Frame(width, height int) ui.Frame {
	content := s.View(width, height)
	return ui.Frame{Content: content, Mouse: s.Mouse(), Title: s.Title(), Cursor: s.Cursor()}
}

// Cursor is the terminal's cursor in the focused pane (its search line),
// placed on the screen, as of the last frame.
func (s *Split) Cursor() *tea.Cursor {
	c := s.Focused().CursorIn(s.lastRows)
	if c == nil {
		return nil
	}
	c.X += s.cursorAt[0]
	c.Y += s.cursorAt[1]
	return c
}
