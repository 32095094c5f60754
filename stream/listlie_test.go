package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// lyingList serves a list of rows settled actions whose total_size counts
// skew rows more than it holds, and whose cursors go on to that total (an
// empty page past the last row still names a next one): a daemon whose
// count and paging are made before the rows it may show are chosen
// (protocol §2.1: each row passes action_visible_to_actor). It counts the
// requests.
func lyingList(t *testing.T, rows, skew int) (*Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		off, _ := strconv.Atoi(strings.TrimPrefix(q.Get("cursor"), "offset:"))
		total := rows
		if q.Get("state") != "" {
			total = 0 // nothing live
		}
		acts := []map[string]string{}
		for i := off; i < min(off+limit, total); i++ {
			acts = append(acts, map[string]string{"action_id": fmt.Sprintf("act_%06d", i), "state": "completed", "updated_at": "2026-01-01T00:00:00Z"})
		}
		list := map[string]any{"actions": acts, "total_size": total + skew}
		if total > 0 && off+limit < total+skew {
			list["cursor"] = "offset:" + strconv.Itoa(off+limit)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"action_list": list})
	}))
	t.Cleanup(srv.Close)
	c, err := NewDaemon(Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

// Issue 46 item 19: design §7's budget is a few requests a poll, whatever
// the history. On 50,000 rows whose total_size lies past the last row and
// whose cursors follow it, every poll searched for the list's end again
// and jumped back to the lying total (957 requests a poll, and no row).
// The first poll finds the end (a bisection: about log2 of the list) and
// says so; later ones read the tail from there by its cursors: five
// requests (three live states, two for the tail), the last 100 rows.
func TestPollOnALyingTotalStaysInItsBudget(t *testing.T) {
	t.Parallel()
	c, n := lyingList(t, 50_000, 500)
	p := c.NewPoller(0)
	w, err := p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got > 30 || len(w.Recent.Rows) != DefaultRecentRows || w.Recent.End != 50_000 {
		t.Fatalf("the first poll: %d requests, %d rows, end %d", got, len(w.Recent.Rows), w.Recent.End)
	}
	if len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "total_size (50500) is past its last row (50000)") {
		t.Fatalf("notes %q", w.Notes)
	}
	for i := range 5 {
		before := n.Load()
		w, err := p.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Load() - before; got > 5 {
			t.Fatalf("poll %d made %d list requests, want at most 5", i+2, got)
		}
		rows := w.Recent.Rows
		if len(rows) != DefaultRecentRows || rows[len(rows)-1].ActionID != "act_049999" {
			t.Fatalf("poll %d: %d rows", i+2, len(rows))
		}
		if len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "total_size is past its last row") {
			t.Fatalf("poll %d does not say the total lies: %q", i+2, w.Notes)
		}
	}
}
