package ui

import (
	"sync"
	"testing"

	"aipwatch/internal/keysrc"
)

// The ui tests press the operator's real keys and golden the real help
// line, so they need the bindings main passes, which live in package main
// (../keymap.go) where ui cannot import them: internal/keysrc reads that
// file, and TestRealKeysAreComplete fails when a field is left unset (the
// root's TestKeyMapsAreComplete checks main's maps the same way).

var keysOnce struct {
	sync.Once
	live    KeyMap
	console ConsoleKeyMap
	err     error
}

func loadKeys() {
	k := &keysOnce
	k.err = keysrc.Load("../keymap.go", map[string]any{"keyMap": &k.live, "consoleKeyMap": &k.console})
}

// realKeys is the live view's key map of ../keymap.go.
func realKeys(t testing.TB) KeyMap {
	t.Helper()
	keysOnce.Do(loadKeys)
	if keysOnce.err != nil {
		t.Fatal(keysOnce.err)
	}
	return keysOnce.live
}

// realConsoleKeys is the console's key map of ../keymap.go.
func realConsoleKeys(t testing.TB) ConsoleKeyMap {
	t.Helper()
	keysOnce.Do(loadKeys)
	if keysOnce.err != nil {
		t.Fatal(keysOnce.err)
	}
	return keysOnce.console
}

func TestRealKeysAreComplete(t *testing.T) {
	t.Parallel()
	if u := keysrc.Unset(realKeys(t), "KeyMap"); len(u) > 0 {
		t.Errorf("../keymap.go leaves unset: %v", u)
	}
	if u := keysrc.Unset(realConsoleKeys(t), "ConsoleKeyMap"); len(u) > 0 {
		t.Errorf("../keymap.go leaves unset: %v", u)
	}
}
