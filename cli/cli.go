// Package cli is aipwatch's commands, one cobra tree (root.go): follow one
// action or several (follow.go), submit (submit.go), ls (ls.go), the
// console (console.go), reconcile (reconcile.go), the config file's
// contexts (contexts.go); the connection to a daemon (conn.go), the flags
// of a run (flags.go) and the run.Plan they make (plan.go: aipwatch/run
// runs it), help (help.go), the resume command and start-up hints
// (resume.go). main wires it to the process.
//
// The route of one chunk: stream.Client reads an SSE frame off the socket
// (stream/sse.go, from Client.Run in stream/run.go), routes it by event
// name and data key (stream/route.go), batches it into a stream.BatchMsg
// and hands it to a Sink; the consumer (ui, or an output printer) folds it
// into the model with stream.Apply (stream/apply.go); model.Action ingests
// and interprets it; the TUI draws it through render/, the printers
// through output/.
package cli

import (
	"io"

	"aipwatch/safe"
	"aipwatch/ui"
)

// Keys are the bindings of the live view and of the console, with their
// help: the root's keymap.go declares them, ui decides which help shows.
type Keys struct {
	Live    ui.KeyMap
	Console ui.ConsoleKeyMap
}

// Run runs aipwatch with args (the program name left out) and returns the
// exit code (design §3): every byte it writes goes through safe/.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, keys Keys) int {
	// Every byte written goes through a safe.Writer (design §5): the
	// token scrubbed, no control obeyed. The TUI draws on the terminal
	// itself (safe.Unwrap); its frames are scrubbed in ui.
	sout, serr := safe.NewWriter(stdout, safe.Terminal), safe.NewWriter(stderr, safe.Terminal)
	defer serr.Flush()
	defer sout.Flush()
	e := &runEnv{stdin: stdin, stdout: sout, stderr: serr, getenv: getenv, keys: keys, args: args}
	return e.run(args)
}

// run executes the tree over args: a usage error is exit 2, anything else
// the code the command set.
func (e *runEnv) run(args []string) int {
	root := newRoot(e)
	root.SetArgs(completionArgs(args))
	cmd, err := root.ExecuteC()
	if err != nil {
		return e.usageExit(cmd, err)
	}
	return e.code
}
