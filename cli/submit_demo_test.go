package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// submit --demo fills what is not given: the scenario's capability and its
// operation's input (a Responses body for a Responses scenario, Chat
// messages for a Chat one); what is given is kept.
func TestSubmitDemoFillsOnlyWhatIsNotGiven(t *testing.T) {
	t.Parallel()
	action := func(args ...string) map[string]any {
		t.Helper()
		getenv, _ := stateEnv(t)
		code, out, errOut := runWith(getenv, append([]string{"submit", "--dry-run", "--output", "jsonl"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, errOut, out)
		}
		var v struct {
			Envelope struct {
				Body struct {
					Action map[string]any `json:"action"`
				} `json:"body"`
			} `json:"envelope"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return v.Envelope.Body.Action
	}
	input := func(a map[string]any) string { b, _ := json.Marshal(a["input"]); return string(b) }

	a := action("--demo=responses-tools")
	if a["capability_id"] != "cap:hermes_agent:sim:responses_stream" || !strings.Contains(input(a), `"body":{`) {
		t.Errorf("responses demo: %v %s", a["capability_id"], input(a))
	}
	a = action("--demo=chat-tools")
	if a["capability_id"] != "cap:hermes_agent:sim:chat_stream" || !strings.Contains(input(a), `"messages":[`) {
		t.Errorf("chat demo: %v %s", a["capability_id"], input(a))
	}
	mine := `{"messages":[{"role":"user","content":"my own question"}],"model":"hermes-agent"}`
	a = action("--demo=chat-tools", "--input", mine, "cap:hermes_agent:mine:chat_stream")
	if a["capability_id"] != "cap:hermes_agent:mine:chat_stream" || !strings.Contains(input(a), "my own question") {
		t.Errorf("the given capability and input replaced: %v %s", a["capability_id"], input(a))
	}
}
