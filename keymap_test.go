package main

import (
	"reflect"
	"testing"

	"charm.land/bubbles/v2/key"
)

// unsetKeys names the fields of v (a key map) without keys or help text.
func unsetKeys(v reflect.Value, path string) []string {
	switch b := v.Interface().(type) {
	case key.Binding:
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			return []string{path}
		}
		return nil
	case key.Help:
		if b.Key == "" || b.Desc == "" {
			return []string{path}
		}
		return nil
	}
	var out []string
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			out = append(out, unsetKeys(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	}
	return out
}

// Every binding has keys and help, and every help text is set (the ui
// tests read this file and check the same of what they read:
// ui/realkeys_test.go).
func TestKeyMapsAreComplete(t *testing.T) {
	if u := unsetKeys(reflect.ValueOf(keyMap()), "keyMap()"); len(u) > 0 {
		t.Errorf("unset: %v", u)
	}
	if u := unsetKeys(reflect.ValueOf(consoleKeyMap()), "consoleKeyMap()"); len(u) > 0 {
		t.Errorf("unset: %v", u)
	}
}
