package cli

import (
	"strings"
	"syscall"
	"testing"
)

// failingWriter is a stdout whose reader has gone (`aipwatch ls --all |
// head` once head has exited): every write fails.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// design §7: ls --all reads the list a page at a time as it prints; once
// stdout refuses the first page it stops reading (the rest of a long
// history is not read for nobody) and fails: it reads no more than
// `ls --limit 1000` (the first page) does, fewer than the whole list.
func TestListStopsReadingWhenStdoutFails(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 1500) // two pages of 1,000 rows
	requests := func(run func()) int64 {
		before := f.Stats().ListRequests
		run()
		return f.Stats().ListRequests - before
	}
	failing := requests(func() {
		var errb strings.Builder
		if code := Run([]string{"ls", "--url", f.URL(), "--all", "--output", "jsonl"}, strings.NewReader(""), failingWriter{}, &errb, noEnv, testKeys()); code == 0 {
			t.Errorf("exit 0 with stdout failing\n%s", errb.String())
		}
	})
	ls := func(args ...string) func() {
		return func() {
			if code, _, errOut := runCLI(t, append([]string{"ls", "--url", f.URL(), "--output", "jsonl"}, args...)...); code != 0 {
				t.Fatalf("ls %v: exit %d\n%s", args, code, errOut)
			}
		}
	}
	first, whole := requests(ls("--limit", "1000")), requests(ls("--all"))
	if failing > first || first >= whole {
		t.Errorf("list requests: %d with stdout failing at the first page, %d for the first page, %d for the whole list", failing, first, whole)
	}
}
