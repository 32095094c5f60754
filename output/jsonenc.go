package output

import (
	"strconv"

	"aipwatch/safe"
)

// The jsonl lines of every type but the verdict are encoded by hand, the
// bytes encoding/json.Marshal writes for the line's struct once its
// strings are neutralised (its tags, its omitempty fields, its HTML-safe
// string escaping), without reflection: one per chunk on a fast stream.
// TestLineEncodersMatchMarshal and FuzzLineEncoders hold them to
// json.Marshal. What comes out goes through safe.JSON as before, so the
// token scrub is applied to the whole line.
//
// Every string field of every jsonl object is neutralised (design §5), not
// only escaped: a script that decodes a line (jq -r .detail) gets
// placeholders, never a control character. safe.AppendJSONString does it
// as it encodes, in one pass. A field is one line (strField: an ID, a
// status, a code, a cursor, an error's words) unless it is the assistant's
// text (textField: newline and tab stay; such a field is tagged
// jsonl:"text", which the tests read). The other objects are encoded by
// reflection with the same two rules (jsonobject.go).

// jsonLine is a line struct that encodes itself.
type jsonLine interface {
	appendJSON(b []byte) []byte
}

// objStart opens an object with its "type".
func objStart(b []byte, typ string) []byte {
	b = append(b, `{"type":`...)
	return safe.AppendJSONString(b, typ, false)
}

// field appends ,"key": (key is one of ours and needs no escape).
func field(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// strField appends ,"key":"value" with v neutralised as one line (as
// safe.Line).
func strField(b []byte, key, v string) []byte {
	return safe.AppendJSONString(field(b, key), v, false)
}

// textField is strField for multi-line text (the assistant's), as
// safe.Text: newline and tab stay.
func textField(b []byte, key, v string) []byte {
	return safe.AppendJSONString(field(b, key), v, true)
}

// omitStr and omitNum append a field that has omitempty: not at all when
// the value is empty or zero.
func omitStr(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return strField(b, key, v)
}

func omitNum[N int64 | uint64](b []byte, key string, n N) []byte {
	if n == 0 {
		return b
	}
	if n < 0 {
		return strconv.AppendInt(field(b, key), int64(n), 10)
	}
	return strconv.AppendUint(field(b, key), uint64(n), 10)
}

func (l connLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = omitNum(b, "attempt", int64(l.Attempt))
	b = omitStr(b, "cursor", l.Cursor)
	b = omitNum(b, "wait_ms", l.WaitMs)
	b = omitStr(b, "cause", l.Cause)
	b = omitStr(b, "code", l.Code)
	return append(b, '}')
}

func (l textLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "item", l.Item)
	return append(textField(b, "delta", l.Delta), '}')
}

func (l toolLineJSON) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "id", l.ID)
	b = strField(strField(b, "name", l.Name), "label", l.Label)
	return append(strField(b, "status", l.Status), '}')
}

func (l noteLine) appendJSON(b []byte) []byte {
	b = omitStr(objStart(b, l.Type), "kind", l.Kind)
	b = omitNum(b, "sequence", l.Sequence)
	return append(strField(b, "text", l.Text), '}')
}

func (l reconcileLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "advice", l.Advice)
	b = omitStr(b, "response_get_input", l.ResponseGetInput)
	return append(omitStr(b, "session_id", l.SessionID), '}')
}

func (l errorLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "code", l.Code)
	return append(strField(b, "message", l.Message), '}')
}
