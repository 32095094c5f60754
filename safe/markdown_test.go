package safe

import (
	"errors"
	"testing"
)

// One-line Markdown fields escape every character that could start
// Markdown or HTML structure, but an underscore inside a word (contract
// §5, export); multi-line text is fenced longer than any backtick run in
// it; code spans read exactly.
func TestMarkdownFields(t *testing.T) {
	for _, c := range mdSpecial {
		if got, want := MDInline(string(c)).String(), `\`+string(c); got != want {
			t.Errorf("MDInline(%q) = %q, want %q", c, got, want)
		}
	}
	for in, want := range map[string]string{
		"plain text":      "plain text",
		"a|b*c_d":         `a\|b\*c_d`,
		"_x_":             `\_x\_`,
		"x_":              `x\_`,
		"_":               `\_`,
		"chat_stream <b>": `chat_stream \<b\>`,
		"a _b":            `a \_b`,
		"a_ b":            `a\_ b`,
		"a_.":             `a\_.`,
		// The letters and digits at the ends of their ranges, and the
		// characters just outside them.
		"a_z": "a_z", "A_Z": "A_Z", "0_9": "0_9", "z_a": "z_a", "Z_A": "Z_A", "9_0": "9_0",
		"/_:": `/\_:`, "@_[": `@\_\[`, "`_{": "\\`\\_{",
	} {
		if got := MDInline(in).String(); got != want {
			t.Errorf("MDInline(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := MDFence("json", "a ``` b\n\n").String(), "````json\na ``` b\n````\n\n"; got != want {
		t.Errorf("MDFence = %q, want %q", got, want)
	}
	for in, want := range map[string]string{"": "", "a`b": "``a`b``", "`x": "`` `x ``", "a|b": "`a\\|b`"} {
		if got := MDCode(in).String(); got != want {
			t.Errorf("MDCode(%q) = %q, want %q", in, got, want)
		}
	}
	type other struct{ A string }
	got := MDSprintf("%s|%d|%v|%v|%s", "a*b", 3, errors.New("e_"), other{"x#"}, MDCode("c|d")).String()
	if want := "a\\*b|3|e\\_|{x\\#}|`c\\|d`"; got != want {
		t.Errorf("MDSprintf = %q, want %q", got, want)
	}
}
