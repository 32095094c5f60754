package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func noEnv(string) string { return "" }

func noProtect(string) {}

// A token file readable by its group alone, or by others alone, gets the
// warning; one of two lines is refused; the warning and the error never
// show the token.
func TestTokenFileModeAndLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o640, true}, {0o604, true}, {0o600, false}, {0o400, false}} {
		var w bytes.Buffer
		p := write("tok"+c.mode.String(), "tok-mode-secret\n", c.mode)
		tok, err := NewFiles(noEnv, noProtect).Token(p, &w)
		if err != nil || tok != "tok-mode-secret" {
			t.Fatalf("%v: %q %v", c.mode, tok, err)
		}
		if got := strings.Contains(w.String(), "readable by group or others"); got != c.warn {
			t.Errorf("mode %04o: warned %v, want %v (%q)", c.mode, got, c.warn, w.String())
		}
	}
	p := write("two", "first-line-secret\nsecond\n", 0o600)
	if _, err := NewFiles(noEnv, noProtect).Token(p, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "more than one line") || strings.Contains(err.Error(), "first-line-secret") {
		t.Fatalf("a token file of two lines: %v", err)
	}
}

// One Files reads the config file once and each token file once, however
// many connections ask for them, from several goroutines at once (the
// contexts' probes); each token goes to protect once, as soon as it is
// read, and one given (Protect) once too.
func TestFilesReadEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "aipwatch", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	body := "current = \"a\"\n"
	var paths []string
	for _, n := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, n+".token")
		if err := os.WriteFile(p, []byte("token-of-"+n+"-0123456789\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		body += "[contexts." + n + "]\nurl = \"http://127.0.0.1:9\"\ntoken_file = \"" + p + "\"\n"
	}
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	loads, reads, protected := 0, map[string]int{}, map[string]int{}
	load, read := loadFile, readToken
	loadFile = func(path string, getenv func(string) string) (*File, error) {
		mu.Lock()
		loads++
		mu.Unlock()
		return load(path, getenv)
	}
	readToken = func(path string, max int64, check func(os.FileInfo) error) ([]byte, error) {
		mu.Lock()
		reads[path]++
		mu.Unlock()
		return read(path, max, check)
	}
	defer func() { loadFile, readToken = load, read }()
	fs := NewFiles(env("XDG_CONFIG_HOME", dir), func(tok string) {
		mu.Lock()
		protected[tok]++
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := fs.Config()
			if err != nil || f == nil {
				t.Errorf("Config: %v %v", f, err)
				return
			}
			fs.ReadTokens(f)
			fs.Protect("token-from-the-environment-0123")
			for _, p := range paths {
				if _, err := fs.Token(p, &bytes.Buffer{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if loads != 1 {
		t.Errorf("the config file was loaded %d times, want once", loads)
	}
	for _, p := range paths {
		if reads[p] != 1 {
			t.Errorf("%s read %d times, want once", p, reads[p])
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		if tok := "token-of-" + n + "-0123456789"; protected[tok] != 1 {
			t.Errorf("%s protected %d times, want once", tok, protected[tok])
		}
	}
	if protected["token-from-the-environment-0123"] != 1 || len(protected) != 4 {
		t.Errorf("protected %v, want each token once", protected)
	}
}

// A token file over MaxTokenFile (64 KiB) is refused unread, one at the
// bound is read.
func TestTokenFileBound(t *testing.T) {
	dir := t.TempDir()
	for size, ok := range map[int]bool{64 << 10: true, 64<<10 + 1: false} {
		p := filepath.Join(dir, "tok")
		if err := os.WriteFile(p, bytes.Repeat([]byte("t"), size), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := NewFiles(noEnv, noProtect).Token(p, &bytes.Buffer{})
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), "at most 65536")) {
			t.Errorf("a token file of %d bytes: %v", size, err)
		}
	}
}
