package model

import "bytes"

// Structural reports whether a chunk changes the transcript's structure (a
// new item, a tool change, a finish, a terminal) rather than only growing
// text. Delivery flushes such chunks at once instead of waiting for the next
// batch tick. It is a byte scan, cheap enough to run on every frame.
func Structural(c StreamChunk) bool {
	if c.Kind != KindData {
		return true
	}
	d := c.Data
	switch {
	case bytes.Contains(d, []byte(`"response.output_text.delta"`)),
		bytes.Contains(d, []byte(`"response.reasoning_text.delta"`)):
		return false
	case bytes.Contains(d, []byte(`"hermes.tool.progress"`)),
		bytes.Contains(d, []byte(`"response.`)),
		bytes.Contains(d, []byte(`"finish_reason":"`)),
		bytes.Contains(d, []byte(`"role":"`)),
		bytes.Contains(d, []byte(`"terminal":true`)):
		return true
	}
	return false
}
