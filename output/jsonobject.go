package output

import (
	"encoding/json"
	"io"
	"reflect"

	"aipwatch/model"
	"aipwatch/safe"
)

// The jsonl objects that are not on a per-chunk path (the verdict object,
// the ls object, the commands' own objects: reconcile, submit) are encoded
// by reflection from a neutralised copy: every string in them, however
// deep (struct fields, slices, maps, pointers), as one line (safe.Line),
// but for a field tagged jsonl:"text", the assistant's text (safe.Text:
// newline and tab stay). The rule is the line encoders' (jsonenc.go).

// SafeRecord is the verdict object with every string neutralised: jsonl's
// last line and reconcile's objects are encoded from it.
func SafeRecord(rec model.VerdictRecord) model.VerdictRecord {
	return neutralised(reflect.ValueOf(rec), false).Interface().(model.VerdictRecord)
}

// WriteObject writes v as one jsonl line: its strings neutralised, the
// line through safe.JSON (the token scrub) into a safe.Writer.
func WriteObject(w io.Writer, v any) error {
	b, err := json.Marshal(neutralised(reflect.ValueOf(v), false).Interface())
	if err != nil {
		return err
	}
	sw := safe.NewWriter(w, safe.JSONLines)
	if _, err := sw.Write(append(sw.JSON(b), '\n')); err != nil {
		return err
	}
	return sw.Flush()
}

// neutralised is a copy of v with every string neutralised (multi-line
// when text); v itself and what it points to are not changed. Unexported
// fields, which encoding/json leaves out, are left out too.
func neutralised(v reflect.Value, text bool) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.String:
		if text {
			out.SetString(safe.Text(v.String()))
		} else {
			out.SetString(safe.Line(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				out.Field(i).Set(neutralised(v.Field(i), f.Tag.Get("jsonl") == "text"))
			}
		}
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 { // bytes: JSON writes them as base64
			out.Set(v)
			break
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := range v.Len() {
			out.Index(i).Set(neutralised(v.Index(i), text))
		}
	case reflect.Array:
		for i := range v.Len() {
			out.Index(i).Set(neutralised(v.Index(i), text))
		}
	case reflect.Map:
		if v.IsNil() {
			break
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(neutralised(it.Key(), false), neutralised(it.Value(), text))
		}
	case reflect.Pointer:
		if v.IsNil() {
			break
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(neutralised(v.Elem(), text))
		out.Set(p)
	case reflect.Interface:
		if !v.IsNil() {
			out.Set(neutralised(v.Elem(), text))
		}
	default:
		out.Set(v)
	}
	return out
}
