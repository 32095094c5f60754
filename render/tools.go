package render

import (
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// SpinnerFrames is the running-tool spinner; the caller picks the frame
// from its clock so a frozen clock gives a frozen (testable) screen.
var SpinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// ToolOptions are what a tool row depends on besides the tool.
type ToolOptions struct {
	Now     time.Time
	Width   int
	Frame   int  // spinner frame
	Settled bool // the action settled: nothing is running any more
	Redact  bool

	// Offset shows the window that many rows above the last (0 = the
	// last rows), so a search match in an earlier tool can be shown.
	Offset int
	// Query highlights its matches in the labels; the CurOrd-th match in
	// the label of the tool CurID is the current one.
	Query  Query
	CurID  string
	CurOrd int

	// Duration times a tool (model.Action.ToolDuration: aipd's times when
	// the chunk events carry them); nil = Tool.Duration.
	Duration func(t *model.Tool, now time.Time) time.Duration
}

// ToolLabel is a tool's label as its row draws it (and search reads it).
func ToolLabel(t *model.Tool, redact bool) string {
	return Untrusted(oneLine(t.Label), redact)
}

// ToolName is a tool's name as its row draws it (and search reads it).
func ToolName(t *model.Tool) string {
	if name := safe.Line(t.Name); name != "" {
		return name
	}
	return "tool"
}

// ToolMatches counts q's matches in a tool's row: its name's, then its
// label's (the order n and N step through them).
func ToolMatches(q Query, t *model.Tool, redact bool) int {
	return q.Count(ToolName(t)) + q.Count(ToolLabel(t, redact))
}

// ToolRows renders one row per tool (the model keys them by toolCallId, so
// there are no duplicates), the last max rows when there are more.
func (st *Styles) ToolRows(tools []*model.Tool, o ToolOptions, maxRows int) []string {
	if len(tools) > maxRows && maxRows > 0 {
		end := len(tools) - min(max(o.Offset, 0), len(tools)-maxRows)
		tools = tools[end-maxRows : end]
	}
	nameW := 4
	for _, t := range tools {
		nameW = max(nameW, Width(safe.Line(t.Name)))
	}
	const statusW, durW = 13, 7
	avail := o.Width - 3 - statusW - 1 - durW - 1 // emoji+space, status, duration
	nameW = max(min(nameW, 18, avail), 1)
	labelW := avail - nameW - 1
	rows := make([]string, 0, len(tools))
	for _, t := range tools {
		var b strings.Builder
		emoji := safe.Line(t.Emoji)
		if emoji == "" || Width(emoji) > 2 {
			emoji = "ƒ"
		}
		b.WriteString(Fit(emoji, 2))
		b.WriteByte(' ')
		name := ToolName(t)
		cur, inName := -1, 0 // the current match, in the name then the label
		if !o.Query.Empty() {
			inName = o.Query.Count(name)
			if t.ID == o.CurID {
				cur = o.CurOrd
			}
		}
		if inName > 0 {
			shown := nameW
			if Width(name) > nameW {
				shown-- // the ellipsis
			}
			b.WriteString(st.Highlight(Fit(name, nameW), LabelSpans(o.Query, name, shown, cur)))
		} else {
			b.WriteString(st.ToolName.Render(Fit(name, nameW)))
		}
		b.WriteByte(' ')
		if labelW >= 4 {
			label := ToolLabel(t, o.Redact)
			fitted := Fit(label, labelW)
			if !o.Query.Empty() {
				shown := labelW
				if Width(label) > labelW {
					shown-- // the ellipsis
				}
				fitted = st.Highlight(fitted, LabelSpans(o.Query, label, shown, cur-inName))
			}
			b.WriteString(fitted)
			b.WriteByte(' ')
		}
		b.WriteString(st.toolStatus(t, o))
		b.WriteByte(' ')
		d := ""
		dur := t.Duration(o.Now)
		if o.Duration != nil {
			dur = o.Duration(t, o.Now)
		}
		if !t.StartedAt.IsZero() {
			if t.DoneAt.IsZero() && o.Settled {
				d = "?"
			} else {
				d = Duration(dur)
			}
		}
		b.WriteString(st.Dim.Render(padLeft(d, durW)))
		rows = append(rows, Truncate(b.String(), o.Width, "…"))
	}
	return rows
}

func (st *Styles) toolStatus(t *model.Tool, o ToolOptions) string {
	const w = 13
	switch t.Status {
	case model.ToolCompleted:
		return st.OK.Render(Fit("✓ completed", w))
	case model.ToolRunning, model.ToolStarted, "":
		word := t.Status
		if word == "" {
			word = model.ToolRunning
		}
		if o.Settled {
			return st.Warn.Render(Fit("? unfinished", w))
		}
		f := SpinnerFrames[((o.Frame%len(SpinnerFrames))+len(SpinnerFrames))%len(SpinnerFrames)]
		return st.Running.Render(Fit(f+" "+word, w))
	default:
		return st.Dim.Render(Fit("· "+safe.Line(t.Status), w))
	}
}

// oneLine joins a label's lines (Responses labels are the JSON arguments).
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func padLeft(s string, w int) string {
	if n := Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
