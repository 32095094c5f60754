package cli

import (
	"math"

	"github.com/spf13/cobra"

	"aipwatch/output"
	"aipwatch/stream"
)

// `aipwatch stats` (design §13): the fleet's figures per capability over
// the most recent settled actions, each judged as `ls --verdict` judges it
// (the same output.RowJudge: one judge, one rule) and counted by
// model.Summarise, as the console's pulse counts its rows
// (output.StatsRows).
//
// Every judgement is a review, one action's whole log (design §7), so
// stats judges at most --limit settled actions (100 by default), never a
// span's whole history: with --since it reads the list (not the logs) to
// the span's edge and says how many settled actions there it left
// unjudged, and how to ask for them.

func statsCommand(e *runEnv, g *globalFlags) *cobra.Command {
	var lf lsFlags
	c := &cobra.Command{
		Use:   "stats [flags]",
		Short: "the fleet's figures per capability: verdicts, first token and duration p50/p95, tokens",
		Long: `Judge the most recent settled actions, as ls --verdict judges them (a review
of each: its whole log, at most 4 at once), and print per capability: the
verdicts counted, the first token and the duration p50/p95 and the tokens
reported, each with the number of actions it holds over.

At most --limit actions are judged (100 by default): without --since, the
settled ones among the 100 (or N) most recent rows; with --since, the 100
(or N) most recent settled actions of the span, the others counted from the
list and named on stderr with the --limit that would judge them all.`,
		Example: `  aipwatch stats --since 1h
  aipwatch stats --since 24h --limit 500 --output jsonl | jq '.verdicts.failed'`,
		Args: noArgs,
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.IntVar(&lf.limit, "limit", defaultListLimit, "judge at most `N` settled actions, the most recent (default 100; without --since: of the N most recent rows)")
	fs.DurationVar(&lf.since, "since", 0, "only actions updated within this `DURATION` (90s, 15m, 24h): the most recent --limit settled ones judged, the rest counted")
	lf.timeout.add(fs)
	addDemoFlag(fs, &lf.demo, "the figures of the `console` demo's simulated daemon", demoConsole)
	c.RunE = versioned(e, g, func(c *cobra.Command, _ []string) error {
		lf.verdictArg = verdictAll // every settled row judged, up to the bound
		limit := lf.limit          // lsFlags.check drops it for --since alone
		return lf.run(c, e, g, func(o *watch) int { return runStats(o, lf, limit) })
	})
	return c
}

// runStats lists, judges at most limit settled rows and prints the
// figures; what the bound left unjudged goes to stderr.
func runStats(o *watch, lf lsFlags, limit int) int {
	e := o.e
	var rows *output.StatsRows
	defer func() { // done is not called when the listing fails: its reviews end here
		if rows != nil {
			rows.Judge.Listing.Close()
		}
	}()
	if lf.since > 0 {
		// The span's rows, to its edge: list pages only (1,000 rows a
		// request), within the listing's two minutes; the reviews stop
		// at limit.
		lf.limit = math.MaxInt
	}
	return runListing(o, lf, "stats", false, func(client *stream.Client) (output.RowWriter, *output.RowJudge) {
		rows = output.NewStatsRows(limit, newRowJudge(contextDaemon{run: o, client: client}.judge(), e.stderr, true))
		return rows, nil // rows judges what it takes: the listing's own judge would judge them all
	}, func() error {
		rows.Judge.End()
		rows.Tell(e.stderr, lf.since, lf.limit)
		return rows.Write(e.stdout, o.g.output == "jsonl")
	})
}
