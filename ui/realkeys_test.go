package ui

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"charm.land/bubbles/v2/key"
)

// The ui tests press the operator's real keys and golden the real help
// line, so they need the bindings main passes, which live in package main
// (../keymap.go) where ui cannot import them. Rather than a second copy
// that could drift, the tests read that file: keyMap and consoleKeyMap
// return composite literals whose values are calls of bind(help, desc,
// keys...) and hint(key, desc) with string literals, and realKeys builds
// the same maps from them. Anything else in those literals fails the
// tests, so the file cannot grow a form this reader silently skips, and
// TestRealKeysAreComplete fails when a field is left unset (the root's
// TestKeyMapsAreComplete checks main's maps the same way).

var keysOnce struct {
	sync.Once
	live    KeyMap
	console ConsoleKeyMap
	err     error
}

func loadKeys() {
	k := &keysOnce
	k.err = func() error {
		f, err := parser.ParseFile(token.NewFileSet(), "../keymap.go", nil, 0)
		if err != nil {
			return err
		}
		found := 0
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || len(fn.Body.List) != 1 {
				continue
			}
			ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				continue
			}
			var dst reflect.Value
			switch fn.Name.Name {
			case "keyMap":
				dst = reflect.ValueOf(&k.live).Elem()
			case "consoleKeyMap":
				dst = reflect.ValueOf(&k.console).Elem()
			default:
				continue
			}
			if err := evalInto(dst, ret.Results[0]); err != nil {
				return fmt.Errorf("%s: %w", fn.Name.Name, err)
			}
			found++
		}
		if found != 2 {
			return fmt.Errorf("../keymap.go: found %d of keyMap and consoleKeyMap", found)
		}
		return nil
	}()
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

func evalInto(dst reflect.Value, e ast.Expr) error {
	switch e := e.(type) {
	case *ast.CompositeLit:
		if dst.Kind() != reflect.Struct {
			return fmt.Errorf("composite literal for a %s", dst.Type())
		}
		for _, el := range e.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return fmt.Errorf("a value without its field name")
			}
			name, ok := kv.Key.(*ast.Ident)
			if !ok {
				return fmt.Errorf("field name %T", kv.Key)
			}
			f := dst.FieldByName(name.Name)
			if !f.IsValid() || !f.CanSet() {
				return fmt.Errorf("%s has no field %s", dst.Type(), name.Name)
			}
			if err := evalInto(f, kv.Value); err != nil {
				return fmt.Errorf("%s: %w", name.Name, err)
			}
		}
		return nil
	case *ast.CallExpr:
		fn, ok := e.Fun.(*ast.Ident)
		if !ok {
			return fmt.Errorf("a call of %T", e.Fun)
		}
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return fmt.Errorf("%s: argument %d is not a string literal", fn.Name, i+1)
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return err
			}
			args[i] = s
		}
		switch {
		case fn.Name == "bind" && len(args) >= 3 && dst.Type() == reflect.TypeOf(key.Binding{}):
			dst.Set(reflect.ValueOf(key.NewBinding(key.WithKeys(args[2:]...), key.WithHelp(args[0], args[1]))))
		case fn.Name == "hint" && len(args) == 2 && dst.Type() == reflect.TypeOf(key.Help{}):
			dst.Set(reflect.ValueOf(key.Help{Key: args[0], Desc: args[1]}))
		default:
			return fmt.Errorf("%s with %d arguments for a %s", fn.Name, len(args), dst.Type())
		}
		return nil
	}
	return fmt.Errorf("unsupported expression %T", e)
}

// unset names the fields of v (a key map) without keys or help text.
func unset(v reflect.Value, path string) []string {
	var out []string
	switch b := v.Interface().(type) {
	case key.Binding:
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			out = append(out, path)
		}
		return out
	case key.Help:
		if b.Key == "" || b.Desc == "" {
			out = append(out, path)
		}
		return out
	}
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			out = append(out, unset(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	}
	return out
}

func TestRealKeysAreComplete(t *testing.T) {
	if u := unset(reflect.ValueOf(realKeys(t)), "KeyMap"); len(u) > 0 {
		t.Errorf("../keymap.go leaves unset: %v", u)
	}
	if u := unset(reflect.ValueOf(realConsoleKeys(t)), "ConsoleKeyMap"); len(u) > 0 {
		t.Errorf("../keymap.go leaves unset: %v", u)
	}
}
