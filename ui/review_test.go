package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/stream"
)

// Reviewing a finished action: search (a teatest flow), export, the
// review badge and a replay's refused cancel.

func settledScript(tb testing.TB, review bool) []step {
	msgs := chatToolsDone(tb, newFx(tb), "stop", false, result(tb, model.ResultCompleted, model.OpChat, "", true, false))
	msgs[1] = stream.ModeMsg{Review: review}
	return steps(2*time.Millisecond, msgs...)
}

func TestFlowSearch(t *testing.T) {
	t.Parallel()
	tm, _, sc := startFlow(t, newFake(settledScript(t, true), false), 100, 30)
	sc.waitText(t, "VERIFIED")
	tm.Type("/")
	sc.waitText(t, "enter find")
	tm.Type("read")
	sc.waitText(t, "/read  7 matches")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	sc.waitText(t, "search “read” 1/7")
	tm.Type("n")
	sc.waitText(t, "search “read” 2/7")
	tm.Type("N")
	sc.waitText(t, "search “read” 1/7")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	sc.waitFor(t, "the search cleared", func(s string) bool {
		return !strings.Contains(s, "search “") && !strings.Contains(s, "n/N")
	})
	tm.Type("q")
	fm := finalModel(t, tm)
	if !fm.tr.Query().Empty() {
		t.Error("the search survived esc")
	}
}

func TestExportWritesPrivateMarkdown(t *testing.T) {
	t.Parallel()
	for _, redact := range []bool{false, true} {
		name := "plain"
		if redact {
			name = "redacted"
		}
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.md")
			h := newHarness(t, 100, 30, func(o *Options) {
				o.ExportPath, o.Version, o.Redact = path, "v9.9.9-test", redact
			})
			h.feed(responsesTools(t, h.f, true)...)
			h.at(20 * time.Second)
			cmd := h.m.onKey(keyMsg("e"))
			if cmd == nil {
				t.Fatal("e returned no command")
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatal("the file was written in Update, not in the command")
			}
			msg := cmd()
			h.m.Update(msg)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if mode := fi.Mode().Perm(); mode != 0o600 {
				t.Errorf("mode %o, want 600", mode)
			}
			got, _ := os.ReadFile(path)
			want := output.Markdown(h.m.Action(), output.MarkdownOptions{Redact: redact, Version: "v9.9.9-test", Now: t0.Add(20 * time.Second)})
			if !bytes.Equal(got, want) {
				t.Errorf("the file is not output.Markdown:\n%s", got)
			}
			if !strings.Contains(h.screen(), "exported to "+path) {
				t.Errorf("no notice:\n%s", h.screen())
			}
			if redact {
				if !strings.Contains(h.screen(), "(redacted)") {
					t.Error("the notice does not say the export is redacted")
				}
				for _, secret := range []string{"Let me check", "notes", "todo.txt", "café", "flaky", "go test",
					"aipwatch/model", "call_read_file_1", "resp_4b1d9e0c7a2f5e8d3c6b9a0f1e2d", "exit_code"} {
					if bytes.Contains(got, []byte(secret)) {
						t.Errorf("the redacted export holds %q", secret)
					}
				}
			}
			// An existing file is replaced and made private again.
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			h.m.Update(h.m.onKey(keyMsg("e"))())
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("re-export left mode %o", fi.Mode().Perm())
			}
		})
	}
}

func TestExportDefaultName(t *testing.T) {
	dir := t.TempDir()
	realKeys(t) // ../keymap.go is read once, from the package's directory: before the chdir
	t.Chdir(dir)
	h := chatVerified(newHarness(t, 100, 30))
	h.at(12 * time.Second) // the name takes the UI clock
	if cmd := h.m.onKey(keyMsg("e")); cmd != nil {
		t.Fatal("e without a path wrote before the format was chosen")
	}
	h.m.Update(h.m.onKey(keyMsg("m"))())
	want := "aipwatch-" + testAction + "-20260910T120012Z.md"
	fi, err := os.Stat(filepath.Join(dir, want))
	if err != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("%v (the directory has %v)", err, entries)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", fi.Mode().Perm())
	}
	// A second export in the same second never replaces the first.
	h.press("e")
	h.m.Update(h.m.onKey(keyMsg("m"))())
	second := strings.TrimSuffix(want, ".md") + "-2.md"
	if _, err := os.Stat(filepath.Join(dir, second)); err != nil {
		t.Errorf("second export: %v", err)
	}
	if !strings.Contains(h.screen(), "exported to "+second) {
		t.Errorf("notice:\n%s", h.screen())
	}
	if got := ExportName("act_a/../b c", t0); got != "aipwatch-act_a_.._b_c-20260910T120000Z.md" {
		t.Errorf("ExportName kept path characters: %q", got)
	}
	if !regexp.MustCompile(`^aipwatch-[A-Za-z0-9_.-]+-\d{8}T\d{6}Z\.md$`).MatchString(ExportName(testAction, time.Now())) {
		t.Error("ExportName pattern")
	}
}

func TestExportErrorIsANotice(t *testing.T) {
	t.Parallel()
	h := chatVerified(newHarness(t, 100, 30, func(o *Options) {
		o.ExportPath = filepath.Join(t.TempDir(), "no", "such", "dir", "x.md")
	}))
	h.m.Update(h.m.onKey(keyMsg("e"))())
	if s := h.screen(); !strings.Contains(s, "export failed:") || !strings.Contains(s, "no such file") {
		t.Errorf("no error notice:\n%s", s)
	}
}

func TestReviewBadge(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
	msgs[1] = stream.ModeMsg{Review: true}
	h.feed(msgs...)
	status := strings.Split(h.screen(), "\n")[27]
	if !strings.HasPrefix(status, " VERIFIED   REVIEW ") {
		t.Errorf("the status line %q does not carry REVIEW next to the verdict", status)
	}
	live := chatVerified(newHarness(t, 100, 30))
	if strings.Contains(live.screen(), "REVIEW") {
		t.Error("a live run shows REVIEW")
	}
}

// replayBackend is record.Replay's behaviour: the script, then a cancel
// refused with its words.
type replayBackend struct{ script []stream.Msg }

func (r replayBackend) Run(ctx context.Context, sink stream.Sink) error {
	for _, m := range r.script {
		sink.Send(m)
	}
	return nil
}

func (r replayBackend) Cancel(context.Context, string) stream.CancelMsg {
	return stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "a replay has no live action to cancel"}}
}

func TestReplayCancelRefusalIsANotice(t *testing.T) {
	t.Parallel()
	// A replay stopped half-way (the recording of a live run that the
	// viewer left): ModeMsg{Review: true} from the replay, not settled.
	live := chatToolsLive(newFx(t))
	live[1] = stream.ModeMsg{Review: true}
	t.Run("through the backend", func(t *testing.T) {
		tm, _, sc := startFlow(t, replayBackend{script: live}, 100, 30)
		sc.waitText(t, "REVIEW")
		sc.waitText(t, "ls -la")
		tm.Type("c")
		sc.waitText(t, "Cancel action")
		tm.Type("2Z4A")
		tm.Send(keyMsg("enter"))
		sc.waitText(t, "a replay has no live action to cancel")
		tm.Type("q")
		fm := finalModel(t, tm)
		if fm.Action().Cancel.Err == "" {
			t.Error("the refusal was not recorded")
		}
	})
	t.Run("--cancel", func(t *testing.T) {
		tm, _, sc := startFlow(t, replayBackend{script: live}, 100, 30, func(o *Options) { o.AutoCancel = true })
		sc.waitText(t, "a replay has no live action to cancel")
		tm.Type("q")
		finalModel(t, tm)
	})
	t.Run("Options.Replay", func(t *testing.T) {
		rec := chatToolsLive(newFx(t)) // the recording of a live run says live
		tm, _, sc := startFlow(t, replayBackend{script: rec}, 100, 30, func(o *Options) { o.Replay = true })
		sc.waitText(t, "REVIEW")
		sc.waitText(t, "replaying a recording")
		tm.Type("c")
		sc.waitText(t, "a replay has no live action to cancel")
		if s := sc.current(); strings.Contains(s, "Cancel action") || strings.Contains(s, "c cancel") {
			t.Errorf("a replay offers a cancel:\n%s", s)
		}
		tm.Type("q")
		fm := finalModel(t, tm)
		if fm.Action().Cancel.Requested {
			t.Error("c in a replay recorded a cancel request")
		}
	})
}

func TestFlowExport(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "flow.md")
	tm, _, sc := startFlow(t, newFake(settledScript(t, true), false), 100, 30, func(o *Options) { o.ExportPath = path })
	sc.waitText(t, "VERIFIED")
	tm.Type("e")
	sc.waitText(t, "exported to "+path)
	tm.Type("q")
	fm := finalModel(t, tm)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := output.Markdown(fm.Action(), output.MarkdownOptions{Now: time.Now()})
	head := func(b []byte) []byte { return b[:bytes.Index(b, []byte("| cost"))] }
	if !bytes.Contains(got, []byte("project layout")) || !bytes.Equal(head(got), head(want)) {
		t.Errorf("export:\n%s", got)
	}
}

// e asks for the format when main gave no path: h writes the HTML report
// (output.HTML) under a generated .html name, esc writes nothing; a path
// given by main (--export) picks the format by its extension.
func TestExportChoosesHTML(t *testing.T) {
	dir := t.TempDir()
	realKeys(t)
	t.Chdir(dir)
	h := chatVerified(newHarness(t, 100, 30))
	h.at(12 * time.Second)
	h.press("e", "esc")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("esc wrote %v", entries)
	}
	if h.m.Mode() != ModeNormal {
		t.Fatalf("mode %v after esc", h.m.Mode())
	}
	h.press("e")
	if !strings.Contains(h.screen(), "export as:") {
		t.Fatalf("no choice shown:\n%s", h.screen())
	}
	h.m.Update(h.m.onKey(keyMsg("h"))())
	name := "aipwatch-" + testAction + "-20260910T120012Z.html"
	got, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("<!DOCTYPE html>")) || !bytes.Contains(got, []byte("<svg")) {
		t.Errorf("not the HTML report:\n%.300s", got)
	}

	path := filepath.Join(dir, "given.HTML")
	h2 := chatVerified(newHarness(t, 100, 30, func(o *Options) { o.ExportPath = path }))
	h2.m.Update(h2.m.onKey(keyMsg("e"))())
	if got, _ := os.ReadFile(path); !bytes.HasPrefix(got, []byte("<!DOCTYPE html>")) {
		t.Errorf("--export x.HTML did not write HTML:\n%.200s", got)
	}
}
