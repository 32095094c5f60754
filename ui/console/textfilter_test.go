package console

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// Issue 46 item 14: the text filter finds what the table shows. Rows that
// read FAILED in the VERDICT column (a completed Chat turn whose provider
// failed, a dead-lettered one) are found by /FAILED and by /failed, and
// the header names the text filter instead of "filter all".
func TestConsoleTextFilterMatchesTheCellsShown(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{
		"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72": model.VerdictFailed,
		"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f73": model.VerdictFailed,
	}}
	c, _ := verdictConsole(t, 160, 14, consoleList(), j)
	judgeAll(t, c)
	if n := strings.Count(screenOf(c), "FAILED"); n != 2 {
		t.Fatalf("%d rows read FAILED, want 2:\n%s", n, screenOf(c))
	}
	for _, typed := range []string{"FAILED", "failed", "Fail"} {
		c.filter.SetValue(typed)
		c.refresh()
		s := screenOf(c)
		if len(c.rows) != 2 || !strings.Contains(s, "e6f72") || !strings.Contains(s, "e6f73") {
			t.Fatalf("/%s keeps %d rows, want the 2 reading FAILED:\n%s", typed, len(c.rows), s)
		}
		head := strings.SplitN(s, "\n", 2)[0]
		if strings.Contains(head, "filter all") || !strings.Contains(head, "filter /"+typed) {
			t.Fatalf("the header does not say the text filter /%s: %q", typed, head)
		}
	}
	// A cell's words as drawn: the lease column's EXPIRED (a stuck worker),
	// the short capability (endpoint:operation), the queue state.
	for typed, want := range map[string]int{"expired": 1, "prod:responses": 1, "lab:responses_stream": 1, "act_0193": 4, "nothing-like-it": 0} {
		c.filter.SetValue(typed)
		c.refresh()
		if len(c.rows) != want {
			t.Errorf("/%s keeps %d rows, want %d:\n%s", typed, len(c.rows), want, screenOf(c))
		}
	}
	// With a state filter too, the header names both.
	c.filter.SetValue("FAILED")
	press(c, "3") // settled
	if head := strings.SplitN(screenOf(c), "\n", 2)[0]; !strings.Contains(head, "filter settled + /FAILED") {
		t.Fatalf("the header: %q", head)
	}
}
