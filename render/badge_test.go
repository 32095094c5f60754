package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
)

// Every verdict's badge is its word and its colour (docs/live.md: "a word and a
// colour"); the goldens strip ANSI, so this is the test that holds the
// colour. SGR 4N is the background of ANSI colour N.
func TestBadgeColourOfEveryVerdict(t *testing.T) {
	want := map[string]int{
		model.VerdictVerified:    2, // green
		model.VerdictPartial:     3, // yellow
		model.VerdictIncomplete:  3,
		model.VerdictTruncated:   3,
		model.VerdictFailed:      1, // red
		WordError:                1,
		model.VerdictCancelled:   5, // magenta
		model.VerdictPending:     4, // blue
		WordReview:               4,
		WordReconnecting:         3,
		model.LiveFollowing:      6, // cyan
		model.LiveAwaitingResult: 6,
		WordConnecting:           6,
	}
	st := NewStyles(true)
	for word, colour := range want {
		b := st.Badge(word)
		if !strings.Contains(ansi.Strip(b), strings.ToUpper(word)) {
			t.Errorf("%s: badge %q lacks the word", word, ansi.Strip(b))
		}
		sgr := fmt.Sprintf("4%dm", colour)
		if !strings.Contains(b, ";"+sgr) && !strings.Contains(b, "["+sgr) {
			t.Errorf("%s: badge %q lacks background colour %d", word, b, colour)
		}
		for other := 0; other < 8; other++ {
			if other != colour && (strings.Contains(b, fmt.Sprintf(";4%dm", other)) || strings.Contains(b, fmt.Sprintf("[4%dm", other))) {
				t.Errorf("%s: badge %q also has background %d", word, b, other)
			}
		}
	}
}
