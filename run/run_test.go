package run

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/stream"
)

// panicking is a runner whose Run panics (a bug in what reads the action).
type panicking struct{}

func (panicking) Run(context.Context, stream.Sink) error { panic("boom in the printer") }
func (panicking) Cancel(context.Context, string) stream.CancelMsg {
	return stream.CancelMsg{}
}

// A bug while plain's printer runs (on its own goroutine, for one action
// as for several) ends the run on the report of an internal error with
// the command that resumes it, exit 1, never a crash with a stack.
func TestLinesRunReportsAPanic(t *testing.T) {
	t.Parallel()
	for _, words := range [][]string{{"act_p_01"}, {"act_p_01", "act_p_02"}} {
		p := plan(words...)
		p.Mode = "plain"
		for i := range p.Targets {
			p.Targets[i].Runner = panicking{}
		}
		var out, errb bytes.Buffer
		code, _ := Run(context.Background(), *p, IO{Stdout: &out, Stderr: &errb})
		if code != model.ExitError || !strings.Contains(errb.String(), "aipwatch: internal error: boom in the printer") ||
			!strings.Contains(errb.String(), "resume with: aipwatch act_p_01") || strings.Contains(errb.String(), "goroutine") {
			t.Fatalf("%v: exit %d\nstdout %q\nstderr %q", words, code, out.String(), errb.String())
		}
	}
}
