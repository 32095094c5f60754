package model

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// checkHash: a value and its re-encodings through encoding/json (other key
// order and spacing, numbers and escapes rewritten; <, > and & as \u
// escapes in one, as themselves in the other) are jsonEqual, so where
// jsonHash answers for them it must give one hash; and a value that
// jsonEqual tells apart from another must never be called the same.
func checkHash(t *testing.T, a []byte) {
	var v any
	if json.Unmarshal(a, &v) != nil {
		return
	}
	indented, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return
	}
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return
	}
	for _, b := range [][]byte{indented, plain.Bytes()} {
		if !jsonEqual(a, b) {
			continue
		}
		ha, okA := jsonHash(a)
		hb, okB := jsonHash(b)
		if okA && okB && ha != hb {
			t.Fatalf("equal values, different hashes:\n%s\n%s", a, b)
		}
		if !jsonSame(a, b) {
			t.Fatalf("jsonSame disagrees with jsonEqual:\n%s\n%s", a, b)
		}
	}
}

var hashSeeds = []string{
	`{"a":1,"b":[1,2,{"c":"d"}]}`,
	`{"b":[1,2,{"c":"d"}],"a":1.0}`,
	`{"x":-0,"y":1e2,"z":"\u00e9\ud83d\ude00","w":null,"v":true,"u":false}`,
	`{"a":1,"a":2}`,
	`[1E700, 2]`,
	`"\ud800"`,
	`{"s":"a\"b\\c\/d<>&\u003c\t"}`,
	`{"s":"<a href=\"x\">\n"}`,
	`{"hermes_sse":{"data":{"choices":[{"index":0,"delta":{"content":"tok"},"finish_reason":null}]},"raw_data":"x","terminal":false}}`,
}

func TestJSONHashAgreesWithJSONEqual(t *testing.T) {
	t.Parallel()
	for _, s := range hashSeeds {
		checkHash(t, []byte(s))
	}
	for _, b := range fastSeeds(t) {
		checkHash(t, b)
	}
	// Different values: the hash may not call them the same.
	for _, p := range [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":"x"}`, `{"b":"x"}`},
		{`[1,2]`, `[2,1]`},
		{`{"a":1,"b":2}`, `{"a":2,"b":1}`},
	} {
		if jsonSame([]byte(p[0]), []byte(p[1])) {
			t.Fatalf("%s and %s called the same", p[0], p[1])
		}
	}
}

func FuzzJSONHash(f *testing.F) {
	for _, s := range hashSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, a []byte) { checkHash(t, a) })
}

// TestJSONHashSameValue: spellings of one value that jsonEqual calls
// equal get one hash, and jsonHash answers (ok) for each of them, so a
// replay re-encoded that way is decided without the encoding/json route.
func TestJSONHashSameValue(t *testing.T) {
	groups := [][]string{
		{`"a\"b"`, `"a\u0022b"`, ` "a\"b" `},
		{`"x/y\\z"`, `"x\/y\\z"`, `"x\u002fy\u005cz"`},
		{`"tab\there\nnew\rline\bb\ff"`, `"tab\u0009here\u000anew\u000dline\u0008b\u000cf"`},
		{`"é ü 😀"`, `"\u00e9 \u00fc \ud83d\ude00"`},
		{`"{\"id\":\"x\",\"n\":1}"`, `"{\u0022id\u0022:\u0022x\u0022,\u0022n\u0022:1}"`},
		{`{"a\"k":1}`, `{"a\u0022k":1}`},
		{`0`, `-0`, `0.0`, `-0.0`, `0e5`},
		{`100`, `1e2`, `100.0`, `1E+2`},
		{`-42`, `-42.0`, `-4.2e1`},
		{`999999999999999`, `9.99999999999999e14`},
		{`9999999999999999`, `1e16`},
		{`1789028102`, `1.789028102e9`},
		{`1E700`, ` 1E700`},
		{`[1,2,[3]]`, `[ 1 , 2 , [ 3 ] ]`},
		{`{"a":1,"b":[true,false,null]}`, `{ "b" : [ true , false , null ] , "a" : 1.0 }`},
		{`{}`, `{ }`},
		{`[]`, `[ ]`},
	}
	for _, g := range groups {
		h0, ok := jsonHash([]byte(g[0]))
		if !ok {
			t.Fatalf("jsonHash(%s) does not answer", g[0])
		}
		for _, s := range g[1:] {
			if !jsonEqual([]byte(g[0]), []byte(s)) {
				t.Fatalf("test data: %s and %s are not jsonEqual", g[0], s)
			}
			h, ok := jsonHash([]byte(s))
			if !ok || h != h0 {
				t.Errorf("jsonHash(%s) = %x, %v; want %x as for %s", s, h, ok, h0, g[0])
			}
		}
	}
}

// TestJSONHashTellsApart: values jsonEqual tells apart get different
// hashes, so a conflict is proven without decoding both sides (a hash
// that called them all the same would still be correct, but every
// conflict would take the slow route).
func TestJSONHashTellsApart(t *testing.T) {
	values := []string{
		`null`, `true`, `false`, `0`, `1`, `-1`, `1.5`, `1E700`, `2E700`, `-1E700`,
		`""`, `"0"`, `"1"`, `"a"`, `"a\"b"`, `"a\\b"`, `"ab"`, `"a/b"`, `"é"`, `"\u00e8"`,
		`[]`, `[[]]`, `[0]`, `[1]`, `[[1]]`, `[1,2]`, `[2,1]`, `[1,2,3]`, `[[1,2]]`, `[[1],2]`, `[1,[2]]`,
		`{}`, `{"a":{}}`, `{"a":[]}`, `{"a":null}`, `{"a":1}`, `{"a":2}`, `{"b":1}`, `{"ab":1}`,
		`{"a":1,"b":1}`, `{"a":1,"b":2}`, `{"a":2,"b":1}`, `{"a":{"b":1}}`, `{"a":[{"b":1}]}`,
		`[{}]`, `[{},{}]`, `{"":""}`, `{"a":"b"}`, `{"b":"a"}`, `["a","b"]`, `["ab"]`,
	}
	seen := map[uint64]string{}
	for _, v := range values {
		h, ok := jsonHash([]byte(v))
		if !ok {
			t.Fatalf("jsonHash(%s) does not answer", v)
		}
		if o, dup := seen[h]; dup {
			t.Errorf("%s and %s have one hash", o, v)
		}
		seen[h] = v
	}
}

// TestJSONHashDoesNotAnswer: input the hash cannot promise anything for
// (not JSON, a duplicate key, a string that is not valid UTF-8 or that an
// escape makes U+FFFD) gets ok == false, and the caller asks jsonEqual.
func TestJSONHashDoesNotAnswer(t *testing.T) {
	for _, s := range []string{
		``, ` `, `[1 2]`, `[1,]`, `[1`, `[,1]`, `{"a":1 "b":2}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`,
		`{"a":1`, `{"a":1,"a":1}`, `1 2`, `tru`, `nul`, `fals`, `-`, `1-2`, `"abc`, `"a\`, `"a\x"`,
		`"a\'b"`, `"a` + "\x01" + `b"`, `"` + "\xff" + `"`, `"` + "\x80" + `"`, `"a\"` + "\x80" + `"`, `"\u12"`, `"\ud800"`, `"\ufffd"`,
		`"a\"b` + "\xc3" + `"`, `"\ud800\"x"`, `{"a":"\ud800"}`, `[` + deep(201) + `]`,
	} {
		if h, ok := jsonHash([]byte(s)); ok {
			t.Errorf("jsonHash(%q) = %x, ok; want not ok", s, h)
		}
	}
	// A byte that is not UTF-8 decodes to U+FFFD: a spelled U+FFFD is the
	// same string, which only jsonEqual can say.
	if !jsonSame([]byte(`"`+"\x80"+`"`), []byte(`"\ufffd"`)) || !jsonSame([]byte(`"`+"\x80"+`"`), []byte("\"\xef\xbf\xbd\"")) {
		t.Error("a byte that is not UTF-8 is not the same as U+FFFD")
	}
	if _, ok := jsonHash([]byte(deep(150))); !ok {
		t.Error("jsonHash does not answer for 150 nested arrays")
	}
}

func deep(n int) string {
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}
