package console

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// y copies the selected row's action ID to the terminal's clipboard (OSC
// 52, as the live view's y), o orders the list by another column, and
// without colour the selected row is reversed, not only bold as the header
// is (issue 46 items 16, 18).
func TestConsoleCopySortAndColourlessSelection(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 160, 30)
	press(c, "down")
	sel := c.selectedID()
	cmd := c.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if cmd == nil {
		t.Fatal("y sent nothing to the clipboard")
	}
	if got := fmt.Sprint(cmd()); got != sel {
		t.Fatalf("y copied %q, want the selected row's ID %q", got, sel)
	}
	if !strings.Contains(screenOf(c), "copied "+sel+" (OSC 52)") {
		t.Fatalf("y says nothing:\n%s", screenOf(c))
	}

	ids := func() []string {
		var out []string
		for _, r := range c.rows {
			out = append(out, r.ActionID)
		}
		return out
	}
	before := ids()
	for _, want := range []string{"started", "state", "capability", "updated"} {
		press(c, "o")
		if !strings.Contains(screenOf(c), "ordered by "+want) {
			t.Fatalf("o: not ordered by %s:\n%s", want, screenOf(c))
		}
		if want == "state" && !slices.IsSortedFunc(c.rows, func(a, b model.ActionRow) int { return strings.Compare(a.State, b.State) }) {
			t.Fatalf("by state: %v", ids())
		}
	}
	if !slices.Equal(ids(), before) {
		t.Fatalf("back to updated: %v, want %v", ids(), before)
	}

	// The selected row is reversed (SGR 7) without colour.
	for _, l := range strings.Split(c.Frame(0, 0).Content, "\n") {
		if !strings.Contains(l, sel) {
			continue
		}
		params, _, _ := strings.Cut(strings.TrimPrefix(l, "\x1b["), "m")
		if !slices.Contains(strings.Split(params, ";"), "7") {
			t.Fatalf("the selected row is not reversed without colour: %q", l)
		}
		return
	}
	t.Fatalf("no row of %s", sel)
}

// downDaemon is a daemon the list never reaches.
type downDaemon struct{ fakeDaemon }

func (*downDaemon) Poll(context.Context) (stream.Window, error) {
	return stream.Window{}, &stream.Error{Op: "list", Message: "connection refused (127.0.0.1:8080)"}
}

// A console whose daemon never answered says what to check and points at
// --demo=console, while nothing was listed (issue 46 item 18); once rows
// came, the error alone.
func TestConsoleWithNoDaemonHints(t *testing.T) {
	t.Parallel()
	const hint = "no daemon: aipwatch --demo=console"
	c := New(context.Background(), Options{Daemon: &downDaemon{}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		ListHint: "is aipd running at http://127.0.0.1:8080? · " + hint, NoColor: true})
	t.Cleanup(c.Close)
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 20})
	c.Update(c.listCmd()())
	if s := screenOf(c); !strings.Contains(s, "connection refused") || !strings.Contains(s, hint) {
		t.Fatalf("no hint after the list's error:\n%s", s)
	}
	h, _ := newConsoleHarness(t, 160, 20)
	h.opts.ListHint = hint
	h.Update(c.listCmd()())
	if s := screenOf(h); !strings.Contains(s, "connection refused") || strings.Contains(s, hint) {
		t.Fatalf("a console that listed rows hints at the demo:\n%s", s)
	}
}
