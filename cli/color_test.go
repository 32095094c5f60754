package cli

import (
	"io"
	"testing"
)

// NO_COLOR is read from the run's environment (the getenv Run is given),
// by every TUI alike: the console's options, the live view's and the
// split view's (options.colorless).
func TestNoColorFromTheRunsEnvironment(t *testing.T) {
	env := func(noColor string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
	}
	t.Setenv("NO_COLOR", "") // the process's: not the run's
	o, _, err := parse(nil, io.Discard, env("1"))
	if err != nil {
		t.Fatal(err)
	}
	if !consoleOptions(o).NoColor {
		t.Error("the console drew in colour with NO_COLOR set in the run's environment")
	}
	if !o.w.colorless(true) {
		t.Error("a TUI drew in colour with NO_COLOR set")
	}
	if o, _, err = parse(nil, io.Discard, env("")); err != nil {
		t.Fatal(err)
	}
	if consoleOptions(o).NoColor || o.w.colorless(true) {
		t.Error("no colour without NO_COLOR or --no-color on a terminal")
	}
	if !o.w.colorless(false) {
		t.Error("colour into an output that is no terminal")
	}
	if o, _, err = parse([]string{"--no-color"}, io.Discard, env("")); err != nil {
		t.Fatal(err)
	}
	if !consoleOptions(o).NoColor {
		t.Error("the console drew in colour with --no-color")
	}
}
