package safe

import (
	"slices"
	"strings"
	"testing"
)

// design §11: a shell is given words of a fixed set of characters, each at
// most 128 bytes, 16 KiB in all, a description only when it is one clean
// line.
func TestCompletions(t *testing.T) {
	got := Completions([]string{
		"act_ok-1", "prod.eu", "failed,incomplete", "act_x;touch ~/PWNED;#1", "act_$(id)", "a b", "",
		"act_\x1b[31m", "act_é", "staging\tthe staging daemon", "evil\tdesc\x1b]0;t\a", "rtl\tdesc\u202e",
		strings.Repeat("w", 128), strings.Repeat("w", 129), "long\t" + strings.Repeat("d", 300),
	})
	want := []string{"act_ok-1", "prod.eu", "failed,incomplete", "staging\tthe staging daemon", "evil", "rtl",
		strings.Repeat("w", 128), "long\t" + strings.Repeat("d", 125) + "…"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	many := make([]string, 1000)
	for i := range many {
		many[i] = "act_" + strings.Repeat("x", 100)
	}
	total := 0
	for _, w := range Completions(many) {
		total += len(w) + 1
	}
	if total > 16*1024 || total < 16*1024-200 {
		t.Fatalf("%d bytes, want up to 16 KiB", total)
	}
}

func TestIDWord(t *testing.T) {
	for s, want := range map[string]bool{"act_01J9-xY_z": true, "": false, "act_x;y": false, "act_é": false,
		"act_a.b": false, "act_a/b": false, "act_a b": false} {
		if IDWord(s) != want {
			t.Errorf("IDWord(%q) = %v", s, !want)
		}
	}
}

// A completion offers each action ID once, in order (the daemon's, then
// the journal's), and only one of AIP's characters that starts act_.
func TestCompletionIDs(t *testing.T) {
	got := CompletionIDs([]string{"act_new", "act_x;touch ~/PWNED", "act_old"},
		[]string{"act_old", "job_1", "act_é", "", "act_journalled"})
	want := []string{"act_new", "act_old", "act_journalled"}
	if !slices.Equal(got, want) {
		t.Errorf("CompletionIDs = %v, want %v", got, want)
	}
}
