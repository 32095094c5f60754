package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"aipwatch/config"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
)

// `aipwatch ls --all-contexts` (design §9): the actions of every daemon the
// config file names, each read with its own credentials, in one list with
// a CONTEXT column. A daemon that cannot be read is one line on stderr and
// exit 1; the others are listed all the same.

// contextFlags are the flags a context gives: --all-contexts takes each
// context's own instead.
var contextFlags = []string{"url", "token-file", "cacert", "context"}

// contextOptions are base's options for the daemon of context name: what
// `--context name` would give, with base's other flags.
func contextOptions(base *options, name string, getenv func(string) string) *options {
	o := *base
	if base.ctx.applied {
		o.allowInsecureHTTP = base.ctx.insecureFlag // the flag's, not another context's
	}
	o.contextFlag, o.ctx = name, contextUse{}
	o.url, o.tokenFile, o.token, o.cacert, o.urlGiven = "", "", "", "", false
	// The variables that would override a context's URL or token apply to
	// one daemon; across all of them each context's own is used.
	applyContext(&o, func(k string) string {
		switch k {
		case "AIP_URL", "AIP_TOKEN_FILE", "GETAIP_NATIVE_BEARER_TOKEN_FILE", "AIP_TOKEN":
			return ""
		}
		return getenv(k)
	})
	return &o
}

// listAllContexts lists every context's actions: with a bound (the
// default 100, --limit, --since) each daemon is read at once and the rows
// merged newest first; --all reads one daemon after the other, a page at
// a time.
func listAllContexts(base *options, lf lsFlags, stdout, stderr io.Writer, getenv func(string) string) int {
	f, err := config.Load(config.Path(getenv), getenv)
	if err == nil && (f == nil || len(f.Contexts) == 0) {
		err = fmt.Errorf("--all-contexts: no contexts in %s (README, \"Several daemons\")", configPathShown(getenv))
	}
	if err != nil {
		return fail(base, stdout, stderr, err)
	}
	w := output.NewListWriter(stdout, base.output == "jsonl", time.Now(), termWidth(stdout)).WithContexts()
	w.Verdicts = lf.verdict
	names := f.Names()
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
		for _, name := range names {
			notes, err := listContext(context.Background(), base, name, lf, getenv, stderr, w)
			if err := w.Add(report(name, notes, err)); err != nil {
				return fail(base, stdout, stderr, err)
			}
		}
	} else {
		var rows []model.ActionRow
		for _, r := range readContexts(base, names, lf, getenv, stderr) {
			rows = append(rows, r.rows...)
			rows = append(rows, report(r.name, r.notes, r.err)...)
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].UpdatedAt.After(rows[j].UpdatedAt) })
		rows = mostRecent(rows, lf.limit)
		if err := w.Add(rows); err != nil {
			return fail(base, stdout, stderr, err)
		}
	}
	if err := w.Close(); err != nil {
		return fail(base, stdout, stderr, err)
	}
	if failed > 0 {
		return model.ExitError
	}
	return 0
}

// contextRows are one context's rows, read with a bound.
type contextRows struct {
	name  string
	rows  []model.ActionRow
	notes []string
	err   error
}

// readContexts reads every context at once, each within two minutes.
func readContexts(base *options, names []string, lf lsFlags, getenv func(string) string, stderr io.Writer) []contextRows {
	out := make([]contextRows, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func(r *contextRows) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r.name = name
			r.notes, r.err = listContext(ctx, base, name, lf, getenv, stderr, (*rowSink)(&r.rows))
		}(&out[i])
	}
	wg.Wait()
	return out
}

// rowSink keeps the rows written to it.
type rowSink []model.ActionRow

func (s *rowSink) Add(rows []model.ActionRow) error {
	*s = append(*s, rows...)
	return nil
}

// listContext lists one context's daemon into w, each row marked with the
// context's name.
func listContext(ctx context.Context, base *options, name string, lf lsFlags, getenv func(string) string, stderr io.Writer, w rowWriter) ([]string, error) {
	o := contextOptions(base, name, getenv)
	if o.ctx.err != nil {
		return nil, o.ctx.err
	}
	if err := checkURL(o.url, o.allowInsecureHTTP); err != nil {
		return nil, err
	}
	client, err := daemonClient(o, stderr)
	if err != nil {
		return nil, err
	}
	marked := contextWriter{name: name, w: w}
	var rj *rowJudge
	if lf.verdict { // each context's own judge, with its credentials; no progress line (they run at once)
		rj = quietRowJudge(o, client, stderr)
		defer rj.end()
	}
	notes, err := listRows(ctx, client, lf, journalIDs(getenv, o.url, func(ws []string) { warnJournal(stderr, "aipwatch ls", ws) }), &marked, rj)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within 2m (%w)", err)
	}
	return notes, err
}

// rowWriter takes a batch of rows (output.ListWriter, or rowSink).
type rowWriter interface {
	Add(rows []model.ActionRow) error
}

// contextWriter marks each row with its context.
type contextWriter struct {
	name string
	w    rowWriter
}

func (c *contextWriter) Add(rows []model.ActionRow) error {
	for i := range rows {
		rows[i].Context = c.name
	}
	return c.w.Add(rows)
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
