package output

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The listing of `aipwatch ls` and `aipwatch stats` (design §7): one
// daemon's list read newest first, a page at a time, this machine's
// journal marks, the verdicts when asked; and `ls --all-contexts` (design
// §9): every context's daemon read with its own credentials, in one list
// with a CONTEXT column.

// ListBound bounds the reads of a bounded listing (the default 100,
// --limit, --since), of each daemon's of ls --all-contexts too.
const ListBound = 2 * time.Minute

// ListQuery is what a listing asks of a daemon's list: the command's
// flags, as ls and stats turn them.
type ListQuery struct {
	States     []string      // only these states (none: every state)
	Capability string        // only this capability ("": every one)
	Limit      int           // the most recent rows at most (0: no bound)
	Since      time.Duration // only rows updated within it (0: no span)
	Keep       []string      // the verdicts kept (model.KeepVerdicts; none: every row)
	Context    string        // the context whose daemon is read, marked on its rows
}

// RowWriter takes a batch of rows (ListWriter, StatsRows, or rowSink).
type RowWriter interface {
	Add(rows []model.ActionRow) error
}

// ListRows prints the rows q asked for, newest first, a page at a time
// (memory flat in the list's length: design §7), and returns the notes of
// the paging's faults. The rows of journalIDs are marked; a journal entry
// the daemon does not list is added at the end only when the whole
// unfiltered list was read: only then can it be said not to be listed.
// rj, when set, judges each batch before it is written.
func ListRows(ctx context.Context, c *stream.Client, q ListQuery, journalIDs []string, w RowWriter, rj *RowJudge) ([]string, error) {
	page := stream.DefaultRecentRows * 10
	if q.Limit > 0 {
		page = min(q.Limit, page)
	}
	walk := c.NewNewest(q.States, q.Capability, page)
	mine := make(map[string]bool, len(journalIDs))
	for _, id := range journalIDs {
		mine[id] = false // not seen yet
	}
	cutoff := time.Now().Add(-q.Since)
	batch := make([]model.ActionRow, 0, page)
	flush := func() error {
		if rj != nil {
			rj.JudgeRows(batch)
		}
		err := w.Add(model.KeepVerdicts(batch, q.Keep))
		batch = batch[:0]
		return err
	}
	complete := false
	for n := 0; q.Limit == 0 || n < q.Limit; n++ {
		st, ok, err := walk.Next(ctx)
		if err != nil {
			_ = flush()
			return walk.Notes(), err
		}
		if !ok {
			complete = true
			break
		}
		row := model.RowOf(&st)
		row.Context = q.Context
		if q.Since > 0 && row.UpdatedAt.Before(cutoff) {
			break
		}
		if _, ok := mine[row.ActionID]; ok {
			row.Journal, mine[row.ActionID] = true, true
		}
		if batch = append(batch, row); len(batch) == page {
			if err := flush(); err != nil {
				return walk.Notes(), err
			}
		}
	}
	if complete || walk.Exhausted() {
		if len(q.States) == 0 && q.Capability == "" && q.Since == 0 {
			for _, id := range journalIDs {
				if !mine[id] {
					mine[id] = true
					batch = append(batch, model.ActionRow{ActionID: id, Journal: true, Context: q.Context})
				}
			}
		}
	}
	err := flush()
	return walk.Notes(), err
}

// ListSource is one context's daemon of `ls --all-contexts`.
type ListSource struct {
	Name       string
	Host       string         // the daemon's host, in the error of a read the bound ended
	Client     *stream.Client // nil when Err
	Err        error          // the daemon could not be set up (its token file, its CA)
	JournalIDs []string       // the journal's entries made against this daemon
	// Judge, when set (ls --verdict), makes the context's own judge, with
	// its credentials (no progress line: the contexts are read at once).
	Judge func() *RowJudge
}

// ListContexts lists every context's actions into w: with a bound (the
// default 100, --limit, --since) each daemon is read at once and the rows
// merged newest first; without (--all), one daemon after the other, a
// page at a time. A daemon that cannot be read is one line on stderr and
// a row of its own, with its error (jsonl: "unreachable"), so that a
// script sees it among the others; failed counts them. err is w's.
func ListContexts(q ListQuery, sources []ListSource, stderr io.Writer, w RowWriter) (failed int, err error) {
	// report says a context's notes and error on stderr, and makes the
	// row of a daemon that could not be read.
	report := func(name string, notes []string, err error) []model.ActionRow {
		for _, n := range notes {
			say(stderr, safe.Sprintf("aipwatch ls: context %s: %s\n", name, n))
		}
		if err == nil {
			return nil
		}
		failed++
		say(stderr, safe.Sprintf("aipwatch ls: context %s: %s\n", name, err))
		return []model.ActionRow{{Context: name, Unreachable: err.Error()}}
	}
	if q.Limit == 0 {
		for _, s := range sources {
			notes, err := listContext(context.Background(), s, q, w)
			if err := w.Add(report(s.Name, notes, err)); err != nil {
				return failed, err
			}
		}
		return failed, nil
	}
	var rows []model.ActionRow
	for _, r := range readContexts(sources, q) {
		rows = append(rows, r.rows...)
		rows = append(rows, report(r.name, r.notes, r.err)...)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].UpdatedAt.After(rows[j].UpdatedAt) })
	return failed, w.Add(mostRecent(rows, q.Limit))
}

type contextRows struct {
	name  string
	rows  []model.ActionRow
	notes []string
	err   error
}

// readContexts reads every context at once, each within ListBound. ls
// reads pages, never polls: its Multi is only the fan-out (stream.Multi's
// Each), one source a daemon and no Poller.
func readContexts(sources []ListSource, q ListQuery) []contextRows {
	out := make([]contextRows, len(sources))
	fanOut := stream.Multi{Sources: make([]stream.MultiSource, len(sources))}
	fanOut.Each(context.Background(), ListBound, func(ctx context.Context, i int, _ stream.MultiSource) {
		out[i].name = sources[i].Name
		out[i].notes, out[i].err = listContext(ctx, sources[i], q, (*rowSink)(&out[i].rows))
	})
	return out
}

// rowSink keeps the rows written to it (RowWriter).
type rowSink []model.ActionRow

func (s *rowSink) Add(rows []model.ActionRow) error {
	*s = append(*s, rows...)
	return nil
}

// listContext lists one context's daemon into w, each row marked with the
// context's name, and marks the rows of the journal's entries made
// against that daemon.
func listContext(ctx context.Context, s ListSource, q ListQuery, w RowWriter) ([]string, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	q.Context = s.Name
	var rj *RowJudge
	if s.Judge != nil {
		rj = s.Judge()
		defer rj.End()
	}
	notes, err := ListRows(ctx, s.Client, q, s.JournalIDs, w, rj)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("list: no answer from %s within %s", s.Host, ListBound) // ours, not Go's words
	}
	return notes, err
}

// mostRecent keeps the n most recent action rows of rows (newest first),
// and every row that stands for a daemon not read: --limit bounds the
// listing, not each daemon's part of it.
func mostRecent(rows []model.ActionRow, n int) []model.ActionRow {
	out := rows[:0]
	kept := 0
	for _, r := range rows {
		if r.Unreachable == "" {
			if kept == n {
				continue
			}
			kept++
		}
		out = append(out, r)
	}
	return out
}
