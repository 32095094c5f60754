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
	// One pass over the quotes: a text delta anywhere makes the chunk
	// plain growth; otherwise any of the structural markers makes it
	// structural. (The same answer as testing each marker with
	// bytes.Contains, in one scan instead of seven.)
	d := c.Data
	structural := false
	for i := 0; ; i++ {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return structural
		}
		i += j
		rest := d[i+1:]
		if len(rest) == 0 {
			return structural
		}
		switch rest[0] {
		case 'r':
			if bytes.HasPrefix(rest, []byte(`response.`)) {
				tail := rest[len(`response.`):]
				if bytes.HasPrefix(tail, []byte(`output_text.delta"`)) || bytes.HasPrefix(tail, []byte(`reasoning_text.delta"`)) {
					return false
				}
				structural = true
			} else if bytes.HasPrefix(rest, []byte(`role":"`)) {
				structural = true
			}
		case 'h':
			structural = structural || bytes.HasPrefix(rest, []byte(`hermes.tool.progress"`))
		case 'f':
			structural = structural || bytes.HasPrefix(rest, []byte(`finish_reason":"`))
		case 't':
			structural = structural || bytes.HasPrefix(rest, []byte(`terminal":true`))
		}
	}
}
