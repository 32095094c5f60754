package model

// The shapes of a Responses frame (responses.go's respFrame), read by the
// one object walk of fastjson.go, so that each Responses chunk is not
// decoded by reflection. Like every shape, a decoder answers as
// encoding/json does or is not sure (ok == false), and applyResponses
// then takes encoding/json.

var respFrameShape = objShape[respFrame]{fields: []field[respFrame]{
	{name: "type", dec: func(s *jscan, f *respFrame) bool { return s.strInto(&f.Type) }},
	{name: "sequence_number", dec: func(s *jscan, f *respFrame) bool {
		return ptrInto(s, &f.SequenceNumber, func(s *jscan, n *int64) bool { return into(s, n, (*jscan).int64Value) })
	}},
	{name: "response", dec: func(s *jscan, f *respFrame) bool {
		return ptrInto(s, &f.Response, func(s *jscan, r *respObject) bool { _, ok := object(s, r, &respObjectShape); return ok })
	}},
	{name: "output_index", dec: func(s *jscan, f *respFrame) bool { return ptrInto(s, &f.OutputIndex, (*jscan).intInto) }},
	{name: "content_index", dec: func(s *jscan, f *respFrame) bool { return s.intInto(&f.ContentIndex) }},
	{name: "item_id", dec: func(s *jscan, f *respFrame) bool { return s.strInto(&f.ItemID) }},
	{name: "delta", dec: func(s *jscan, f *respFrame) bool { return s.strInto(&f.Delta) }},
	{name: "text", dec: func(s *jscan, f *respFrame) bool { return s.strInto(&f.Text) }},
	{name: "item", dec: func(s *jscan, f *respFrame) bool {
		return ptrInto(s, &f.Item, func(s *jscan, it *respItem) bool { _, ok := object(s, it, &respItemShape); return ok })
	}},
}}

var respObjectShape = objShape[respObject]{fields: []field[respObject]{
	{name: "id", dec: func(s *jscan, r *respObject) bool { return s.strInto(&r.ID) }},
	{name: "status", dec: func(s *jscan, r *respObject) bool { return s.strInto(&r.Status) }},
	{name: "usage", dec: func(s *jscan, r *respObject) bool {
		// Usage.UnmarshalJSON, as encoding/json would call it: one a
		// stream, and it checks every figure (usage.go).
		v, ok := s.value()
		if !ok {
			return false
		}
		if r.Usage = nil; string(v) != "null" {
			r.Usage = new(Usage)
			_ = r.Usage.UnmarshalJSON(v)
		}
		return true
	}},
	{name: "error", dec: func(s *jscan, r *respObject) bool { return s.rawCopy(&r.Error) }},
}}

var respItemShape = objShape[respItem]{fields: []field[respItem]{
	{name: "id", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.ID) }},
	{name: "type", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.Type) }},
	{name: "status", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.Status) }},
	{name: "role", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.Role) }},
	{name: "name", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.Name) }},
	{name: "call_id", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.CallID) }},
	{name: "arguments", dec: func(s *jscan, it *respItem) bool { return s.strInto(&it.Arguments) }},
	{name: "content", dec: func(s *jscan, it *respItem) bool { return objectsInto(s, &it.Content, &respContentShape) }},
	{name: "output", dec: func(s *jscan, it *respItem) bool { return s.rawCopy(&it.Output) }},
}}

var respContentShape = objShape[respContent]{fields: []field[respContent]{
	{name: "type", dec: func(s *jscan, c *respContent) bool { return s.strInto(&c.Type) }},
	{name: "text", dec: func(s *jscan, c *respContent) bool { return s.strInto(&c.Text) }},
}}

// decodeRespFast decodes a Responses frame.
func decodeRespFast(data []byte) (respFrame, bool) { return whole(data, &respFrameShape) }
