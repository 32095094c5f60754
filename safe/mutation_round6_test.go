package safe

import (
	"errors"
	"strings"
	"testing"
)

// design §11: a completion word holds nothing a shell reads as more than a
// word: ';' (the end of a command), '$', '`', '|', '&', '(', quotes, '*',
// '?', '~', '!', '<', '>' and a space each leave the candidate out, whatever
// else is allowed in a context's name.
func TestCompletionsLeaveOutEveryShellMetacharacter(t *testing.T) {
	for _, c := range ";$`|&()'\"*?~!<>{}[]#\\ " {
		w := "act_x" + string(c) + "y"
		if got := Completions([]string{w}); len(got) != 0 {
			t.Errorf("%q offered to a shell: %q", w, got)
		}
	}
}

// design §16: the HTML report's untrusted text is inert: an error given to
// HTMLSprintf is escaped like a string (it is the daemon's text as often).
func TestHTMLSprintfEscapesAnError(t *testing.T) {
	got := HTMLSprintf("<p>%s</p>", errors.New(`<img src=x onerror="alert(1)">`)).String()
	if inner := strings.TrimSuffix(strings.TrimPrefix(got, "<p>"), "</p>"); strings.ContainsAny(inner, `<>"'`) {
		t.Fatalf("markup of an error left in %q", got)
	}
}

// A token put together from three arguments (each too short for the scrub
// of one argument) is scrubbed from the whole HTML line, as Sprintf does for
// the terminal.
func TestHTMLSprintfScrubsATokenAcrossArguments(t *testing.T) {
	a, b, c := testSecret[:8], testSecret[8:16], testSecret[16:]
	got := HTMLSprintf("<td>%s%s%s</td>", a, b, c).String()
	if sub, ok := contains12(got, testSecret); ok {
		t.Fatalf("token piece %q in %q", sub, got)
	}
}
