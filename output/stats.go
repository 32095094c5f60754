package output

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The `aipwatch stats` outputs (design §13): the fleet's figures per
// capability (model.Summarise of the settled actions listed, each judged
// as `ls --verdict` judges it), a table for people, one object per
// capability for scripts.

// statsObject is one capability in jsonl; its keys are fixed.
type statsObject struct {
	Type         string        `json:"type"`
	CapabilityID string        `json:"capability_id"`
	Actions      int           `json:"actions"`
	Verdicts     statsVerdicts `json:"verdicts"`
	FirstTokenMS statsFigure   `json:"first_token_ms"`
	DurationMS   statsFigure   `json:"duration_ms"`
	TotalTokens  int           `json:"total_tokens"`
	// Reported is the number of actions whose usage the provider
	// reported: total_tokens is theirs.
	Reported int `json:"usage_reported"`
}

// statsVerdicts counts the actions by the judge's word: every verdict,
// unknown for those that could not be read, and not_judged for those the
// listing's bound left unjudged (as ls --verdict says it). An action
// listed settled but read live (not judged, as ls --verdict leaves its
// verdict empty) is in actions and in none of these.
type statsVerdicts struct {
	Verified   int `json:"verified"`
	Partial    int `json:"partial"`
	Failed     int `json:"failed"`
	Truncated  int `json:"truncated"`
	Incomplete int `json:"incomplete"`
	Cancelled  int `json:"cancelled"`
	Unknown    int `json:"unknown"`
	NotJudged  int `json:"not_judged"`
}

// statsFigure is a figure's median and 95th percentile in milliseconds,
// null when no action was timed, and n, the actions it holds over.
type statsFigure struct {
	P50 *int64 `json:"p50"`
	P95 *int64 `json:"p95"`
	N   int    `json:"n"`
}

func figureOf(q model.Quantiles) statsFigure {
	if q.N == 0 {
		return statsFigure{}
	}
	p50, p95 := q.P50, q.P95
	return statsFigure{P50: &p50, P95: &p95, N: q.N}
}

func verdictsOf(m map[string]int) statsVerdicts {
	v := statsVerdicts{Verified: m[model.VerdictVerified], Partial: m[model.VerdictPartial],
		Failed: m[model.VerdictFailed], Truncated: m[model.VerdictTruncated],
		Incomplete: m[model.VerdictIncomplete], Cancelled: m[model.VerdictCancelled], NotJudged: m[model.NotJudged]}
	for w, n := range m {
		if w != "" && w != model.NotJudged && model.VerdictIndex(w) < 0 {
			v.Unknown += n // the judge's unknown, and any word that is no verdict
		}
	}
	return v
}

// WriteStats prints the figures of each capability: one object per
// capability in jsonl (WriteObject neutralises its strings), else a table;
// nothing settled says so in the table.
func WriteStats(w io.Writer, stats []model.CapabilityStats, jsonl bool) error {
	if jsonl {
		for i := range stats {
			c := &stats[i]
			o := statsObject{Type: "stats", CapabilityID: boundField(c.CapabilityID), Actions: c.Actions,
				Verdicts: verdictsOf(c.Verdicts), FirstTokenMS: figureOf(c.FirstToken),
				DurationMS: figureOf(c.Duration), TotalTokens: c.TotalTokens, Reported: c.Reported}
			if err := WriteObject(w, o); err != nil {
				return err
			}
		}
		return nil
	}
	if len(stats) == 0 {
		bw := bufio.NewWriter(w)
		bw.WriteString("no settled actions listed\n")
		return bw.Flush()
	}
	tw := tabwriter.NewWriter(w, 2, 8, listGap, ' ', 0)
	bw := bufio.NewWriter(tw)
	table := [][]string{{"CAPABILITY", "ACTIONS", "VERDICTS", "FIRST TOKEN p50", "p95", "DURATION p50", "p95", "TOKENS"}}
	for i := range stats {
		c := &stats[i]
		tokens := "-"
		if c.Reported > 0 { // over the actions whose usage was reported, as a figure says its n
			tokens = model.Thousands(c.TotalTokens) + " (" + strconv.Itoa(c.Reported) + ")"
		}
		p50, p95 := quantileCells(c.FirstToken)
		d50, d95 := quantileCells(c.Duration)
		table = append(table, []string{cell(orDash(model.CapabilityWords(c.CapabilityID))), strconv.Itoa(c.Actions),
			verdictsCell(c.Verdicts), p50, p95, d50, d95, tokens})
	}
	for _, row := range table {
		for j, s := range row {
			if j > 0 {
				bw.WriteString("\t")
			}
			bw.WriteString(safe.Sprintf("%s", s).String())
		}
		bw.WriteString("\n")
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return tw.Flush()
}

// quantileCells are a figure's p50 and p95 as the table shows them
// ("0.4s (180)", "1.9s"), dashes when nothing was timed.
func quantileCells(q model.Quantiles) (string, string) {
	if q.N == 0 {
		return "-", "-"
	}
	return model.Seconds(q.P50) + " (" + strconv.Itoa(q.N) + ")", model.Seconds(q.P95)
}

// boundField is a daemon's field for jsonl cut as the table cuts it: at
// most maxCell characters, the last "…" when it was cut (a 100,000
// character capability ID is no capability's).
func boundField(s string) string {
	if utf8.RuneCountInString(s) <= maxCell {
		return s
	}
	i, n := 0, 0
	for i = range s {
		if n == maxCell-1 {
			break
		}
		n++
	}
	return s[:i] + "…"
}

// verdictsCell is "170 verified, 10 failed": the verdicts counted, in
// their order (model.SettledVerdicts), unknown and not_judged last.
func verdictsCell(m map[string]int) string {
	var parts []string
	for _, w := range model.SettledVerdicts {
		if n := m[w]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+w)
		}
	}
	v := verdictsOf(m)
	if v.Unknown > 0 {
		parts = append(parts, strconv.Itoa(v.Unknown)+" "+stream.VerdictUnknown)
	}
	if v.NotJudged > 0 {
		parts = append(parts, strconv.Itoa(v.NotJudged)+" "+model.NotJudged)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// StatsRows takes the rows `aipwatch stats` lists, judges the settled ones
// until max are judged (its --limit) and counts the rest: stats prints
// figures, not rows.
type StatsRows struct {
	Judge  *RowJudge // the listing's judge, as ls --verdict's (one judge, one rule)
	max    int       // settled rows to judge at most (--limit)
	judged []model.Judged
	listed int // rows listed
	taken  int // settled rows given to the judge
	beyond int // settled rows listed past max, not judged
}

// NewStatsRows judges at most limit settled rows with rj, keeping each
// judgement as the figures count it (stream.Judgement.Judged).
func NewStatsRows(limit int, rj *RowJudge) *StatsRows {
	s := &StatsRows{Judge: rj, max: limit}
	rj.Cmd = "stats"
	rj.Judged = func(r *model.ActionRow, jg stream.Judgement) { // one at a time
		s.judged = append(s.judged, jg.Judged(r))
	}
	return s
}

// Add takes a batch of listed rows, judging the settled ones up to max.
func (s *StatsRows) Add(batch []model.ActionRow) error {
	s.listed += len(batch)
	var todo []model.ActionRow
	for _, r := range batch {
		switch {
		case !r.Settled():
		case s.taken < s.max:
			s.taken++
			todo = append(todo, r)
		default:
			s.beyond++
		}
	}
	if len(todo) > 0 {
		s.Judge.JudgeRows(todo)
	}
	return nil
}

// Tell says on stderr what the bound left out, never silently: the
// span's settled actions not judged (since: --since), or, without --since,
// that the list holds more than the limit rows read.
func (s *StatsRows) Tell(stderr io.Writer, since time.Duration, limit int) {
	switch {
	case s.beyond > 0:
		say(stderr, safe.Sprintf("aipwatch stats: the %s most recent settled actions of the last %s judged; %s more in it not judged (all of them: --limit %d)\n",
			model.Thousands(s.taken), model.HumanDuration(since), model.Thousands(s.beyond), s.taken+s.beyond))
	case since == 0 && s.listed >= limit:
		say(stderr, safe.Sprintf("aipwatch stats: the settled actions among the %s most recent rows judged (%s); more with --since D (at most --limit N judged)\n",
			model.Thousands(s.listed), model.Thousands(s.taken)))
	}
}

// Write prints the figures of the rows judged (model.Summarise).
func (s *StatsRows) Write(w io.Writer, jsonl bool) error {
	return WriteStats(w, model.Summarise(s.judged), jsonl)
}
