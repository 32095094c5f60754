package model

// ExitOf is the exit code of a run of N >= 1 actions (design §12; each
// verdict's code is design §3's): 0 when every one is verified, else the
// first one's, in the run's order, that is not: 1 (an error) for one
// whose run stopped on errs[i], 8 (pending) for one whose verdict is not
// final, else its verdict's. An action whose run stopped on an error may
// be nil.
func ExitOf(actions []*Action, errs []error) int {
	for i, a := range actions {
		c := ExitError
		if errs[i] == nil {
			c = ExitPending
			if v := a.Verdict(); v.Final {
				c = v.ExitCode
			}
		}
		if c != ExitVerified {
			return c
		}
	}
	return ExitVerified
}
