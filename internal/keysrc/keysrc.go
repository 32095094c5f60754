// Package keysrc reads the key maps of aipwatch's keymap.go from its source,
// for the tests of packages that cannot import package main (ui, cli): they
// press the operator's real keys and golden the real help line without a
// second copy that could drift.
//
// keymap.go's keyMap and consoleKeyMap return composite literals whose
// values are calls of bind(help, desc, keys...) and hint(key, desc) with
// string literals; Load builds the same maps from them. Anything else in
// those literals is an error, so the file cannot grow a form this reader
// silently skips.
package keysrc

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"

	"charm.land/bubbles/v2/key"
)

// Load fills each dst[name] (a pointer to a key map struct) from the
// function of that name in the Go file at path.
func Load(path string, dst map[string]any) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
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
		p, ok := dst[fn.Name.Name]
		if !ok {
			continue
		}
		if err := evalInto(reflect.ValueOf(p).Elem(), ret.Results[0]); err != nil {
			return fmt.Errorf("%s: %w", fn.Name.Name, err)
		}
		found++
	}
	if found != len(dst) {
		return fmt.Errorf("%s: found %d of the %d key maps", path, found, len(dst))
	}
	return nil
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
		return evalCall(dst, e)
	}
	return fmt.Errorf("unsupported expression %T", e)
}

func evalCall(dst reflect.Value, e *ast.CallExpr) error {
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

// Unset names the fields of v (a key map) without keys or help text.
func Unset(v any, path string) []string {
	return unset(reflect.ValueOf(v), path)
}

func unset(v reflect.Value, path string) []string {
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
			out = append(out, unset(v.Field(i), path+"."+v.Type().Field(i).Name)...)
		}
	}
	return out
}
