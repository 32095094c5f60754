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

// ActionIDs are the action IDs of entries, submissions and reconcile
// reads, made against the daemon at baseURL. An entry made against
// another daemon (another host or port, a demo's simulator long gone)
// names an action this one does not have: its row would be empty.
func ActionIDs(entries []Entry, baseURL string) []string {
	daemon := SameDaemon(baseURL)
	seen := map[string]bool{}
	var ids []string
	for _, e := range entries {
		if (e.Kind == KindSubmit || e.Kind == KindReconcile) && !seen[e.ActionID] && daemon(e.BaseURL) {
			seen[e.ActionID] = true
			ids = append(ids, e.ActionID)
		}
	}
	return ids
}
