package journal

import (
	"strings"

	"aipwatch/safe"
)

// SameDaemon reports whether an entry's base URL (credentials removed, as
// the journal writes it) names the daemon at baseURL: an action ID on
// another daemon (another host or port, a demo's simulator long gone) is
// another action.
func SameDaemon(baseURL string) func(string) bool {
	norm := func(u string) string { return strings.ToLower(strings.TrimRight(u, "/")) }
	clean, _ := safe.URLSecrets(baseURL)
	want := norm(clean)
	return func(entry string) bool { return entry != "" && want != "" && norm(entry) == want }
}
