package ui

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"aipwatch/stream"
)

// sinkBackend hands its sink to the test (sinks) and runs until its
// context ends, or, with script, sends what script sends and returns.
type sinkBackend struct {
	sinks  chan stream.Sink
	script func(stream.Sink)
}

func (b *sinkBackend) Run(ctx context.Context, sink stream.Sink) error {
	if b.script != nil {
		b.script(sink)
		return nil
	}
	b.sinks <- sink
	<-ctx.Done()
	return ctx.Err()
}

func (b *sinkBackend) Cancel(context.Context, string) stream.CancelMsg { return stream.CancelMsg{} }

// gatheredViews are n live views of one gather, their backends started.
func gatheredViews(t *testing.T, g *Gather, backends []*sinkBackend) []*Live {
	t.Helper()
	var views []*Live
	for i, b := range backends {
		v := NewLive(context.Background(), Options{ActionID: fmt.Sprintf("act_gather_%d", i), Backend: b, Gather: g, NoColor: true})
		t.Cleanup(v.Close)
		if v.run.listen() != nil {
			t.Fatal("a gathered view listens for its stream itself")
		}
		v.run.startCmd()()
		views = append(views, v)
	}
	return views
}

// The batches four views' streams sent in one tick come back as one
// message: the gather's (its ID), with each view's part a ViewMsg naming
// that view, in the order the views were made.
func TestGatherTakesATickOfEveryViewAsOneMessage(t *testing.T) {
	g := NewGather()
	defer g.Close()
	var backends []*sinkBackend
	for range 4 {
		backends = append(backends, &sinkBackend{sinks: make(chan stream.Sink, 1)})
	}
	views := gatheredViews(t, g, backends)
	for i, b := range backends {
		(<-b.sinks).Send(stream.CursorMsg{Cursor: "aev_cursor_" + strconv.Itoa(i)})
	}
	msg, ok := g.Listen()().(ViewMsg)
	if !ok || msg.ID != g.ID() {
		t.Fatalf("the gather's listen gave %#v, not a message of its own", msg)
	}
	parts, ok := g.Parts(msg)
	if !ok || len(parts) != 4 {
		t.Fatalf("%d parts (ok %v), want the four views'", len(parts), ok)
	}
	for i, p := range parts {
		in, _ := p.msg.(incomingMsg)
		if p.ID != views[i].ID() || len(in) != 1 || in[0] != (stream.CursorMsg{Cursor: "aev_cursor_" + strconv.Itoa(i)}) {
			t.Fatalf("part %d is %#v, want view %d's cursor", i, p, views[i].ID())
		}
	}
	if _, ok := g.Parts(ViewMsg{ID: views[0].ID(), msg: tickMsg{}}); ok {
		t.Fatal("a view's own message taken for the gather's")
	}
}

// A view with nothing to say holds the others back for gatherHold at
// most: the one that sent comes alone.
func TestGatherDoesNotWaitForAQuietView(t *testing.T) {
	g := NewGather()
	defer g.Close()
	backends := []*sinkBackend{{sinks: make(chan stream.Sink, 1)}, {sinks: make(chan stream.Sink, 1)}}
	views := gatheredViews(t, g, backends)
	<-backends[1].sinks // started, quiet
	(<-backends[0].sinks).Send(stream.CursorMsg{Cursor: "aev_cursor_1"})
	parts, _ := g.Parts(g.Listen()().(ViewMsg))
	if len(parts) != 1 || parts[0].ID != views[0].ID() {
		t.Fatalf("parts %#v, want the first view's alone", parts)
	}
}

// Four streams sending as fast as they can, at once: every view gets
// every message of its own stream, in order, none of another's, and its
// stream's end last; under -race the gather's goroutines share nothing
// unguarded.
func TestGatherKeepsEachViewsOrder(t *testing.T) {
	const n = 5000
	g := NewGather()
	defer g.Close()
	var backends []*sinkBackend
	for i := range 4 {
		backends = append(backends, &sinkBackend{script: func(s stream.Sink) {
			for k := range n {
				s.Send(stream.CursorMsg{Cursor: fmt.Sprintf("%d/%d", i, k)})
			}
		}})
	}
	views := gatheredViews(t, g, backends)
	next := make(map[ViewID]int)
	ended, messages := 0, 0
	for ended < len(views) {
		parts, ok := g.Parts(g.Listen()().(ViewMsg))
		if !ok {
			t.Fatal("not the gather's message")
		}
		messages++
		for _, p := range parts {
			i := slicesIndex(views, p.ID)
			if i < 0 {
				t.Fatalf("a part of no view: %d", p.ID)
			}
			for _, m := range p.msg.(incomingMsg) {
				if _, ok := m.(backendExitMsg); ok {
					if next[p.ID] != n {
						t.Fatalf("view %d ended after %d of %d messages", i, next[p.ID], n)
					}
					next[p.ID]++
					ended++
					continue
				}
				want := stream.CursorMsg{Cursor: fmt.Sprintf("%d/%d", i, next[p.ID])}
				if m != want {
					t.Fatalf("view %d got %#v, want %#v", i, m, want)
				}
				next[p.ID]++
			}
		}
	}
	t.Logf("%d messages of %d views' stream in %d gathered messages", 4*n, len(views), messages)
}

func slicesIndex(views []*Live, id ViewID) int {
	for i, v := range views {
		if v.ID() == id {
			return i
		}
	}
	return -1
}
