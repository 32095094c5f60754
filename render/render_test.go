package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/model"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"hello world", 20, []string{"hello world"}},
		{"hello world", 5, []string{"hello", "world"}},
		{"hello   world", 8, []string{"hello", "world"}},
		{"a\n\nb", 10, []string{"a", "", "b"}},
		{"  indented text here", 10, []string{"  indented", "text here"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"xx abcdefghijkl", 5, []string{"xx", "abcde", "fghij", "kl"}},
		{"café ☕ naïve", 7, []string{"café ☕", "naïve"}},
		{"trailing\n", 10, []string{"trailing", ""}},
	}
	for _, c := range cases {
		got := Wrap(c.in, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// TestWrapProperties: no line is wider than the width, and no non-space
// character is lost or reordered.
func TestWrapProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab cd\n  efg ☕é\x1b\t中")), 0, 200, -1).Draw(t, "text")
		width := rapid.IntRange(1, 30).Draw(t, "width")
		clean := Clean(text)
		lines := Wrap(clean, width)
		for _, l := range lines {
			if w := Width(l); w > width && (w != 2 || width != 1) {
				t.Fatalf("line %q is %d cells, width %d", l, w, width)
			}
		}
		strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if strip(strings.Join(lines, "")) != strip(clean) {
			t.Fatalf("text changed: %q → %q", clean, lines)
		}
	})
}

// TestTextLinesIncremental: growing text chunk by chunk gives exactly the
// lines of wrapping the whole text at once, whatever the split.
func TestTextLinesIncremental(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab cd\n  efghij ☕é\x1b\x07\t中 ")), 0, 300, -1).Draw(t, "text")
		width := rapid.IntRange(2, 25).Draw(t, "width")
		var tl TextLines
		var got []string
		for i := 0; i < len(text); {
			n := rapid.IntRange(1, 12).Draw(t, "n")
			j := min(i+n, len(text))
			for j < len(text) && !isRuneStart(text[j]) {
				j++
			}
			got = tl.Update(text[:j], width, nil)
			i = j
		}
		if text == "" {
			got = tl.Update("", width, nil)
		}
		want := Wrap(Clean(text), width)
		if text == "" {
			want = nil
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("incremental\n%q\nwhole\n%q", got, want)
		}
		// A new width starts over and still agrees.
		got = tl.Update(text, width+3, nil)
		if text != "" && strings.Join(got, "\n") != strings.Join(Wrap(Clean(text), width+3), "\n") {
			t.Fatalf("after a resize: %q", got)
		}
	})
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func TestTextLinesRestartsOnRewrite(t *testing.T) {
	var tl TextLines
	tl.Update("hello world and more", 8, nil)
	got := tl.Update("other text", 8, nil)
	if strings.Join(got, "|") != "other|text" {
		t.Errorf("got %q", got)
	}
}

// TestCleanNeutralisesEscapes: untrusted text can never put an escape
// sequence on the screen.
func TestCleanNeutralisesEscapes(t *testing.T) {
	evil := "ok\x1b]52;c;ZXZpbA==\x07 \x1b[2J\u009b31m\u202eevil\ttab\r"
	for _, l := range Wrap(Clean(evil), 80) {
		if strings.ContainsAny(l, "\x1b\x07\u009b\r\t\u202e") {
			t.Errorf("control survived: %q", l)
		}
	}
	if s := Short("id\x1b[31m", 40); strings.Contains(s, "\x1b") {
		t.Errorf("Short kept ESC: %q", s)
	}
}

// sgr finds colour parameters in SGR sequences.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// onlyANSI16 reports colour parameters outside the 16 ANSI colours.
func onlyANSI16(s string) error {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		ps := strings.Split(m[1], ";")
		for i := 0; i < len(ps); i++ {
			p := ps[i]
			if p == "38" || p == "48" || p == "58" {
				return fmt.Errorf("extended colour in %q", m[0])
			}
		}
	}
	return nil
}

func TestMarkdownANSI16AndWidth(t *testing.T) {
	md := NewMarkdown(true)
	text := "# Title\n\nSome **bold** and `code` and a [link](https://example.com).\n\n" +
		"- one\n- two with a much longer line that needs wrapping around the width\n\n```go\nfunc main() {}\n```\n\n> quote\n\n---\n"
	for _, w := range []int{20, 40, 80} {
		lines, err := md.Render(text, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if Width(l) > w {
				t.Errorf("width %d: line %q is %d cells", w, l, Width(l))
			}
			if err := onlyANSI16(l); err != nil {
				t.Errorf("width %d: %v", w, err)
			}
		}
		if len(lines) == 0 || strings.TrimSpace(ansi.Strip(lines[0])) == "" || strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
			t.Errorf("width %d: blank lines at the ends: %q", w, lines)
		}
	}
	plain, err := NewMarkdown(false).Render(text, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range plain {
		if strings.Contains(l, "\x1b[3") || strings.Contains(l, "\x1b[9") {
			t.Errorf("colour in the no-colour style: %q", l)
		}
	}
}

func TestStylesANSI16(t *testing.T) {
	st := NewStyles(true)
	for _, w := range []string{"verified", "partial", "failed", "truncated", "incomplete", "cancelled", "pending", "following", "reconnecting"} {
		b := st.Badge(w)
		if err := onlyANSI16(b); err != nil {
			t.Error(err)
		}
		if !strings.Contains(ansi.Strip(b), strings.ToUpper(w)) {
			t.Errorf("badge %q does not show the word", ansi.Strip(b))
		}
	}
	nc := NewStyles(false)
	if b := ansi.Strip(nc.Badge("verified")); b != "[VERIFIED]" {
		t.Errorf("no-colour badge %q", b)
	}
	if s := nc.Error.Render("x"); strings.Contains(s, "\x1b[3") {
		t.Errorf("no-colour style has a colour: %q", s)
	}
}

func TestToolRows(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	tools := []*model.Tool{
		{ID: "a", Name: "terminal", Emoji: "💻", Label: "ls -la", Status: model.ToolCompleted, StartedAt: now.Add(-3 * time.Second), DoneAt: now.Add(-2 * time.Second)},
		{ID: "b", Name: "a_really_long_tool_name_here", Label: "x\x1b[31m\ny", Status: model.ToolRunning, StartedAt: now.Add(-1500 * time.Millisecond)},
	}
	st := NewStyles(false)
	for _, w := range []int{40, 80, 120} {
		rows := st.ToolRows(tools, ToolOptions{Now: now, Width: w, Frame: 3}, 5)
		if len(rows) != 2 {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			if Width(r) > w || strings.Contains(r, "\x1b[31m") {
				t.Errorf("width %d: row %q", w, r)
			}
		}
		if !strings.Contains(rows[0], "completed") || !strings.Contains(rows[0], "1.0s") {
			t.Errorf("row %q", rows[0])
		}
		if !strings.Contains(rows[1], SpinnerFrames[3]+" running") || !strings.Contains(rows[1], "1.5s") {
			t.Errorf("row %q", rows[1])
		}
	}
	if rows := st.ToolRows(tools, ToolOptions{Now: now, Width: 80}, 1); len(rows) != 1 || !strings.Contains(rows[0], "a_really") {
		t.Errorf("max rows keeps the last: %q", rows)
	}
}

func TestShortAndDuration(t *testing.T) {
	if s := Short("aev_cursor_01J9ZK4T2V8N6Q3R5S7U9W1X3Y", 20); Width(s) != 20 || !strings.HasPrefix(s, "aev_cursor") || !strings.HasSuffix(s, "X3Y") {
		t.Errorf("Short = %q", s)
	}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "0.4s", 12 * time.Second: "12s", 185 * time.Second: "3m05s", 3720 * time.Second: "1h02m"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	if s, ok := PrettyJSON(`{"a":1,"b":"\u009b"}`); !ok || !strings.Contains(s, "\n") || strings.ContainsRune(s, 0x9b) {
		t.Errorf("PrettyJSON = %q %v", s, ok)
	}
}

// TestPlainProseAsGlamour: the plain-prose shortcut of Markdown.Render
// gives exactly the lines Glamour gives, in colour and without.
func TestPlainProseAsGlamour(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("abcXYZ019, ")), 1, 120, -1).Draw(rt, "text")
		width := rapid.IntRange(1, 40).Draw(rt, "width")
		color := rapid.Bool().Draw(rt, "color")
		if !plainProse(text, max(width, 8)) {
			return
		}
		m := NewMarkdown(color)
		got, err := m.Render(text, width)
		if err != nil {
			rt.Fatal(err)
		}
		r, err := glamour.NewTermRenderer(glamour.WithStyles(m.cfg), glamour.WithWordWrap(max(width, 8)))
		if err != nil {
			rt.Fatal(err)
		}
		out, err := r.Render(text)
		if err != nil {
			rt.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimRight(l, " "); strings.TrimSpace(ansi.Strip(l)) != "" || len(want) > 0 {
				want = append(want, l)
			}
		}
		for len(want) > 0 && strings.TrimSpace(ansi.Strip(want[len(want)-1])) == "" {
			want = want[:len(want)-1]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("width %d %q:\n got %q\nwant %q", width, text, got, want)
		}
	})
	if plainProse("1. a list", 20) || plainProse("# head", 20) || plainProse("  code", 20) || plainProse("a  b", 20) || plainProse("a\nb", 20) {
		t.Error("Markdown syntax taken for plain prose")
	}
}
