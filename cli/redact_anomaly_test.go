package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"aipwatch/sim"
)

// Anomaly details can name provider IDs (an output_text.done mismatch names
// its item). With --redact no output shows them: plain, jsonl, the export
// and the TUI; without it they do, so the test can fail.
func TestRedactionMasksAnomalyDetails(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "responses-tools", sim.Knobs{})
	dir := t.TempDir()
	truth := filepath.Join(dir, "truth.jsonl")
	runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--record", truth, srv.ActionID())
	b, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	// Make the output_text.done text disagree with its deltas.
	lines := strings.Split(string(b), "\n")
	item := ""
	for i, l := range lines {
		if strings.Contains(l, `response.output_text.done`) && strings.Contains(l, "passes now") {
			lines[i] = strings.ReplaceAll(l, "passes now", "fails now")
			item = regexp.MustCompile(`msg_[0-9a-f]{8,}`).FindString(l)
			break
		}
	}
	if item == "" {
		t.Fatal("scenario has no output_text.done with an item ID to tamper with")
	}
	tampered := filepath.Join(dir, "tampered.jsonl")
	if err := os.WriteFile(tampered, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, redact := range []bool{false, true} {
		outputs := map[string]string{}
		for _, mode := range []string{"plain", "jsonl"} {
			md := filepath.Join(dir, mode+".md")
			args := []string{"--replay", tampered, "--output", mode, "--export", md}
			if redact {
				args = append(args, "--redact")
			}
			_, stdout, stderr := runCLI(t, args...)
			outputs[mode] = stdout + stderr
			e, _ := os.ReadFile(md)
			outputs[mode+" export"] = string(e)
		}
		if redact {
			outputs["tui"] = tuiScreens(t, tampered)
		}
		for where, text := range outputs {
			if !strings.Contains(text, "text_mismatch") && !strings.Contains(text, "differs from its deltas") {
				t.Fatalf("%s (redact %v) shows no text_mismatch anomaly:\n%s", where, redact, text)
			}
			if leaked := strings.Contains(text, item); leaked == redact {
				t.Errorf("%s (redact %v): item ID %s shown %v", where, redact, item, leaked)
			}
		}
	}
}

// The panic report scrubs every copy of the token, not the first.
func TestPanicReportScrubsEveryTokenCopy(t *testing.T) {
	t.Parallel()
	o := oneFollow(tokenConn("http://127.0.0.1:1", secretToken), followFlags{}, runFlags{})
	r := o.panicReport(secretToken + " / " + secretToken + " / " + secretToken)
	if strings.Contains(r, secretToken) || strings.Count(r, " / ") != 2 {
		t.Fatalf("report: %q", r)
	}
}

// --record and --export onto existing 0644 files leave them 0600: the
// record appends to the file, the export replaces it, and both tighten the
// mode of a file that was already there.
func TestRecordAndExportOntoExisting0644(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{})
	dir := t.TempDir()
	rec, md := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.md")
	for _, p := range []string{rec, md} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, "--url", srv.URL(), "--output", "plain", "--record", rec, "--export", md, srv.ActionID()); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{rec, md} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 || fi.Size() <= 3 {
			t.Errorf("%s: mode %v size %d", filepath.Base(p), fi.Mode().Perm(), fi.Size())
		}
	}
}
