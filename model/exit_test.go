package model

import (
	"errors"
	"testing"
)

// design §12: a run of N actions exits 0 when every one is verified, else
// with the first one's code, in the run's order, that is not: 1 for a run
// stopped on an error (its model may be nil), 8 for an action not settled,
// else its verdict's.
func TestExitOf(t *testing.T) {
	t.Parallel()
	verified := scenario(t, "responses_completed", true)
	failed := scenario(t, "responses_failed", true)
	if verified.Verdict().Word != VerdictVerified || failed.Verdict().Word != VerdictFailed {
		t.Fatal("the fixtures: one verified, one failed")
	}
	live := NewAction("act_live")
	stopped := errors.New("status: connection refused")
	for _, c := range []struct {
		name    string
		actions []*Action
		errs    []error
		want    int
	}{
		{"all verified", []*Action{verified, verified}, []error{nil, nil}, 0},
		{"one failed", []*Action{verified, failed}, []error{nil, nil}, 4},
		{"the first not verified", []*Action{verified, live, failed}, []error{nil, nil, nil}, 8},
		{"an error first", []*Action{verified, nil, live}, []error{nil, stopped, nil}, 1},
		{"an error on a verified model", []*Action{verified}, []error{stopped}, 1},
	} {
		if got := ExitOf(c.actions, c.errs); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
