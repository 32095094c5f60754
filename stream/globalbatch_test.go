package stream

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/model"
)

// batchSizes records what each GlobalEventsMsg held.
type batchSizes struct {
	mu      sync.Mutex
	total   int
	largest int // events in one batch
	bytes   int // bytes in one batch
}

func (b *batchSizes) Send(m Msg) {
	ev, ok := m.(GlobalEventsMsg)
	if !ok {
		return
	}
	size := 0
	for i := range ev.Events {
		size += len(ev.Events[i].Data)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += len(ev.Events)
	b.largest = max(b.largest, len(ev.Events))
	b.bytes = max(b.bytes, size)
}

func (b *batchSizes) read() (total, largest, bytes int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total, b.largest, b.bytes
}

// A hostile global log that streams events and never sends a cursor frame
// (which ends a page): the follow hands them over in bounded batches, by
// count and by bytes, while the connection is still open, instead of
// gathering them until a cursor that never comes.
func TestGlobalFollowBoundsABatchWithoutCursorFrames(t *testing.T) {
	t.Parallel()
	const small, big, bigData = 3000, 200, 32 << 10
	frame := func(i int, data string) string {
		return fmt.Sprintf("event: aip.action.progress\ndata: {\"event\":{\"id\":\"evt_%d\",\"kind\":\"aip.action.progress\",\"action_id\":\"act_%d\",\"data\":{\"pad\":%q}}}\nid: evt_%d\n\n", i, i, data, i)
	}
	g := &globalLog{conn: func(w http.ResponseWriter, r *http.Request, _ int) {
		sseOK(w)
		var sb strings.Builder
		for i := range small {
			sb.WriteString(frame(i, "x"))
		}
		write(w, sb.String()) // one write: the reader gets them in few reads
		sb.Reset()
		pad := strings.Repeat("y", bigData)
		for i := range big {
			sb.WriteString(frame(small+i, pad))
		}
		write(w, sb.String())
		<-r.Context().Done() // and never a cursor frame, nor the end
	}}
	c := g.start(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	rec := &batchSizes{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.FollowGlobal(ctx, GlobalOptions{}, rec)
	}()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		total, _, _ := rec.read()
		if total == small+big {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events handed over while the connection streams without a cursor frame", total, small+big)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, largest, bytes := rec.read()
	if largest > 128 {
		t.Fatalf("a batch of %d events: more than 128", largest)
	}
	if bytes > 1<<20+bigData+64 {
		t.Fatalf("a batch of %d bytes of data: more than 1 MiB and an event", bytes)
	}
}

// While catching up the window is bounded in bytes as well as in events:
// a log of huge events keeps the newest of them up to 8 MiB, not the last
// 500 whatever their size.
func TestGlobalCatchUpWindowBoundedInBytes(t *testing.T) {
	g := &globalFollow{window: 500}
	g.catchUp()
	data := []byte(`"` + strings.Repeat("z", 256<<10) + `"`)
	for i := range 2000 {
		g.keep(model.Event{ID: fmt.Sprint("evt_", i), Data: data})
		if held := len(g.ring) - g.ringAt; held*len(data) > 8<<20+len(data) {
			t.Fatalf("after %d events the window holds %d of %d bytes: more than 8 MiB", i+1, held, len(data))
		}
		if len(g.ring) > 2*500 {
			t.Fatalf("the window's slice grew to %d", len(g.ring))
		}
	}
	if g.read != 2000 || g.ring[len(g.ring)-1].ID != "evt_1999" {
		t.Fatalf("read %d, newest %s", g.read, g.ring[len(g.ring)-1].ID)
	}
	// Small events: the count bound, the newest 500 in order.
	g.catchUp()
	for i := range 5000 {
		g.keep(model.Event{ID: fmt.Sprint(i)})
	}
	held := g.ring[g.ringAt:]
	if len(held) != 500 || held[0].ID != "4500" || held[499].ID != "4999" {
		t.Fatalf("the window holds %d events, %s..%s", len(held), held[0].ID, held[len(held)-1].ID)
	}
}
