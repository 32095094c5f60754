package safe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// testSecret is registered once for the package's tests; no other test
// input contains a 12-byte piece of it.
const testSecret = "sk-9Qm2xT7vLp4RwZ8nB3cY"

func init() { Protect(testSecret) }

// contains12 reports whether out holds any 12-byte substring of secret.
func contains12(out, secret string) (string, bool) {
	for i := 0; i+scrubWindow <= len(secret); i++ {
		if sub := secret[i : i+scrubWindow]; strings.Contains(out, sub) {
			return sub, true
		}
	}
	return "", false
}

func TestScrubEveryOccurrenceAndEveryPiece(t *testing.T) {
	cases := map[string]string{
		"whole":          "Bearer " + testSecret + " echoed",
		"twice":          testSecret + "|" + testSecret,
		"12-byte prefix": "x" + testSecret[:12] + "y",
		"12-byte middle": "x" + testSecret[5:17] + "y",
		"12-byte suffix": testSecret[len(testSecret)-12:],
		"in a cursor":    "aev_cursor_1_" + testSecret[3:20],
	}
	for name, in := range cases {
		for fn, f := range map[string]func(string) string{"Scrub": Scrub, "Text": Text, "Line": Line} {
			out := f(in)
			if sub, ok := contains12(out, testSecret); ok {
				t.Errorf("%s %s: %q survived in %q", fn, name, sub, out)
			}
			if !strings.Contains(out, TokenMark) {
				t.Errorf("%s %s: no %s in %q", fn, name, TokenMark, out)
			}
		}
	}
	if got := Scrub("x" + testSecret + "y"); got != "x[token]y" {
		t.Errorf("whole token: %q", got)
	}
	// 11 bytes of the token are not a match: ordinary text stays.
	if in := "x" + testSecret[:11] + " y"; Scrub(in) != in {
		t.Errorf("an 11-byte piece was scrubbed: %q", Scrub(in))
	}
}

func TestJSONScrubsAndStaysValid(t *testing.T) {
	enc, _ := json.Marshal(map[string]string{"cursor": "c" + testSecret, "m": testSecret[2:15] + "\u202e"})
	out := JSON(enc)
	if _, ok := contains12(string(out), testSecret); ok || !json.Valid(out) {
		t.Fatalf("JSON: %s", out)
	}
}

// A Writer scrubs a secret split over any two writes, and a character
// split over writes arrives whole.
func TestWriterScrubsAcrossWrites(t *testing.T) {
	in := "before é " + testSecret + " middle 🙂 " + testSecret[4:18] + " end\n"
	for cut := 1; cut < len(in); cut++ {
		for _, kind := range []Kind{Terminal, JSONLines} {
			var b bytes.Buffer
			w := NewWriter(&b, kind)
			w.Write([]byte(in[:cut]))
			w.Write([]byte(in[cut:]))
			w.Flush()
			if sub, ok := contains12(b.String(), testSecret); ok {
				t.Fatalf("cut %d: %q written: %q", cut, sub, b.String())
			}
			if want := "before é [token] middle 🙂 [token] end\n"; b.String() != want {
				t.Fatalf("cut %d kind %d: %q, want %q", cut, kind, b.String(), want)
			}
		}
	}
}

// Random writes of random text with pieces of the secret: no 12-byte
// piece is ever written, and text without any is written unchanged.
func TestWriterProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := testSecret + " \nabcé🙂"
	for round := 0; round < 300; round++ {
		var src strings.Builder
		for src.Len() < 200 {
			if rng.Intn(4) == 0 {
				i := rng.Intn(len(testSecret) - 11)
				src.WriteString(testSecret[i : i+12+rng.Intn(len(testSecret)-11-i)])
			} else {
				src.WriteString(string([]rune(alphabet)[rng.Intn(len([]rune(alphabet)))]))
			}
		}
		in := src.String()
		var b bytes.Buffer
		w := NewWriter(&b, Terminal)
		for rest := in; rest != ""; {
			n := min(len(rest), 1+rng.Intn(16))
			w.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		w.Flush()
		if sub, ok := contains12(b.String(), testSecret); ok {
			t.Fatalf("round %d: %q written in %q", round, sub, b.String())
		}
		if b.String() != Scrub(in) {
			t.Fatalf("round %d: writer %q != Scrub %q", round, b.String(), Scrub(in))
		}
	}
}

func TestWriterNeutralisesWhatPrintersLetThrough(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, Terminal)
	w.Write([]byte("status: \x1b]52;c;x\x07 \u009b2J \u202e\n"))
	w.Flush()
	if got := b.String(); got != "status: ␛]52;c;x␇ ⟨U+9B⟩2J ⟨U+202E⟩\n" {
		t.Fatalf("terminal writer: %q", got)
	}
}

// BenchmarkWriter: plain output of clean text, 630-byte writes (a
// firehose frame's worth), with no secret protected (the fast path: no
// copy) and with one.
func BenchmarkWriter(b *testing.B) {
	line := []byte(strings.Repeat("word ", 125) + "\n")
	for _, protected := range []bool{false, true} {
		name := "no-secret"
		if protected {
			name = "secret"
		}
		b.Run(name, func(b *testing.B) {
			if !protected {
				saved := secrets.Load()
				secrets.Store(nil)
				defer secrets.Store(saved)
			}
			w := &Writer{w: io.Discard, kind: Terminal}
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w.Write(line)
			}
		})
	}
}

// With no secret registered a Writer takes its no-copy path; that path
// still neutralises, passes nothing for an empty write, and keeps the
// underlying writer's error (no test of the package runs in parallel, so
// the registry may be emptied for a while, as BenchmarkWriter does).
func TestWriterWithoutSecrets(t *testing.T) {
	saved := secrets.Load()
	secrets.Store(nil)
	defer secrets.Store(saved)
	var b bytes.Buffer
	w := NewWriter(&b, Terminal)
	for _, p := range []string{"ok ", "", "\x1b[2Jx", "\x07"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	w.Flush()
	if got := b.String(); got != "ok ␛[2Jx␇" {
		t.Fatalf("no-secret path: %q", got)
	}
	fw := NewWriter(failWriter{}, Terminal)
	if _, err := fw.Write([]byte("plain")); err == nil {
		t.Fatal("the underlying writer's error was lost")
	}
	if n, err := fw.Write([]byte("more")); n != 0 || err == nil {
		t.Fatalf("after a failed write: %d, %v", n, err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// Each registered secret is scrubbed, in whatever order they occur; the
// same secret registered again changes nothing.
func TestProtectTwoSecrets(t *testing.T) {
	const other = "ghp-4Kd8sWq1Zx7Pm3Nv"
	Protect(other)
	Protect(other)
	n := len(secrets.Load().pats)
	Protect(other)
	if len(secrets.Load().pats) != n {
		t.Fatal("a secret registered again added patterns")
	}
	in := "a " + other + " b " + testSecret + " c " + other
	if got, want := Scrub(in), "a "+TokenMark+" b "+TokenMark+" c "+TokenMark; got != want {
		t.Fatalf("Scrub = %q, want %q", got, want)
	}
}

// withOnlySecret registers secret alone for one test.
func withOnlySecret(t *testing.T, secret string) {
	saved := secrets.Load()
	secrets.Store(nil)
	Protect(secret)
	t.Cleanup(func() { secrets.Store(saved) })
}

// A secret that repeats a piece of itself: the end of a write can be held
// back (it could begin a window again) from inside a run already found.
// The run is held back whole, not written in part (it was: 10 bytes of a
// 12-byte window went out, the last 2 were held, and the window was never
// seen whole).
func TestWriterHoldsBackARunItWouldCut(t *testing.T) {
	const secret = "abcdefghijklmnopklQrs" // "klQ" is a piece of it, and so ends "abcdefghijklQ"
	withOnlySecret(t, secret)
	for _, kind := range []Kind{Terminal, JSONLines} {
		var b bytes.Buffer
		w := NewWriter(&b, kind)
		w.Write([]byte("xx abcdefghijklQ"))
		w.Write([]byte("zz yy"))
		w.Flush()
		if got, want := b.String(), "xx [token]Qzz yy"; got != want {
			t.Fatalf("kind %d: %q, want %q", kind, got, want)
		}
	}
	rng := rand.New(rand.NewSource(7))
	pieces := []string{secret, secret[:12], secret[:13], "klQ", "klQrs", "abcdefghijkl", "mnop", "Q", " ", "x", "é"}
	for round := 0; round < 2000; round++ {
		var src strings.Builder
		for src.Len() < 80 {
			src.WriteString(pieces[rng.Intn(len(pieces))])
		}
		in := src.String()
		var b bytes.Buffer
		w := NewWriter(&b, Terminal)
		for rest := in; rest != ""; {
			n := min(len(rest), 1+rng.Intn(20))
			w.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		w.Flush()
		if sub, ok := contains12(b.String(), secret); ok {
			t.Fatalf("round %d: %q written in %q", round, sub, b.String())
		}
		if b.String() != Scrub(in) {
			t.Fatalf("round %d: writer %q != Scrub %q", round, b.String(), Scrub(in))
		}
	}
}

// spansByByte is spans as a run counter over every byte: the reference
// for the skipping scan.
func spansByByte(sc *scrubber, s string) [][2]int {
	var spans [][2]int
	for _, p := range sc.pats {
		run := 0
		for i := 0; i < len(s); i++ {
			if !p.set[s[i]] {
				run = 0
				continue
			}
			if run++; run >= p.win {
				if _, ok := p.wins[s[i+1-p.win:i+1]]; ok {
					spans = addSpan(spans, i+1-p.win, i+1)
				}
			}
		}
	}
	return spans
}

// The skipping scan finds the spans the byte-by-byte one does: random text
// of the secret's pieces, its bytes, other bytes and another secret.
func TestSpansSkipAgreesByteByByte(t *testing.T) {
	withOnlySecret(t, "abcdefghijklmnopklQrs")
	Protect(`ghp-4Kd8"sWq1\Zx7Pm3Nv`) // a JSON-escaped form too
	sc := secrets.Load()
	pieces := []string{"abcdefghijkl", "abcdefghijklmnopklQrs", "klQ", "mnopklQrs", "a", "l", "Q", " ", "\n", "é",
		`ghp-4Kd8"sWq1\Zx7Pm3Nv`, `4Kd8\"sWq1\\Zx7`, "Zx7Pm3Nv", "token 000123 "}
	rng := rand.New(rand.NewSource(12))
	for round := 0; round < 20000; round++ {
		var b strings.Builder
		for k := rng.Intn(10); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := sc.spans(s), spansByByte(sc, s); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("spans(%q) = %v, want %v", s, got, want)
		}
	}
}

// Writer.JSON: lines passed through w.JSON and written to w give the
// bytes lines passed through JSON give, with and without a secret, in a
// JSONLines Writer (which may leave the escaping to its own pass) and a
// Terminal one.
func TestWriterJSONWritesWhatJSONWould(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	pieces := []string{"text ", "\x7f", "\u0085", "\u009b", "\u202e", "\u2066", "\u2028", "é", "\x1b", "\xff", "<&>",
		testSecret, testSecret[3:16], TokenMark, "\n"}
	var lines [][]byte
	for i := 0; i < 300; i++ {
		var s strings.Builder
		for k := rng.Intn(6); k >= 0; k-- {
			s.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b, _ := json.Marshal(map[string]string{"type": "text", "delta": s.String()})
		lines = append(lines, b)
	}
	run := func(kind Kind, viaWriter bool) string {
		var out bytes.Buffer
		w := NewWriter(&out, kind)
		var batch []byte
		for i, l := range lines {
			if viaWriter {
				batch = append(batch, w.JSON(l)...)
			} else {
				batch = append(batch, JSON(l)...)
			}
			batch = append(batch, '\n')
			if i%7 == 6 {
				w.Write(batch)
				batch = batch[:0]
			}
		}
		w.Write(batch)
		w.Flush()
		return out.String()
	}
	check := func(name string) {
		for _, kind := range []Kind{JSONLines, Terminal} {
			if got, want := run(kind, true), run(kind, false); got != want {
				t.Fatalf("%s, kind %d: w.JSON wrote\n%q\nJSON wrote\n%q", name, kind, got, want)
			}
		}
	}
	check("with a secret")
	saved := secrets.Load()
	secrets.Store(nil)
	defer secrets.Store(saved)
	check("without a secret")
	if w := NewWriter(io.Discard, JSONLines); &w.JSON(lines[0])[0] != &lines[0][0] {
		t.Fatal("without a secret, a JSONLines Writer's JSON copied its bytes")
	}
}
