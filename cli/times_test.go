package cli

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

// Reviewing a finished action times its tools by aipd's
// event times (occurred_at), not by when the pages were read (all at once:
// every tool 0s).
func TestReviewToolDurationsComeFromEventTimes(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Speed: 10, PollInterval: 5 * time.Millisecond})
	resp, err := http.Get(srv.URL() + "/aip/v1/actions/" + srv.ActionID()) // starts the script
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-srv.Settled():
	case <-time.After(60 * time.Second):
		t.Fatal("the simulator did not settle")
	}
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "plain", srv.ActionID())
	if code != 0 || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	// The script runs each tool for about a second; at Speed 10 about
	// 100 ms (more on a loaded machine, never 0).
	re := regexp.MustCompile(`tool .*: completed in (\S+)`)
	ms := re.FindAllStringSubmatch(out, -1)
	if len(ms) != 2 {
		t.Fatalf("want two completed tool lines:\n%s", out)
	}
	for _, m := range ms {
		d, err := time.ParseDuration(m[1])
		if err != nil || d < 50*time.Millisecond {
			t.Errorf("reviewed tool duration %q: want the recorded ~100ms, not the read time\n%s", m[1], out)
		}
	}
}
