package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// step is one scripted message, sent delay after the previous one.
type step struct {
	delay time.Duration
	msg   stream.Msg
}

// fakeBackend replays a script; with hold it then stays attached until a
// cancel arrives (then sends afterCancel) or ctx ends.
type fakeBackend struct {
	script      []step
	hold        bool
	afterCancel []stream.Msg

	cancels  atomic.Int32
	once     sync.Once
	cancelCh chan struct{}
	exited   chan struct{}
}

func newFake(script []step, hold bool, afterCancel ...stream.Msg) *fakeBackend {
	return &fakeBackend{script: script, hold: hold, afterCancel: afterCancel,
		cancelCh: make(chan struct{}), exited: make(chan struct{})}
}

func steps(d time.Duration, msgs ...stream.Msg) []step {
	out := make([]step, len(msgs))
	for i, m := range msgs {
		out[i] = step{delay: d, msg: m}
	}
	return out
}

func (f *fakeBackend) Run(ctx context.Context, sink stream.Sink) error {
	defer close(f.exited)
	wait := func(d time.Duration) error {
		if d <= 0 {
			return ctx.Err()
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, s := range f.script {
		if err := wait(s.delay); err != nil {
			return err
		}
		sink.Send(s.msg)
	}
	if !f.hold {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.cancelCh:
	}
	for _, m := range f.afterCancel {
		if err := wait(5 * time.Millisecond); err != nil {
			return err
		}
		sink.Send(m)
	}
	return nil
}

func (f *fakeBackend) Cancel(ctx context.Context, reason string) stream.CancelMsg {
	f.cancels.Add(1)
	f.once.Do(func() { close(f.cancelCh) })
	return stream.CancelMsg{Accepted: true}
}

// screens records every frame the program draws.
type screens struct {
	mu   sync.Mutex
	last string
	all  []string
	next int // waitFor looks at frames from this one on
}

func (s *screens) hook(content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = ansi.Strip(content)
	s.all = append(s.all, s.last)
}

func (s *screens) current() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// match returns the first frame from s.next on that pred accepts, and
// moves s.next to it: a later wait starts where this one matched.
func (s *screens) match(pred func(string) bool) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := s.next; i < len(s.all); i++ {
		if pred(s.all[i]) {
			s.next = i
			return s.all[i], true
		}
	}
	return "", false
}

// waitFor waits until a frame drawn since the previous match satisfies
// pred, and returns that frame. It sees every frame, not only the latest,
// so a state shown briefly (a RECONNECTING badge between two connections)
// is not missed. The deadline is generous for a loaded machine.
func (s *screens) waitFor(tb testing.TB, what string, pred func(string) bool) string {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if sc, ok := s.match(pred); ok {
			return sc
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("timed out waiting for %s; the screen is:\n%s", what, s.current())
	return ""
}

// waitFor finds a frame that was drawn and replaced before it looked, and
// a second wait starts from the frame the first matched.
func TestScreensWaitSeesEveryFrame(t *testing.T) {
	t.Parallel()
	s := &screens{}
	for _, f := range []string{"following", "RECONNECTING 2", "following", "VERIFIED"} {
		s.hook(f)
	}
	if got := s.waitText(t, "RECONNECTING"); got != "RECONNECTING 2" {
		t.Fatalf("matched %q", got)
	}
	if got := s.waitText(t, "following"); got != "following" || s.next != 2 {
		t.Fatalf("matched %q at %d, want the frame after the match", got, s.next)
	}
	if got := s.waitText(t, "VERIFIED"); got != "VERIFIED" || s.current() != "VERIFIED" {
		t.Fatalf("matched %q", got)
	}
}

func (s *screens) waitText(tb testing.TB, text string) string {
	tb.Helper()
	return s.waitFor(tb, "“"+text+"”", func(sc string) bool { return strings.Contains(sc, text) })
}

func startFlow(tb testing.TB, b stream.Runner, w, h int, mutate ...func(*Options)) (*teatest.TestModel, *prog, *screens) {
	tb.Helper()
	opts := Options{ActionID: testAction, Backend: b, Keys: realKeys(tb),
		Resume: func(c string) string { return "aipwatch --cursor " + c + " " + testAction }}
	for _, f := range mutate {
		f(&opts)
	}
	m := newModel(context.Background(), opts)
	sc := &screens{}
	m.viewHook = sc.hook
	tm := teatest.NewTestModel(tb, m, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tb.Cleanup(func() { m.Close() })
	return tm, m, sc
}

func finalModel(tb testing.TB, tm *teatest.TestModel) *prog {
	tb.Helper()
	fm, ok := tm.FinalModel(tb, teatest.WithFinalTimeout(10*time.Second)).(*prog)
	if !ok {
		tb.Fatal("final model is not a *prog")
	}
	fm.Close()
	return fm
}

// liveChat is a Chat turn that keeps running (until cancelled).
func liveChat(tb testing.TB) ([]step, []stream.Msg) {
	f := newFx(tb)
	var s []step
	s = append(s, steps(5*time.Millisecond, status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
		f.batch(f.role()), f.batch(f.deltas(chatText1)...),
		f.batch(f.toolRunning("terminal", "💻", "ls -la", "call_terminal_1")), stream.CursorMsg{Cursor: cursorA})...)
	after := []stream.Msg{
		f.batch(cancelledFrame(f)), stream.TerminalMsg{Cursor: cursorA + "T"},
		result(tb, model.ResultCancelled, model.OpChat, "", false, false), status(model.StateCancelled, true), stream.DoneMsg{},
	}
	return s, after
}

func TestFlowCancelConfirmed(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	fb := newFake(script, true, after...)
	tm, _, sc := startFlow(t, fb, 100, 30)

	sc.waitText(t, "FOLLOWING")
	sc.waitText(t, "ls -la")
	tm.Type("c")
	prompt := sc.waitText(t, "Cancel action "+testAction)
	if !strings.Contains(prompt, "cooperative stop") || !strings.Contains(prompt, "type the ID's last 4 characters, 2Z4A, then enter: [····]") ||
		!strings.Contains(prompt, "n/esc keep running") {
		t.Errorf("the confirmation must name the action, say what a cancel is, and ask for the ID's last characters:\n%s", prompt)
	}
	if strings.Contains(prompt, "c cancel") {
		t.Errorf("a pending confirmation shows only its own keys:\n%s", prompt)
	}
	// Keys pressed by habit send nothing: y (the old confirmation, and copy),
	// enter, c again.
	tm.Type("yc")
	tm.Send(keyMsg("enter"))
	sc.waitText(t, "does not match")
	if n := fb.cancels.Load(); n != 0 {
		t.Fatalf("c then habit keys sent %d cancels", n)
	}
	tm.Send(keyMsg("backspace"))
	tm.Send(keyMsg("backspace"))
	tm.Type("2Z4")
	sc.waitText(t, "[2Z4·]")
	tm.Type("A")
	tm.Send(keyMsg("enter"))
	sc.waitText(t, "CANCELLED")
	tm.Type("c") // settled: refused with a notice
	sc.waitText(t, "nothing to cancel")
	if n := fb.cancels.Load(); n != 1 {
		t.Errorf("backend saw %d cancel requests, want exactly 1", n)
	}
	tm.Type("q")
	fm := finalModel(t, tm)
	if v := fm.Action().Verdict(); v.Word != model.VerdictCancelled {
		t.Errorf("verdict %q, want cancelled", v.Word)
	}
	if !fm.Action().Cancel.Requested || !fm.Action().Cancel.Accepted {
		t.Errorf("cancel state %+v, want requested and accepted", fm.Action().Cancel)
	}
}

func TestFlowCancelDeclined(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	fb := newFake(script, true, after...)
	tm, _, sc := startFlow(t, fb, 100, 30)
	sc.waitText(t, "ls -la")
	tm.Type("c")
	sc.waitText(t, "Cancel action")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	sc.waitText(t, "keeps running")
	tm.Type("n") // no prompt now: n does nothing
	tm.Type("q")
	fm := finalModel(t, tm)
	if n := fb.cancels.Load(); n != 0 {
		t.Errorf("declining sent %d cancels", n)
	}
	if v := fm.Action().Verdict(); v.Word != model.VerdictPending {
		t.Errorf("verdict %q, want pending", v.Word)
	}
}

func TestFlowAutoCancel(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	fb := newFake(script, true, after...)
	tm, _, sc := startFlow(t, fb, 100, 30, func(o *Options) { o.AutoCancel = true })
	sc.waitText(t, "CANCELLED")
	tm.Type("q")
	finalModel(t, tm)
	if n := fb.cancels.Load(); n != 1 {
		t.Errorf("--cancel sent %d cancel requests, want 1", n)
	}
}

// runSingle runs the live view of one action on t as aipwatch/run does:
// the shell until it is done, then the view closed; it returns the final
// model and the error that stopped the following, if any.
func runSingle(ctx context.Context, opts Options, t Terminal) (*model.Action, error) {
	s := NewSingle(ctx, opts)
	err := Run(ctx, s, t)
	s.Close()
	if err != nil {
		return s.Action(), err
	}
	return s.Action(), s.Failure()
}

// TestRunDetach drives Run itself: q detaches, sends no cancel, returns
// the unsettled action stopped (pending), and the backend has ended.
func TestRunDetach(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	fb := newFake(script, true, after...)
	in, inW := io.Pipe()
	defer inW.Close()
	type ret struct {
		a   *model.Action
		err error
	}
	done := make(chan ret, 1)
	out := &lockedBuffer{}
	go func() {
		a, err := runSingle(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Backend: fb, NoColor: true},
			Terminal{Input: in, Output: out, NoColor: true, Width: 100, Height: 30})
		done <- ret{a, err}
	}()
	// q once the screen shows the turn's text: its chunks are in the model.
	waitOutput(t, out, "the turn's text", func(s string) bool { return strings.Contains(s, "layout") })
	if _, err := inW.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	var r ret
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after q")
	}
	if r.err != nil {
		t.Fatalf("Run: %v", r.err)
	}
	if n := fb.cancels.Load(); n != 0 {
		t.Errorf("q sent %d cancels", n)
	}
	if v := r.a.Verdict(); v.Word != model.VerdictPending || v.ExitCode != model.ExitPending {
		t.Errorf("verdict %q (exit %d), want pending (8)", v.Word, v.ExitCode)
	}
	if r.a.ChunkCount() == 0 {
		t.Error("no chunks were applied before the detach")
	}
	select {
	case <-fb.exited:
	default:
		t.Error("the backend was still running after Run returned")
	}
}

// TestRunContextEnds: the caller's context ending (SIGTERM) is a detach.
func TestRunContextEnds(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	fb := newFake(script, true, after...)
	in, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	a, err := runSingle(ctx, Options{ActionID: testAction, Keys: realKeys(t), Backend: fb}, Terminal{Input: in, Output: io.Discard})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if a.Verdict().Word != model.VerdictPending || fb.cancels.Load() != 0 {
		t.Errorf("verdict %q with %d cancels, want pending and none", a.Verdict().Word, fb.cancels.Load())
	}
}

// TestRunError: a stream error ends the following; Run returns it.
func TestRunError(t *testing.T) {
	t.Parallel()
	fb := newFake(steps(5*time.Millisecond, status("streaming", false),
		stream.ErrorMsg{Err: &stream.Error{Op: "follow", Code: "auth.native_http_unauthorized", HTTPStatus: 401, Message: "missing bearer token"}},
		stream.DoneMsg{}), false)
	in, inW := io.Pipe()
	defer inW.Close()
	go func() {
		// q only once the backend has handed over the error (a fixed
		// sleep lost that race on a loaded machine), then a moment for
		// the program to take it in.
		select {
		case <-fb.exited:
		case <-time.After(time.Minute):
		}
		time.Sleep(100 * time.Millisecond)
		_, _ = inW.Write([]byte("q"))
	}()
	_, err := runSingle(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Backend: fb}, Terminal{Input: in, Output: io.Discard})
	var se *stream.Error
	if !errors.As(err, &se) || se.Code != "auth.native_http_unauthorized" {
		t.Fatalf("Run returned %v, want the stream error", err)
	}
}

// TestFlowReconnect: a dropped connection shows reconnecting, then resumes;
// chunks replayed after the resume are not shown twice.
func TestFlowReconnect(t *testing.T) {
	t.Parallel()
	f := newFx(t)
	role := f.role()
	d := f.deltas("one two three four five six seven eight ")
	more := f.deltas("nine ten.")
	var s []step
	s = append(s, steps(5*time.Millisecond, status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
		f.batch(role), f.batch(d[:5]...), stream.CursorMsg{Cursor: cursorA})...)
	s = append(s, step{10 * time.Millisecond, stream.ReconnectingMsg{Attempt: 2, Wait: 300 * time.Millisecond, Cause: "unexpected EOF"}})
	s = append(s, step{400 * time.Millisecond, stream.ConnectedMsg{Attempt: 2, Cursor: cursorA, Resumed: true}})
	// The server replays from the cursor: chunks already seen come again.
	s = append(s, steps(5*time.Millisecond, f.batch(d[3:]...), f.batch(more...),
		f.batch(f.finish("stop", false), f.done()), stream.TerminalMsg{Cursor: cursorA + "T"},
		result(t, model.ResultCompleted, model.OpChat, "", true, false), status(model.StateCompleted, true), stream.DoneMsg{})...)
	fb := newFake(s, false)
	tm, _, sc := startFlow(t, fb, 100, 30)
	sc.waitText(t, "RECONNECTING")
	final := sc.waitText(t, "VERIFIED")
	if strings.Count(final, "one two three four five") != 1 || strings.Count(final, "six") != 1 {
		t.Errorf("text duplicated or missing after the resume:\n%s", final)
	}
	if !strings.Contains(final, "one two three four five six seven eight nine ten.") {
		t.Errorf("the resumed text is not whole:\n%s", final)
	}
	tm.Type("q")
	fm := finalModel(t, tm)
	if got := fm.Action().Text(); got != "one two three four five six seven eight nine ten." {
		t.Errorf("text %q", got)
	}
	if fm.Action().ReplayCount() == 0 {
		t.Error("the replayed chunks were not recognised as replays")
	}
}

// TestFlowResize: resizing mid-stream reflows, keeps every row within the
// width, and keeps the reading position while paused.
func TestFlowResize(t *testing.T) {
	t.Parallel()
	f := newFx(t)
	var s []step
	s = append(s, steps(5*time.Millisecond, status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()))...)
	for i, p := range strings.SplitAfter(longText(30), "\n\n") {
		_ = i
		s = append(s, step{2 * time.Millisecond, f.batch(f.deltas(p)...)})
	}
	fb := newFake(s, true)
	tm, _, sc := startFlow(t, fb, 100, 30)
	sc.waitText(t, "Paragraph 30.")
	tm.Send(keyMsg("home"))
	sc.waitText(t, "paused")
	tm.Send(keyMsg("down"))
	tm.Send(keyMsg("down"))
	tm.Send(keyMsg("down"))
	before := sc.waitText(t, "Paragraph 2.")
	for _, sz := range []struct{ w, h int }{{60, 20}, {140, 45}, {80, 24}} {
		tm.Send(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		got := sc.waitFor(t, "a reflow", func(s string) bool {
			lines := strings.Split(s, "\n")
			return len(lines) == sz.h && ansi.StringWidthWc(lines[0]) <= sz.w && strings.Contains(s, "paused")
		})
		for i, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidthWc(l); w > sz.w {
				t.Errorf("%dx%d: row %d is %d cells: %q", sz.w, sz.h, i, w, l)
			}
		}
		if !strings.Contains(got, "Paragraph 2.") {
			t.Errorf("%dx%d: the reading position moved; before:\n%s\nafter:\n%s", sz.w, sz.h, before, got)
		}
	}
	tm.Type("G")
	sc.waitText(t, "following")
	tm.Type("q")
	finalModel(t, tm)
}

// TestFlowMarkdownAsync: a finished message is rendered with Glamour in a
// command, replacing the plain wrap once ready; m turns it off again.
func TestFlowMarkdownAsync(t *testing.T) {
	t.Parallel()
	f := newFx(t)
	s := steps(5*time.Millisecond, status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()),
		f.batch(f.deltas(chatText3)...), f.batch(f.finish("stop", false), f.done()),
		stream.TerminalMsg{Cursor: cursorA}, result(t, model.ResultCompleted, model.OpChat, "", true, false), stream.DoneMsg{})
	fb := newFake(s, false)
	tm, _, sc := startFlow(t, fb, 100, 30)
	sc.waitText(t, "VERIFIED")
	sc.waitText(t, "• cmd/aipwatch/ holds the entry point")
	tm.Type("m")
	sc.waitText(t, "- `cmd/aipwatch/` holds the entry point")
	tm.Type("q")
	finalModel(t, tm)
}

// lockedBuffer is a terminal's output for Run, read once it returned.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitOutput waits until what the program wrote satisfies pred; the
// deadline is generous for a loaded machine.
func waitOutput(t *testing.T, out *lockedBuffer, what string, pred func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !pred(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the output:\n%q", what, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startRun runs the real program of one action on backend b at 100x30 in
// the background: what Run returns comes on done, what it writes is out,
// and the keys typed go into in (closed when the test ends).
func startRun(t *testing.T, b stream.Runner) (done <-chan error, out *lockedBuffer, in *io.PipeWriter) {
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	out = &lockedBuffer{}
	ch := make(chan error, 1)
	go func() {
		_, err := runSingle(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Backend: b, NoColor: true},
			Terminal{Input: pr, Output: out, NoColor: true, Width: 100, Height: 30})
		ch <- err
	}()
	return ch, out, pw
}

// TestRunErasesTheStartLine: the start line is drawn on the normal screen
// before aipd answers; once the alt screen is gone, the cursor is back at
// the start of an empty line, so the closing lines printed next are not
// glued to "· ctrl+c stops" (the empty frame meant to erase it is dropped
// whenever another frame follows it before the renderer's tick).
func TestRunErasesTheStartLine(t *testing.T) {
	t.Parallel()
	script, after := liveChat(t)
	script[0].delay = 200 * time.Millisecond // the start line is drawn first
	fb := newFake(script, true, after...)
	done, out, inW := startRun(t, fb)
	waitOutput(t, out, "a start line then full screen", func(s string) bool {
		return strings.Contains(s, "ctrl+c stops") && strings.Contains(s, ansi.SetModeAltScreenSaveCursor)
	})
	if _, err := inW.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after q")
	}
	s := out.String()
	i := strings.LastIndex(s, ansi.ResetModeAltScreenSaveCursor)
	if i < 0 {
		t.Fatalf("the alt screen was never left:\n%q", s)
	}
	if tail := s[i:]; !strings.Contains(tail, "\r"+ansi.EraseEntireLine) {
		t.Fatalf("after the alt screen the start line is not erased: %q", tail)
	}
}
