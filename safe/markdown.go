package safe

import (
	"fmt"
	"strings"
)

// Markdown (design §5): untrusted text in the export can neither forge
// the export's own structure (tables, headings, sections, code fences,
// emphasis, links) nor load anything (no live HTML, no image).
//
// Multi-line text (messages, reasoning, arguments, outputs) is fenced, in
// a fence longer than any backtick run inside it: nothing in a code block
// is Markdown or HTML. One-line fields are escaped: every character that
// could start Markdown or HTML structure gets a backslash, so it is shown
// as itself.

// mdSpecial are the characters escaped in one-line Markdown fields.
const mdSpecial = "\\`*_[]<>|!~&#"

// MDInline is an untrusted one-line field for Markdown: Line, then every
// Markdown-special character escaped (table pipes too).
func MDInline(s string) Str { return Str{mdEscape(Line(s))} }

func mdEscape(s string) string {
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		// An underscore between two letters or digits can neither open
		// nor close emphasis (CommonMark's flanking rules): chat_stream
		// stays readable.
		intraword := s[i] == '_' && i > 0 && i+1 < len(s) && alnum(s[i-1]) && alnum(s[i+1])
		if !intraword && strings.IndexByte(mdSpecial, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// MDFence is untrusted multi-line text as a fenced code block with the
// info string lang (ours), followed by a blank line.
func MDFence(lang Lit, s string) Str {
	text := strings.TrimRight(Text(s), "\n")
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return Str{ticks + string(lang) + "\n" + text + "\n" + ticks + "\n\n"}
}

// MDSprintf is Sprintf for Markdown: a plain string argument (or error,
// Stringer) is an untrusted one-line field and is escaped with MDInline; a
// Str is taken as it is (an MDFence, an MDInline, our own Markdown).
func MDSprintf(format Lit, args ...any) Str {
	safeArgs := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case string:
			safeArgs[i] = mdEscape(Line(x))
		case error:
			safeArgs[i] = mdEscape(Line(x.Error()))
		case Str, Lit, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
			safeArgs[i] = safeArg(a)
		default:
			safeArgs[i] = mdEscape(Line(fmt.Sprint(a)))
		}
	}
	return Str{Scrub(fmt.Sprintf(string(format), safeArgs...))}
}

// MDCode is an untrusted one-line field (an ID, a code, a cursor) as an
// inline code span, so it reads and copies exactly: Line, a backtick run
// longer than any inside, and table pipes escaped (GFM reads \| in a cell
// as a pipe, even inside a code span).
func MDCode(s string) Str {
	s = Line(s)
	if s == "" {
		return Str{}
	}
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return Str{ticks + strings.ReplaceAll(s, "|", `\|`) + ticks}
}
