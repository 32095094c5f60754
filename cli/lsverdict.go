package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// `aipwatch ls --verdict` (design §7): each printed row that has settled
// gets its verdict, judged as a review judges it (stream.Judge: the
// action's whole log, its result). That is one review per row, so it costs
// what the rows printed cost, at most four at once (the judge's bound),
// and a batch of rows prints only once all of it is judged, in order.

// rowJudge judges the rows of ls and says how far it got on stderr.
type rowJudge struct {
	listing  *stream.Listing // one bound for every row's judgement
	stderr   io.Writer       // where the rows not judged are named
	progress io.Writer       // stderr when it is a terminal, else nil: no progress lines
	done     int             // rows judged so far, over every batch
	total    int             // rows to judge: the batch's size is known, the list's is not
	cmd      string          // the command whose rows these are, for stderr ("" = ls)

	judged func(r *model.ActionRow, jg stream.Judgement) // when set, each row judged, one at a time (stats counts them)
}

// listingBound bounds the judgements of one listing as a whole (0:
// stream.DefaultListingBound; no flag changes it). A test shortens it to
// see what the end of the bound says without waiting two minutes.
var listingBound time.Duration

// judgeRows sets the Verdict of each settled row of batch. The listing's
// two minutes bound the list's reads, not the reviews: each judgement has
// its own bound (stream.DefaultJudgeTimeout), and all of them together the
// listing's (stream.Listing).
func (rj *rowJudge) judgeRows(batch []model.ActionRow) {
	var todo []int
	for i := range batch {
		if batch[i].Settled() {
			todo = append(todo, i)
		}
	}
	rj.total += len(todo)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, i := range todo {
		wg.Add(1)
		go func() { // the judge lets four read at once; the rest wait their turn
			defer wg.Done()
			jg := rj.listing.Judge(batch[i].ActionID)
			batch[i].Verdict = jg.Word
			mu.Lock()
			if rj.judged != nil {
				rj.judged(&batch[i], jg)
			}
			rj.done++
			if rj.progress != nil { // over the last one
				fmt.Fprintf(rj.progress, "\rjudging %d of %d…", rj.done, rj.total)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// end clears the progress line and names the rows the listing's bound
// left unjudged (nil: no judge).
func (rj *rowJudge) end() {
	if rj != nil && rj.progress != nil && rj.total > 0 {
		fmt.Fprint(rj.progress, "\r\x1b[K")
	}
	if rj == nil || rj.listing == nil {
		return
	}
	rj.listing.Close()
	if ids, bound := rj.listing.NotJudged(); len(ids) > 0 {
		cmd := rj.cmd
		if cmd == "" {
			cmd = "ls"
		}
		fmt.Fprintf(rj.stderr, "aipwatch %s: %d rows not judged within the listing's bound of %s (verdict %s): %s\n",
			cmd, len(ids), bound, stream.VerdictNotJudged, safe.Line(strings.Join(ids, " ")))
	}
}

// newRowJudge is the judge of ls --verdict with the daemon's j; with
// progress, its progress goes to stderr on a terminal.
func newRowJudge(j *stream.Judge, stderr io.Writer, progress bool) *rowJudge {
	rj := &rowJudge{stderr: stderr, listing: j.NewListing(listingBound)}
	if progress && isTerminal(stderr) {
		rj.progress = safe.Unwrap(stderr)
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
