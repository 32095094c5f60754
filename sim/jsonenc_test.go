package sim

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The expected strings are what CPython 3 json.dumps writes for the same
// values (checked against python3 when the tests were written).
func TestAppendPyMatchesPythonJSONDumps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v    any
		want string
	}{
		{o("a", 1, "b", []any{true, false, nil}, "c", o()), `{"a": 1, "b": [true, false, null], "c": {}}`},
		{o("z", "last", "a", "first"), `{"z": "last", "a": "first"}`},
		{"café — naïve", `"caf\u00e9 \u2014 na\u00efve"`},
		{"💻📖✨", `"\ud83d\udcbb\ud83d\udcd6\u2728"`},
		{"quote \" back \\ slash /", `"quote \" back \\ slash /"`},
		{"\n\r\t\b\f\x00\x1f\x7f", `"\n\r\t\b\f\u0000\u001f\u007f"`},
		{[]any{}, `[]`},
		{o("choices", []any{o("index", 0, "delta", o("content", "x"), "finish_reason", nil)}),
			`{"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": null}]}`},
		{int64(-5), `-5`},
		{uint64(18446744073709551615), `18446744073709551615`},
	}
	for _, c := range cases {
		if got := string(appendPy(nil, c.v)); got != c.want {
			t.Errorf("appendPy(%v)\n got %s\nwant %s", c.v, got, c.want)
		}
	}
}

func TestAppendCompactLikeSerde(t *testing.T) {
	t.Parallel()
	v := o("z", "café 💻", "a", o("y", 1, "b", []any{"\n\"\\", nil}), "m", rawJSON(`{"k":true}`))
	if got, want := string(appendCompact(nil, v, true)), `{"a":{"b":["\n\"\\",null],"y":1},"m":{"k":true},"z":"café 💻"}`; got != want {
		t.Errorf("sorted\n got %s\nwant %s", got, want)
	}
	if got, want := string(compact(v)), `{"z":"café 💻","a":{"y":1,"b":["\n\"\\",null]},"m":{"k":true}}`; got != want {
		t.Errorf("struct order\n got %s\nwant %s", got, want)
	}
	if got, want := string(appendCompactString(nil, "\x01\x7f\xffok")), `"\u0001`+"\x7f\ufffd"+`ok"`; got != want {
		t.Errorf("escapes: got %q want %q", got, want)
	}
	// Sorting must not disturb the value, which later frames may share.
	if v[0].K != "z" {
		t.Fatal("appendCompact sorted its input in place")
	}
}

// Whatever the dialect, both encodings decode to the same value.
func TestDialectsAgree(t *testing.T) {
	t.Parallel()
	v := newRespGen("x").completed(1, 2)[0].value
	var a, b any
	if err := json.Unmarshal(appendPy(nil, v), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(appendCompact(nil, v, true), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%v\n%v", a, b)
	}
}
