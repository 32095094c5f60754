package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// `aipwatch ls --all-contexts` (design §9): the actions of every daemon the
// config file names, each read with its own credentials, in one list with
// a CONTEXT column. A daemon that cannot be read is one line on stderr and
// exit 1; the others are listed all the same.

// listAllContexts lists every context's actions: with a bound (the
// default 100, --limit, --since) each daemon is read at once and the rows
// merged newest first; --all reads one daemon after the other, a page at
// a time.
func listAllContexts(e *runEnv, g *globalFlags, lf lsFlags) int {
	stdout, stderr, getenv := e.stdout, e.stderr, e.getenv
	base := &watch{g: *g, e: e}
	f, err := filesOf(g.cf, getenv).config()
	if err == nil && (f == nil || len(f.Contexts) == 0) {
		err = fmt.Errorf("--all-contexts: no contexts in %s (docs/contexts.md)", configPathShown(getenv))
	}
	if err != nil {
		return base.fail(err)
	}
	w := output.NewListWriter(stdout, base.g.output == "jsonl", time.Now(), termWidth(stdout)).WithContexts()
	w.NoHeaders = lf.headerless(stdout)
	w.Verdicts = lf.verdict
	daemons := configDaemons(base, f.Names())
	for i := range daemons {
		if daemons[i].err == nil {
			daemons[i].client, daemons[i].err = lf.timeout.bound(daemons[i].client)
		}
	}
	// The journal is read once for every daemon (each keeps its own
	// entries, listContext), and says what it has to say once.
	entries := journal.Load(getenv, func(ws []string) { warnJournal(stderr, "aipwatch ls", ws) })
	failed := 0
	// report says a context's notes and error on stderr; a daemon that
	// could not be read is also a row of its own, with its error (jsonl:
	// "unreachable"), so that a script sees it among the others.
	report := func(name string, notes []string, err error) []model.ActionRow {
		for _, n := range notes {
			fmt.Fprintf(stderr, "aipwatch ls: context %s: %s\n", safe.Line(name), safe.Line(n))
		}
		if err == nil {
			return nil
		}
		failed++
		fmt.Fprintf(stderr, "aipwatch ls: context %s: %s\n", safe.Line(name), safe.Line(err.Error()))
		return []model.ActionRow{{Context: name, Unreachable: err.Error()}}
	}
	if lf.limit == 0 {
		for _, d := range daemons {
			notes, err := listContext(context.Background(), d, lf, entries, stderr, w)
			if err := w.Add(report(d.name, notes, err)); err != nil {
				return base.fail(err)
			}
		}
	} else {
		var rows []model.ActionRow
		for _, r := range readContexts(daemons, lf, entries, stderr) {
			rows = append(rows, r.rows...)
			rows = append(rows, report(r.name, r.notes, r.err)...)
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].UpdatedAt.After(rows[j].UpdatedAt) })
		rows = mostRecent(rows, lf.limit)
		if err := w.Add(rows); err != nil {
			return base.fail(err)
		}
	}
	if err := w.Close(); err != nil {
		return base.fail(err)
	}
	if failed > 0 {
		return model.ExitError
	}
	return 0
}

type contextRows struct {
	name  string
	rows  []model.ActionRow
	notes []string
	err   error
}

// readContexts reads every context at once, each within two minutes. ls
// reads pages, never polls: its Multi is only the fan-out (stream.Multi's
// Each), one source a daemon and no Poller.
func readContexts(daemons []contextDaemon, lf lsFlags, entries []journal.Entry, stderr io.Writer) []contextRows {
	out := make([]contextRows, len(daemons))
	fanOut := stream.Multi{Sources: make([]stream.MultiSource, len(daemons))}
	fanOut.Each(context.Background(), listBound, func(ctx context.Context, i int, _ stream.MultiSource) {
		out[i].name = daemons[i].name
		out[i].notes, out[i].err = listContext(ctx, daemons[i], lf, entries, stderr, (*rowSink)(&out[i].rows))
	})
	return out
}

// rowSink keeps the rows written to it (rowWriter).
type rowSink []model.ActionRow

func (s *rowSink) Add(rows []model.ActionRow) error {
	*s = append(*s, rows...)
	return nil
}

// listContext lists one context's daemon into w, each row marked with the
// context's name, and marks the rows of the journal's entries made
// against that daemon.
func listContext(ctx context.Context, d contextDaemon, lf lsFlags, entries []journal.Entry, stderr io.Writer, w rowWriter) ([]string, error) {
	if d.err != nil {
		return nil, d.err
	}
	lf.context = d.name
	var rj *rowJudge
	if lf.verdict { // each context's own judge, with its credentials; no progress line (they run at once)
		rj = newRowJudge(d.judge(), stderr, false)
		defer rj.end()
	}
	notes, err := listRows(ctx, d.client, lf, journal.ActionIDs(entries, d.c.url), w, rj)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("list: no answer from %s within %s", hostOf(d.c.url), listBound) // ours, not Go's words
	}
	return notes, err
}

// rowWriter takes a batch of rows (output.ListWriter, or rowSink).
type rowWriter interface {
	Add(rows []model.ActionRow) error
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
