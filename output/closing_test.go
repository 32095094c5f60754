package output

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// words is the resume command of these tests: the args joined, after the
// cursor when given.
func words(cursor string, args ...string) string {
	if cursor != "" {
		args = append([]string{"--cursor", cursor}, args...)
	}
	return "aipwatch " + strings.Join(args, " ")
}

// watched is a of the run that gave it as arg.
func watched(arg string, a *model.Action) Watched {
	return Watched{Action: a, Name: arg, Arg: arg}
}

func withState(id, state string) *model.Action {
	a := model.NewAction(id)
	stream.Apply(a, stream.StatusMsg{Status: model.ActionStatus{ActionID: id, State: state}})
	return a
}

// Tags: none for one action; several get each one's name, whole (issue 46
// item 11): the ID, or CONTEXT/ID when the run named a context for it
// (item 10), never a fragment of it such as [rror] or [0001].
func TestTagsAreWholeNames(t *testing.T) {
	t.Parallel()
	got := strings.Join(Tags([]string{"act_sim_console_error", "act_sim_provider_error", "act_0001", "west/act_0001"}), "|")
	want := "[act_sim_console_error] |[act_sim_provider_error] |[act_0001] |[west/act_0001] "
	if got != want {
		t.Fatalf("tags %q, want %q", got, want)
	}
	if tags := Tags([]string{"west/act_only_01"}); len(tags) != 1 || tags[0] != "" {
		t.Fatalf("one action is tagged %q", tags)
	}
	if got := TagLines("[x] ", "a\nb\n"); got != "[x] a\n[x] b\n" {
		t.Fatalf("tagged lines %q", got)
	}
}

// A writer shared by several puts its tag before each whole line, the
// last one without a newline too.
func TestTaggedWritesWholeLines(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var out strings.Builder
	w := NewTagged(&mu, &out, "[01] ")
	_, _ = w.Write([]byte("a\nb"))
	_, _ = w.Write([]byte("c\nd"))
	w.Flush()
	if out.String() != "[01] a\n[01] bc\n[01] d\n" {
		t.Fatalf("tagged lines %q", out.String())
	}
}

// A demo's simulator dies with aipwatch: no resume command, the demo
// command instead.
func TestDemoDetachSaysTheSimulatorStopped(t *testing.T) {
	t.Parallel()
	msg := DetachLines([]Watched{watched("act_sim_long_01", model.NewAction("act_sim_long_01"))}, Resume{Again: "aipwatch --demo=long"})
	if strings.Contains(msg, "resume with") || strings.Contains(msg, "--cursor") ||
		!strings.Contains(msg, "simulator stopped with it") || !strings.Contains(msg, "aipwatch --demo=long") {
		t.Fatalf("demo detach message:\n%s", msg)
	}
}

// The detach message says only what aipwatch saw (design §2.8): no
// "keeps running" before aipd answered, for an action aipd has no record
// of and sent nothing of, or in a replay (nothing runs there).
func TestDetachMessageSaysWhatWasSeen(t *testing.T) {
	t.Parallel()
	never := model.NewAction("act_x")
	unknown := withState("act_x", model.StateUnknown)
	running := withState("act_x", "running")
	for _, c := range []struct {
		name string
		r    Resume
		a    *model.Action
		want string
	}{
		{"aipd never answered", Resume{Command: words}, never, "before aipd answered: whether the action runs is not known"},
		{"no record, nothing came", Resume{Command: words}, unknown, "aipd has no record of act_x and sent none of its events: check the ID"},
		{"running", Resume{Command: words}, running, "the action keeps running"},
		{"a replay", Resume{Command: words, Replay: true}, running, "the recording ends before the action settled"},
	} {
		msg := DetachLines([]Watched{watched("act_x", c.a)}, c.r)
		// Nothing of an action aipd has no record of was seen: no command
		// resumes what may not exist (issue 46 item 13).
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "resume with: ") != (c.a != unknown) {
			t.Errorf("%s: %q", c.name, msg)
		}
		if c.name != "running" && strings.Contains(msg, "keeps running") {
			t.Errorf("%s: claims the action keeps running: %q", c.name, msg)
		}
	}
}

// Of several, an action stopped on an error and one aipd ended (its
// outcome not read) are not resumed; those live are, as given (CONTEXT/
// act_… too); one aipd has no record of and nothing of which came (a
// mistyped ID) is named, to check (issue 46 item 13).
func TestSeveralActionsResumeNamesTheLiveOnes(t *testing.T) {
	t.Parallel()
	ended := model.NewAction("act_d_02")
	ended.TerminalFrameSeen = true
	typo := withState("act_typo_05", model.StateUnknown)
	failed := watched("act_e_01", model.NewAction("act_e_01"))
	failed.Failed = true
	msg := DetachLines([]Watched{failed, watched("act_d_02", ended), watched("act_l_03", model.NewAction("act_l_03")),
		watched("west/act_l_04", model.NewAction("act_l_04")), watched("act_typo_05", typo)}, Resume{Command: words})
	if !strings.Contains(msg, "2 actions keep running") || !strings.HasSuffix(msg, "resume with: aipwatch act_l_03 west/act_l_04\n") ||
		!strings.Contains(msg, "aipd has no record of act_typo_05") || strings.Contains(msg, "act_d_02") || strings.Contains(msg, "act_e_01") {
		t.Fatalf("closing lines:\n%s", msg)
	}
	one := DetachLines([]Watched{failed, watched("act_l_03", model.NewAction("act_l_03"))}, Resume{Command: words})
	if !strings.Contains(one, "the action keeps running") || !strings.HasSuffix(one, " act_l_03\n") {
		t.Fatalf("one live of two:\n%s", one)
	}
}

// An action whose status reads unknown but whose chunks came (a sync or
// streaming run) is seen: quitting says it keeps running and offers its
// resume, never "no record ... check the ID" (issue 46 item 13).
func TestUnknownStatusWithChunksIsSeen(t *testing.T) {
	t.Parallel()
	a := withState("act_u_01", model.StateUnknown)
	stream.Apply(a, stream.BatchMsg{Chunks: []model.StreamChunk{{ActionID: "act_u_01", Sequence: 0, Kind: model.KindData,
		Raw: []byte(`{"action_id":"act_u_01","sequence":0,"kind":"data"}`)}}})
	if a.ChunkCount() != 1 || len(a.Events()) != 0 {
		t.Fatalf("the fixture: %d chunks, %d events", a.ChunkCount(), len(a.Events()))
	}
	one := DetachLines([]Watched{watched("act_u_01", a)}, Resume{Command: words})
	several := DetachLines([]Watched{watched("act_u_01", a), watched("act_u_02", model.NewAction("act_u_02"))}, Resume{Command: words})
	for _, msg := range []string{one, several} {
		if strings.Contains(msg, "no record") || !strings.Contains(msg, "resume with: aipwatch") || !strings.Contains(msg, "act_u_01") {
			t.Errorf("closing lines:\n%s", msg)
		}
	}
}

// The report of an internal error keeps at most 200 characters of the
// panic's message, on one line; the resume command follows when given.
func TestPanicReportBound(t *testing.T) {
	t.Parallel()
	r := PanicReport(strings.Repeat("x", 201)+"\nsecond", "aipwatch act_1")
	first, _, _ := strings.Cut(r, "\n")
	if first != "aipwatch: internal error: "+strings.Repeat("x", 200)+"…" {
		t.Fatalf("first line %q", first)
	}
	if !strings.HasSuffix(r, "resume with: aipwatch act_1\n") {
		t.Fatalf("no resume:\n%s", r)
	}
	if r := PanicReport("boom", ""); strings.Contains(r, "resume with") {
		t.Fatalf("a resume with none given:\n%s", r)
	}
}

// A run's internal error resumes one action from where its run stopped
// reading, else where it started, several from where aipd is; a replay
// resumes nothing.
func TestPanicLinesResumeFromTheCursor(t *testing.T) {
	t.Parallel()
	read := model.NewAction("act_p_01")
	read.Cursor = "c_read"
	for _, c := range []struct {
		name string
		r    Resume
		ws   []Watched
		want string
	}{
		{"read", Resume{Command: words}, []Watched{{Action: read, Arg: "act_p_01", Cursor: "c_start"}}, "resume with: aipwatch --cursor c_read act_p_01\n"},
		{"started", Resume{Command: words}, []Watched{{Arg: "act_p_01", Cursor: "c_start"}}, "resume with: aipwatch --cursor c_start act_p_01\n"},
		{"several", Resume{Command: words}, []Watched{{Action: read, Arg: "act_p_01", Cursor: "c_start"}, {Arg: "act_p_02"}}, "resume with: aipwatch act_p_01 act_p_02\n"},
		{"a replay", Resume{Command: words, Replay: true}, []Watched{{Action: read, Arg: "act_p_01"}}, "not a cancellation).\n"},
	} {
		if got := c.r.PanicLines("boom", c.ws); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}

// design §10: the closing notification is sent only for a settled action,
// to stdout when it is a terminal, else to stderr when that is one, else
// nowhere.
func TestNotifyLinesOnlySettledToATerminal(t *testing.T) {
	t.Parallel()
	route := func() (safe.NotifyRoute, string) { return safe.NotifyRoute{}, "" }
	done := withState("act_n_01", model.StateCancelled) // settles without a result
	running := withState("act_n_02", model.StateRunning)
	for _, c := range []struct {
		name        string
		a           *model.Action
		tty, errTTY bool
		out, errOut bool
	}{
		{"settled, stdout a terminal", done, true, true, true, false},
		{"settled, stderr a terminal", done, false, true, false, true},
		{"settled, no terminal", done, false, false, false, false},
		{"running", running, true, true, false, false},
	} {
		var out, errb bytes.Buffer
		NotifyLines(route, "", c.a, &out, &errb, c.tty, c.errTTY)
		if got := strings.Contains(out.String(), "\x1b]9;"); got != c.out {
			t.Errorf("%s: notification on stdout %v: %q", c.name, got, out.String())
		}
		if got := strings.Contains(errb.String(), "\x1b]9;"); got != c.errOut {
			t.Errorf("%s: notification on stderr %v: %q", c.name, got, errb.String())
		}
	}
}

// design §14, protocol §13: quitting while a submission's POST is held
// open (sync or streaming) says that the run goes on (only the reply is
// lost), how to re-attach, and that a run that never settles may have
// lost its record: never resubmit the ID without its idempotency key. Of
// any other run (an async submission's ack) it says none of it; nor once
// the action reads settled (expired here): then it ended and its outcome
// was not read, nothing of a run going on.
func TestHeldOpenLinesNotForASettledAction(t *testing.T) {
	t.Parallel()
	const id = "act_test_held_open"
	running, expired := withState(id, model.StateRunning), withState(id, model.StateExpired)
	if !expired.Settled() {
		t.Fatal("the fixture: expired is not settled")
	}
	for _, c := range []struct {
		name     string
		held     bool
		a        *model.Action
		saysHeld bool
	}{
		{"held open, running", true, running, true},
		{"not held open", false, running, false},
		{"held open, settled", true, expired, false},
	} {
		msg := Resume{Command: words}.detachOne(Watched{Action: c.a, Name: id, Arg: id, HeldOpen: c.held, Key: "aipwatch-key-held-1"})
		held := strings.Contains(msg, "POST was held open and is closed now: aipd goes on running "+id) &&
			strings.Contains(msg, "only the reply is lost") && strings.Contains(msg, "may have lost its record") &&
			strings.Contains(msg, "without its idempotency key aipwatch-key-held-1") && strings.Contains(msg, "resume with: ")
		if held != c.saysHeld || (!c.saysHeld && (strings.Contains(msg, "held open") || strings.Contains(msg, "goes on running"))) {
			t.Errorf("%s: quit message:\n%s", c.name, msg)
		}
	}
}

// An error that stops a command outside a run: jsonl's error object on
// stdout, else one sanitised line on stderr.
func TestFail(t *testing.T) {
	t.Parallel()
	err := UsageError("bad \x1b[2Jflag\nsecond")
	var out, errb bytes.Buffer
	Fail(&out, &errb, false, err)
	if out.Len() != 0 || errb.String() != "aipwatch: bad ␛[2Jflag⏎second\n" {
		t.Fatalf("plain: stdout %q, stderr %q", out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	Fail(&out, &errb, true, err)
	if errb.Len() != 0 || !strings.HasPrefix(out.String(), `{"type":"error","code":"usage"`) {
		t.Fatalf("jsonl: stdout %q, stderr %q", out.String(), errb.String())
	}
}

// The error that stopped one action of a line mode: plain says it on
// stderr; jsonl wrote its object and says nothing more, unless several
// share stdout: then whose.
func TestErrorLead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		plain, tagged bool
		want          string
	}{{true, false, "aipwatch: error: "}, {true, true, "aipwatch: error: "}, {false, true, "aipwatch: "}, {false, false, ""}} {
		if got := ErrorLead(c.plain, c.tagged); got != c.want {
			t.Errorf("plain %v, tagged %v: %q, want %q", c.plain, c.tagged, got, c.want)
		}
	}
}
