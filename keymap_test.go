package main

import (
	"testing"

	"aipwatch/internal/keysrc"
)

// Every binding has keys and help, and every help text is set (the ui and
// cli tests read this file through internal/keysrc and check the same of
// what they read).
func TestKeyMapsAreComplete(t *testing.T) {
	if u := keysrc.Unset(keyMap(), "keyMap()"); len(u) > 0 {
		t.Errorf("unset: %v", u)
	}
	if u := keysrc.Unset(consoleKeyMap(), "consoleKeyMap()"); len(u) > 0 {
		t.Errorf("unset: %v", u)
	}
}
