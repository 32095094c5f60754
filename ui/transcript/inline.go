package transcript

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

// Chat tool calls inline: a Chat stream has one message,
// and its tool frames interleave with the deltas, so the text before and
// after a tool call would read as one sentence. The message is drawn with
// each tool's line at the point of the text where it started
// (model.Tool.TextAt); the tools pane stays the summary.
//
// The tool's place is marked in the text with private-use runes before it
// is wrapped (or rendered as markdown, the mark then being a paragraph of
// its own), and the line holding the mark is replaced by the tool's line.

const (
	markOpen  = '\uE000'
	markClose = '\uE001'
)

// inlineTools groups the Chat tools by the message they interrupted.
func inlineTools(a *model.Action) map[string][]*model.Tool {
	var m map[string][]*model.Tool
	for _, t := range a.Tools() {
		if t.MessageKey == "" {
			continue
		}
		if m == nil {
			m = map[string][]*model.Tool{}
		}
		m[t.MessageKey] = append(m[t.MessageKey], t)
	}
	return m
}

// toolsDigest changes whenever a line of these tools would.
func toolsDigest(tools []*model.Tool) uint64 {
	d := uint64(len(tools))
	for _, t := range tools {
		d = d*31 + t.Version
	}
	return d
}

// markTools inserts each tool's mark into text at its place, on a line of
// its own (a paragraph of its own for markdown). The result only grows at
// its end while text does, so the incremental wrap stays incremental.
func markTools(text string, tools []*model.Tool, markdown bool) string {
	sep := "\n"
	if markdown {
		sep = "\n\n"
	}
	var b strings.Builder
	b.Grow(len(text) + len(tools)*12)
	prev := 0
	for i, t := range tools {
		at := min(max(t.TextAt, prev), len(text))
		for at < len(text) && !utf8.RuneStart(text[at]) {
			at++
		}
		seg := text[prev:at]
		if i > 0 {
			seg = afterMark(seg)
		}
		b.WriteString(seg)
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString(sep)
		} else if markdown && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteString("\n")
		}
		b.WriteRune(markOpen)
		b.WriteString(strconv.Itoa(i))
		b.WriteRune(markClose)
		b.WriteString(sep)
		prev = at
	}
	b.WriteString(afterMark(text[prev:]))
	return b.String()
}

// afterMark is the text that follows a mark's line: its leading blanks,
// and one newline (the mark's line already ended the line), go.
func afterMark(s string) string {
	s = strings.TrimLeft(s, " \t")
	return strings.TrimPrefix(s, "\n")
}

// replaceMarks swaps every line holding a mark for its tool's line, and
// says which lines are tool lines (chrome for search).
func (t *Transcript) replaceMarks(lines []string, tools []*model.Tool) ([]string, []bool) {
	var chrome []bool
	out := lines
	copied := false
	for i, l := range lines {
		j := strings.IndexRune(l, markOpen)
		if j < 0 {
			continue
		}
		k := strings.IndexRune(l[j:], markClose)
		if k < 0 {
			continue
		}
		n, err := strconv.Atoi(stripANSI(l[j+len(string(markOpen)) : j+k]))
		if err != nil || n < 0 || n >= len(tools) {
			continue
		}
		if !copied { // lines may be a cache's: never write into it
			out = append([]string(nil), lines...)
			chrome = make([]bool, len(lines))
			copied = true
		}
		out[i] = t.inlineToolLine(tools[n])
		chrome[i] = true
	}
	return out, chrome
}

// inlineToolLine is "  ⟶ 💻 terminal ls -la · ✓ completed 1.1s".
func (t *Transcript) inlineToolLine(tool *model.Tool) string {
	st, o := t.st, t.opts
	emoji := safe.Line(tool.Emoji)
	if emoji == "" || render.Width(emoji) > 2 {
		emoji = "ƒ"
	}
	name := safe.Line(tool.Name)
	if name == "" {
		name = "tool"
	}
	s := "  " + st.Dim.Render("⟶ ") + emoji + " " + st.ToolName.Render(name)
	if label := render.ToolLabel(tool, o.Redact); label != "" {
		s += " " + st.Dim.Render(label)
	}
	switch tool.Status {
	case model.ToolCompleted:
		s += st.Dim.Render(" · ") + st.OK.Render("✓ completed")
		if !tool.DoneAt.IsZero() {
			d := tool.Duration(tool.DoneAt)
			if t.action != nil {
				d = t.action.ToolDuration(tool, tool.DoneAt)
			}
			s += " " + st.Dim.Render(render.Duration(d))
		}
	case model.ToolRunning, model.ToolStarted, "":
		if o.Settled {
			s += st.Dim.Render(" · ") + st.Warn.Render("? unfinished")
		} else {
			s += st.Dim.Render(" · ") + st.Running.Render("running…")
		}
	default:
		s += st.Dim.Render(" · " + safe.Line(tool.Status))
	}
	return render.Truncate(s+t.stamp(tool.FirstSeq), o.Width, "…")
}

// stripANSI drops SGR sequences a markdown render may have put around
// the mark's digits.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
