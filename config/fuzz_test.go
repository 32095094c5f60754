package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// contextName is what a context's name may be (design §9).
var contextName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// FuzzLoad reads any text as a config file: an error names the file;
// a file read holds only contexts aipwatch can use as they are (a name
// that prints as itself, a URL with a scheme, absolute clean paths) and a
// current context that exists.
func FuzzLoad(f *testing.F) {
	f.Add(good)
	f.Add("current = \"x\"\n[contexts.x]\nurl = \"http://127.0.0.1:8080\"\ntoken_file = \"$T/${U}/t\"\ncacert = \"~\"\n")
	f.Add("[contexts.\"a b\"]\nurl = \"https://h\"\n")
	f.Add("[contexts.a]\nurl = \"b\"\n[contexts.b]\nurl = \"https://h\"\ntoken_flie = \"x\"\n")
	f.Add("[contexts.a]\nurl = \"https://h\"\ncacert = \"~root/ca\"\n")
	f.Add("current = 1\n")
	f.Fuzz(func(t *testing.T, body string) {
		dir := t.TempDir()
		p := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cf, err := Load(p, env("HOME", "/home/op", "CERTS", "/certs", "T", "/t", "U", "u"))
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("an error that does not name the file: %v", err)
			}
			return
		}
		if cf == nil || cf.Path != p {
			t.Fatalf("a file read as %+v", cf)
		}
		if _, ok := cf.Contexts[cf.Current]; cf.Current != "" && !ok {
			t.Fatalf("current %q names no context", cf.Current)
		}
		for _, name := range cf.Names() {
			c, ok, err := cf.Pick(name)
			if err != nil || !ok || c.Name != name || !contextName.MatchString(name) {
				t.Fatalf("context %q: %+v %v %v", name, c, ok, err)
			}
			if c.URL == "" || c.URL != strings.TrimSpace(c.URL) || !strings.Contains(c.URL, "://") {
				t.Fatalf("context %q: url %q", name, c.URL)
			}
			for _, path := range []string{c.TokenFile, c.CACert} {
				if path != "" && (!filepath.IsAbs(path) || filepath.Clean(path) != path) {
					t.Fatalf("context %q: path %q is not absolute and clean", name, path)
				}
			}
		}
	})
}

// FuzzSetCurrent: on any config file Load reads, SetCurrent either refuses
// and leaves the file as it was, or writes one that Load reads with the
// chosen context current and every context as it was (design §11: the
// rest of the file kept).
func FuzzSetCurrent(f *testing.F) {
	f.Add(good, uint8(1))
	f.Add("# no current yet\n[contexts.a]\nurl = \"https://a\"\n[contexts.b]\nurl = \"https://b\"\n", uint8(0))
	f.Add("current = 'a' # the usual one\r\n[contexts.a]\r\nurl = \"https://a\"\r\n[contexts.b]\r\nurl = \"https://b\"\r\n", uint8(1))
	f.Add("\"current\" = \"a\"\n[contexts.a]\nurl = \"https://a\"\n[contexts.b]\nurl = \"https://b\"\n", uint8(1))
	f.Add("contexts = { a = { url = \"\"\"https://a\ncurrent = \"x\"\n\"\"\" } }\n", uint8(0))
	f.Fuzz(func(t *testing.T, body string, pick uint8) {
		getenv := env("HOME", "/home/op", "CERTS", "/certs")
		p := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		before, err := Load(p, getenv)
		if err != nil || before == nil || len(before.Contexts) == 0 {
			return
		}
		names := before.Names()
		name := names[int(pick)%len(names)]
		if err := SetCurrent(p, name, getenv); err != nil {
			if b, _ := os.ReadFile(p); string(b) != body {
				t.Fatalf("SetCurrent refused (%v) but changed the file:\n%q\nto\n%q", err, body, b)
			}
			return
		}
		after, err := Load(p, getenv)
		if err != nil {
			b, _ := os.ReadFile(p)
			t.Fatalf("SetCurrent %q wrote a file Load refuses: %v\n%q\nfrom\n%q", name, err, b, body)
		}
		if after.Current != name || !reflect.DeepEqual(after.Contexts, before.Contexts) {
			b, _ := os.ReadFile(p)
			t.Fatalf("SetCurrent %q: current %q, contexts %+v, were %+v\n%q\nfrom\n%q", name, after.Current, after.Contexts, before.Contexts, b, body)
		}
	})
}
