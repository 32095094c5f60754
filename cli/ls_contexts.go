package cli

import (
	"fmt"
	"time"

	"aipwatch/config"
	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
)

// `aipwatch ls --all-contexts` (design §9): the actions of every daemon the
// config file names, each read with its own credentials, in one list with
// a CONTEXT column (output.ListContexts). A daemon that cannot be read is
// one line on stderr and exit 1; the others are listed all the same.

// listAllContexts lists every context's actions.
func listAllContexts(e *runEnv, g *globalFlags, lf lsFlags) int {
	stdout, stderr, getenv := e.stdout, e.stderr, e.getenv
	base := &watch{g: *g, e: e}
	f, err := filesOf(g.cf, getenv).Config()
	if err == nil && (f == nil || len(f.Contexts) == 0) {
		err = fmt.Errorf("--all-contexts: no contexts in %s (docs/contexts.md)", config.PathShown(getenv))
	}
	if err != nil {
		return base.fail(err)
	}
	w := output.NewListWriter(stdout, base.g.output == "jsonl", time.Now(), termWidth(stdout)).WithContexts()
	w.NoHeaders = lf.headerless(stdout)
	w.Verdicts = lf.verdict
	// The journal is read once for every daemon (each keeps its own
	// entries), and says what it has to say once.
	entries := journal.Load(getenv, func(ws []string) { warnJournal(stderr, "aipwatch ls", ws) })
	daemons := configDaemons(base, f.Names())
	sources := make([]output.ListSource, len(daemons))
	for i, d := range daemons {
		if d.err == nil {
			d.client, d.err = lf.timeout.bound(d.client)
		}
		sources[i] = output.ListSource{Name: d.name, Host: hostOf(d.c.url), Client: d.client, Err: d.err,
			JournalIDs: journal.ActionIDs(entries, d.c.url)}
		if lf.verdict && d.err == nil {
			sources[i].Judge = func() *output.RowJudge { return newRowJudge(d.judge(), stderr, false) }
		}
	}
	failed, err := output.ListContexts(lf.query(), sources, stderr, w)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return base.fail(err)
	}
	if failed > 0 {
		return model.ExitError
	}
	return 0
}
