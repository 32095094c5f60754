package safe

import (
	"slices"
	"testing"
)

func TestURLSecrets(t *testing.T) {
	clean, secrets := URLSecrets("https://u:pw-secret@aipd.example:8443/base?region=eu&Access-Token=t1&api_key=k1&page=2")
	if clean != "https://aipd.example:8443/base?page=2&region=eu" {
		t.Fatalf("clean %q", clean)
	}
	slices.Sort(secrets)
	if !slices.Equal(secrets, []string{"k1", "pw-secret", "t1"}) {
		t.Fatalf("secrets %q", secrets)
	}
	for _, name := range []string{"token", "TOKEN", "access_token", "x-api-key", "key", "auth", "sig", "client_secret", "password"} {
		if !SecretParam(name) {
			t.Errorf("%s is not a secret", name)
		}
	}
	for _, name := range []string{"region", "page", "limit", "tokens_used"} {
		if SecretParam(name) {
			t.Errorf("%s is a secret", name)
		}
	}
}

// A URL that carries a credential shows no value that could be it,
// whatever the source of the token (none is Protected here): no query
// value, no fragment, no credential's value elsewhere; one without any is
// shown as it is.
func TestShownURL(t *testing.T) {
	const tok = "tokS-5f0e9d8c7b6a"
	for raw, want := range map[string]string{
		"http://u:" + tok + "@127.0.0.1:9/?k=" + tok:               "http://127.0.0.1:9/?k=…",
		"http://" + tok + "@127.0.0.1:9/?k=" + tok + "&b=2#f":      "http://127.0.0.1:9/?b=…&k=…",
		"https://ops:" + tok + "@h.example/p/" + tok + "?x":        "https://h.example/p/…?x=…",
		"https://h.example/?access_token=" + tok + "&k=" + tok:     "https://h.example/?k=…",
		"https://h.example/?" + tok + "=1&access_token=" + tok:     "https://h.example/?…",
		"https://h.example:8443/aip?page=2":                        "https://h.example:8443/aip?page=2",
		"http://127.0.0.1:8080":                                    "http://127.0.0.1:8080",
		"http://u:p@127.0.0.1:8080/?k=\x1b]0;" + tok:               "", // unparsable
		"http://u:" + tok + "@127.0.0.1:9/?k%1b=1":                 "http://127.0.0.1:9/?…",
		"http://u:" + tok + "@127.0.0.1:9/?" + tok[:6] + "x=1":     "http://127.0.0.1:9/?tokS-5x=…",
		"http://u:" + tok + "@127.0.0.1:9/?" + tok + "_name=1":     "http://127.0.0.1:9/?…",
		"http://u:" + tok + "@127.0.0.1:9/#" + tok:                 "http://127.0.0.1:9/",
		"http://u:" + tok + "@127.0.0.1:9/?k=" + tok + "&k=" + tok: "http://127.0.0.1:9/?k=…&k=…",
	} {
		if got := ShownURL(raw); got != want {
			t.Errorf("ShownURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
