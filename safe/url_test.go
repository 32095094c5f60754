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
