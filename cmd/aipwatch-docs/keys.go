package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"

	"aipwatch/internal/keysrc"
	"aipwatch/ui"
)

// keysPage is docs/keys.md: every binding of keymap.go with the help text
// aipwatch shows for it and the keys it matches, read from the source as
// the ui and cli tests read it (internal/keysrc), so the page is the keys
// the program has.
func keysPage(keymapPath string) ([]byte, error) {
	var live ui.KeyMap
	var console ui.ConsoleKeyMap
	if err := keysrc.Load(keymapPath, map[string]any{"keyMap": &live, "consoleKeyMap": &console}); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# Keys\n\n")
	fmt.Fprintf(&b, generatedNote, "keymap.go")
	b.WriteString("Every key binding of aipwatch and its help text, as `?` shows them. What the keys do in\n" +
		"detail (the cancel's confirmation, follow and pause, search, the panels) is in\n" +
		"[live.md](live.md) for the live view and [console.md](console.md) for the console.\n")
	b.WriteString("\n## The live view (`aipwatch ACTION_ID`, and an action opened from the console)\n\n")
	bindings(&b, reflect.ValueOf(live))
	b.WriteString("\n### Help that changes with the context\n\n" +
		"A key whose meaning depends on the state of the view gets one of these\n" +
		"help texts instead of its own (q before and after the action settled, m and p\n" +
		"as the view is, the reconcile confirmation's keys).\n\n")
	hints(&b, reflect.ValueOf(live.In))
	b.WriteString("\n### The one-line help, in its order\n\n")
	hints(&b, reflect.ValueOf(live.Short))
	b.WriteString("\n## The console (`aipwatch` on a terminal, no ACTION_ID)\n\n" +
		"In an action opened from the list, the live view's keys apply.\n\n")
	bindings(&b, reflect.ValueOf(console))
	b.WriteString("\nSelecting a row:\n\n")
	hints(&b, reflect.ValueOf(console.Select))
	b.WriteString("\n### The console's one-line help, in its order\n\n" +
		"On a narrow terminal the least important are left out first (`?` and `q` stay);\n" +
		"`x` only in a console across contexts.\n\n")
	hints(&b, reflect.ValueOf(console.Short))
	return b.Bytes(), nil
}

// bindings is a table of v's key.Binding fields, in their declared order.
func bindings(b *bytes.Buffer, v reflect.Value) {
	b.WriteString("| key | what it does | keys it matches | binding |\n|---|---|---|---|\n")
	eachField(v, func(name string, f any) {
		if k, ok := f.(key.Binding); ok {
			fmt.Fprintf(b, "| %s | %s | %s | `%s` |\n", code(k.Help().Key), cell(k.Help().Desc), codes(k.Keys()), name)
		}
	})
}

// hints is a table of v's key.Help fields (help texts with no keys of
// their own), in their declared order.
func hints(b *bytes.Buffer, v reflect.Value) {
	if h, ok := v.Interface().(key.Help); ok {
		fmt.Fprintf(b, "| key | what it says |\n|---|---|\n| %s | %s |\n", code(h.Key), cell(h.Desc))
		return
	}
	b.WriteString("| key | what it says | help text |\n|---|---|---|\n")
	eachField(v, func(name string, f any) {
		if h, ok := f.(key.Help); ok {
			fmt.Fprintf(b, "| %s | %s | `%s` |\n", code(h.Key), cell(h.Desc), name)
		}
	})
}

func eachField(v reflect.Value, fn func(name string, f any)) {
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			fn(v.Type().Field(i).Name, v.Field(i).Interface())
		}
	}
}

func codes(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = code(k)
	}
	return strings.Join(out, " ")
}

// code is a key in a code span; a | would end the table cell.
func code(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
