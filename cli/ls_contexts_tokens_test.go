package cli

import (
	"fmt"
	"testing"
)

// ls --all-contexts reads each daemon with its own context's token only
// (design §9): the token variables and $AIP_URL, which name one daemon,
// take no part, so no daemon sees another's token or the environment's.
func TestListAllContextsTokensStayWithTheirDaemon(t *testing.T) {
	a, b, e := newAuthLog(t, nil), newAuthLog(t, nil), newAuthLog(t, nil)
	const tokenEnv, tokenEnvFile = "tokE-3d81c0a9f6b2e7514a0c", "tokF-6a0e2b9d4c7f1358e2b4"
	f := newContextFixture(t, "")
	f.write(t, "a.token", tokenA+"\n")
	f.write(t, "b.token", tokenB+"\n")
	f.write(t, "aipwatch/config.toml", fmt.Sprintf("[contexts.a]\nurl = %q\ntoken_file = \"~/a.token\"\n[contexts.b]\nurl = %q\ntoken_file = \"~/b.token\"\n",
		a.srv.URL, b.srv.URL))
	f.env["AIP_TOKEN"] = tokenEnv
	f.env["AIP_TOKEN_FILE"] = f.write(t, "env.token", tokenEnvFile+"\n")
	f.env["AIP_URL"] = e.srv.URL
	for _, args := range [][]string{{"ls", "--all-contexts"}, {"ls", "--all-contexts", "--all"}} {
		if code, out, errOut := f.run(args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
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
