package console

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// 5 keeps the settled rows not judged verified (design §7): a row not
// judged yet is one of them, shown, so that it is drawn and judged; only a
// verdict takes it out.
func TestConsoleUnverifiedFilterKeepsRowsNotJudgedYet(t *testing.T) {
	t.Parallel()
	c, _ := verdictConsole(t, 120, 20, consoleList(), &fakeJudge{})
	cmd := c.Update(tea.KeyPressMsg{Code: '5', Text: "5"}) // nothing judged yet
	if s := screenOf(c); !strings.Contains(s, "e6f72") {
		t.Fatalf("a settled row not judged yet is filtered out by 5:\n%s", s)
	}
	for _, m := range flatten(cmd) { // the rows drawn are judged: every one verified
		c.Update(m)
	}
	if s := screenOf(c); strings.Contains(s, "e6f72") {
		t.Fatalf("a row judged verified stays under 5:\n%s", s)
	}
}

// A notification's review that finds the action live (the list ran ahead
// of its record) is no verdict: the bytes go out, but the row keeps its
// AIP status, dimmed, until it is judged.
func TestConsoleNotifiedLiveReviewIsNoVerdict(t *testing.T) {
	t.Parallel()
	const id = "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70"
	c, d := verdictConsole(t, 120, 12, consoleList(), &fakeJudge{words: map[string]string{id: "live"}})
	press(c, "n")                                                   // the top row: running
	d.list[0].State, d.list[0].ResultStatus = "completed", "failed" // the VERDICT cell's AIP status
	c.update(c.listCmd()())
	sent := false
	for _, m := range flatten(c.notifySettled()) {
		if n, ok := m.(notifiedMsg); ok {
			out := c.Update(n)
			for _, m := range flatten(out) {
				if _, ok := m.(tea.RawMsg); ok {
					sent = true
				}
			}
		}
	}
	if !sent {
		t.Fatal("no notification sent")
	}
	if l := lineOf(screenOf(c), "e6f70"); !strings.Contains(l, "failed") {
		t.Fatalf("a live review's empty word took the AIP status's place: %q", l)
	}
}
