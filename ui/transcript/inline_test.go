package transcript

import (
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/render"
)

func TestMarkToolsPlacesEachToolWhereItStarted(t *testing.T) {
	tools := []*model.Tool{{TextAt: 6}, {TextAt: 12}}
	got := markTools("first. then.\n\nlast", tools, false)
	want := "first.\n\uE0000\uE001\nthen.\n\uE0001\uE001\n\nlast"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	// While the text grows, the marked text only grows at its end, so the
	// incremental wrap stays incremental.
	full := "first. then. and more text"
	prev := ""
	for n := 0; n <= len(full); n++ {
		cur := markTools(full[:n], []*model.Tool{{TextAt: 6}}, false)
		if n > 6 && !strings.HasPrefix(cur, prev) {
			t.Fatalf("at %d: %q does not extend %q", n, cur, prev)
		}
		prev = cur
	}
	// A place inside a multi-byte rune moves to the rune's end.
	if got := markTools("café", []*model.Tool{{TextAt: 4}}, false); !strings.HasPrefix(got, "café\n") {
		t.Errorf("split a rune: %q", got)
	}
}

func TestInlineToolLinesReplaceMarks(t *testing.T) {
	tr := New(render.NewStyles(true), nil)
	tr.SetOptions(Options{Width: 80})
	tools := []*model.Tool{{Name: "terminal", Emoji: "💻", Label: "ls \x1b[2J-la", Status: model.ToolRunning}}
	lines, chrome := tr.replaceMarks([]string{"a", "\uE0000\uE001", "b"}, tools)
	if len(lines) != 3 || !strings.Contains(lines[1], "terminal") || !strings.Contains(lines[1], "ls ␛[2J-la") ||
		!strings.Contains(lines[1], "running") || !chrome[1] || chrome[0] || chrome[2] {
		t.Fatalf("lines %q chrome %v", lines, chrome)
	}
}
