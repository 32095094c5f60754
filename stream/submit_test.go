package stream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
)

// Each reply form of POST /aip/v1/actions (protocol §1.2) and what Post
// makes of it: a definite answer, or an uncertain submission.
func TestPostReplyForms(t *testing.T) {
	cases := []struct {
		name      string
		handler   http.HandlerFunc
		ack       string
		result    string
		code      string
		uncertain bool
	}{
		{"ack", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"aip_version":"1.0","in_response_to":"msg_1","body":{"ack":{"action_id":"act_1","status":"queued"}}}`)
		}, "queued", "", "", false},
		{"result", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"body":{"action_result":{"action_id":"act_1","status":"completed","output":{"x":1}}}}`)
		}, "", "completed", "", false},
		{"replayed result", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"body":{"action_result":{"action_id":"act_1","status":"completed","output":{"x":1,"idempotent_replay":true}}}}`)
		}, "", "completed", "", false},
		{"replayed result", func(w http.ResponseWriter, r *http.Request) {
			// protocol open point 2: a result whose output was
			// not an object comes back with the output replaced by the mark.
			io.WriteString(w, `{"body":{"action_result":{"action_id":"act_1","status":"failed","output":{"idempotent_replay":true},"error":{"code":"connector.hermes_agent.transport","message":"m"}}}}`)
		}, "", "failed", "", false},
		{"failed result", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"body":{"action_result":{"action_id":"act_1","status":"failed","error":{"code":"idempotency.conflict","message":"m","category":"permanent"}}}}`)
		}, "", "failed", "", false},
		{"error envelope", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"body":{"error":{"error":{"code":"action.id_conflict","message":"bound","category":"permanent"}}}}`)
		}, "", "", "action.id_conflict", false},
		{"replay", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			io.WriteString(w, `{"body":{"error":{"error":{"code":"replay.message_id","message":"used","category":"auth"}}}}`)
		}, "", "", "replay.message_id", false},
		{"connector 502 envelope", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(502)
			io.WriteString(w, `{"body":{"error":{"error":{"code":"connector.hermes_agent.http_error","message":"429","category":"connector"}}}}`)
		}, "", "", "connector.hermes_agent.http_error", false},
		{"proxy page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(504)
			io.WriteString(w, `<html>gateway timeout</html>`)
		}, "", "", "", true},
		{"connection dropped", func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			panic(http.ErrAbortHandler)
		}, "", "", "", true},
		{"not an envelope", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"body":{}}`)
		}, "", "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = r.Method + " " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + string(b)
				mu.Unlock()
				r.Body = io.NopCloser(strings.NewReader(""))
				c.handler(w, r)
			}))
			defer srv.Close()
			cl, err := New(Config{BaseURL: srv.URL + "/prefix/", ActionID: "act_1", Token: "tok"})
			if err != nil {
				t.Fatal(err)
			}
			out := cl.Post(context.Background(), []byte(`{"x":1}`), c.name == "result" || c.name == "replayed result")
			mu.Lock()
			defer mu.Unlock()
			if !strings.HasPrefix(got, "POST /prefix/aip/v1/actions application/json {\"x\":1}") {
				t.Fatalf("request: %q", got)
			}
			if out.Uncertain != c.uncertain {
				t.Fatalf("uncertain %v: %+v", out.Uncertain, out.Err)
			}
			switch {
			case c.ack != "":
				if out.Reply.Ack == nil || out.Reply.Ack.Status != c.ack || out.Reply.InResponseTo != "msg_1" {
					t.Fatalf("%+v", out)
				}
			case c.result != "":
				if out.Reply.Result == nil || out.Reply.Result.Status != c.result || out.Reply.Replay != (c.name == "replayed result") {
					t.Fatalf("%+v", out)
				}
			case c.code != "":
				if out.Err == nil || out.Err.Code != c.code || out.Err.Op != "submit" {
					t.Fatalf("%+v", out.Err)
				}
			}
			if out.Err != nil && strings.Contains(out.Err.Error(), "tok") {
				t.Fatal("the token leaked into the error")
			}
		})
	}
}

func TestRefusedBeforeRun(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{"action_id":"a","status":"failed","error":{"code":"action.input_schema_invalid","message":"m"}}`, true},
		{`{"action_id":"a","status":"pending_approval","output":{"approval_id":"x"}}`, true},
		{`{"action_id":"a","status":"pending_approval"}`, true},
		{`{"action_id":"a","status":"failed","output":{"operation":"chat_stream","events":[]},"error":{"code":"connector.hermes_agent.stream_failed","message":"m"}}`, false},
		{`{"action_id":"a","status":"completed"}`, false},
	} {
		rep, err := decodeSubmitReply([]byte(`{"body":{"action_result":` + c.raw + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := refusedBeforeRun(*rep.Result); got != c.want {
			t.Errorf("%s: %v", c.raw, got)
		}
	}
}

// Part A §1.3: only output.idempotent_replay: true marks a replay.
func TestIdempotentReplayMark(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"idempotent_replay":true}`:             true,
		`{"events":[],"idempotent_replay":true}`: true,
		`{"idempotent_replay":false}`:            false,
		`{"idempotent_replay":"true"}`:           false,
		`{"x":{"idempotent_replay":true}}`:       false,
		`[true]`:                                 false,
		``:                                       false,
	} {
		if got := idempotentReplay([]byte(raw)); got != want {
			t.Errorf("%s: %v", raw, got)
		}
	}
}

// The client against a keyless async resend of a settled action
// (protocol open point 1): acked, the old result read while
// the new record is queued, then dead_lettered with the old result
// overwritten by the failed publication. A follow opened in between ends
// on what aipd shows then (the old run, verified); a review after the
// worker failed it ends failed, on the code that says why.
func TestFollowAsyncKeylessResend(t *testing.T) {
	t.Parallel()
	s, err := sim.New("chat-tools", sim.Knobs{Speed: 8, PollInterval: 5 * time.Millisecond, Submit: sim.SubmitKnobs{Await: true}})
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	serial := 0
	post := func() {
		serial++
		env := fmt.Sprintf(`{"aip_version":"1.0","message_type":"aip.core.v1.action","message_id":"msg_rerun_%d","sent_at":%q,`+
			`"body":{"action":{"id":%q,"capability_id":"cap:hermes_agent:sim:chat_stream","mode":"async","input":{"messages":[{"role":"user","content":"hi"}]}}}}`,
			serial, time.Now().UTC().Format(time.RFC3339Nano), s.ActionID())
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := hc.Post(url+"/aip/v1/actions", "application/json", strings.NewReader(env))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"ack"`) {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	}
	follow := func() *model.Action {
		c, err := New(Config{BaseURL: url, ActionID: s.ActionID(), IdleTimeout: 5 * time.Second, BackoffMin: time.Millisecond,
			BackoffMax: 20 * time.Millisecond, BatchInterval: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a budget, not a bound under test
		defer cancel()
		rec := &recorder{}
		if err := c.Run(ctx, rec); err != nil {
			t.Fatalf("%v\n%s", err, summary(rec.all()))
		}
		a := model.NewAction(s.ActionID())
		for _, m := range rec.all() {
			Apply(a, m)
		}
		return a
	}
	post()
	<-s.Settled()
	first := s.Settled()
	post()
	if s.Settled() == first || s.Submissions()[1].Rerun != true {
		t.Fatalf("no re-run: %+v", s.Submissions())
	}
	if v := follow().Verdict(); v.Word != model.VerdictVerified && !strings.HasPrefix(v.Detail, "connector.hermes_agent.stream_publication") {
		t.Fatalf("follow during the re-run: %s %v", v.Word, v.Reasons)
	}
	<-s.Settled()
	if v := follow().Verdict(); v.Word != model.VerdictFailed || !strings.HasPrefix(v.Detail, "connector.hermes_agent.stream_publication") {
		t.Fatalf("review after the re-run: %s %q %v", v.Word, v.Detail, v.Reasons)
	}
}

// protocol open point 3: under a collision rule other than
// Hermes' ReturnOriginalResult, a used key is a 200 failed result,
// idempotency.conflict or idempotency.input_hash_mismatch, with details
// {key, original_action_id, current_action_id}. The submission ends on it
// (nothing ran) and names the action that owns the key. The follow runs
// against a simulator that never sees this ID (unknown).
func TestSubmissionIdempotencyRefusalNamesTheOwner(t *testing.T) {
	for _, code := range []string{CodeIdempotencyConflict, CodeInputHashMismatch} {
		t.Run(code, func(t *testing.T) {
			s, err := sim.New("chat-tools", sim.Knobs{PollInterval: 5 * time.Millisecond, Submit: sim.SubmitKnobs{Await: true}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			daemon := s.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					daemon.ServeHTTP(w, r)
					return
				}
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"body":{"action_result":{"action_id":"act_new_1","status":"failed","error":{"code":%q,"message":"used",`+
					`"category":"policy","details":{"key":"k1","original_action_id":"act_orig_1","current_action_id":"act_new_1"}}}}}`, code)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL, ActionID: "act_new_1", AppearTimeout: time.Minute,
				BackoffMin: time.Millisecond, BackoffMax: 20 * time.Millisecond, BatchInterval: 5 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			sub := &Submission{Client: c, Envelope: func(int) ([]byte, error) { return []byte(`{}`), nil }, Sync: true}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a budget, not a bound under test
			defer cancel()
			rec := &recorder{}
			if err := sub.Run(ctx, rec); err != nil {
				t.Fatal(err)
			}
			var notes []string
			var result *model.ActionResult
			for _, m := range rec.all() {
				switch m := m.(type) {
				case SubmitMsg:
					notes = append(notes, m.Note)
				case ResultMsg:
					result = &m.Result
				}
			}
			joined := strings.Join(notes, "\n")
			if result == nil || result.Error == nil || result.Error.Code != code || !strings.Contains(joined, "act_orig_1") ||
				!strings.Contains(joined, "refused act_new_1 before it ran") {
				t.Fatalf("result %+v\nnotes:\n%s", result, joined)
			}
		})
	}
}

// What replyMismatch takes as a reply about this POST, and what not.
func TestReplyMismatch(t *testing.T) {
	env := []byte(`{"message_id":"msg_1","body":{"action":{"id":"act_1"}}}`)
	cases := []struct {
		name  string
		reply string
		bad   bool
	}{
		{"ours", `{"in_response_to":"msg_1","body":{"ack":{"action_id":"act_1","status":"queued"}}}`, false},
		{"fields left out", `{"body":{"action_result":{"status":"completed"}}}`, false},
		{"another message", `{"in_response_to":"msg_2","body":{"ack":{"action_id":"act_1","status":"queued"}}}`, true},
		{"ack of another action", `{"body":{"ack":{"action_id":"act_2","status":"queued"}}}`, true},
		{"result of another action", `{"body":{"action_result":{"action_id":"act_2","status":"completed"}}}`, true},
		{"replay of the key's original (the caller decides)", `{"body":{"action_result":{"action_id":"act_0","status":"completed","output":{"idempotent_replay":true}}}}`, false},
		{"idempotency refusal naming this one", `{"body":{"action_result":{"action_id":"act_0","status":"failed","error":{"code":"idempotency.conflict","message":"m",` +
			`"category":"policy","details":{"original_action_id":"act_0","current_action_id":"act_1"}}}}}`, false},
	}
	for _, c := range cases {
		rep, err := decodeSubmitReply([]byte(c.reply))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e := replyMismatch(env, rep); (e != nil) != c.bad {
			t.Errorf("%s: %v", c.name, e)
		}
	}
}
