package console

import (
	"strings"
	"testing"

	"aipwatch/model"
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
