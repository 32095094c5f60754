package cli

import (
	"sync"
	"testing"

	"aipwatch/config"
	"aipwatch/safe"
)

// countFiles counts, until the test ends, the invocation files made
// (newInvocationFiles) and how often each token is given to safe.Protect
// through them (once it is read).
func countFiles(t *testing.T) (made func() int, protected func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	n, byToken := 0, map[string]int{}
	orig := newInvocationFiles
	newInvocationFiles = func(getenv func(string) string) *config.Files {
		mu.Lock()
		n++
		mu.Unlock()
		return config.NewFiles(getenv, func(tok string) {
			mu.Lock()
			byToken[tok]++
			mu.Unlock()
			safe.Protect(tok)
		})
	}
	t.Cleanup(func() { newInvocationFiles = orig })
	return func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}, func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]int{}
			for k, v := range byToken {
				out[k] = v
			}
			return out
		}
}

// One invocation decides its daemons from one config.Files, whatever
// number of contexts it decides a daemon for (design §9): `ls
// --all-contexts` and `aipwatch contexts` across three contexts, each with
// its own token file, each token read (and protected) once. That a Files
// reads each file once is config's test (TestFilesReadEachFileOnce).
func TestOneInvocationReadsEachFileOnce(t *testing.T) {
	f := newContextFixture(t, `current = "a"
[contexts.a]
url = "http://127.0.0.1:9"
token_file = "a.token"
[contexts.b]
url = "http://127.0.0.1:9"
token_file = "b.token"
[contexts.c]
url = "http://127.0.0.1:9"
token_file = "c.token"
`)
	tokens := map[string]bool{}
	for _, n := range []string{"a", "b", "c"} {
		tok := "token-of-context-" + n + "-0123456789"
		f.write(t, "aipwatch/"+n+".token", tok+"\n")
		tokens[tok] = true
	}
	for _, args := range [][]string{{"ls", "--all-contexts"}, {"contexts"}} {
		t.Run(args[0], func(t *testing.T) {
			made, protected := countFiles(t)
			f.run(args...)
			if n := made(); n != 1 {
				t.Errorf("%v made %d invocation files, want one", args, n)
			}
			got := protected()
			for tok := range tokens {
				if got[tok] != 1 {
					t.Errorf("%v read the token file of %s %d times, want once", args, tok, got[tok])
				}
			}
			if len(got) != len(tokens) {
				t.Errorf("%v protected %v, want each context's token once", args, got)
			}
		})
	}
}
