package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aipwatch/safe"
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

// Fields the daemon chose (an ack's status, an error code, a cursor) are
// written like a record: the token never lands on disk, C1 and bidi
// controls are escaped as \u…, and the data reads back exact.
func TestAppendScrubsTheTokenAndEscapesControls(t *testing.T) {
	const token = "tok-journal-0123456789abcdef"
	safe.Protect(token)
	path := filepath.Join(t.TempDir(), "aipwatch", FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	hostile := "queued " + token + " \u0085\u202e\u009b31m"
	if err := j.Append(Entry{Kind: KindReply, ActionID: "act_1", Reply: "ack:" + hostile, Code: hostile, Cursor: hostile}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), token[:12]) || strings.ContainsAny(string(raw), "\u0085\u202e\u009b") {
		t.Fatalf("raw server text on disk:\n%q", raw)
	}
	if !strings.Contains(string(raw), `\u0085\u202e\u009b31m`) {
		t.Fatalf("controls not escaped as JSON:\n%q", raw)
	}
	es, err := Read(path)
	want := "queued " + safe.TokenMark + " \u0085\u202e\u009b31m"
	if err != nil || len(es) != 1 || es[0].Code != want || es[0].Cursor != want || es[0].Reply != "ack:"+want {
		t.Fatalf("%+v %v", es, err)
	}
}

// A crash can leave the last line torn: the next append starts on a fresh
// line (it was glued onto the torn one and lost with it), and the reader
// skips the torn line with a warning.
func TestAppendAfterATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aipwatch", FileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	torn := `{"time":"2026-01-01T00:00:00Z","kind":"submit","action_id":"act_old"}` + "\n" + `{"time":"2026-01-01T00:00:01Z","kind":"subm`
	if err := os.WriteFile(path, []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Entry{Kind: KindSubmit, ActionID: "act_new", IdempotencyKey: "k"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	l, err := ReadLog(path, MaxRead)
	if err != nil || len(l.Entries) != 2 || l.Entries[1].ActionID != "act_new" || l.Damaged != 1 {
		t.Fatalf("%+v %v", l, err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "1 damaged line") {
		t.Fatalf("warnings %q", l.Warnings)
	}
}

// A FIFO at the journal's path hung submit (even against SIGTERM), ls and
// the console; a hard link was appended to and chmod-ed; a symlink to
// /dev/zero was read until memory ran out. Each is refused at once.
func TestJournalRefusesFIFOHardLinkAndDevice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aipwatch")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 2)
	go func() {
		j, err := Open(path)
		if j != nil {
			j.Close()
		}
		done <- err
	}()
	go func() { _, err := Read(path); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("a FIFO was taken for the journal")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the journal's FIFO blocked")
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	other := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(other, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, path); err != nil {
		t.Skip(err)
	}
	if j, err := Open(path); err == nil {
		_ = j.Append(Entry{Kind: KindSubmit, ActionID: "act_1"})
		j.Close()
		t.Fatal("a hard link was opened as the journal")
	}
	fi, _ := os.Stat(other)
	if b, _ := os.ReadFile(other); string(b) != "keep\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the linked file changed: %q %v", b, fi.Mode())
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}

	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Skip(err)
	}
	if _, err := Read(path); err == nil {
		t.Fatal("read through a symlink to /dev/zero")
	}
}

// A journal longer than the bound is read from its end: the newest
// entries, the older ones counted and said.
func TestReadLogIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aipwatch", FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := j.Append(Entry{Kind: KindSubmit, ActionID: fmt.Sprintf("act_%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	fi, _ := os.Stat(path)
	l, err := ReadLog(path, fi.Size()/10)
	if err != nil || len(l.Entries) < 5 || len(l.Entries) > 10 || l.Entries[len(l.Entries)-1].ActionID != "act_099" || l.Damaged != 0 {
		t.Fatalf("%d entries, %d damaged: %v", len(l.Entries), l.Damaged, err)
	}
	if l.Skipped <= fi.Size()*8/10 || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "older ones skipped") {
		t.Fatalf("skipped %d of %d: %q", l.Skipped, fi.Size(), l.Warnings)
	}
}

// A symlinked or loosely permitted state directory is refused, for writing
// and for reading, as ssh refuses a loose ~/.ssh: the error names the
// directory and the fix.
func TestLooseDirectoryRefused(t *testing.T) {
	base := t.TempDir()
	realDir := filepath.Join(base, "realDir")
	if err := os.MkdirAll(realDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if j, err := Open(filepath.Join(realDir, FileName)); err != nil {
		t.Fatal(err)
	} else {
		j.Close()
	}
	link := filepath.Join(base, "aipwatch")
	if err := os.Symlink(realDir, link); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		dir  string
		mode os.FileMode
		want string
	}{
		{link, 0o700, "is a symbolic link (to " + realDir + ")"},
		{realDir, 0o777, "may be written by group or others (mode 0777)"},
		{realDir, os.ModeSticky | 0o777, "may be written by group or others"},
		{realDir, 0o770, "chmod 700 " + realDir},
	} {
		if err := os.Chmod(realDir, c.mode); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(c.dir, FileName)
		if j, err := Open(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.dir) {
			if j != nil {
				j.Close()
			}
			t.Fatalf("Open in %s (mode %04o): %v, want %q", c.dir, c.mode, err, c.want)
		}
		if _, err := ReadLog(path, MaxRead); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("ReadLog in %s (mode %04o): %v, want %q", c.dir, c.mode, err, c.want)
		}
	}
	// No journal yet under a loose directory: nothing to read, no error
	// beyond "not there".
	if _, err := ReadLog(filepath.Join(base, "none", FileName), MaxRead); !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
