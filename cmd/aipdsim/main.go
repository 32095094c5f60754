// Command aipdsim serves the aipd simulator (package aipwatch/sim): one
// action running a scripted Hermes turn (or, with --fleet, a daemon of
// several), over the daemon's native HTTP routes, in-process or on the
// connector-host deployment (--topology), until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"aipwatch/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("aipdsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var k sim.Knobs
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on")
	scenario := fs.String("scenario", "chat-tools", "scenario to play (see below)")
	tokenFile := fs.String("token-file", "", "file holding the bearer token to require (trailing newline trimmed)")
	tlsCert := fs.String("tls-cert", "", "serve https with this PEM certificate (with --tls-key), e.g. one signed by a private CA")
	tlsKey := fs.String("tls-key", "", "the PEM key of --tls-cert")
	fs.Float64Var(&k.Speed, "speed", 1, "pacing: 1 demo, 2 twice as fast, 0 instant")
	fs.DurationVar(&k.PollInterval, "poll", 0, "follow poll interval after an empty page (default 500ms)")
	fs.DurationVar(&k.KeepaliveInterval, "keepalive", 0, "idle time before a keep-alive comment (default 15s)")
	fs.IntVar(&k.DropAfterFrames, "drop-after", 0, "close each follow connection abruptly after N frames")
	fs.BoolVar(&k.CutFrame, "cut-frame", false, "with --drop-after, cut the last frame in half")
	fs.BoolVar(&k.RepeatFrames, "repeat", false, "re-send each page's frames once after its cursor frame")
	fs.IntVar(&k.ExpireCursors, "expire-cursors", 0, "answer the first N follows that carry a cursor with stream.cursor_expired")
	fs.DurationVar(&k.KeepaliveOnly, "keepalive-only", 0, "once, after the first cursor frame, send only keep-alives for this long")
	fs.DurationVar(&k.Stall, "stall", 0, "once, after the first cursor frame, send nothing at all for this long")
	fs.DurationVar(&k.SlowBytes, "slow-bytes", 0, "write the follow body byte by byte with this delay")
	fs.IntVar(&k.Unavailable, "unavailable", 0, "answer the first N follows with an aip.error storage.unavailable frame")
	fs.StringVar(&k.Mode, "mode", "", "execution mode: sync (no record until settled), async, or streaming (the sync path; on --topology fleet the only mode whose chunks are recorded) (default: the scenario's)")
	fs.StringVar(&k.Topology, "topology", "", "the daemon's deployment: in-process (Hermes in the daemon, every chunk recorded) or fleet (through a connector host: async and sync record no chunk, the result's output.events hold the frames) (default in-process)")
	fs.BoolVar(&k.TenantScoped, "tenant-scoped", false, "the reader's token is a tenant's: the global log (--fleet) serves no chunk, result, cancel or worker event")
	fs.StringVar(&k.FleetError, "fleet-error", "", "with --topology fleet: the host or the central admission refuses the action: "+strings.Join(sim.FleetErrors, ", "))
	fs.StringVar(&k.Cursors, "cursors", "", "cursor store: memory, or postgres (refuses its own cursors) (default: the scenario's)")
	fs.BoolVar(&k.CancelErrorReply, "cancel-error-reply", false, "a cancel takes effect but its reply is an error")
	fs.IntVar(&k.ResultNotReady, "result-not-ready", 0, "answer the first N result reads after settle with 503 action.result_not_ready")
	fs.BoolVar(&k.Finished, "finished", false, "the script is already complete when the server starts")
	fs.IntVar(&k.FirehoseN, "firehose-n", 0, fmt.Sprintf("deltas of the firehose scenario (default %d)", sim.DefaultFirehoseN))
	fleet := fs.String("fleet", "", "serve a daemon of several actions instead of one scenario: console (the console demo's), production (settled history and two live actions) or connector-host (streaming, async and sync actions on the fleet topology)")
	var h sim.History
	fs.IntVar(&h.Actions, "history-actions", 100_000, "with --fleet=production: settled actions before the live ones")
	fs.Int64Var(&h.Events, "history-events", 10_000_000, "with --fleet=production: events of those actions in the global log")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: aipdsim [flags]\n\nA simulated aipd hosting one action that plays a scripted Hermes turn.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nScenarios:\n")
		for _, name := range sim.Scenarios() {
			fmt.Fprintf(stderr, "  %-20s %s\n", name, sim.Describe(name))
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "aipdsim: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "aipdsim: %v\n", err)
			return 1
		}
		k.Token = strings.TrimRight(string(b), "\r\n")
		if k.Token == "" {
			fmt.Fprintf(stderr, "aipdsim: %s is empty\n", *tokenFile)
			return 1
		}
	}

	if *fleet != "" {
		if k.FleetError != "" {
			fmt.Fprintln(stderr, "aipdsim: --fleet-error is for one scenario, not --fleet")
			return 2
		}
		// The daemon-wide knobs, as for one scenario: the token of
		// --token-file (every mode requires it alike), the topology, the
		// reader's scope.
		fk := sim.FleetKnobs{GlobalEvents: true, Token: k.Token, Topology: k.Topology, TenantScoped: k.TenantScoped}
		return serveFleet(*fleet, fk, h, k.Speed, *listen, stdout, stderr)
	}
	s, err := sim.New(*scenario, k)
	if err != nil {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if (*tlsCert == "") != (*tlsKey == "") {
		fmt.Fprintln(stderr, "aipdsim: --tls-cert and --tls-key go together")
		s.Close()
		return 2
	}
	if *tlsCert != "" {
		return serveTLS(ctx, s, *listen, *tlsCert, *tlsKey, stdout, stderr)
	}
	url, err := s.Listen(*listen)
	if err != nil {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		s.Close()
		return 1
	}
	fmt.Fprintf(stdout, "url: %s\naction: %s\n", url, s.ActionID())
	<-ctx.Done()
	s.Close()
	return 0
}

// serveFleet serves a fleet until SIGINT or SIGTERM; GET /sim/stats
// counts what clients read of the daemon-wide routes. fk holds the
// daemon-wide knobs of every flavour (the token above all).
func serveFleet(name string, fk sim.FleetKnobs, h sim.History, speed float64, addr string, stdout, stderr io.Writer) int {
	var f *sim.Fleet
	var err error
	switch name {
	case "console":
		f, err = sim.NewFleet(fk, sim.ConsoleMembers(speed)...)
	case "production":
		fk.History = h
		f, err = sim.NewFleet(fk, sim.ProductionMembers(speed)...)
	case "connector-host":
		if fk.Topology == "" {
			fk.Topology = sim.TopologyFleet
		}
		f, err = sim.NewFleet(fk, sim.ConnectorHostMembers(speed)...)
	default:
		err = fmt.Errorf("--fleet is console, production or connector-host, not %q", name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		return 2
	}
	defer f.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	url, err := f.Listen(addr)
	if err != nil {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "url: %s\n", url)
	for _, s := range f.Actions() {
		fmt.Fprintf(stdout, "action: %s\n", s.ActionID())
	}
	<-ctx.Done()
	return 0
}

// serveTLS serves the simulator's routes over https, for trying aipwatch's
// --cacert against a private CA (scripts/e2e.sh does).
func serveTLS(ctx context.Context, s *sim.Server, addr, cert, key string, stdout, stderr io.Writer) int {
	defer s.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		return 1
	}
	hs := &http.Server{Handler: s.Handler()}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Fprintf(stdout, "url: https://%s\naction: %s\n", ln.Addr(), s.ActionID())
	if err := hs.ServeTLS(ln, cert, key); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "aipdsim: %v\n", err)
		return 1
	}
	return 0
}
