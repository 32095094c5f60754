package output

import (
	"io"
	"strings"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// `aipwatch ls --verdict` (design §7): each printed row that has settled
// gets its verdict, judged as a review judges it (stream.Judge: the
// action's whole log, its result). That is one review per row, so it costs
// what the rows printed cost, at most four at once (the judge's bound),
// and a batch of rows prints only once all of it is judged, in order
// (stream.Listing.JudgeRows). `aipwatch stats` judges the same way.

// RowJudge judges the rows of a listing and says how far it got on stderr.
type RowJudge struct {
	Listing  *stream.Listing // one bound for every row's judgement
	Stderr   io.Writer       // where the rows not judged are named
	Progress func(safe.Str)  // draws a progress line over the last on a terminal's stderr; nil: none
	Cmd      string          // the command whose rows these are, for stderr ("" = ls)

	// Judged, when set, is called for each row judged, one at a time
	// (stats counts them).
	Judged func(r *model.ActionRow, jg stream.Judgement)

	drawn bool // a progress line is on the terminal
}

// JudgeRows sets the Verdict of each settled row of batch. The listing's
// two minutes bound the list's reads, not the reviews: each judgement has
// its own bound (stream.DefaultJudgeTimeout), and all of them together the
// listing's (stream.Listing).
func (rj *RowJudge) JudgeRows(batch []model.ActionRow) {
	rj.Listing.JudgeRows(batch, func(r *model.ActionRow, jg stream.Judgement, done, total int) {
		if rj.Judged != nil {
			rj.Judged(r, jg)
		}
		if rj.Progress != nil { // over the last one
			rj.Progress(safe.Sprintf("\rjudging %d of %d…", done, total))
			rj.drawn = true
		}
	})
}

// End clears the progress line and names the rows the listing's bound
// left unjudged (nil: no judge).
func (rj *RowJudge) End() {
	if rj != nil && rj.drawn {
		rj.Progress(safe.Const("\r\x1b[K"))
	}
	if rj == nil || rj.Listing == nil {
		return
	}
	rj.Listing.Close()
	if ids, bound := rj.Listing.NotJudged(); len(ids) > 0 {
		cmd := rj.Cmd
		if cmd == "" {
			cmd = "ls"
		}
		say(rj.Stderr, safe.Sprintf("aipwatch %s: %d rows not judged within the listing's bound of %s (verdict %s): %s\n",
			cmd, len(ids), bound, stream.VerdictNotJudged, strings.Join(ids, " ")))
	}
}
