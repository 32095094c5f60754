package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"aipwatch/model"
)

// `ls --verdict` (design §7): each settled row shows its verdict, a live
// row "-"; the Chat turn whose AIP result is completed but whose provider
// failed reads failed. Rows keep the list's order; stderr (not a terminal
// here) gets no progress.
func TestListVerdictTable(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "ls", "--demo", "--verdict")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr not a terminal, yet: %q", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	head := strings.Fields(lines[0])
	col := -1
	for i, h := range head {
		if h == "VERDICT" {
			col = i
		}
	}
	if col < 0 || head[col-1] != "RESULT" {
		t.Fatalf("no VERDICT column after RESULT: %q", lines[0])
	}
	want := map[string]string{
		"act_sim_console_done_chat_error": "failed",
		"act_sim_console_done_responses":  "verified",
		"act_sim_console_cancelled":       "cancelled",
		"act_sim_console_dead_lettered":   "failed",
		"act_sim_console_stuck_worker":    "-",
	}
	var order []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		order = append(order, f[0])
		if w, ok := want[f[0]]; ok {
			if f[col] != w {
				t.Errorf("%s: verdict %q, want %q\n%s", f[0], f[col], w, out)
			}
			delete(want, f[0])
		}
	}
	if len(want) != 0 {
		t.Errorf("rows missing: %v\n%s", want, out)
	}
	_, plain, _ := runCLI(t, "ls", "--demo")
	var plainOrder []string
	for _, l := range strings.Split(strings.TrimSpace(plain), "\n")[1:] {
		plainOrder = append(plainOrder, strings.Fields(l)[0])
	}
	if strings.Join(order, " ") != strings.Join(plainOrder, " ") {
		t.Errorf("order with --verdict %v, without %v", order, plainOrder)
	}
	if strings.Contains(plain, "VERDICT") {
		t.Errorf("VERDICT column without --verdict:\n%s", plain)
	}
}

// jsonl rows have the fixed key "verdict": judged with --verdict, ""
// without it.
func TestListVerdictJSONL(t *testing.T) {
	t.Parallel()
	for _, judged := range []bool{true, false} {
		args := []string{"ls", "--demo", "--output", "jsonl"}
		if judged {
			args = append(args, "--verdict")
		}
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Fatalf("%v: %q", err, l)
			}
			v, ok := obj["verdict"]
			if !ok {
				t.Fatalf("no verdict key: %s", l)
			}
			want := ""
			if judged && obj["action_id"] == "act_sim_console_done_chat_error" {
				want = "failed"
			}
			if (want != "" || !judged) && v != want {
				t.Errorf("judged=%v %s: verdict %q, want %q", judged, obj["action_id"], v, want)
			}
		}
	}
}

// ls --all-contexts --verdict judges each context's rows against its own
// daemon: the chat-error row of both reads failed, and CONTEXT still comes
// first.
func TestListVerdictAllContexts(t *testing.T) {
	t.Parallel()
	urls := consoleDaemons(t, 2)
	f := newContextFixture(t, fmt.Sprintf("[contexts.east]\nurl = %q\n[contexts.west]\nurl = %q\n", urls[0], urls[1]))
	code, out, errOut := f.run("ls", "--all-contexts", "--verdict")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	head := strings.Fields(lines[0])
	if head[0] != "CONTEXT" || head[5] != "VERDICT" {
		t.Fatalf("header %q", lines[0])
	}
	failed := 0
	for _, l := range lines[1:] {
		if f := strings.Fields(l); f[1] == "act_sim_console_done_chat_error" && f[5] == "failed" {
			failed++
		}
	}
	if failed != 2 {
		t.Fatalf("chat-error rows judged failed: %d\n%s", failed, out)
	}
}

// design §13: ls --verdict=failed,incomplete judges the rows and keeps only
// those judged so (the Chat turn whose AIP result is completed but whose
// provider failed among them); the bare --verdict still shows every row.
func TestListVerdictKeepsOnlyThose(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "ls", "--demo", "--output", "jsonl", "--verdict=failed,incomplete")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			ID      string `json:"action_id"`
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		got[row.ID] = row.Verdict
	}
	want := map[string]string{"act_sim_console_done_chat_error": "failed", "act_sim_console_dead_lettered": "failed"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	_, all, _ := runCLI(t, "ls", "--demo", "--output", "jsonl", "--verdict")
	if n := strings.Count(all, "\n"); n <= len(want) {
		t.Errorf("the bare --verdict kept %d rows:\n%s", n, all)
	}
}

// A word that is no verdict is a usage error, before any request (no
// daemon listens at the URL).
func TestListVerdictUnknownWord(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--verdict=failed,completed", "--verdict=", "--verdict=FAILED"} {
		code, out, errOut := runCLI(t, "ls", "--url", "http://127.0.0.1:1", arg)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "verdict") || !strings.Contains(errOut, "verified, partial, failed") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
}

// Completion offers the verdict words, after a comma too.
func TestListVerdictCompletion(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "__complete", "ls", "--verdict=failed,inc")
	if code != 0 || !strings.Contains(out, "failed,incomplete\n") || !strings.Contains(out, "failed,verified\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
