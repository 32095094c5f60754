package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// encPieces is what the line encoders must escape as encoding/json does:
// its own escapes (quote, backslash, \b \f \n \r \t, other C0, the HTML
// characters, U+2028/2029, invalid UTF-8, a UTF-16 surrogate written as
// UTF-8), and what safe.JSON adds to them (DEL, C1, bidi), beside plain
// text, other runes and the token mark.
var encPieces = []string{"plain text ", "token 000123 ", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1b[31m",
	"\x1f", "\x7f", "<", ">", "&", "\u2028", "\u2029", "\u2027", "\u202a", "\u202e", "\u2066", "\u2069", "\u0080",
	"\u0085", "\u009b", "\u009f", "\u00a0", "é", "日本語", "😀", "\xff", "\xc2", "\xe2\x80", "\xed\xa0\x80",
	"\xf4\x90\x80\x80", safe.TokenMark, "\\u2028", "/"}

func randText(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.Intn(6); k > 0; k-- {
		b.WriteString(encPieces[rng.Intn(len(encPieces))])
	}
	return b.String()
}

func randInt(rng *rand.Rand) int64 {
	switch rng.Intn(3) {
	case 0:
		return 0
	case 1:
		return -rng.Int63n(1 << 40)
	}
	return rng.Int63()
}

// lineTypes is every hand-encoded line type (TestLineTypesAllListed
// holds the list to the package's appendJSON methods).
var lineTypes = []jsonLine{connLine{}, textLine{}, toolLineJSON{}, noteLine{}, reconcileLine{}, errorLine{}}

// allLines builds one line of every hand-encoded type from the values,
// filling every field by reflection (strings from s, numbers from n, in
// turn), so a field added to a line is checked without a word here.
func allLines(s []string, n []int64) []jsonLine {
	out := make([]jsonLine, 0, len(lineTypes))
	for _, l := range lineTypes {
		v := reflect.New(reflect.TypeOf(l)).Elem()
		si, ni := 0, 0
		for i := range v.NumField() {
			switch f := v.Field(i); f.Kind() {
			case reflect.String:
				f.SetString(s[si%len(s)])
				si++
			case reflect.Int, reflect.Int64:
				f.SetInt(n[ni%len(n)])
				ni++
			case reflect.Uint64:
				f.SetUint(uint64(n[ni%len(n)]))
				ni++
			default:
				panic(fmt.Sprintf("%T.%s: a kind of field this test does not fill", l, v.Type().Field(i).Name))
			}
		}
		out = append(out, v.Interface().(jsonLine))
	}
	return out
}

// TestLineTypesAllListed: every type of the package with an appendJSON
// method is in lineTypes, so the differential test covers a new one.
func TestLineTypesAllListed(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, l := range lineTypes {
		listed[reflect.TypeOf(l).Name()] = true
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "appendJSON" {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && !listed[id.Name] {
				t.Errorf("%s has appendJSON but is not in lineTypes", id.Name)
			}
		}
	}
}

// checkLinesMatchMarshal: each line's encoding is json.Marshal's of the
// line with its strings neutralised by the reflective route (WriteObject's),
// and so, once through safe.JSON, the line that route writes.
func checkLinesMatchMarshal(t *testing.T, s []string, n []int64) {
	t.Helper()
	for _, l := range allLines(s, n) {
		want, err := json.Marshal(neutralised(reflect.ValueOf(l), false).Interface())
		if err != nil {
			t.Fatal(err)
		}
		got := l.appendJSON([]byte("prefix"))
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("%T %+v:\n got %s\nwant %s", l, l, got[len("prefix"):], want)
		}
	}
}

func TestLineEncodersMatchMarshal(t *testing.T) {
	t.Parallel() // only encodes values of its own (and TestListTableCapsEachCell only writes its table)
	// A sample of random lines of the pieces; FuzzLineEncoders (run by
	// make fuzz-ci) holds the same property for any strings and numbers
	// and carries the rest (20,000 here were 2 s of CPU under -race).
	rng := rand.New(rand.NewSource(16))
	s, n := make([]string, 5), make([]int64, 2)
	for i := 0; i < 2000; i++ {
		for k := range s {
			s[k] = randText(rng)
		}
		for k := range n {
			n[k] = randInt(rng)
		}
		checkLinesMatchMarshal(t, s, n)
	}
	// Every byte value alone, and every rune around the escaped ranges.
	for c := 0; c < 256; c++ {
		checkLinesMatchMarshal(t, []string{string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "b", "", "x", ""}, []int64{int64(c), 0})
	}
	for r := rune(0); r < 0x2100; r++ {
		checkLinesMatchMarshal(t, []string{string(r), "", "", "", ""}, []int64{0, 1})
	}
}

// FuzzLineEncoders: whatever the strings and numbers, the hand encoders
// write what json.Marshal writes.
func FuzzLineEncoders(f *testing.F) {
	for _, p := range encPieces {
		f.Add(p, "item", "", int64(0), int64(0))
	}
	f.Add("<a href=\"x\">\u2028\xff\u009b\u202e\x7f", "\x00\x1b", safe.TokenMark, int64(-1), int64(1<<62))
	f.Fuzz(func(t *testing.T, a, b, c string, n0, n1 int64) {
		checkLinesMatchMarshal(t, []string{a, b, c, a + c, c + b}, []int64{n0, n1})
	})
}

// TestJSONLTimestampsAddAt: under --timestamps every line but the verdict
// ends with "at", the clock's RFC 3339 time, as the reflective printer
// wrote it.
func TestJSONLTimestampsAddAt(t *testing.T) {
	var buf bytes.Buffer
	at := time.Date(2026, 12, 3, 13, 30, 0, 123456789, time.UTC)
	drive(NewJSONL(&buf, Options{Timestamps: true, Now: func() time.Time { return at }}), chatTurn(time.Unix(0, 0)))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		stamped := strings.HasSuffix(l, `,"at":"2026-12-03T13:30:00.123456789Z"}`)
		if last := i == len(lines)-1; stamped == last {
			t.Errorf("line %d (last %v) stamped %v: %s", i, last, stamped, l)
		}
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not JSON: %s", i, l)
		}
	}
	var rec model.VerdictRecord
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil || rec.Type != "verdict" {
		t.Fatalf("last line: %v %s", err, lines[len(lines)-1])
	}
}
