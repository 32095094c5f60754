package model

import (
	"reflect"
	"testing"
)

// TestAnomalyViewsAgreeWithAnomalies: FirstAnomalies, AnomaliesFrom and
// AnomalyCount are views of Anomalies() (ingestion facts first, then those
// found interpreting the frames) for every n and from, with both kinds
// present, so a printer that pages through them misses none and repeats
// none.
func TestAnomalyViewsAgreeWithAnomalies(t *testing.T) {
	a := NewAction("act_anoms")
	a.UndecodableChunk(1, "ingest one")
	a.UndecodableChunk(2, "ingest two")
	// Chat frames whose choices are not a list: anomalies of interpretation.
	for seq := uint64(0); seq < 3; seq++ {
		a.IngestChunk(hermes("act_anoms", seq, KindData, "", obj{"object": "chat.completion.chunk", "choices": "not a list"}), t0)
	}
	all := a.Anomalies()
	ingest, derived := 0, 0
	for _, an := range all {
		if an.Kind == AnomalyUndecodable && (an.Detail == "ingest one" || an.Detail == "ingest two") {
			ingest++
		} else {
			derived++
		}
	}
	if ingest != 2 || derived == 0 {
		t.Fatalf("anomalies %+v: want 2 of ingestion and some of interpretation", all)
	}
	if got := a.AnomalyCount(); got != len(all) {
		t.Errorf("AnomalyCount %d, want %d", got, len(all))
	}
	for n := 0; n <= len(all)+2; n++ {
		want := all[:min(n, len(all))]
		if got := a.FirstAnomalies(n); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("FirstAnomalies(%d) = %+v, want %+v", n, got, want)
		}
	}
	for from := 0; from <= len(all)+2; from++ {
		var want []Anomaly
		if from < len(all) {
			want = all[from:]
		}
		if got := a.AnomaliesFrom(from); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("AnomaliesFrom(%d) = %+v, want %+v", from, got, want)
		}
	}
}
