package safe

import (
	"regexp"
	"strings"
	"testing"
)

// Row keeps aipwatch's own SGR styling and neutralises everything else a
// terminal could obey, a newline included.
func TestRowKeepsSGRAndNothingElse(t *testing.T) {
	styled := "\x1b[1;38;5;2mok\x1b[0m plain \x1b[7mrev\x1b[m"
	if got := Row(styled); got != styled {
		t.Fatalf("own styling changed: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Row(styled) }); n != 0 {
		t.Errorf("a clean row allocates %v times", n)
	}
	for name, in := range hostile {
		out := Row("\x1b[1mstatus\x1b[0m " + in + "\nFORGED")
		// An SGR colour is styling (Row cannot know whose it is); nothing
		// else survives.
		noRawControls(t, name, sgrSeq.ReplaceAllString(out, ""))
		if strings.Contains(out, "\n") || !strings.Contains(out, "⏎FORGED") {
			t.Errorf("%s: the row was split: %q", name, out)
		}
	}
	if got := Row("\x1b[2J\x1b]0;t\x07\x1b[31m"); got != "␛[2J␛]0;t␇\x1b[31m" {
		t.Errorf("Row: %q", got)
	}
	// Conceal would hide the verdict drawn after it; colour 8 is a colour.
	if got := Row("\x1b[8mx\x1b[1;08mx\x1b[38;5;8mx"); got != "␛[8mx␛[1;08mx\x1b[38;5;8mx" {
		t.Errorf("conceal: %q", got)
	}
}

var sgrSeq = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// After the first thing it replaces, Row still copies whole runes, turns
// each invalid byte into U+FFFD and keeps every SGR digit, 9 included.
func TestRowAfterTheFirstReplacement(t *testing.T) {
	if got, want := Row("\x07é\xff😀\x1b[39mx\x1b[9m"), "␇é\uFFFD😀\x1b[39mx\x1b[9m"; got != want {
		t.Errorf("Row = %q, want %q", got, want)
	}
	if !L("").Empty() || L("x").Empty() || !(Str{}).Empty() {
		t.Error("Str.Empty")
	}
}
