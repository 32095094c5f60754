package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/sim"
)

// reconcileJSONL runs reconcile --output jsonl and decodes its one line.
func reconcileJSONL(t *testing.T, getenv func(string) string, args ...string) (code int, line map[string]any, out string) {
	t.Helper()
	code, out, errOut := runWith(getenv, append([]string{"reconcile", "--output", "jsonl"}, args...)...)
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line); err != nil {
		t.Fatalf("exit %d, not one JSON line (%v):\n%s\n%s", code, err, out, errOut)
	}
	return code, line, out
}

// reconcile --redact --output jsonl masks what --redact masks everywhere
// (design §5): the provider's response ID it read, and the verdict
// object's text and response ID; the same run without --redact shows them.
func TestReconcileJSONLRedacts(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "responses-failed", sim.Knobs{})
	_, plainRead, _ := reconcileJSONL(t, getenv, "--url", srv.URL(), srv.ActionID())
	verdict, _ := plainRead["verdict"].(map[string]any)
	target, _ := plainRead["target"].(string)
	text, _ := verdict["text"].(string)
	respID, _ := verdict["response_id"].(string)
	if !strings.HasPrefix(target, "resp_") || respID != target || len(text) < 8 {
		t.Fatalf("the plain read shows no response ID or text: %v", plainRead)
	}
	_, masked, out := reconcileJSONL(t, getenv, "--redact", "--url", srv.URL(), srv.ActionID())
	for _, secret := range []string{target, text} {
		if strings.Contains(out, secret) {
			t.Errorf("--redact jsonl holds %q:\n%s", secret, out)
		}
	}
	if masked["target"] != safe.Masked || masked["stored_status"] != plainRead["stored_status"] {
		t.Fatalf("--redact: %v", masked)
	}
}

// The read's journal line is synced before its POST leaves (design §6.2,
// §8): the simulator checks the journal as the POST arrives.
func TestReconcileJournalsBeforeItsPost(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	journalled := func(id string) error {
		entries, err := journal.Read(jpath)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.Kind == journal.KindReconcile && e.ActionID == id && e.MessageID != "" && e.IdempotencyKey != "" {
				return nil
			}
		}
		return fmt.Errorf("no reconcile line for %s when its POST arrived", id)
	}
	srv := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{BeforeAccept: journalled}})
	if code, line, _ := reconcileJSONL(t, getenv, "--url", srv.URL(), srv.ActionID()); code != 0 || line["stored_status"] != "failed" {
		t.Fatalf("exit %d: %v", code, line)
	}
	subs := srv.Submissions()
	if len(subs) != 1 || subs[0].CheckErr != nil {
		t.Fatalf("submissions: %+v", subs)
	}
}

// A read aipd refuses is no stored status: reconcile says refused and
// exits 1 (design §8), in plain and in jsonl; the verdict is still shown.
func TestReconcileRefusedExitsOne(t *testing.T) {
	t.Parallel()
	s, err := sim.New("responses-failed", sim.Knobs{PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	// aipd as the simulator, but every submission refused by policy.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			s.Handler().ServeHTTP(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"aip_version":"1.0","message_type":"aip.core.v1.error","body":{"error":{"error":{"code":"policy.denied","message":"read-only actions are not allowed","category":"permanent"}}}}`)
	}))
	t.Cleanup(ts.Close)
	getenv, _ := stateEnv(t)
	code, line, out := reconcileJSONL(t, getenv, "--url", ts.URL, s.ActionID())
	if code != model.ExitError || line["refused"] != true || !strings.Contains(out, "policy.denied") || line["stored_status"] != nil {
		t.Fatalf("jsonl: exit %d\n%s", code, out)
	}
	code, out, errOut := runWith(getenv, "reconcile", "--output", "plain", "--url", ts.URL, s.ActionID())
	if code != model.ExitError || !strings.Contains(out, "verdict: failed") || !strings.Contains(out, "stored: no answer") ||
		!strings.Contains(out, "refused: ") {
		t.Fatalf("plain: exit %d\n%s\n%s", code, out, errOut)
	}
}
