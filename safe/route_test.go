package safe

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// printerPackages write what aipwatch prints, records, exports and journals: each
// may reach a writer only through this package's route.
var printerPackages = []string{"aipwatch/output", "aipwatch/record", "aipwatch/journal"}

// routeChecker type-checks packages from source against the export data
// of their dependencies (go list -export) and reports every way around the
// route (see check).
type routeChecker struct {
	fset    *token.FileSet
	exports map[string]string
	dirs    map[string]string
	files   map[string][]string
}

func newRouteChecker(t *testing.T) *routeChecker {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := goListPrinters()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rc := &routeChecker{fset: token.NewFileSet(), exports: map[string]string{}, dirs: map[string]string{}, files: map[string][]string{}}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 4 {
			rc.exports[f[0]], rc.dirs[f[0]], rc.files[f[0]] = f[1], f[2], strings.Split(f[3], ",")
		}
	}
	return rc
}

// goListPrinters is go list's answer for the printer packages and their
// dependencies, asked once for the tests that check the route (the go
// command is most of their time; the answer is only read).
var goListPrinters = sync.OnceValues(func() ([]byte, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \",\"}}"}, printerPackages...)
	return exec.Command("go", args...).Output()
})

func (rc *routeChecker) importer() types.Importer {
	return importer.ForCompiler(rc.fset, "gc", func(path string) (io.ReadCloser, error) {
		p, ok := rc.exports[path]
		if !ok || p == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p)
	})
}

// check type-checks files as package path and returns every violation:
//
//   - a fmt.Fprint*/Print* call or io.WriteString: printers write only
//     through a safe.Str (or into a safe.Writer);
//   - a Write, WriteString, WriteByte or WriteRune whose receiver is not a
//     *safe.Writer and whose argument is not a constant, the String() of a
//     safe.Str, or the result of a call into package safe;
//   - a conversion of a non-constant to safe.Lit: a format is ours.
func (rc *routeChecker) check(path string, files []*ast.File) ([]string, error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: rc.importer()}
	if _, err := conf.Check(path, rc.fset, files, info); err != nil {
		return nil, err
	}
	isSafe := func(t types.Type, name string) bool {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := t.(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "aipwatch/safe" && n.Obj().Name() == name
	}
	// safeArg: a constant, s.String() of a safe.Str, or a call into safe.
	safeArg := func(e ast.Expr) bool {
		if tv, ok := info.Types[e]; ok && tv.Value != nil {
			return true
		}
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if obj := info.Uses[sel.Sel]; obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "aipwatch/safe" {
			if _, isFunc := obj.(*types.Func); isFunc {
				if s, ok := info.Selections[sel]; ok {
					// A method of safe: only Str.String.
					return isSafe(s.Recv(), "Str") && sel.Sel.Name == "String"
				}
				return true // a function of package safe
			}
		}
		return false
	}
	var bad []string
	report := func(n ast.Node, format string, args ...any) {
		bad = append(bad, rc.fset.Position(n.Pos()).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if tv, ok := info.Types[call.Fun]; ok && tv.IsType() && isSafe(tv.Type, "Lit") {
				if len(call.Args) == 1 {
					if av := info.Types[call.Args[0]]; av.Value == nil {
						report(call, "safe.Lit of a value that is not a constant")
					}
				}
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if obj := info.Uses[sel.Sel]; obj != nil && obj.Pkg() != nil {
				switch p, name := obj.Pkg().Path(), sel.Sel.Name; {
				case p == "fmt" && (strings.HasPrefix(name, "Fprint") || strings.HasPrefix(name, "Print")):
					report(call, "fmt.%s writes around the route", name)
					return true
				case p == "io" && name == "WriteString":
					report(call, "io.WriteString writes around the route")
					return true
				}
			}
			switch sel.Sel.Name {
			case "Write", "WriteString", "WriteByte", "WriteRune":
			default:
				return true
			}
			s, ok := info.Selections[sel]
			if !ok || s.Kind() != types.MethodVal || isSafe(s.Recv(), "Writer") {
				return true
			}
			for _, a := range call.Args {
				if !safeArg(a) {
					report(call, "%s of %s: not a constant, a safe.Str or from package safe", sel.Sel.Name, types.ExprString(a))
				}
			}
			return true
		})
	}
	return bad, nil
}

// The route is structural (design §5): in output/, export/ and record/,
// nothing reaches a writer but a constant, a safe.Str, bytes from package
// safe, or bytes handed to a safe.Writer; no format is built from data.
func TestPrintersTakeTheSafeRoute(t *testing.T) {
	rc := newRouteChecker(t)
	for _, pkg := range printerPackages {
		var files []*ast.File
		for _, name := range rc.files[pkg] {
			f, err := parser.ParseFile(rc.fset, filepath.Join(rc.dirs[pkg], name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 {
			t.Fatalf("%s: no files found", pkg)
		}
		bad, err := rc.check(pkg, files)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, b := range bad {
			t.Errorf("%s", b)
		}
	}
}

// The check catches each way around the route (it could otherwise pass
// by seeing nothing).
func TestRouteCheckCatchesABypass(t *testing.T) {
	rc := newRouteChecker(t)
	src := `package bad

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"aipwatch/safe"
)

func print(w io.Writer, status string, sw *safe.Writer) {
	fmt.Fprintf(w, "tool: %s\n", status)
	bw := bufio.NewWriter(w)
	bw.WriteString("tool: " + status)
	var b bytes.Buffer
	b.Write([]byte(status))
	bw.WriteString(safe.Sprintf(safe.Lit(status)).String())
	io.WriteString(w, status)

	bw.WriteString("constant\n")
	bw.WriteString(safe.Sprintf("tool: %s\n", status).String())
	bw.Write(safe.JSON([]byte(status)))
	sw.Write([]byte(status))
}
`
	f, err := parser.ParseFile(rc.fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := rc.check("aipwatch/bad", []*ast.File{f})
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, b := range bad {
		all.WriteString(b + "\n")
	}
	for _, line := range []string{"bad.go:13:", "bad.go:15:", "bad.go:17:", "bad.go:18:", "bad.go:19:"} {
		if !strings.Contains(all.String(), line) {
			t.Errorf("the bypass at %s was not reported:\n%s", line, all.String())
		}
	}
	if len(bad) != 5 {
		t.Errorf("%d reports, want 5 (the safe lines are allowed):\n%s", len(bad), all.String())
	}
}
