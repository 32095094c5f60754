package cli

import (
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// `aipwatch ls --verdict` (design §7) and stats judge each settled row
// they list: output.RowJudge, with the daemon's stream.Judge.

// listingBound bounds the judgements of one listing as a whole (0:
// stream.DefaultListingBound; no flag changes it). A test shortens it to
// see what the end of the bound says without waiting two minutes.
var listingBound time.Duration

// newRowJudge is the judge of ls --verdict with the daemon's j; with
// progress, its progress goes to stderr on a terminal.
func newRowJudge(j *stream.Judge, stderr io.Writer, progress bool) *output.RowJudge {
	rj := &output.RowJudge{Stderr: stderr, Listing: j.NewListing(listingBound)}
	if progress && isTerminal(stderr) {
		tty := safe.Unwrap(stderr) // the line's \r and erase reach the terminal
		rj.Progress = func(line safe.Str) { _, _ = io.WriteString(tty, line.String()) }
	}
	return rj
}

// verdictAll is --verdict's value when it is given bare: judge and show
// every row. --verdict=failed,incomplete keeps only the rows judged so
// (design §13).
const verdictAll = "all"

// checkVerdict reads --verdict's value: bare, every row is judged and
// shown; with verdict words (model.ParseVerdicts), only the rows judged one
// of them are kept.
func (lf *lsFlags) checkVerdict() error {
	lf.verdict, lf.keep = lf.verdictArg != "", nil
	if !lf.verdict || lf.verdictArg == verdictAll {
		return nil
	}
	keep, err := model.ParseVerdicts(lf.verdictArg)
	if err != nil {
		return output.UsageError("--verdict: " + err.Error())
	}
	lf.keep = keep
	return nil
}

// completeVerdicts offers the verdict words to a shell's completion
// (--verdict=, --notify-on): after a comma, the word after it.
func completeVerdicts(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
	head := ""
	if i := strings.LastIndexByte(typed, ','); i >= 0 {
		head = typed[:i+1]
	}
	out := make([]string, 0, len(model.SettledVerdicts))
	for _, w := range model.SettledVerdicts {
		out = append(out, head+w)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
