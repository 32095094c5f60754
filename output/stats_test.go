package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"aipwatch/model"
)

func statsFixture() []model.CapabilityStats {
	return []model.CapabilityStats{
		{CapabilityID: "cap:hermes_agent:ep:chat_stream", Actions: 193,
			Verdicts:   map[string]int{"verified": 170, "failed": 10, "unknown": 2, "not_judged": 3, "": 8},
			FirstToken: model.Quantiles{P50: 400, P95: 1900, N: 180}, Duration: model.Quantiles{P50: 6200, P95: 41000, N: 180},
			TotalTokens: 1_234_567, Reported: 170},
		{CapabilityID: "cap:hermes_agent:ep:responses\x1b]0;x\a", Actions: 1, Verdicts: map[string]int{"cancelled": 1}},
	}
}

// design §13: the jsonl rows, fixed keys, as the design writes them; the
// rows the listing's bound left unjudged are not_judged, as ls --verdict
// says, not unknown.
func TestWriteStatsJSONL(t *testing.T) {
	var b bytes.Buffer
	if err := WriteStats(&b, statsFixture(), true); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"stats","capability_id":"cap:hermes_agent:ep:chat_stream","actions":193,` +
		`"verdicts":{"verified":170,"partial":0,"failed":10,"truncated":0,"incomplete":0,"cancelled":0,"unknown":2,"not_judged":3},` +
		`"first_token_ms":{"p50":400,"p95":1900,"n":180},"duration_ms":{"p50":6200,"p95":41000,"n":180},` +
		`"total_tokens":1234567,"usage_reported":170}` + "\n" +
		`{"type":"stats","capability_id":"cap:hermes_agent:ep:responses␛]0;x␇","actions":1,` +
		`"verdicts":{"verified":0,"partial":0,"failed":0,"truncated":0,"incomplete":0,"cancelled":1,"unknown":0,"not_judged":0},` +
		`"first_token_ms":{"p50":null,"p95":null,"n":0},"duration_ms":{"p50":null,"p95":null,"n":0},` +
		`"total_tokens":0,"usage_reported":0}` + "\n"
	if b.String() != want {
		t.Errorf("\n got %s\nwant %s", b.String(), want)
	}
}

func TestWriteStatsTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteStats(&b, statsFixture(), false); err != nil {
		t.Fatal(err)
	}
	// The capability in ls's words (model.Cells), the tokens over the
	// actions that reported them, as each figure says its n.
	want := "" +
		"CAPABILITY                       ACTIONS  VERDICTS                                          FIRST TOKEN p50  p95   DURATION p50  p95  TOKENS\n" +
		"hermes_agent:ep:chat_stream      193      170 verified, 10 failed, 2 unknown, 3 not_judged  0.4s (180)       1.9s  6.2s (180)    41s  1,234,567 (170)\n" +
		"hermes_agent:ep:responses␛]0;x␇  1        1 cancelled                                       -                -     -             -    -\n"
	if b.String() != want {
		t.Errorf("\n got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	_ = WriteStats(&b, nil, false)
	if b.String() != "no settled actions listed\n" {
		t.Errorf("%q", b.String())
	}
	b.Reset()
	_ = WriteStats(&b, nil, true)
	if b.Len() != 0 {
		t.Errorf("jsonl of nothing: %q", b.String())
	}
	if strings.Contains(want, "\x1b") {
		t.Fatal("the fixture's escape reached the table")
	}
}

// design §13: jsonl stats bounds a daemon's capability ID as the table
// does, 64 characters: one of 100,000 is not written whole.
func TestWriteStatsJSONLBoundsTheCapability(t *testing.T) {
	long := "cap:hermes_agent:ep:" + strings.Repeat("é", 100_000)
	var b bytes.Buffer
	if err := WriteStats(&b, []model.CapabilityStats{{CapabilityID: long, Actions: 1, Verdicts: map[string]int{"verified": 1}}}, true); err != nil {
		t.Fatal(err)
	}
	var o struct {
		CapabilityID string `json:"capability_id"`
	}
	if err := json.Unmarshal(b.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(o.CapabilityID); n > 64 || !strings.HasPrefix(o.CapabilityID, "cap:hermes_agent:ep:éé") || !strings.HasSuffix(o.CapabilityID, "…") {
		t.Fatalf("%d characters: %q", n, o.CapabilityID[:min(len(o.CapabilityID), 200)])
	}
	b.Reset()
	exact := "cap:" + strings.Repeat("x", 60) // 64: whole
	_ = WriteStats(&b, []model.CapabilityStats{{CapabilityID: exact, Actions: 1, Verdicts: map[string]int{}}}, true)
	if !strings.Contains(b.String(), `"`+exact+`"`) {
		t.Fatalf("a 64-character ID cut: %s", b.String())
	}
}
