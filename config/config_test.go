package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

const good = `current = "prod"
[contexts.prod]
url = "https://aipd.prod.internal:8443"
token_file = "~/.config/aip/prod.token"
cacert = "$CERTS/prod-ca.pem"
[contexts.staging]
url = "http://127.0.0.1:8080"
token_file = "staging.token"
allow_insecure_http = true
`

func TestLoadExpandsAndPicks(t *testing.T) {
	p := write(t, good, 0o600)
	f, err := Load(p, env("HOME", "/home/op", "CERTS", "/etc/aip"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Names(), ","); got != "prod,staging" {
		t.Fatalf("names %q", got)
	}
	c, ok, err := f.Pick("")
	if err != nil || !ok || c.Name != "prod" {
		t.Fatalf("current: %+v %v %v", c, ok, err)
	}
	if c.TokenFile != "/home/op/.config/aip/prod.token" || c.CACert != "/etc/aip/prod-ca.pem" {
		t.Fatalf("paths not expanded: %+v", c)
	}
	s, _, _ := f.Pick("staging")
	if s.TokenFile != filepath.Join(filepath.Dir(p), "staging.token") || !s.AllowInsecureHTTP {
		t.Fatalf("a relative path is relative to the file: %+v", s)
	}
	if _, _, err := f.Pick("nope"); err == nil || !strings.Contains(err.Error(), "prod, staging") {
		t.Fatalf("an unknown name lists the known ones: %v", err)
	}
}

func TestNoFileIsNoConfig(t *testing.T) {
	f, err := Load(filepath.Join(t.TempDir(), "none.toml"), env())
	if f != nil || err != nil {
		t.Fatalf("%v %v", f, err)
	}
	f, err = Load(write(t, "", 0o600), env())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := f.Pick(""); ok || err != nil {
		t.Fatalf("an empty file picks nothing: %v %v", ok, err)
	}
}

func TestPath(t *testing.T) {
	if got := Path(env("XDG_CONFIG_HOME", "/x", "HOME", "/h")); got != "/x/aipwatch/config.toml" {
		t.Fatal(got)
	}
	if got := Path(env("XDG_CONFIG_HOME", "relative", "HOME", "/h")); got != "/h/.config/aipwatch/config.toml" {
		t.Fatal(got) // the XDG spec: a relative value is ignored
	}
	if got := Path(env()); got != "" {
		t.Fatal(got)
	}
}

// Each mistake is an error that names where it is: the context and key,
// or the line.
func TestBadConfigs(t *testing.T) {
	cases := []struct {
		name, body string
		mode       os.FileMode
		env        []string
		want       []string
	}{
		{"world-writable", good, 0o606, nil, []string{"written by group or others", "0606"}},
		{"group-writable", good, 0o620, nil, []string{"written by group or others"}},
		{"unknown key", "[contexts.a]\nurl = \"http://127.0.0.1:1\"\ntoken_flie = \"x\"\n", 0o600, nil, []string{":3: unknown key contexts.a.token_flie"}},
		{"duplicate name", "[contexts.a]\nurl = \"http://127.0.0.1:1\"\n[contexts.a]\nurl = \"http://127.0.0.1:2\"\n", 0o600, nil, []string{":3:"}},
		{"no url", "[contexts.a]\ntoken_file = \"/t\"\n", 0o600, nil, []string{"contexts.a.url is missing"}},
		{"url names a context", "[contexts.a]\nurl = \"b\"\n[contexts.b]\nurl = \"http://127.0.0.1:1\"\n", 0o600, nil, []string{"contexts.a.url", "names a context"}},
		{"url without scheme", "[contexts.a]\nurl = \"aipd:8080\"\n", 0o600, nil, []string{"contexts.a.url", "no scheme"}},
		{"unset variable", "[contexts.a]\nurl = \"http://127.0.0.1:1\"\ntoken_file = \"$NOPE/t\"\n", 0o600, nil, []string{"contexts.a.token_file", "$NOPE not set"}},
		{"tilde user", "[contexts.a]\nurl = \"http://127.0.0.1:1\"\ncacert = \"~bob/ca.pem\"\n", 0o600, []string{"HOME", "/h"}, []string{"contexts.a.cacert", "~user"}},
		{"current names nothing", "current = \"z\"\n[contexts.a]\nurl = \"http://127.0.0.1:1\"\n", 0o600, nil, []string{`current = "z"`, "contexts: a"}},
		{"not toml", "current = \n", 0o600, nil, []string{":1:"}},
		{"name with a control", "[contexts.\"a\\u001b]0;x\"]\nurl = \"http://127.0.0.1:1\"\n", 0o600, nil, []string{"use letters, digits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.body, c.mode)
			_, err := Load(p, env(c.env...))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestHugeConfigIsRefusedUnread(t *testing.T) {
	p := write(t, "# "+strings.Repeat("x", 10<<20)+"\n", 0o600)
	_, err := Load(p, env())
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("a 10 MB config: %v", err)
	}
}

func TestNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, env()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory: %v", err)
	}
}

func TestFIFOIsRefusedNotWaitedOn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(p, env()); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load waited on a FIFO")
	}
}

// A config in a directory group or others may write is refused, as ssh
// refuses one: whoever can write the directory can replace the file. A
// symlinked config's target directory is held to the same rule. The error
// names the directory and the fix.
func TestLooseDirectoryIsRefused(t *testing.T) {
	p := write(t, good, 0o600)
	dir := filepath.Dir(p)
	if _, err := Load(p, env("CERTS", "/c", "HOME", "/h")); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o777, 0o770, os.ModeSticky | 0o777} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, env("CERTS", "/c", "HOME", "/h"))
		if err == nil || !strings.Contains(err.Error(), "chmod go-w "+dir) {
			t.Fatalf("a config in a directory of mode %v: %v", mode, err)
		}
	}
	// A private link to a config in a loose directory.
	link := filepath.Join(t.TempDir(), "config.toml")
	if err := os.Symlink(p, link); err != nil {
		t.Skip(err)
	}
	_, err := Load(link, env("CERTS", "/c", "HOME", "/h"))
	if err == nil || !strings.Contains(err.Error(), "is in "+dir) {
		t.Fatalf("a link to a config in a loose directory: %v", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(link, env("CERTS", "/c", "HOME", "/h")); err != nil {
		t.Fatal(err)
	}
}
