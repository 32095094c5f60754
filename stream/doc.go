// Package stream follows one action on aipd over HTTP and Server-Sent
// Events and turns what it reads into typed messages (messages.go) for one
// Sink: the TUI, plain, jsonl, record and replay. It knows nothing of
// terminals or Bubble Tea; Apply (apply.go) is the route from its messages
// into model.Action. README.md in this folder describes the run.
package stream
