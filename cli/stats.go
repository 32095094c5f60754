package cli

import (
	"github.com/spf13/cobra"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/stream"
)

// `aipwatch stats` (design §13): the fleet's figures per capability over
// the settled actions listed, as ls lists them (the most recent 100, or
// --limit N, --since D), each judged as `ls --verdict` judges it (the same
// rowJudge: one judge, one rule) and counted by model.Summarise, as the
// console's pulse counts its rows.

// statsCommand is `aipwatch stats [--since D] [--limit N]`.
func statsCommand(e *runEnv, g *globalFlags) *cobra.Command {
	var lf lsFlags
	c := &cobra.Command{
		Use:   "stats [flags]",
		Short: "the fleet's figures per capability: verdicts, first token and duration p50/p95, tokens",
		Long: `Judge the settled actions listed, as ls --verdict judges them (a review of
each, at most 4 at once), and print per capability: the verdicts counted, the
first token and the duration p50/p95 with the number of actions each holds
over, and the tokens reported.`,
		Example: `  aipwatch stats --since 1h
  aipwatch stats --limit 500 --output jsonl | jq 'select(.verdicts.failed > 0)'`,
		Args: noArgs,
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.IntVar(&lf.limit, "limit", defaultListLimit, "the `N` most recently updated actions (default 100; with --since: at most N)")
	fs.DurationVar(&lf.since, "since", 0, "only actions updated within this `DURATION` (90s, 15m, 24h), all of them unless --limit is given")
	addDemoFlag(fs, &lf.demo, "the figures of the `console` demo's simulated daemon", demoConsole)
	c.RunE = versioned(e, g, func(c *cobra.Command, _ []string) error {
		lf.verdictArg = verdictAll // every settled row judged
		return lf.run(c, e, g, func(o *options) int { return runStats(e, o, lf) })
	})
	return c
}

// runStats lists, judges and prints the figures.
func runStats(e *runEnv, o *options, lf lsFlags) int {
	var judged []model.Judged
	return runListing(e, o, lf, "stats", false, func(client *stream.Client) (rowWriter, *rowJudge) {
		rj := newRowJudge(contextDaemon{run: o, client: client}.judge(), e.stderr, true)
		rj.judged = func(r *model.ActionRow, jg stream.Judgement) { // one at a time
			judged = append(judged, jg.Judged(r))
		}
		return discardRows{}, rj
	}, func() error { return output.WriteStats(e.stdout, model.Summarise(judged), o.output == "jsonl") })
}

// discardRows takes the listed rows and keeps none: stats prints figures,
// not rows.
type discardRows struct{}

func (discardRows) Add([]model.ActionRow) error { return nil }
