package cli

import (
	"strings"
	"testing"

	"aipwatch/sim"
)

// reconcile's --read-timeout must be positive: 0 is a usage error before
// any request.
func TestReconcileReadTimeoutZeroIsAUsageError(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	code, out, _ := runWith(getenv, "reconcile", "--url", "http://127.0.0.1:1", "--output", "jsonl", "--read-timeout", "0s", "act_1")
	if v := lastJSON(t, out); code != 2 || v["code"] != "usage" || !strings.Contains(v["message"].(string), "--read-timeout") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// A review refused by aipd ends reconcile with aipd's own error: its code
// and the request it answered, not a generic review failure.
func TestReconcileReviewRefusedKeepsDaemonsError(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Finished: true, Token: "right-token-0123456789"})
	getenv, _ := stateEnv(t)
	code, out, _ := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
	v := lastJSON(t, out)
	if code != 1 || v["code"] != "auth.native_http_unauthorized" || !strings.HasPrefix(v["message"].(string), "status: ") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
