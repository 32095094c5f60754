package split

import (
	"context"
	"io"

	tea "charm.land/bubbletea/v2"

	"aipwatch/ui"
)

// Options configure the program of `aipwatch ID1 ID2 [ID3 ID4]`.
type Options struct {
	Panes   []ui.Options // one live view's options a pane, in argument order
	Keys    ui.KeyMap
	NoColor bool
	Input   io.Reader // nil = stdin
	Output  io.Writer // nil = stdout
}

// Run runs the split view until the operator detaches (q: from every
// pane, nothing cancelled) or ctx ends. It returns the panes' live views,
// closed, in argument order: each one's action and the error that
// stopped its following (ui.Live.Failure) make the closing lines.
func Run(ctx context.Context, opts Options) ([]*ui.Live, error) {
	p := &program{s: New(ctx, opts.Panes, opts.Keys, opts.NoColor)}
	err := ui.RunProgram(ctx, p, opts.Input, opts.Output, opts.NoColor)
	p.s.Close()
	return p.s.Panes(), err
}

// program is the split view on the whole terminal, from the start (no
// start line: a pane whose action cannot be read says so in its pane).
type program struct {
	s             *Split
	width, height int
}

func (p *program) Init() tea.Cmd { return p.s.Init() }

func (p *program) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if m, ok := msg.(tea.WindowSizeMsg); ok {
		p.width, p.height = m.Width, m.Height
		cmd = p.s.SetSize(m.Width, m.Height)
	} else {
		_, cmd = p.s.Update(msg)
	}
	if p.s.Done() {
		return p, tea.Quit
	}
	return p, cmd
}

func (p *program) View() tea.View { return p.s.Screen(p.width, p.height) }
