package cli

import (
	"os"
	"sync"
	"testing"

	"aipwatch/config"
)

// countReads counts, until the test ends, the loads of the config file and
// the reads of each file through readFileOnce (the token files).
func countReads(t *testing.T) (loads func() int, reads func() map[string]int) {
	t.Helper()
	var mu sync.Mutex
	n, byPath := 0, map[string]int{}
	load, read := loadConfig, readFileOnce
	loadConfig = func(path string, getenv func(string) string) (*config.File, error) {
		mu.Lock()
		n++
		mu.Unlock()
		return load(path, getenv)
	}
	readFileOnce = func(path string, max int64, check func(os.FileInfo) error) ([]byte, error) {
		mu.Lock()
		byPath[path]++
		mu.Unlock()
		return read(path, max, check)
	}
	t.Cleanup(func() { loadConfig, readFileOnce = load, read })
	return func() int {
			mu.Lock()
			defer mu.Unlock()
			return n
		}, func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]int{}
			for k, v := range byPath {
				out[k] = v
			}
			return out
		}
}

// One invocation reads the config file once and each token file once,
// however many contexts it decides a daemon for (design §9): `ls
// --all-contexts` and `aipwatch contexts` across three contexts, each with
// its own token file.
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
		tokens[f.write(t, "aipwatch/"+n+".token", "token-of-context-"+n+"-0123456789\n")] = true
	}
	for _, args := range [][]string{{"ls", "--all-contexts"}, {"contexts"}} {
		t.Run(args[0], func(t *testing.T) {
			loads, reads := countReads(t)
			f.run(args...)
			if n := loads(); n != 1 {
				t.Errorf("%v loaded the config file %d times, want once", args, n)
			}
			got := reads()
			for p := range tokens {
				if got[p] != 1 {
					t.Errorf("%v read the token file %s %d times, want once", args, p, got[p])
				}
			}
			if len(got) != len(tokens) {
				t.Errorf("%v read %v, want each token file once", args, got)
			}
		})
	}
}
