package safe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile holds one sample of every sequence design §5 names.
var hostile = map[string]string{
	"csi colour":       "\x1b[31mred\x1b[0m",
	"screen clear":     "\x1b[2J\x1b[H",
	"cursor move":      "\x1b[10;10H",
	"osc 52 clipboard": "\x1b]52;c;ZWNobyBwd25lZA==\x07",
	"osc 8 link":       "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
	"osc title":        "\x1b]0;owned\x07",
	"dcs":              "\x1bPq#0;2;0;0;0\x1b\\",
	"apc":              "\x1b_Gf=24;AAAA\x1b\\",
	"pm":               "\x1b^private\x1b\\",
	"sos":              "\x1bXstart\x1b\\",
	"bracketed paste":  "\x1b[200~rm -rf /\x1b[201~",
	"c1 csi":           "\u009b31m",
	"c1 osc":           "\u009d0;t\u009c",
	"bel and bs":       "a\x07b\x08c",
	"carriage return":  "safe\roverwritten",
	"bidi override":    "abc\u202edcba\u202c",
	"bidi isolate":     "x\u2066y\u2069z",
	"invalid utf8":     "ok\xff\xfe",
}

func noRawControls(t *testing.T, name, out string) {
	t.Helper()
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Fatalf("%s: raw control %U survived in %q", name, r, out)
		}
	}
}

func TestTextNeutralisesEverySequence(t *testing.T) {
	for name, in := range hostile {
		out := Text("before " + in + " after")
		noRawControls(t, name, out)
		if !strings.HasPrefix(out, "before ") || !strings.HasSuffix(out, " after") {
			t.Errorf("%s: surrounding text lost: %q", name, out)
		}
	}
}

func TestPlaceholdersAreVisible(t *testing.T) {
	cases := map[string]string{
		"\x1b[31m": "␛[31m",
		"a\x07":    "a␇",
		"\x7f":     "␡",
		"\u009b":   "⟨U+9B⟩",
		"\u202e":   "⟨U+202E⟩",
		"\xff":     "\uFFFD",
	}
	for in, want := range cases {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLayoutKeptInTextNotInLine(t *testing.T) {
	in := "a\n\tb"
	if got := Text(in); got != in {
		t.Errorf("Text changed newline/tab: %q", got)
	}
	if got := Line(in); got != "a⏎⇥b" {
		t.Errorf("Line(%q) = %q", in, got)
	}
}

func TestCleanTextIsReturnedUnchanged(t *testing.T) {
	in := "plain text, emoji 💻, ünïcødé, 中文"
	if got := Text(in); got != in {
		t.Fatalf("changed clean text: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Text(in) }); n != 0 {
		t.Errorf("clean text allocates %v times", n)
	}
}

func TestJSONEscapesC1AndBidiAndStaysValid(t *testing.T) {
	for name, in := range hostile {
		enc, err := json.Marshal(map[string]string{"text": in})
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(enc)
		noRawControls(t, name, string(out))
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%s: invalid JSON after escaping: %v: %s", name, err, out)
		}
		// The meaning is unchanged except where Marshal already coerced
		// invalid UTF-8 to U+FFFD.
		if name != "invalid utf8" && back["text"] != in {
			t.Errorf("%s: round trip changed text: %q != %q", name, back["text"], in)
		}
	}
}

// rawUnsafeByte returns the offset of a byte a terminal could obey, or -1:
// a C0 control other than newline and tab (ESC, BEL, CR, …), DEL, or a byte
// that is not part of valid UTF-8 (a lone 0x9b is CSI to an 8-bit terminal).
func rawUnsafeByte(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// FuzzText: whatever the input, no raw ESC, BEL or other C0 control (but
// newline and tab in Text), no DEL, no C1 control, no bidi override or
// isolate and no invalid UTF-8 survives Text or Line; Line is one line;
// both are idempotent and leave clean text alone; JSON of a marshalled
// string stays valid, means the same and carries none of them either.
func FuzzText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("\x7f\u0085\u2028\u200e\ufeff")
	f.Add("\xc2\x9b31m \xe2\x80\xae \xc2")
	f.Fuzz(func(t *testing.T, s string) {
		text, line := Text(s), Line(s)
		noRawControls(t, "Text", text)
		noRawControls(t, "Line", line)
		for name, out := range map[string]string{"Text": text, "Line": line} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) is not valid UTF-8: %q", name, s, out)
			}
			if i := rawUnsafeByte(out); i >= 0 {
				t.Fatalf("%s(%q): raw byte %#x at %d in %q", name, s, out[i], i, out)
			}
		}
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("Line kept layout: %q", line)
		}
		if Text(text) != text || Line(line) != line {
			t.Fatalf("not idempotent: %q -> %q / %q", s, text, line)
		}
		if rawUnsafeByte(s) < 0 && firstUnsafe(s, true, false) < 0 && Scrub(s) == s && text != s {
			t.Fatalf("clean text changed: %q -> %q", s, text)
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(enc)
		for i := 0; i < len(out); i++ {
			if c := out[i]; c < 0x20 || c == 0x7f {
				t.Fatalf("JSON(%s): raw byte %#x at %d: %q", enc, c, i, out)
			}
		}
		noRawControls(t, "JSON", string(out))
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("JSON(%s) is not valid JSON: %v: %q", enc, err, out)
		}
		var want string
		_ = json.Unmarshal(enc, &want)
		if back != want {
			t.Fatalf("JSON changed the meaning: %q -> %q", want, back)
		}
	})
}

// TestHostileCorpusFile keeps testdata/hostile.json, the corpus other
// packages' tests read (the HTML report's), equal to hostile: one corpus.
func TestHostileCorpusFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]string
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file) != len(hostile) {
		t.Fatalf("testdata/hostile.json has %d samples, hostile %d", len(file), len(hostile))
	}
	for name, in := range hostile {
		// JSON keeps invalid UTF-8 as U+FFFD: compare as JSON reads it.
		b, _ := json.Marshal(in)
		var want string
		_ = json.Unmarshal(b, &want)
		if file[name] != want {
			t.Errorf("%s: file %q, hostile %q", name, file[name], want)
		}
	}
}
