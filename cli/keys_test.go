package cli

import (
	"sync"

	"aipwatch/internal/keysrc"
)

// testKeys are the root's real key maps (../keymap.go, read once by
// internal/keysrc): the tests press the operator's keys, not a copy. A
// keymap.go this reader cannot read fails every test that asks.
var testKeys = sync.OnceValue(func() Keys {
	var k Keys
	if err := keysrc.Load("../keymap.go", map[string]any{"keyMap": &k.Live, "consoleKeyMap": &k.Console}); err != nil {
		panic(err)
	}
	return k
})
