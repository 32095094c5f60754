package cli

import (
	"fmt"
	"testing"
)

// ls --all-contexts reads each daemon with its own context's token only
// (design §9): the token variables and $AIP_URL, which name one daemon,
// take no part, so no daemon sees another's token or the environment's.
func TestListAllContextsTokensStayWithTheirDaemon(t *testing.T) {
	t.Parallel()
	a, b, e := newAuthLog(t, nil), newAuthLog(t, nil), newAuthLog(t, nil)
	f := newContextFixture(t, "")
	f.write(t, "a.token", tokenA+"\n")
	f.write(t, "b.token", tokenB+"\n")
	f.write(t, "aipwatch/config.toml", fmt.Sprintf("[contexts.a]\nurl = %q\ntoken_file = \"~/a.token\"\n[contexts.b]\nurl = %q\ntoken_file = \"~/b.token\"\n",
		a.srv.URL, b.srv.URL))
	envs := []map[string]string{ // each with $AIP_URL naming another daemon
		{"AIP_TOKEN": "tokE-3d81c0a9f6b2e7514a0c"},
		{"AIP_TOKEN_FILE": f.write(t, "env.token", "tokF-6a0e2b9d4c7f1358e2b4\n")},
		{"GETAIP_NATIVE_BEARER_TOKEN_FILE": f.write(t, "native.token", "tokG-2c5e8a1f0b7d4936c3a5\n")},
	}
	for _, env := range envs {
		env["AIP_URL"] = e.srv.URL
		for k, v := range env {
			f.env[k] = v
		}
		for _, args := range [][]string{{"ls", "--all-contexts"}, {"ls", "--all-contexts", "--all"}} {
			if code, out, errOut := f.run(args...); code != 0 {
				t.Fatalf("%v %v: exit %d\n%s%s", env, args, code, out, errOut)
			}
		}
		for k := range env {
			delete(f.env, k)
		}
	}
	for name, c := range map[string]struct {
		log  *authLog
		want string
	}{"a": {a, "Bearer " + tokenA}, "b": {b, "Bearer " + tokenB}} {
		seen := c.log.auths()
		if len(seen) == 0 {
			t.Errorf("%s was not read", name)
		}
		for _, got := range seen {
			if got != c.want {
				t.Errorf("%s saw %q, want its own token only", name, got)
			}
		}
	}
	if n := len(e.auths()); n != 0 {
		t.Errorf("$AIP_URL's daemon was asked %d times", n)
	}
}
