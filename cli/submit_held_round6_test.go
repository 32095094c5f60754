package cli

import (
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/sim"
)

// design §14, protocol §13: a streaming submission (the default of a
// chat_stream capability) is held open like a sync one until aipd answers
// with its result; the async POST's bound does not apply to it. The bound
// is shortened to far less than the run takes, so a POST bounded like an
// async one would be cut before its answer (the run then waits on the
// status instead).
func TestSubmitStreamingPostIsHeldLikeSync(t *testing.T) {
	saved := asyncPostTimeout
	asyncPostTimeout = 20 * time.Millisecond
	t.Cleanup(func() { asyncPostTimeout = saved })
	getenv, jpath := stateEnv(t)
	id := "act_test_submit_streaming_held_01"
	srv := startSim(t, "chat-tools", sim.Knobs{Speed: 10, PollInterval: 5 * time.Millisecond,
		Submit: sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(jpath)}})
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"--appear-timeout", "5s", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "verdict: verified") || strings.Contains(out, "no reply to the submission") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	entries, _ := journal.Read(jpath)
	if len(subs) != 1 || subs[0].Mode != "streaming" || subs[0].Reply != "result:completed" ||
		len(entries) < 2 || entries[1].Kind != journal.KindReply || entries[1].Reply != "result:completed" {
		t.Fatalf("the streaming POST did not get its result:\nsubmissions %+v\njournal %+v", subs, entries)
	}
}
