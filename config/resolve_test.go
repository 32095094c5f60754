package config

import (
	"errors"
	"strings"
	"testing"
)

// rules compares URLs as written and takes every notify_on but "bad".
func rules(given string) Rules {
	return Rules{
		SameDaemon: func(u string) bool { return u == given },
		CheckNotifyOn: func(s string) error {
			if s == "bad" {
				return errors.New("not a verdict")
			}
			return nil
		},
	}
}

func resolveFile() *File {
	return &File{Path: "/c/config.toml", Current: "prod", Contexts: map[string]Context{
		"prod":    {Name: "prod", URL: "https://prod:8443", TokenFile: "/t/prod", CACert: "/t/ca.pem"},
		"staging": {Name: "staging", URL: "http://127.0.0.1:8080", AllowInsecureHTTP: true, NotifyOn: "failed"},
		"broken":  {Name: "broken", URL: "https://b", NotifyOn: "bad"},
	}}
}

// design §9: the context fills what the flags and the environment left
// empty, field by field, and says which fields it gave.
func TestResolveFillsFieldByField(t *testing.T) {
	d, u := Resolve(Daemon{}, "", resolveFile(), nil, rules(""), noEnv)
	if d != (Daemon{URL: "https://prod:8443", TokenFile: "/t/prod", CACert: "/t/ca.pem"}) ||
		u != (Use{Name: "prod", URL: true, TokenFile: true, CACert: true}) {
		t.Fatalf("the current context: %+v %+v", d, u)
	}
	d, u = Resolve(Daemon{TokenFile: "/mine", CACert: "/my.pem"}, "", resolveFile(), nil, rules(""), env("AIP_TOKEN_FILE", "/mine"))
	if d.URL != "https://prod:8443" || d.TokenFile != "/mine" || d.CACert != "/my.pem" || u.TokenFile || u.CACert || u.EnvToken != "$AIP_TOKEN_FILE" {
		t.Fatalf("a token file from the environment: %+v %+v", d, u)
	}
	for _, c := range []struct {
		given Daemon
		env   func(string) string
		want  string
	}{
		{Daemon{Token: true}, noEnv, "$AIP_TOKEN"},
		{Daemon{TokenFile: "/mine"}, noEnv, "--token-file"},
		{Daemon{TokenFile: "/g"}, env("GETAIP_NATIVE_BEARER_TOKEN_FILE", "/g"), "$GETAIP_NATIVE_BEARER_TOKEN_FILE"},
	} {
		if _, u := Resolve(c.given, "", resolveFile(), nil, rules(""), c.env); u.EnvToken != c.want {
			t.Errorf("%+v: the token named %q, want %q", c.given, u.EnvToken, c.want)
		}
	}
	d, u = Resolve(Daemon{}, "", resolveFile(), nil, rules(""), env("AIPWATCH_CONTEXT", "staging"))
	if !u.Explicit || u.Name != "staging" || !d.AllowInsecureHTTP || d.TokenFile != "" || u.TokenFile || u.NotifyOn != "failed" {
		t.Fatalf("$AIPWATCH_CONTEXT: %+v %+v", d, u)
	}
}

// A URL named by a flag or a variable that is another daemon's takes none
// of the context's credentials; the context's own URL takes them.
func TestResolveSkipsAContextOfAnotherDaemon(t *testing.T) {
	given := Daemon{URL: "https://PROD:8443/"}
	d, u := Resolve(given, "prod", resolveFile(), nil, rules("https://prod:8443"), noEnv)
	if d.URL != given.URL || d.TokenFile != "/t/prod" || u.Skipped != "" || u.Name != "prod" || !u.TokenFile || u.URL {
		// rules says the context's URL is this daemon: its token goes there.
		t.Fatalf("the same daemon: %+v %+v", d, u)
	}
	d, u = Resolve(given, "prod", resolveFile(), nil, rules("https://other"), noEnv)
	if d != given || u.Skipped != "prod" || u.Name != "" || !u.Explicit {
		t.Fatalf("another daemon: %+v %+v", d, u)
	}
}

// What stops a command is kept in Use.Err: the file's error, a context
// named with no file (naming the path), an unknown name, a notify_on the
// rules refuse (naming the file and key).
func TestResolveKeepsTheConfigsErrors(t *testing.T) {
	loadErr := errors.New("config.toml:3: unknown key")
	if _, u := Resolve(Daemon{}, "", nil, loadErr, rules(""), noEnv); u.Err != loadErr {
		t.Errorf("a broken file: %v", u.Err)
	}
	if _, u := Resolve(Daemon{}, "", nil, nil, rules(""), noEnv); u != (Use{}) {
		t.Errorf("no file, no context named: %+v", u)
	}
	_, u := Resolve(Daemon{}, "prod", nil, nil, rules(""), env("HOME", "/home/op"))
	if u.Err == nil || u.Err.Error() != `context "prod": there is no config file (/home/op/.config/aipwatch/config.toml); see aipwatch contexts --help` {
		t.Errorf("a context with no file: %v", u.Err)
	}
	if _, u := Resolve(Daemon{}, "nope", resolveFile(), nil, rules(""), noEnv); !errors.Is(u.Err, ErrUnknownContext) {
		t.Errorf("an unknown context: %v", u.Err)
	}
	d, u := Resolve(Daemon{}, "broken", resolveFile(), nil, rules(""), noEnv)
	if u.Err == nil || !strings.HasPrefix(u.Err.Error(), "/c/config.toml: contexts.broken.notify_on: not a verdict") || d.URL != "" {
		t.Errorf("a bad notify_on: %v %+v", u.Err, d)
	}
}

func TestPathShown(t *testing.T) {
	if got := PathShown(noEnv); got != "$XDG_CONFIG_HOME/aipwatch/config.toml" {
		t.Errorf("unknown: %q", got)
	}
	if got := PathShown(env("XDG_CONFIG_HOME", "/x")); got != "/x/aipwatch/config.toml" {
		t.Errorf("known: %q", got)
	}
}
