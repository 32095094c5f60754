package split

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/safe"
	"aipwatch/ui"
)

// The token never reaches the split view's frame (design §5). A pane's
// text and its action ID are scrubbed where they are drawn (safe.Text,
// safe.Line); the rows a pane hands its box are not scrubbed whole
// (ui.Live.Rows), so a box scrubs a row's text before it measures it (the
// row's sides stay in their columns), and the split's frame is scrubbed
// whole, which takes a piece that only meets another in the frame (here a
// row's lead and its text).
func TestSplitFrameScrubsTheToken(t *testing.T) {
	t.Parallel()
	const secret = "sk-aipwatch-split-0123456789abcdef"
	safe.Protect(secret)
	leak := func(frame string) {
		t.Helper()
		for i := 0; i+12 <= len(secret); i++ {
			if strings.Contains(frame, secret[i:i+12]) {
				t.Fatalf("the frame holds %q of the token:\n%s", secret[i:i+12], frame)
			}
		}
		if !strings.Contains(frame, safe.TokenMark) {
			t.Fatalf("the frame does not say where the token was:\n%s", frame)
		}
	}
	// Through the live views: in a pane's text, and in an action ID.
	pb := newPaneBenchOf(t, []string{"act_scrub_pane_0", "act_" + secret}, 160, 30)
	pb.say(0, "see "+secret+" here ")
	got, _ := pb.frame()
	leak(got)

	// Rows as a live view may hand them: the token whole in a row's text,
	// and cut between a row's lead and its text, neither holding 12 of its
	// characters. The box is kept (its key is the pane's), so the next
	// frame draws these rows.
	s := pb.s
	s.box(&s.blocks[0], 0, s.cells[0], []ui.Row{{Text: "one " + secret + " two"}, {Lead: "» " + secret[:8], Text: secret[8:16] + " three"}}, true)
	got = s.View(pb.w, pb.h)
	leak(got)
	row := strings.Split(got, "\n")[1]
	if !strings.Contains(row, "one "+safe.TokenMark+" two") {
		t.Fatalf("the pane's row does not say where the token was: %q", row)
	}
	if w := ansi.StringWidth(row); w != pb.w {
		t.Fatalf("the row that held the token is %d cells, want %d (the box's sides in their columns): %q", w, pb.w, row)
	}
}
