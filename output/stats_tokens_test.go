package output

import (
	"bytes"
	"strings"
	"testing"

	"aipwatch/model"
)

// design §13: the tokens are over the actions whose usage was reported;
// usage reported as no token is a figure ("0 (2)"), not a dash, and a
// dash only when no action reported its usage.
func TestWriteStatsTokensOverTheReported(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	stats := []model.CapabilityStats{
		{CapabilityID: "cap:hermes_agent:ep:chat_stream", Actions: 2, Verdicts: map[string]int{"verified": 2}, Reported: 2},
		{CapabilityID: "cap:hermes_agent:ep:responses", Actions: 1, Verdicts: map[string]int{"verified": 1}},
	}
	if err := WriteStats(&b, stats, false); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(rows) != 3 || !strings.HasSuffix(rows[1], "  0 (2)") || !strings.HasSuffix(rows[2], "  -") {
		t.Fatalf("the tokens cells:\n%s", b.String())
	}
}
