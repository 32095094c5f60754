package sim

import "time"

// The console's demos, started on loopback for `aipwatch --demo=console`
// and `--demo=fleet`. They model no daemon behaviour of their own: they
// choose the actions the demos' fleets host, and when one goes down.

// DemoDaemon is one daemon a demo started: the name its context goes by,
// and its base URL.
type DemoDaemon struct {
	Name string
	URL  string
}

// StartConsoleDemo starts ConsoleFleet at speed 1 (--demo=console) and
// returns its base URL; stop ends it.
func StartConsoleDemo() (url string, stop func(), err error) {
	f, err := ConsoleFleet(1)
	if err != nil {
		return "", nil, err
	}
	u, err := f.Start()
	if err != nil {
		f.Close()
		return "", nil, err
	}
	return u, f.Close, nil
}

// FleetDemoDown is when --demo=fleet's second daemon stops, to show a
// daemon going down while the other goes on.
const FleetDemoDown = 45 * time.Second

// StartFleetDemo starts --demo=fleet's two daemons, "east" (the console
// demo's actions, ConsoleFleet) and "west" (three more, with IDs of their
// own), west stopping after down; stop ends both.
func StartFleetDemo(down time.Duration) (daemons []DemoDaemon, stop func(), err error) {
	east, err := ConsoleFleet(1)
	if err != nil {
		return nil, nil, err
	}
	west, err := NewFleet(FleetKnobs{GlobalEvents: true},
		Member{Scenario: "responses-tools", Knobs: Knobs{Speed: 0.5, Mode: ModeAsync, ActionID: "act_sim_west_async_responses"}},
		Member{Scenario: "long", Knobs: Knobs{Speed: 1, ActionID: "act_sim_west_sync_long"}},
		// Ran before the demo started, at a pace of its own: its review
		// reads a first token and a duration (the pulse's figures).
		Member{Scenario: "chat-length", Knobs: Knobs{Finished: true, ActionID: "act_sim_west_done_length",
			Past: PastRun{End: time.Now(), Pace: 1.5, Think: 800 * time.Millisecond}}},
	)
	if err != nil {
		east.Close()
		return nil, nil, err
	}
	var timer *time.Timer
	stop = func() {
		if timer != nil {
			timer.Stop()
		}
		east.Close()
		west.Close()
	}
	for _, d := range []struct {
		name  string
		fleet *Fleet
	}{{"east", east}, {"west", west}} {
		u, err := d.fleet.Start()
		if err != nil {
			stop()
			return nil, nil, err
		}
		daemons = append(daemons, DemoDaemon{Name: d.name, URL: u})
	}
	timer = time.AfterFunc(down, west.Close)
	return daemons, stop, nil
}
