package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/sim"
)

// The cost bounds of ls (design §7, §9), each held through the command
// itself: a test fails when the bound is broken (see docs/mutation.md).

// listSizes fronts a daemon and keeps the page size (limit) of every list
// request that reaches it.
type listSizes struct {
	srv   *httptest.Server
	mu    sync.Mutex
	sizes []int
}

func newListSizes(t *testing.T, target string) *listSizes {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	l := &listSizes{}
	rp := httputil.NewSingleHostReverseProxy(u)
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/aip/v1/actions" {
			n, err := strconv.Atoi(r.URL.Query().Get("limit"))
			if err != nil {
				n = -1 // no limit: the daemon's default
			}
			l.mu.Lock()
			l.sizes = append(l.sizes, n)
			l.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *listSizes) taken() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sizes
	l.sizes = nil
	return out
}

// ls --limit N asks for pages of at most N rows: five rows are not read
// through 1,000-row pages. Without --limit the pages hold the 100 rows
// printed (design §7).
func TestListLimitAsksForSmallPages(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 5000)
	p := newListSizes(t, f.URL())
	for _, c := range []struct {
		args []string
		rows int
	}{
		{[]string{"--limit", "5"}, 5},
		{nil, 100},
	} {
		rows := lsRows(t, append([]string{"--url", p.srv.URL}, c.args...)...)
		sizes := p.taken()
		if len(rows) != c.rows || len(sizes) == 0 {
			t.Fatalf("%v: %d rows in %d list requests", c.args, len(rows), len(sizes))
		}
		for _, n := range sizes {
			if n < 1 || n > c.rows {
				t.Fatalf("%v: page sizes asked %v, want each 1..%d", c.args, sizes, c.rows)
			}
		}
	}
}

// --since without --limit lists every row updated within the span, not
// the default 100 (ls --help: "all of them unless --limit is given").
func TestListSinceIsNotCappedAtTheDefault(t *testing.T) {
	t.Parallel()
	// The history's newest action settled a minute before the daemon
	// started, the others 30 s apart: 3 hours hold some 360 of them.
	f := historyDaemon(t, 1000)
	rows := lsRows(t, "--url", f.URL(), "--since", "3h")
	if len(rows) < 300 || len(rows) > 400 {
		t.Fatalf("%d rows within 3h, want some 360 (every one, not the default 100)", len(rows))
	}
	cutoff := time.Now().Add(-3 * time.Hour).UTC().Format(time.RFC3339)
	for _, r := range rows {
		if r["updated_at"].(string) < cutoff {
			t.Fatalf("a row updated at %v, before %s", r["updated_at"], cutoff)
		}
	}
	if rows := lsRows(t, "--url", f.URL(), "--since", "3h", "--limit", "150"); len(rows) != 150 {
		t.Fatalf("--since 3h --limit 150: %d rows", len(rows))
	}
}

// ls --all-contexts --limit N keeps the newest N across the daemons, not
// the first daemon's: here the first context (by name) holds only older
// rows, and the second the two newest.
func TestListAllContextsLimitKeepsTheNewest(t *testing.T) {
	t.Parallel()
	older := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 40}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_a_live"}}) // running: not listed below
	newer := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_b_1"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_b_2"}})
	fx := newContextFixture(t, fmt.Sprintf("[contexts.a]\nurl = %q\n[contexts.b]\nurl = %q\n", older.URL(), newer.URL()))
	code, out, errOut := fx.run("ls", "--all-contexts", "--state", "completed", "--limit", "2", "--output", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			Context  string `json:"context"`
			ActionID string `json:"action_id"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, row.Context+"/"+row.ActionID)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "b/act_b_") || !strings.HasPrefix(got[1], "b/act_b_") {
		t.Fatalf("--limit 2 across contexts kept %v, want b's two newest\n%s", got, out)
	}
}

// A token from $AIP_TOKEN, a token-file variable or --token-file rather
// than the context's token_file is said, with its source and where it
// goes (design §9); the context's own token is not.
func TestContextTokenFromTheEnvironmentIsSaid(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{Token: "bounds-tok-file-7d1e90"},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_done"}})
	fx := newContextFixture(t, fmt.Sprintf("current = \"prod\"\n[contexts.prod]\nurl = %q\ntoken_file = \"prod.token\"\n", f.URL()))
	fx.write(t, "aipwatch/prod.token", "bounds-tok-file-7d1e90\n")
	const warning = "not from context prod's token_file, and goes to " // + the URL
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		from string // "" = no warning
	}{
		{"the context's own token", nil, nil, ""},
		{"$AIP_TOKEN", map[string]string{"AIP_TOKEN": "bounds-tok-env-8c2f31"}, nil, "$AIP_TOKEN"},
		{"--token-file", nil, []string{"--token-file", fx.write(t, "other.token", "bounds-tok-flag-5a7b22\n")}, "--token-file"},
		{"$AIP_TOKEN_FILE", map[string]string{"AIP_TOKEN_FILE": fx.write(t, "env.token", "bounds-tok-envfile-1c9d44\n")}, nil, "$AIP_TOKEN_FILE"},
		{"$GETAIP_NATIVE_BEARER_TOKEN_FILE", map[string]string{"GETAIP_NATIVE_BEARER_TOKEN_FILE": fx.write(t, "native.token", "bounds-tok-native-6e3f55\n")}, nil,
			"$GETAIP_NATIVE_BEARER_TOKEN_FILE"},
	} {
		for k, v := range c.env {
			fx.env[k] = v
		}
		code, _, errOut := fx.run(append([]string{"ls"}, c.args...)...)
		for k := range c.env {
			delete(fx.env, k)
		}
		if c.from == "" && code != 0 { // the others' tokens are refused: only the warning matters
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		said := strings.Contains(errOut, warning)
		switch {
		case c.from == "" && said:
			t.Errorf("%s: warned: %s", c.name, errOut)
		case c.from != "" && !strings.Contains(errOut, "warning: the token comes from "+c.from+", "+warning+f.URL()):
			t.Errorf("%s: no warning naming %s and the URL: %q", c.name, c.from, errOut)
		}
	}
}

// oscSeq is one OSC sequence, ended by BEL or ST.
var oscSeq = regexp.MustCompile("\x1b\\][^\a\x1b]*(\a|\x1b\\\\)")

// --output tui into a pipe with --notify: the interface runs, but not one
// byte of the bell or of a desktop notification goes into the pipe (design
// §10: nothing is sent to an output that is not a terminal).
func TestTUIIntoAPipeSendsNoNotification(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Finished: true})
	in, keys := io.Pipe()
	defer keys.Close()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run([]string{"--url", srv.URL(), "--output", "tui", "--notify", srv.ActionID()}, in, &out, &errb, noEnv, testKeys())
	}()
	// The window title names the verdict once the action has settled: the
	// moment a notification would be sent.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "· verified") {
		if time.Now().After(deadline) {
			t.Fatalf("the TUI never showed the verdict:\n%q\n%s", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the TUI did not quit on q")
	}
	got := out.String()
	if strings.Contains(got, "]9;") || strings.Contains(got, "]777;") || strings.Contains(oscSeq.ReplaceAllString(got, ""), "\a") {
		t.Fatalf("notification bytes went into a pipe: %q", got)
	}
}

// judgeReads fronts a daemon and keeps, per action, whether its own routes
// were read, and the most actions read at once. Each request of an action
// waits for a token from gate, so the reviews started together pile up at
// the door and the count shows how many were let in.
type judgeReads struct {
	srv  *httptest.Server
	gate chan struct{}

	mu       sync.Mutex
	read     map[string]bool
	inflight map[string]int
	most     int
}

func newJudgeReads(t *testing.T, target string) *judgeReads {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	j := &judgeReads{gate: make(chan struct{}), read: map[string]bool{}, inflight: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	j.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/aip/v1/actions/")
		if !ok {
			rp.ServeHTTP(w, r) // the list
			return
		}
		id, _, _ := strings.Cut(rest, "/")
		j.mu.Lock()
		j.read[id] = true
		j.inflight[id]++
		j.most = max(j.most, len(j.inflight))
		j.mu.Unlock()
		defer func() {
			j.mu.Lock()
			if j.inflight[id]--; j.inflight[id] == 0 {
				delete(j.inflight, id)
			}
			j.mu.Unlock()
		}()
		select {
		case <-j.gate:
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(j.srv.Close)
	return j
}

// ls --verdict reviews only the settled rows it prints (design §7: never
// the whole list, nothing live), at most four at once (written as the
// contract states it).
func TestListVerdictReadsOnlyThePrintedRowsFourAtOnce(t *testing.T) {
	t.Parallel()
	var members []sim.Member
	for i := range 12 {
		members = append(members, sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: fmt.Sprintf("act_v_%02d", i)}})
	}
	members = append(members, sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_v_live"}})
	f := startFleet(t, sim.FleetKnobs{}, members...)
	p := newJudgeReads(t, f.URL())
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the requests through, one at a time
		for {
			select {
			case p.gate <- struct{}{}:
			case <-stop:
				return
			}
		}
	}()
	for _, c := range []struct {
		limit string
		rows  int
	}{{"3", 3}, {"13", 13}} {
		p.mu.Lock()
		clear(p.read)
		p.most = 0
		p.mu.Unlock()
		rows := lsRows(t, "--url", p.srv.URL, "--verdict", "--limit", c.limit)
		settled := map[string]bool{} // the rows to judge: printed, settled
		for _, r := range rows {
			id := r["action_id"].(string)
			if id == "act_v_live" {
				continue // running: nothing to judge
			}
			if r["verdict"] != "failed" {
				t.Fatalf("--limit %s: %s judged %q", c.limit, id, r["verdict"])
			}
			settled[id] = true
		}
		p.mu.Lock()
		read, most := maps.Clone(p.read), p.most
		p.mu.Unlock()
		if len(rows) != c.rows || !maps.Equal(read, settled) {
			t.Fatalf("--limit %s: %d rows printed, the settled ones %v, read %v", c.limit, len(rows), settled, read)
		}
		const atOnce = 4 // design §7
		if most > atOnce {
			t.Fatalf("--limit %s: %d actions read at once, want at most %d", c.limit, most, atOnce)
		}
	}
}

// A context whose daemon refuses the connection is said as that, not as
// the 2-minute bound of a daemon that does not answer.
func TestListAllContextsRefusedIsNotATimeout(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_up"}})
	fx := newContextFixture(t, fmt.Sprintf("[contexts.down]\nurl = \"http://127.0.0.1:1\"\n[contexts.up]\nurl = %q\n", f.URL()))
	code, out, errOut := fx.run("ls", "--all-contexts", "--output", "jsonl")
	if code != 1 || !strings.Contains(out, "act_up") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "context down: ") || !strings.Contains(errOut, "connection refused") || strings.Contains(errOut+out, "no answer from") {
		t.Fatalf("a refused connection reads:\n%s%s", errOut, out)
	}
}
