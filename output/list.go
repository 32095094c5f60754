package output

import (
	"bufio"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
	"aipwatch/safe"
)

// The `aipwatch ls` outputs (design §7): a table for people, one JSON
// object per action for scripts. Every field comes from the daemon and is
// untrusted: it goes through safe/ first.

// listObject is one action in jsonl; its keys are fixed.
type listObject struct {
	Type         string `json:"type"`
	ActionID     string `json:"action_id"`
	CapabilityID string `json:"capability_id"`
	Endpoint     string `json:"endpoint"`
	Operation    string `json:"operation"`
	State        string `json:"state"`
	QueuedState  string `json:"queued_state"`
	ResultStatus string `json:"result_status"`
	StartedAt    string `json:"started_at"`
	UpdatedAt    string `json:"updated_at"`
	LeaseWorker  string `json:"lease_worker"`
	LeaseExpires string `json:"lease_expires_at"`
	LeaseStuck   bool   `json:"lease_stuck"`
	Attempts     int    `json:"retry_attempts"`
	Listed       bool   `json:"listed"`
	Journal      bool   `json:"journal"`
	Context      string `json:"context"` // the config file's context, "" for the one daemon
	// Unreachable: the row stands for a context's daemon that could not be
	// read, with its error ("" for an action).
	Unreachable string `json:"unreachable"`
	// Verdict is the judged verdict (ls --verdict, design §7): "" when not
	// asked or not settled, "unknown" when the action could not be read.
	Verdict string `json:"verdict"`
}

// ListWriter prints the rows of `aipwatch ls` as they arrive, a batch at
// a time (a page of the list): one object per row in jsonl, or a table
// aligned within each batch, so that `ls --all` prints its first rows at
// once and holds one page, whatever the list's length. On a terminal
// (width > 0) the first batch decides which columns fit; every later
// batch prints the same ones.
type ListWriter struct {
	w     io.Writer
	jsonl bool
	now   time.Time
	width int
	rows  int
	kept  []int // the table's columns, once the first batch chose them
	// contexts: the rows come from several daemons, and a CONTEXT column
	// comes first (ls --all-contexts).
	contexts bool
	// Verdicts adds the VERDICT column to the table (ls --verdict); the
	// rows' Verdict fields fill it, "-" for a live row.
	Verdicts bool
	// NoHeaders leaves out the table's header row (ls --no-headers, or
	// into a pipe).
	NoHeaders bool
}

// WithContexts makes the table start with a CONTEXT column.
func (l *ListWriter) WithContexts() *ListWriter {
	l.contexts = true
	return l
}

// NewListWriter writes to w; now is the time ages are counted from, width
// the terminal's (0 = every cell whole).
func NewListWriter(w io.Writer, jsonl bool, now time.Time, width int) *ListWriter {
	return &ListWriter{w: w, jsonl: jsonl, now: now, width: width}
}

// Add prints one batch of rows, newest first.
func (l *ListWriter) Add(rows []model.ActionRow) error {
	if len(rows) == 0 {
		return nil
	}
	first := l.rows == 0
	l.rows += len(rows)
	if l.jsonl {
		return WriteListJSONL(l.w, rows, l.now)
	}
	return l.writeTable(rows, first)
}

// Close ends the listing: an empty table says where actions come from
// instead of printing nothing.
func (l *ListWriter) Close() error {
	if l.rows > 0 || l.jsonl {
		return nil
	}
	bw := bufio.NewWriter(l.w)
	bw.WriteString("no actions listed (a synchronous action appears here only once it has settled)\n")
	return bw.Flush()
}

// WriteListJSONL writes one object per row (WriteObject neutralises its
// strings).
func WriteListJSONL(w io.Writer, rows []model.ActionRow, now time.Time) error {
	for i := range rows {
		r := &rows[i]
		o := listObject{Type: "action", ActionID: r.ActionID, CapabilityID: r.CapabilityID,
			Endpoint: r.Endpoint(), Operation: r.Operation(), State: r.State,
			QueuedState: r.QueuedState, ResultStatus: r.ResultStatus,
			StartedAt: stamp(r.StartedAt), UpdatedAt: stamp(r.UpdatedAt), LeaseWorker: r.LeaseWorker,
			LeaseExpires: stamp(r.LeaseExpires), LeaseStuck: r.LeaseStuck(now), Attempts: r.Attempts,
			Listed: r.Listed, Journal: r.Journal, Context: r.Context, Unreachable: r.Unreachable, Verdict: safe.Line(r.Verdict)}
		if err := WriteObject(w, o); err != nil {
			return err
		}
	}
	return nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// WriteListTable writes the table of `aipwatch ls` at once, every cell
// whole.
func WriteListTable(w io.Writer, rows []model.ActionRow, now time.Time) error {
	return WriteListTableWidth(w, rows, now, 0)
}

// WriteListTableWidth is WriteListTable fitted to width cells (a
// terminal's; 0 = whole cells): full IDs and states, the wide cells cut.
func WriteListTableWidth(w io.Writer, rows []model.ActionRow, now time.Time, width int) error {
	l := NewListWriter(w, false, now, width)
	if err := l.Add(rows); err != nil {
		return err
	}
	return l.Close()
}

// writeTable writes one batch of the table, the header first when first
// is set.
func (l *ListWriter) writeTable(rows []model.ActionRow, first bool) error {
	tw := tabwriter.NewWriter(l.w, 2, 8, listGap, ' ', 0)
	bw := bufio.NewWriter(tw)
	header := l.withVerdict([]string{"ACTION", "CAPABILITY", "STATE", "RESULT", "STARTED", "UPDATED", "LEASE", "TRIES", "JOURNAL"}, "VERDICT")
	cols := l.withVerdictColumn(listColumns)
	if l.contexts {
		header, cols = append([]string{"CONTEXT"}, header...), append([]listColumn{{}}, cols...)
	}
	table := [][]string{header}
	for i := range rows {
		r := &rows[i]
		c := r.Cells(l.now, false, cell)
		row := l.withVerdict([]string{cell(r.ActionID), orDash(c.Capability), orDash(c.State), orDash(c.Result),
			orDash(c.Started), orDash(c.Updated), orDash(c.Lease), orDash(c.Tries), orDash(c.Journal)}, orDash(c.Verdict))
		if l.contexts {
			row = append([]string{cell(orDash(r.Context))}, row...)
		}
		table = append(table, row)
	}
	kept := fitTable(table, cols, l.width)
	if l.kept == nil {
		l.kept = kept
	}
	if !first || l.NoHeaders {
		table = table[1:]
	}
	for _, row := range table {
		// Every field is one sanitised line: none can hold a tab or a
		// newline that would move the table's columns or rows.
		for j, i := range l.kept {
			if j > 0 {
				bw.WriteString("\t")
			}
			bw.WriteString(safe.Sprintf("%s", row[i]).String())
		}
		bw.WriteString("\n")
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return tw.Flush()
}

// verdictAt is where the VERDICT column goes: after RESULT, the AIP
// status it corrects.
const verdictAt = 4

// withVerdict is a row of the table with the verdict cell v when the
// table has that column.
func (l *ListWriter) withVerdict(row []string, v string) []string {
	if !l.Verdicts {
		return row
	}
	return slices.Insert(row, verdictAt, v)
}

// withVerdictColumn is cols with the VERDICT column's fitting (never
// dropped: it is what was asked for) when the table has it.
func (l *ListWriter) withVerdictColumn(cols []listColumn) []listColumn {
	if !l.Verdicts {
		return cols
	}
	return slices.Insert(slices.Clone(cols), verdictAt, listColumn{})
}

// maxCell is the widest a daemon's field may be in the table, in columns:
// a column is as wide as its widest cell, so one huge field (a hostile
// 1 MB status) would pad every row to it. Real IDs and capabilities are
// under 50 columns; jsonl keeps every field whole.
const maxCell = 64

// cell is an untrusted field as one safe line, cut to maxCell columns.
func cell(s string) string {
	return ansi.Truncate(safe.Line(s), maxCell, "…")
}
