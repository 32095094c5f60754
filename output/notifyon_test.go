package output

import (
	"strings"
	"testing"
	"time"

	"aipwatch/safe"
)

var nt0 = time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)

// design §13: a burst within the window is one notification, "3 actions
// failed"; a verdict not asked for is none.
func TestNotifyOnFoldsABurst(t *testing.T) {
	n := NewNotifyOn([]string{"failed", "incomplete"})
	due, start := n.Settled("a", "failed", "act_a: failed (…)", nt0)
	if !start || !due.Equal(nt0.Add(3*time.Second)) {
		t.Fatalf("the first settle: due %v, start %v", due, start)
	}
	if d, s := n.Settled("v", "verified", "act_v: verified", nt0.Add(time.Second)); !d.IsZero() || s {
		t.Fatalf("a verdict not asked for joined: %v %v", d, s)
	}
	for i, k := range []string{"b", "c", "b"} { // b twice: once
		if d, s := n.Settled(k, "failed", "act_"+k+": failed", nt0.Add(time.Duration(i+1)*time.Second)); s || (k == "c" && !d.Equal(due)) {
			t.Fatalf("%s: started another burst, or due %v", k, d)
		}
	}
	if text, ok := n.Due(nt0.Add(2 * time.Second)); ok {
		t.Fatalf("told before the window ended: %q", text)
	}
	text, ok := n.Due(due)
	if !ok || text != "3 actions failed" {
		t.Fatalf("%q %v", text, ok)
	}
	got := NotifyOnBytes(text, safe.NotifyRoute{})
	if want := "\a\x1b]9; 3 actions failed\x1b\\"; got != want {
		t.Fatalf("bytes %q, want %q", got, want)
	}
	if strings.Count(got, "\a") != 1 {
		t.Fatalf("one bell: %q", got)
	}
	if _, ok := n.Due(due.Add(time.Minute)); ok {
		t.Fatal("told twice")
	}

	// The next burst: one action alone is told by its own line; then
	// mixed verdicts by count.
	if _, start := n.Settled("a", "incomplete", "act_a: incomplete (no result)", due.Add(time.Minute)); !start {
		t.Fatal("a new burst did not start")
	}
	if text, _ := n.Due(due.Add(2 * time.Minute)); text != "act_a: incomplete (no result)" {
		t.Fatalf("one action: %q", text)
	}
	n.Settled("x", "incomplete", "x", nt0)
	n.Settled("y", "failed", "y", nt0)
	n.Settled("z", "failed", "z", nt0)
	if text, _ := n.Due(nt0.Add(time.Hour)); text != "3 actions settled: 2 failed, 1 incomplete" {
		t.Fatalf("mixed: %q", text)
	}
}

func TestNotifyOnNothingAsked(t *testing.T) {
	n := NewNotifyOn(nil)
	if n != nil || NewNotifyOn([]string{"completed"}) != nil {
		t.Fatal("a NotifyOn with no verdict to notify on")
	}
	if n.Wants("failed") {
		t.Fatal("nil wants")
	}
	if _, ok := n.Due(nt0); ok {
		t.Fatal("nil told")
	}
}
