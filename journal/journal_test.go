package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	p, err := Path(env(map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}))
	if err != nil || p != "/x/state/aipwatch/submissions.jsonl" {
		t.Fatalf("%q %v", p, err)
	}
	p, err = Path(env(map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}))
	if err != nil || p != "/home/u/.local/state/aipwatch/submissions.jsonl" {
		t.Fatalf("%q %v", p, err)
	}
	if _, err := Path(env(nil)); err == nil {
		t.Fatal("no error without HOME")
	}
}

func TestAppendModeAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "aipwatch", FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Entry{Kind: KindSubmit, ActionID: "act_1", IdempotencyKey: "k", SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Entry{Kind: KindVerdict, ActionID: "act_1", Verdict: "verified"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if err := j.Append(Entry{Kind: KindCursor}); err == nil {
		t.Fatal("append after close")
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes %v %v", fi.Mode(), di.Mode())
	}
	es, err := Read(path)
	if err != nil || len(es) != 2 || es[0].IdempotencyKey != "k" || es[1].Verdict != "verified" || es[0].Time.IsZero() {
		t.Fatalf("%+v %v", es, err)
	}
	// A second Open appends; a pre-existing loose mode is tightened.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Entry{Kind: KindCursor, ActionID: "act_1", Cursor: "aev_cursor_1_0"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	fi, _ = os.Stat(path)
	es, _ = Read(path)
	if fi.Mode().Perm() != 0o600 || len(es) != 3 {
		t.Fatalf("%v %d", fi.Mode(), len(es))
	}
	raw, _ := os.ReadFile(path)
	if strings.Count(string(raw), "\n") != 3 {
		t.Fatalf("not one line an entry:\n%s", raw)
	}
}

// The journal is never written through a symbolic link (another user's
// link in a shared state directory could redirect it).
func TestOpenRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, FileName)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Open(link); err == nil {
		t.Fatal("opened through a symlink")
	}
}
