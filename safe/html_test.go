package safe

import (
	"strings"
	"testing"
)

func TestHTMLEscapesMarkup(t *testing.T) {
	for _, in := range []string{`<script>alert(1)</script>`, `" onerror="x`, `' onload='x`, `&lt;b&gt;`, "<img src=x>\n<b>"} {
		for _, got := range []string{HTMLText(in).String(), HTMLBlock(in).String(), HTMLSprintf("<p>%s</p>", in).String()} {
			inner := strings.TrimSuffix(strings.TrimPrefix(got, "<p>"), "</p>")
			if strings.ContainsAny(inner, `<>"'`) {
				t.Errorf("%q: markup left in %q", in, got)
			}
			if strings.Contains(strings.ReplaceAll(inner, "&amp;", ""), "&lt;b&gt;") && !strings.Contains(in, "<b>") {
				t.Errorf("%q: an entity of the input was taken as markup: %q", in, got)
			}
		}
	}
	if got := HTMLBlock("a\nb\tc").String(); got != "a\nb\tc" {
		t.Errorf("HTMLBlock lost the layout: %q", got)
	}
	if got := HTMLText("a\nb").String(); strings.Contains(got, "\n") {
		t.Errorf("HTMLText kept a newline: %q", got)
	}
	// A Str is taken as it is: HTML built by the route.
	if got := HTMLSprintf("%s", HTMLSprintf("<b>%s</b>", "x<y")).String(); got != "<b>x&lt;y</b>" {
		t.Errorf("nested: %q", got)
	}
}
