package model

import (
	"encoding/json"
	"testing"
)

// checkHash: a value and its re-encoding through encoding/json (other key
// order and spacing, numbers and escapes rewritten) are jsonEqual, so
// where jsonHash answers for both it must give one hash; and a value that
// jsonEqual tells apart from another must never be called the same.
func checkHash(t *testing.T, a []byte) {
	var v any
	if json.Unmarshal(a, &v) != nil {
		return
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return
	}
	if !jsonEqual(a, b) {
		return
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

var hashSeeds = []string{
	`{"a":1,"b":[1,2,{"c":"d"}]}`,
	`{"b":[1,2,{"c":"d"}],"a":1.0}`,
	`{"x":-0,"y":1e2,"z":"\u00e9\ud83d\ude00","w":null,"v":true,"u":false}`,
	`{"a":1,"a":2}`,
	`[1E700, 2]`,
	`"\ud800"`,
	`{"hermes_sse":{"data":{"choices":[{"index":0,"delta":{"content":"tok"},"finish_reason":null}]},"raw_data":"x","terminal":false}}`,
}

func TestJSONHashAgreesWithJSONEqual(t *testing.T) {
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
