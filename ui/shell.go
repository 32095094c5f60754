package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// The program shell: one Bubble Tea program runs every full-screen view
// (the live view of one action, Single; the split view; the console) on
// the I/O it is given (Terminal). The shell sizes the view, gives it every
// other message, quits once it is Done, and turns its Frame into the
// tea.View: the alternate screen, the mouse mode, the window title and the
// cursor are set here and nowhere else. It knows nothing of what it runs
// (ui/split and ui/console hand it their views).

// Screen is a view the shell runs on a whole terminal.
type Screen interface {
	Init() tea.Cmd
	// SetSize gives the view the terminal's size (on start and resize).
	SetSize(width, height int) tea.Cmd
	// Update takes every message but the size.
	Update(msg tea.Msg) tea.Cmd
	// Frame is what the view shows at the size it was given.
	Frame(width, height int) Frame
	// Done: the operator detached (or the view stopped): the program ends.
	Done() bool
}

// Frame is one frame of a Screen and how the terminal shows it.
type Frame struct {
	Content string
	// Inline: on the normal screen (a start line), not the alternate one.
	Inline bool
	// Mouse: the wheel scrolls (cell motion); else the terminal keeps the
	// mouse for its own selection.
	Mouse  bool
	Title  string      // the window title ("" leaves it as it is)
	Cursor *tea.Cursor // the terminal's cursor (a query line's), nil: hidden
}

// Shell is the program of a Screen (a tea.Model): Run runs it, or a host
// that makes its own program (an SSH session's) takes it from Program.
type Shell struct {
	s             Screen
	width, height int
	// inline: an inline frame with content was drawn; Run erases its
	// line once the program is gone.
	inline bool
}

// NewShell is the program of s.
func NewShell(s Screen) *Shell { return &Shell{s: s} }

// Init starts the view.
func (p *Shell) Init() tea.Cmd { return p.s.Init() }

// Update gives the view the terminal's size, or the message; a view that
// is done ends the program.
func (p *Shell) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if m, ok := msg.(tea.WindowSizeMsg); ok {
		p.width, p.height = m.Width, m.Height
		cmd = p.s.SetSize(m.Width, m.Height)
	} else {
		cmd = p.s.Update(msg)
	}
	if p.s.Done() {
		return p, tea.Quit
	}
	return p, cmd
}

// View is the view's frame as the terminal shows it.
func (p *Shell) View() tea.View {
	f := p.s.Frame(p.width, p.height)
	v := tea.NewView(f.Content)
	v.AltScreen = !f.Inline
	if f.Inline && f.Content != "" {
		p.inline = true
	}
	if f.Mouse {
		v.MouseMode = tea.MouseModeCellMotion // wheel scrolling; p gives the terminal's selection back
	}
	v.WindowTitle = f.Title
	v.Cursor = f.Cursor
	return v
}

// Terminal is where a shell runs: its input and output (nil: the
// process's stdin and stdout, or the controlling terminal for the keys),
// colour, and, when known beforehand (an SSH session's pty), its size and
// environment.
type Terminal struct {
	Input         io.Reader
	Output        io.Writer
	NoColor       bool
	Width, Height int      // 0: asked of the terminal
	Env           []string // nil: the process's
}

// Options are the program options of t: what a host that makes the
// program itself (wish's bubbletea middleware) passes on.
func (t Terminal) Options() []tea.ProgramOption {
	var popts []tea.ProgramOption
	if t.Input != nil {
		popts = append(popts, tea.WithInput(t.Input))
	}
	if t.Output != nil {
		popts = append(popts, tea.WithOutput(t.Output))
	}
	if t.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	if t.Width > 0 && t.Height > 0 {
		popts = append(popts, tea.WithWindowSize(t.Width, t.Height))
	}
	if t.Env != nil {
		popts = append(popts, tea.WithEnvironment(t.Env))
	}
	return popts
}

// Program is s's program as a host that runs it itself takes it: the
// model, guarded (guard.go: a panic quits it, and the returned func then
// reports errInternal), and t's options.
func Program(s Screen, t Terminal) (tea.Model, []tea.ProgramOption, func() error) {
	g := &guard{m: NewShell(s), panicked: new(atomic.Bool)}
	return g, t.Options(), func() error {
		if g.panicked.Load() {
			return errInternal
		}
		return nil
	}
}

// Run runs s on t until it is done or ctx ends (a detach, like SIGTERM),
// guarded: a panic in its Update or View restores the terminal and
// returns an internal error (a *stream.Error of Op "internal").
func Run(ctx context.Context, s Screen, t Terminal) error {
	sh := NewShell(s)
	g := &guard{m: sh, panicked: new(atomic.Bool)}
	p := tea.NewProgram(g, t.Options()...)
	g.quit = p.Quit
	stop := context.AfterFunc(ctx, p.Quit)
	_, err := p.Run()
	stop()
	if sh.inline {
		// An inline line (the start line) was drawn on the normal screen,
		// and the empty frame that erases it is dropped whenever the next
		// frame comes before the renderer's tick: back from the alt screen
		// the cursor is at its end, and the closing lines would be glued
		// to it.
		out := t.Output
		if out == nil {
			out = os.Stdout
		}
		_, _ = io.WriteString(out, eraseLine)
	}
	if g.panicked.Load() {
		return errInternal
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return nil
}

// eraseLine takes the cursor to the start of its line and erases it.
var eraseLine = "\r" + ansi.EraseEntireLine
