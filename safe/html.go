package safe

import (
	"fmt"
	"strings"
)

// HTML (design §5, §16): untrusted text in the HTML report is inert text,
// never markup. Every character that could open a tag, an entity or end an
// attribute value (& < > " ') is written as an entity, after the text was
// made safe as one line (HTMLText) or as a block that keeps its newlines
// (HTMLBlock, for <pre>). The report puts untrusted text only in element
// content or in a double-quoted attribute value, where this escaping is
// enough; it never puts it in a URL, a style, a script or an event
// attribute (it has none of them).

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// HTMLText is an untrusted one-line field for HTML: Line, then escaped.
func HTMLText(s string) Str { return Str{htmlEscaper.Replace(Line(s))} }

// HTMLBlock is untrusted multi-line text for HTML (a <pre>): Text, then
// escaped; newlines and tabs stay.
func HTMLBlock(s string) Str { return Str{htmlEscaper.Replace(Text(s))} }

// HTMLSprintf is Sprintf for HTML: a string, error or Stringer argument is
// an untrusted one-line field and is escaped (HTMLText); a Str is taken
// as it is (HTML built by this route); numbers and booleans as fmt prints
// them.
func HTMLSprintf(format Lit, args ...any) Str {
	safeArgs := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case string:
			safeArgs[i] = htmlEscaper.Replace(Line(x))
		case error:
			safeArgs[i] = htmlEscaper.Replace(Line(x.Error()))
		case Str, Lit, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
			safeArgs[i] = safeArg(a)
		default:
			safeArgs[i] = htmlEscaper.Replace(Line(fmt.Sprint(a)))
		}
	}
	return Str{Scrub(fmt.Sprintf(string(format), safeArgs...))}
}
