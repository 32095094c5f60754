package sim

import (
	"net/http"
	"testing"
	"time"
)

// answers is whether a daemon at u answers its health route at all.
func answers(u string) bool {
	resp, err := http.Get(u + "/health")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// --demo=console: the console demo's fleet on loopback, ended by stop.
func TestStartConsoleDemo(t *testing.T) {
	t.Parallel()
	u, stop, err := StartConsoleDemo()
	if err != nil {
		t.Fatal(err)
	}
	if l := listT(t, u, ""); l.L.Total < 5 {
		t.Errorf("%d listed", l.L.Total)
	}
	if s := statusT(t, u, "act_sim_console_dead_lettered"); s["state"] != "dead_lettered" {
		t.Errorf("the console demo's dead-lettered action: %v", s)
	}
	stop()
	if answers(u) {
		t.Error("the console demo still answers after stop")
	}
}

// --demo=fleet: two daemons named east and west, east the console demo's
// actions and west three of its own; stop ends both.
func TestStartFleetDemo(t *testing.T) {
	t.Parallel()
	daemons, stop, err := StartFleetDemo(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(daemons) != 2 || daemons[0].Name != "east" || daemons[1].Name != "west" {
		t.Fatalf("daemons: %+v", daemons)
	}
	east, west := daemons[0].URL, daemons[1].URL
	if s := statusT(t, east, "act_sim_console_dead_lettered"); s["state"] != "dead_lettered" {
		t.Errorf("east's dead-lettered action: %v", s)
	}
	if s := statusT(t, west, "act_sim_west_done_length"); s["state"] != "completed" {
		t.Errorf("west's settled action: %v", s)
	}
	for _, id := range []string{"act_sim_west_async_responses", "act_sim_west_sync_long"} {
		statusT(t, west, id) // hosted (200), whatever its state yet
	}
	stop()
	if answers(east) || answers(west) {
		t.Error("a fleet demo daemon still answers after stop")
	}
}

// west goes down after the time given while east goes on.
func TestFleetDemoWestGoesDown(t *testing.T) {
	t.Parallel()
	daemons, stop, err := StartFleetDemo(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	deadline := time.Now().Add(30 * time.Second) // a hang guard only
	for answers(daemons[1].URL) {
		if time.Now().After(deadline) {
			t.Fatal("west still answers")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !answers(daemons[0].URL) {
		t.Error("east went down with west")
	}
}
