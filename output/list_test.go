package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

var listNow = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

// listRows are one of each kind of row ls shows: a queued action with a
// lease that expired, a settled one (its lease no longer matters), a live
// synchronous one, a journal-only one, a listed and journalled one.
func listRows() []model.ActionRow {
	return []model.ActionRow{
		{ActionID: "act_stuck", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "running", QueuedState: "queued",
			StartedAt: listNow.Add(-3 * time.Minute), UpdatedAt: listNow.Add(-90 * time.Second),
			LeaseWorker: "worker-7", LeaseExpires: listNow.Add(-2 * time.Minute), Attempts: 2, Listed: true},
		{ActionID: "act_done", CapabilityID: "cap:hermes_agent:prod:responses_stream", State: "completed", QueuedState: "completed",
			ResultStatus: "completed", StartedAt: listNow.Add(-2 * time.Hour), UpdatedAt: listNow.Add(-time.Hour),
			LeaseWorker: "worker-1", LeaseExpires: listNow.Add(-time.Hour), Listed: true, Journal: true},
		{ActionID: "act_live", State: "streaming", LiveSync: true, Journal: true},
		{ActionID: "act_gone", Journal: true},
		{ActionID: "act_queued", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "queued", QueuedState: "queued",
			LeaseWorker: "worker-2", LeaseExpires: listNow.Add(time.Minute), Listed: true},
	}
}

// The table: one line per row under the header, each column what the
// row holds; a lease is "stuck?" only when it expired on an action that
// has not settled; the journal column tells journal-only rows apart.
func TestListTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteListTable(&b, listRows(), listNow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := [][]string{
		{"ACTION", "CAPABILITY", "STATE", "RESULT", "STARTED", "UPDATED", "LEASE", "TRIES", "JOURNAL"},
		{"act_stuck", "hermes_agent:prod:chat_stream", "running", "(queue", "queued)", "-", "3m", "1m", "worker-7", "EXPIRED", "2m", "ago:", "stuck?", "2", "-"},
		{"act_done", "hermes_agent:prod:responses_stream", "completed", "completed", "2h", "1h", "worker-1", "-", "yes"},
		{"act_live", "(sync,", "streaming)", "streaming", "-", "-", "-", "-", "-", "yes"},
		{"act_gone", "-", "-", "-", "-", "-", "-", "-", "yes", "(not", "listed)"},
		{"act_queued", "hermes_agent:prod:chat_stream", "queued", "-", "-", "-", "worker-2", "-", "-"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d:\n got %q\nwant %q", i, got, w)
		}
	}
	// The columns line up: every row's second column starts where the
	// header's does.
	col := strings.Index(lines[0], "CAPABILITY")
	for _, l := range lines[1:] {
		if l[col-2:col] != "  " || l[col] == ' ' {
			t.Errorf("column 2 does not start at %d: %q", col, l)
		}
	}

	b.Reset()
	if err := WriteListTable(&b, nil, listNow); err != nil {
		t.Fatal(err)
	}
	if b.String() != "no actions listed (a synchronous action appears here only once it has settled)\n" {
		t.Fatalf("empty list: %q", b.String())
	}
}

// jsonl: one object per row with every field, in the row's order.
func TestListJSONL(t *testing.T) {
	var b bytes.Buffer
	if err := WriteListJSONL(&b, listRows(), listNow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "action", "action_id": "act_stuck", "capability_id": "cap:hermes_agent:prod:chat_stream",
		"endpoint": "prod", "operation": "chat_stream", "state": "running", "queued_state": "queued", "result_status": "",
		"started_at": "2026-12-04T11:57:00Z", "updated_at": "2026-12-04T11:58:30Z", "lease_worker": "worker-7",
		"lease_expires_at": "2026-12-04T11:58:00Z", "lease_stuck": true, "retry_attempts": float64(2), "listed": true, "journal": false,
		"context": "", "unreachable": "", "verdict": ""}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %v, want %v", k, first[k], v)
		}
	}
	if len(first) != len(want) {
		t.Errorf("keys %v", first)
	}
	for i, w := range []struct {
		id                     string
		stuck, listed, journal bool
		started                string
	}{
		{"act_done", false, true, true, "2026-12-04T10:00:00Z"},
		{"act_live", false, false, true, ""},
		{"act_gone", false, false, true, ""},
		{"act_queued", false, true, false, ""},
	} {
		var o map[string]any
		if err := json.Unmarshal([]byte(lines[i+1]), &o); err != nil {
			t.Fatal(err)
		}
		if o["action_id"] != w.id || o["lease_stuck"] != w.stuck || o["listed"] != w.listed || o["journal"] != w.journal || o["started_at"] != w.started {
			t.Errorf("line %d: %v", i+2, o)
		}
	}
}

// A column is as wide as its widest cell: one hostile 1 MB field padded
// every row of the table to it. Each cell is cut to maxCell columns; the
// other rows stay narrow. The 1 MB field is the one of the report; the
// other columns' fields are 64 KiB each, a thousand cells wide and sixteen
// times the table's bound in bytes (six of 1 MB were 1 s of CPU under
// -race, measuring their widths).
func TestListTableCapsEachCell(t *testing.T) {
	t.Parallel() // its own rows, into its own buffer
	huge := strings.Repeat("x", 1<<20)
	wide := strings.Repeat("x", 64<<10)
	rows := []model.ActionRow{
		{ActionID: "act_1", CapabilityID: "cap:hermes_agent:sim:responses_stream", State: "completed", ResultStatus: huge, Listed: true},
		{ActionID: "act_2", CapabilityID: "cap:" + wide, State: wide, QueuedState: wide, LeaseWorker: wide, Listed: true},
		{ActionID: "act_3" + wide, CapabilityID: "cap:hermes_agent:sim:chat_stream", State: "running", Listed: true},
	}
	var b bytes.Buffer
	if err := WriteListTable(&b, rows, time.Now()); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 4096 {
		t.Fatalf("the table is %d bytes for 3 rows", b.Len())
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := len([]rune(line)); n > 9*(maxCell+2)+40 {
			t.Fatalf("a row of %d columns: %.200q", n, line)
		}
	}
	if !strings.Contains(b.String(), "act_1") || !strings.Contains(b.String(), "…") {
		t.Fatalf("table:\n%s", b.String())
	}
}
