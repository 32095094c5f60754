package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// A column is as wide as its widest cell: one hostile 1 MB field padded
// every row of the table to it. Each cell is cut to maxCell columns; the
// other rows stay narrow.
func TestListTableCapsEachCell(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	rows := []model.ActionRow{
		{ActionID: "act_1", CapabilityID: "cap:hermes_agent:sim:responses_stream", State: "completed", ResultStatus: huge, Listed: true},
		{ActionID: "act_2", CapabilityID: "cap:" + huge, State: huge, QueuedState: huge, LeaseWorker: huge, Listed: true},
		{ActionID: "act_3" + huge, CapabilityID: "cap:hermes_agent:sim:chat_stream", State: "running", Listed: true},
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
