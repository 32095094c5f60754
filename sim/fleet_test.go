package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func startFleet(t *testing.T, k FleetKnobs, members ...Member) (*Fleet, string) {
	t.Helper()
	f, err := NewFleet(k, members...)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f, u
}

type listReply struct {
	L struct {
		Actions []map[string]any `json:"actions"`
		Total   int              `json:"total_size"`
		Cursor  *string          `json:"cursor"`
	} `json:"action_list"`
}

func listT(t *testing.T, u, query string) listReply {
	t.Helper()
	r := get(t, u+"/aip/v1/actions?"+query)
	if r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	var l listReply
	mustJSON(t, r.body, &l)
	return l
}

// §2.1: only actions with a queue record or a result are listed (a live
// synchronous action is not); filters are exact; offset paging with a
// cursor omitted on the last page; updated_at ascending.
func TestFleetList(t *testing.T) {
	_, u := startFleet(t, FleetKnobs{},
		Member{"long", Knobs{Speed: 1, ActionID: "act_live_sync"}},
		Member{"async-long", Knobs{Speed: 1, ActionID: "act_live_async"}},
		Member{"chat-tools", Knobs{Finished: true, ActionID: "act_done_chat"}},
		Member{"responses-tools", Knobs{Finished: true, ActionID: "act_done_resp"}},
	)
	l := listT(t, u, "")
	var ids []string
	for _, a := range l.L.Actions {
		ids = append(ids, a["action_id"].(string))
		if a["state"] == "streaming" {
			t.Fatalf("a listed action reads streaming: %v", a)
		}
	}
	if l.L.Total != 3 || strings.Contains(strings.Join(ids, ","), "act_live_sync") || l.L.Cursor != nil {
		t.Fatalf("%d %v cursor %v", l.L.Total, ids, l.L.Cursor)
	}
	p1 := listT(t, u, "limit=2")
	if len(p1.L.Actions) != 2 || p1.L.Cursor == nil || *p1.L.Cursor != "offset:2" {
		t.Fatalf("page 1: %+v", p1.L)
	}
	p2 := listT(t, u, "limit=2&cursor="+*p1.L.Cursor)
	if len(p2.L.Actions) != 1 || p2.L.Cursor != nil {
		t.Fatalf("page 2: %+v", p2.L)
	}
	if l := listT(t, u, "state=queued"); l.L.Total != 1 || l.L.Actions[0]["action_id"] != "act_live_async" {
		t.Fatalf("state filter: %+v", l.L)
	}
	if l := listT(t, u, "capability_id=cap:hermes_agent:sim:responses_stream"); l.L.Total != 1 {
		t.Fatalf("capability filter: %+v", l.L)
	}
	pe := envelopeError(t, get(t, u+"/aip/v1/actions?cursor=7"), http.StatusBadRequest)
	if pe.Code != "query.invalid_cursor" {
		t.Fatalf("%+v", pe)
	}
	// Per-action routes reach their own action.
	if st := statusT(t, u, "act_done_resp"); st["state"] != "completed" {
		t.Fatalf("%v", st)
	}
}

// §2.2: the global log needs events:read:any; it shows the live
// synchronous action's chunks; its follow never ends with a terminal frame.
func TestFleetGlobalEvents(t *testing.T) {
	t.Parallel()
	_, u := startFleet(t, FleetKnobs{Token: "tok"}, Member{"chat-tools", Knobs{Finished: true, ActionID: "act_a"}})
	pe := envelopeError(t, get(t, u+"/aip/v1/events", "Authorization", "Bearer tok"), http.StatusUnauthorized)
	if pe.Code != "auth.not_authorized" || !strings.Contains(pe.Message, "events:read:any") {
		t.Fatalf("%+v", pe)
	}

	_, u = startFleet(t, FleetKnobs{GlobalEvents: true, PollInterval: 5 * time.Millisecond, KeepaliveInterval: 20 * time.Millisecond},
		Member{"long", Knobs{Speed: 10, ActionID: "act_sync"}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
	r := get(t, u+"/aip/v1/events?kinds=aip.action.result&limit=1000")
	var page struct {
		S struct {
			Events []map[string]any `json:"events"`
			Next   string           `json:"next_cursor"`
		} `json:"event_stream"`
	}
	mustJSON(t, r.body, &page)
	if len(page.S.Events) != 1 || page.S.Events[0]["action_id"] != "act_done" || !strings.HasPrefix(page.S.Next, "evt_cursor_") {
		t.Fatalf("%s", r.body)
	}
	st := openFollow(t, u+"/aip/v1/events?follow=true&kinds=aip.stream.chunk")
	go func() { time.Sleep(300 * time.Millisecond); st.close() }()
	sawSync, sawCursor := false, false
	for _, f := range st.all() {
		switch f.event {
		case "aip.stream.chunk":
			var d struct {
				E struct {
					ActionID string `json:"action_id"`
				} `json:"event"`
			}
			_ = json.Unmarshal([]byte(f.data), &d)
			sawSync = sawSync || d.E.ActionID == "act_sync"
		case "aip.stream.cursor":
			sawCursor = true
		case "aip.stream.terminal":
			t.Fatal("the global log has no terminal frame")
		}
	}
	if !sawSync || !sawCursor {
		t.Fatalf("sync chunk events %v, cursor frames %v", sawSync, sawCursor)
	}
}

func TestConsoleFleetStarts(t *testing.T) {
	t.Parallel()
	f, err := ConsoleFleet(4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	if l := listT(t, u, ""); l.L.Total < 5 {
		t.Fatalf("%d listed", l.L.Total)
	}
}

// protocol open point 5: a successful response_get is an
// action of its own, listed once it settles; a rejected read (the
// provider's 404) is not, and a replayed one (the same idempotency key)
// is the first read again, with its action_id, not a second row.
func TestFleetListsCompletedReads(t *testing.T) {
	t.Parallel()
	f, u := startFleet(t, FleetKnobs{}, Member{"responses-tools", Knobs{Finished: true, ActionID: "act_done_resp"}})
	var respID string
	for _, c := range everything(t, f.Actions()[0], u).Chunks {
		if m := storedRespIDRE.FindSubmatch(c.Data); m != nil {
			respID = string(m[1])
			break
		}
	}
	read := func(id, resp string) (reply, replyEnv) {
		return postT(t, u, envelope(id, "cap:hermes_agent:sim:response_get", `{"response_id":"`+resp+`"}`, "", "rk-"+resp))
	}
	if r, env := read("act_read_ok", respID); r.status != 200 || env.Body.ActionResult == nil || env.Body.ActionResult.Status != "completed" {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	if r, _ := read("act_read_missing", "resp_missing"); r.status != 400 {
		t.Fatalf("a missing response: %d %s", r.status, truncate(r.body))
	}
	r, env := read("act_read_again", respID)
	if r.status != 200 || env.Body.ActionResult == nil || env.Body.ActionResult.ActionID != "act_read_ok" ||
		!strings.Contains(string(env.Body.ActionResult.Output), `"idempotent_replay":true`) {
		t.Fatalf("the second read under the same key: %d %s", r.status, truncate(r.body))
	}
	var reads []map[string]any
	for _, a := range listT(t, u, "").L.Actions {
		if strings.HasPrefix(a["action_id"].(string), "act_read") {
			reads = append(reads, a)
		}
	}
	if len(reads) != 1 || reads[0]["action_id"] != "act_read_ok" || reads[0]["state"] != "completed" ||
		reads[0]["capability_id"] != "cap:hermes_agent:sim:response_get" {
		t.Fatalf("listed reads: %v", reads)
	}
	if l := listT(t, u, "capability_id=cap:hermes_agent:sim:response_get"); l.L.Total != 1 {
		t.Fatalf("filtered by capability: %+v", l.L)
	}
	// The read's own ID reads like any settled action; /result unmarked.
	if st := statusT(t, u, "act_read_ok"); st["state"] != "completed" || st["capability_id"] != "cap:hermes_agent:sim:response_get" {
		t.Fatalf("the read's status: %v", st)
	}
	if r := get(t, u+"/aip/v1/actions/act_read_ok/result"); r.status != 200 || !strings.Contains(string(r.body), `"object":"response"`) ||
		strings.Contains(string(r.body), "idempotent_replay") {
		t.Fatalf("the read's result: %d %s", r.status, truncate(r.body))
	}
}
