package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// hostileField is what a daemon or provider can put in any string: an OSC
// title sequence ended by BEL (the error.message), a newline and
// a tab, CR, DEL, a C1 CSI and a bidi override. plantMark finds the field
// it was planted in.
const (
	plantMark    = "PLANTED"
	hostileField = plantMark + " upstream model 500 zq17\x1b]0;T\x07\n2nd\tline\r\x7f\u009b2J\u202e"
)

// jsonlMultiline is every jsonl key whose value is the assistant's text:
// newline and tab stay there (design §5), and only there.
var jsonlMultiline = map[string]bool{"textLine/delta": true, "verdict/text": true, "object/Text": true, "object/text": true}

// nestedObject is a command's own jsonl object (reconcile's, submit's) as
// WriteObject takes it: strings at every depth.
type nestedObject struct {
	Type    string `json:"type"`
	Text    string `jsonl:"text"`
	Ptr     *string
	Map     map[string]string
	List    []string
	Any     any
	Nested  struct{ Inner []model.ToolRecord }
	Verdict model.VerdictRecord
	Hidden  string `json:"-"`
}

// fillStrings builds a value of type t with every string "ok" and every
// slice one element long, but for the string at path plant, which holds
// hostileField. It returns the paths of all strings it filled.
func fillStrings(t reflect.Type, plant, path string) (reflect.Value, []string) {
	v := reflect.New(t).Elem()
	var paths []string
	switch t.Kind() {
	case reflect.String:
		v.SetString("ok")
		if path == plant {
			v.SetString(hostileField)
		}
		return v, []string{path}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv, ps := fillStrings(f.Type, plant, path+"."+f.Name)
			v.Field(i).Set(fv)
			paths = append(paths, ps...)
		}
	case reflect.Slice:
		ev, ps := fillStrings(t.Elem(), plant, path+"[0]")
		v.Set(reflect.Append(reflect.MakeSlice(t, 0, 1), ev))
		paths = append(paths, ps...)
	case reflect.Pointer:
		ev, ps := fillStrings(t.Elem(), plant, path+"*")
		p := reflect.New(t.Elem())
		p.Elem().Set(ev)
		v.Set(p)
		paths = append(paths, ps...)
	case reflect.Map:
		kv, kps := fillStrings(t.Key(), plant, path+"{key}")
		ev, ps := fillStrings(t.Elem(), plant, path+"{value}")
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(kv, ev)
		paths = append(append(paths, kps...), ps...)
	case reflect.Interface: // holding a string
		ev, ps := fillStrings(reflect.TypeOf(""), plant, path+"(string)")
		v.Set(ev)
		paths = append(paths, ps...)
	}
	return v, paths
}

// checkInert decodes one jsonl line and walks every string in it: none
// holds a control character, DEL, a C1 or a bidi control, and only the
// assistant's text keeps newline and tab. It returns the string that held
// plantMark, if any.
func checkInert(t *testing.T, objType, where string, line []byte) string {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(line, &obj); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", where, err, line)
	}
	planted := ""
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			multi := jsonlMultiline[objType+"/"+key]
			for _, r := range x {
				layout := r == '\n' || r == '\t'
				if (r < 0x20 && !(layout && multi)) || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
					(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Errorf("%s: key %q holds %U once decoded: %q", where, key, r, x)
				}
			}
			if strings.Contains(x, plantMark) {
				planted = x
			}
		case map[string]any:
			for k, e := range x {
				walk("(key)", k)
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		}
	}
	walk("", obj)
	return planted
}

// Every string field of every jsonl object type, planted one at a time
// with hostile bytes, comes out neutralised once decoded (design §5: a
// one-line field is one inert line; `jq -r .detail` prints no escape
// sequence): the hand-encoded lines, the verdict object and the ls object.
func TestJSONLEveryFieldInert(t *testing.T) {
	type objectType struct {
		name  string
		typ   reflect.Type
		write func(v reflect.Value) []byte
	}
	viaJSONL := func(write func(j *JSONL, v reflect.Value)) func(reflect.Value) []byte {
		return func(v reflect.Value) []byte {
			var buf bytes.Buffer
			j := NewJSONL(&buf, Options{})
			write(j, v)
			j.end()
			return buf.Bytes()
		}
	}
	var types []objectType
	for _, l := range lineTypes {
		types = append(types, objectType{reflect.TypeOf(l).Name(), reflect.TypeOf(l),
			viaJSONL(func(j *JSONL, v reflect.Value) { emit(j, v.Interface().(jsonLine)) })})
	}
	types = append(types,
		objectType{"verdict", reflect.TypeOf(model.VerdictRecord{}),
			viaJSONL(func(j *JSONL, v reflect.Value) { j.record(v.Interface().(model.VerdictRecord)) })},
		objectType{"ls", reflect.TypeOf(model.ActionRow{}), func(v reflect.Value) []byte {
			var buf bytes.Buffer
			row := v.Interface().(model.ActionRow)
			if err := WriteListJSONL(&buf, []model.ActionRow{row}, time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}},
		objectType{"context", reflect.TypeOf(ContextRow{}), func(v reflect.Value) []byte {
			var buf bytes.Buffer
			WriteContextJSONL(&buf, v.Interface().(ContextRow))
			return buf.Bytes()
		}},
		objectType{"object", reflect.TypeOf(nestedObject{}), func(v reflect.Value) []byte {
			var buf bytes.Buffer
			if err := WriteObject(&buf, v.Interface()); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}})

	for _, ot := range types {
		_, paths := fillStrings(ot.typ, "", ot.name)
		if len(paths) == 0 {
			t.Fatalf("%s: no string field", ot.name)
		}
		for _, p := range paths {
			v, _ := fillStrings(ot.typ, p, ot.name)
			out := ot.write(v)
			lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
			if len(lines) != 1 {
				t.Fatalf("%s: %d lines: %s", p, len(lines), out)
			}
			got := checkInert(t, ot.name, p, lines[0])
			if got == "" && strings.HasSuffix(p, ".Hidden") {
				continue // not encoded at all
			}
			if got == "" {
				// ls derives its object: the endpoint and operation come
				// from the capability ID, a planted string shows there.
				t.Errorf("%s: the planted field is not in the object: %s", p, lines[0])
				continue
			}
			if !strings.Contains(got, "␛]0;T␇") {
				t.Errorf("%s: the escape sequence is not shown as placeholders: %q", p, got)
			}
		}
	}
	if t.Failed() {
		fmt.Println("hostile field:", fmt.Sprintf("%q", hostileField))
	}
}
