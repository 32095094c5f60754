package console

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// c on a settled row names its verdict once judged: a completed row whose
// turn failed is FAILED, not "(completed)".
func TestConsoleCancelOnSettledRowNamesTheVerdict(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72": model.VerdictFailed}}
	c, _ := verdictConsole(t, 160, 30, consoleList(), j)
	judgeAll(t, c)
	press(c, "down", "down") // 6f72: completed, judged FAILED
	press(c, "c")
	if s := screenOf(c); c.split != nil || !strings.Contains(s, "nothing to cancel: act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72 has settled (FAILED, AIP state completed)") {
		t.Fatalf("c on a settled FAILED row:\n%s", s)
	}
}

// A row known only from this machine's journal (j!) has no state aipd
// gave: c offers no cancel prompt and says why.
func TestConsoleCancelOnJournalOnlyRow(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 160, 30)
	for c.selectedID() != "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f" {
		before := c.selectedID()
		press(c, "down")
		if c.selectedID() == before {
			t.Fatalf("no journal-only row:\n%s", screenOf(c))
		}
	}
	press(c, "c")
	if s := screenOf(c); c.split != nil || !strings.Contains(s, "no cancel here: act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f is only in this machine's journal") {
		t.Fatalf("c on a journal-only row:\n%s", s)
	}
	if b.cancels.Load() != 0 {
		t.Fatal("a cancel was sent")
	}
}

// With a text filter active the answers to c and n show over the filter
// line until the next key (they were hidden behind it: the keys looked
// dead); then the filter line is back.
func TestConsoleKeyAnswersShowOverTheFilter(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 160, 30)
	press(c, "/", "6", "f", "7", "2", "enter")
	if s := screenOf(c); !strings.Contains(s, "/6f72") || strings.Contains(s, "6f70") {
		t.Fatalf("the filter:\n%s", s)
	}
	press(c, "c")
	if s := screenOf(c); !strings.Contains(s, "6f72 has settled") {
		t.Fatalf("c's answer is hidden behind the filter line:\n%s", s)
	}
	press(c, "n")
	if s := screenOf(c); !strings.Contains(s, "no notification here") {
		t.Fatalf("n's answer is hidden behind the filter line:\n%s", s)
	}
	press(c, "down")
	if s := screenOf(c); !strings.Contains(s, "/6f72") || strings.Contains(s, "no notification here") {
		t.Fatalf("the filter line did not come back after the next key:\n%s", s)
	}
}

// A console whose role may not cancel (a watch key of aipwatch serve,
// design §15): c on a live row, and c in its live view, say so, and
// nothing is sent; e in the live view writes no file.
func TestConsoleNoCancelRole(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: t0}
	b := newHold()
	const why = "no cancel: this role watches only"
	c := New(context.Background(), Options{
		Daemon: &fakeDaemon{list: consoleList()}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return b }, Clock: clk.now, NoColor: true,
		NoCancel: why, NoExport: "no export here",
	})
	t.Cleanup(c.Close)
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	c.Update(c.listCmd()())
	press(c, "c")
	if s := screenOf(c); c.split != nil || !strings.Contains(s, why) {
		t.Fatalf("c on a live row of a watch-only console:\n%s", s)
	}
	press(c, "enter")
	if c.split == nil {
		t.Fatal("enter opened no live view")
	}
	press(c, "c")
	if s := screenOf(c); !strings.Contains(s, why) || c.split.Focused().Mode() != ui.ModeNormal {
		t.Fatalf("c in the live view of a watch-only console:\n%s", s)
	}
	press(c, "e")
	if s := screenOf(c); !strings.Contains(s, "no export here") {
		t.Fatalf("e in the live view of a console that may not export:\n%s", s)
	}
	if b.cancels.Load() != 0 {
		t.Fatal("a cancel was sent")
	}
}
