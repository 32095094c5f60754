package model

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureNames lists every recorded scenario (testdata/*.result.json).
func fixtureNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.result.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out []string
	for _, f := range files {
		out = append(out, strings.TrimSuffix(filepath.Base(f), ".result.json"))
	}
	return out
}

// The chunks read from a result's output.events are the chunks the
// connector published for the same frames (protocol §8.2): for every
// recorded scenario, the same sequence, kind, part and data, and the extra
// error chunk of a stream closed without a terminal frame.
func TestChunksOfResultAreTheConnectorsChunks(t *testing.T) {
	t.Parallel()
	for _, name := range fixtureNames(t) {
		want := loadChunks(t, name)
		r := loadResult(t, name)
		got, skipped := ChunksOfResult(want[0].ActionID, &r)
		if skipped != 0 || len(got) != len(want) {
			t.Errorf("%s: %d chunks (%d skipped), want %d", name, len(got), skipped, len(want))
			continue
		}
		for i := range want {
			var g, w any
			_ = json.Unmarshal(got[i].Raw, &g)
			_ = json.Unmarshal(want[i].Raw, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s chunk %d:\n got %s\nwant %s", name, i, got[i].Raw, want[i].Raw)
			}
		}
	}
}

// design §14: an action whose store holds no chunk, read from its result
// alone, shows and judges what the chunks and the result would have given
// (the text, tools, finish, usage, anomalies and verdict), and says that
// it recorded no live chunk.
func TestResultEventsJudgeAsChunks(t *testing.T) {
	t.Parallel()
	for _, name := range fixtureNames(t) {
		chunks := loadChunks(t, name)
		id := chunks[0].ActionID
		live := scenario(t, name, true)
		fromResult := NewAction(id)
		fromResult.SetCursor("aev_cursor_9_" + name) // as scenario's follow ends
		fromResult.MarkTerminalFrame()
		n := fromResult.ReadResultEvents(loadResult(t, name))
		fromResult.SetResult(loadResult(t, name))
		if n != len(chunks) || !fromResult.NoLiveChunks() || live.NoLiveChunks() {
			t.Errorf("%s: read %d chunks from the result (want %d), NoLiveChunks %v/%v", name, n, len(chunks), fromResult.NoLiveChunks(), live.NoLiveChunks())
		}
		if g, w := snapshot(fromResult), snapshot(live); g != w {
			t.Errorf("%s: read from the result:\n%s\nfrom the chunks:\n%s", name, g, w)
		}
	}
	// The two the issue names: a stop finish verified, a length finish partial.
	for name, word := range map[string]string{"chat_stop": VerdictVerified, "chat_length": VerdictPartial, "responses_completed": VerdictVerified} {
		a := NewAction(loadChunks(t, name)[0].ActionID)
		a.ReadResultEvents(loadResult(t, name))
		a.SetResult(loadResult(t, name))
		if v := a.Verdict(); v.Word != word || a.Text() == "" {
			t.Errorf("%s from its result: %s %v, text %q; want %s", name, v.Word, v.Reasons, a.Text(), word)
		}
	}
}

// Chunks win when present: a result whose events repeat chunks already
// retained is not read again (no text twice), even when the chunks are
// only some of its frames; and a result is read once.
func TestResultEventsNotReadOverChunks(t *testing.T) {
	t.Parallel()
	chunks := loadChunks(t, "chat_stop")
	r := loadResult(t, "chat_stop")
	a := NewAction(chunks[0].ActionID)
	feed(t, a, chunks[:2]) // the follow saw only the first frames
	if n := a.ReadResultEvents(r); n != 0 || a.NoLiveChunks() || a.ChunkCount() != 2 {
		t.Fatalf("read %d chunks over retained ones (NoLiveChunks %v, %d chunks)", n, a.NoLiveChunks(), a.ChunkCount())
	}
	b := NewAction(chunks[0].ActionID)
	first := b.ReadResultEvents(r)
	again := b.ReadResultEvents(r)
	if first != len(chunks) || again != 0 || b.ChunkCount() != len(chunks) {
		t.Fatalf("read %d then %d, %d chunks kept", first, again, b.ChunkCount())
	}
	// A live chunk arriving after them is a replay of the same frame.
	for _, c := range chunks {
		if got := b.IngestChunk(c, t0); got != Replayed {
			t.Fatalf("chunk %d after the result's: %v, want a replay", c.Sequence, got)
		}
	}
	// Another action's result is no evidence (design §3).
	other := NewAction("act_other")
	if n := other.ReadResultEvents(r); n != 0 {
		t.Fatalf("read %d chunks of another action's result", n)
	}
	// A result without events (another connector, a cancelled run) reads nothing.
	c := NewAction(chunks[0].ActionID)
	if n := c.ReadResultEvents(completedResult(chunks[0].ActionID, OpChat)); n != 0 || c.NoLiveChunks() {
		t.Fatalf("read %d chunks of a result without events", n)
	}
}

// A fleet's refusal before Hermes ran (protocol §13.4) has no provider
// state: reconciling says nothing ran, never that effects may exist.
func TestReconcileOfARefusalBeforeHermes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ code, msg string }{
		{CodeHostNotReady, "connector host is draining"},
		{CodeSchedulerOverloaded, "remote action queue is full"},
		{"auth.not_authorized", "authorization failed: remote connector execution requires a verified tenant"},
	} {
		a := NewAction("act_r")
		a.SetResult(ActionResult{ActionID: "act_r", Status: ResultFailed, Error: &ProtocolError{Code: c.code, Message: c.msg}})
		r, ok := a.Reconcile()
		if !ok || !strings.HasPrefix(r.Advice, "nothing ran") || strings.Contains(r.Advice, "may already exist") {
			t.Errorf("%s: %v %q", c.code, ok, r.Advice)
		}
	}
	a := NewAction("act_r")
	a.SetResult(ActionResult{ActionID: "act_r", Status: ResultFailed, Error: &ProtocolError{Code: "connector.hermes_agent.transport"}})
	if r, _ := a.Reconcile(); strings.HasPrefix(r.Advice, "nothing ran") {
		t.Errorf("a transport failure mid-run reads as nothing ran: %q", r.Advice)
	}
}
