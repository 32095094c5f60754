package output

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
	"aipwatch/safe"
)

// The `aipwatch ls` outputs (contract §7): a table for people, one JSON
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
			Listed: r.Listed, Journal: r.Journal}
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

// WriteListTable writes the table of `aipwatch ls`, newest first. An empty
// list says where actions come from instead of printing nothing.
func WriteListTable(w io.Writer, rows []model.ActionRow, now time.Time) error {
	return WriteListTableWidth(w, rows, now, 0)
}

// WriteListTableWidth is WriteListTable fitted to width cells (a
// terminal's; 0 = whole cells): full IDs and states, the wide cells cut.
func WriteListTableWidth(w io.Writer, rows []model.ActionRow, now time.Time, width int) error {
	tw := tabwriter.NewWriter(w, 2, 8, listGap, ' ', 0)
	bw := bufio.NewWriter(tw)
	if len(rows) == 0 {
		bw.WriteString("no actions listed (a synchronous action appears here only once it has settled)\n")
	}
	table := [][]string{{"ACTION", "CAPABILITY", "STATE", "RESULT", "STARTED", "UPDATED", "LEASE", "TRIES", "JOURNAL"}}
	for i := range rows {
		r := &rows[i]
		state := cell(orDash(r.State))
		if r.QueuedState != "" && r.QueuedState != r.State {
			state += " (queue " + cell(r.QueuedState) + ")"
		}
		lease := "-"
		if r.LeaseWorker != "" {
			lease = cell(r.LeaseWorker)
			if r.LeaseStuck(now) {
				lease += " EXPIRED " + model.ShortAge(now, r.LeaseExpires) + " ago: stuck?"
			}
		}
		journal := "-"
		switch {
		case r.JournalOnly():
			journal = "yes (not listed)"
		case r.Journal:
			journal = "yes"
		}
		capability := cell(strings.TrimPrefix(r.CapabilityID, "cap:"))
		if r.LiveSync {
			capability = "(sync, streaming)"
		}
		tries := "-"
		if r.Attempts > 0 {
			tries = fmt.Sprint(r.Attempts)
		}
		table = append(table, []string{cell(r.ActionID), orDash(capability), state, orDash(cell(r.ResultStatus)),
			orDash(model.ShortAge(now, r.StartedAt)), orDash(model.ShortAge(now, r.UpdatedAt)), lease, tries, journal})
	}
	kept := fitTable(table, listColumns, width)
	if len(rows) == 0 {
		table = nil
	}
	for _, row := range table {
		// Every field is one sanitised line: none can hold a tab or a
		// newline that would move the table's columns or rows.
		for j, i := range kept {
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

// maxCell is the widest a daemon's field may be in the table, in columns:
// a column is as wide as its widest cell, so one huge field (a hostile
// 1 MB status) would pad every row to it. Real IDs and capabilities are
// under 50 columns; jsonl keeps every field whole.
const maxCell = 64

// cell is an untrusted field as one safe line, cut to maxCell columns.
func cell(s string) string {
	return ansi.Truncate(safe.Line(s), maxCell, "…")
}
