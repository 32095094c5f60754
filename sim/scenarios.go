package sim

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// step is one provider frame "received by the connector" delay after the
// previous one, at Speed 1.
type step struct {
	delay time.Duration
	floor bool // paced step of an endless script: never shorter than minEndlessStep
	f     frame
}

// minEndlessStep keeps an endless script (long) from spinning at Speed 0 or
// at a huge Speed.
const minEndlessStep = 5 * time.Millisecond

// defaultMaxEvents is the connector's default max_events.
const defaultMaxEvents = 4096

type scenario struct {
	name      string
	desc      string
	operation string // chat_stream or responses_stream
	endless   bool   // runs until cancelled
	// script returns the frames and the connector's max_events.
	script func(k Knobs) (iter.Seq[step], int)

	// How the daemon runs it (Knobs.Mode and Knobs.Cursors override):
	// mode is ModeSync (the guide's `action call`) unless set.
	mode    string
	cursors string
	// handlerFails: after the script, the connector's handler returns an
	// error (a transport error mid-stream, the 300 s deadline) instead of
	// a result (protocol §10.3).
	handlerFails bool
}

var scenarios = []scenario{
	{name: "chat-tools", desc: "Chat turn with two tools (terminal, read_file), markdown, finish stop, [DONE]: completed",
		operation: "chat_stream", script: fixed(chatTools)},
	{name: "chat-length", desc: "Chat turn cut by the output limit: finish length with error+hermes objects, [DONE]: completed",
		operation: "chat_stream", script: fixed(chatLength)},
	{name: "chat-error", desc: "Chat turn whose agent failed: finish error with error+hermes objects, [DONE]: completed",
		operation: "chat_stream", script: fixed(chatError)},
	{name: "chat-crash", desc: "Chat writer crash: finish error chunk without usage or error object, [DONE]: completed",
		operation: "chat_stream", script: fixed(chatCrash)},
	{name: "chat-unterminated", desc: "Chat upstream closes without [DONE]: extra error chunk, failed stream_incomplete",
		operation: "chat_stream", script: fixed(chatUnterminated)},
	{name: "chat-truncated", desc: "Chat turn whose [DONE] lands exactly on max_events: done chunk, failed stream_truncated",
		operation: "chat_stream", script: chatTruncated},
	{name: "responses-tools", desc: "Responses turn: text, two function calls with outputs, more text, response.completed",
		operation: "responses_stream", script: fixed(responsesTools)},
	{name: "responses-failed", desc: "Responses turn with some text, then response.failed: failed stream_failed",
		operation: "responses_stream", script: fixed(responsesFailed)},
	{name: "long", desc: "Chat deltas every 100 ms, numbered paragraphs, until cancelled: cancelled",
		operation: "chat_stream", endless: true, script: long},
	{name: "late-cancel", desc: "Short Chat turn that completes; a later cancel is accepted but the result stays completed",
		operation: "chat_stream", script: fixed(lateCancel)},
	{name: "firehose", desc: "FirehoseN (default 100000) Chat delta chunks as fast as possible, then finish stop: completed",
		operation: "chat_stream", script: firehose},

	// The daemon behaviours the first reading missed (protocol §10,
	// the table and A1-A3), one scenario each.
	{name: "async-long", desc: "the long turn submitted with mode async (queued, then running) until cancelled: cancelled, no result ever",
		operation: "chat_stream", endless: true, script: long, mode: ModeAsync},
	{name: "async-dead-lettered", desc: "the failed Responses turn in mode async: state dead_lettered, result failed stream_failed",
		operation: "responses_stream", script: fixed(responsesFailed), mode: ModeAsync},
	{name: "postgres", desc: "the Chat turn with tools on a Postgres-backed daemon that refuses every cursor it hands out: completed",
		operation: "chat_stream", script: fixed(chatTools), cursors: CursorsPostgres},
	{name: "sync-handler-failed", desc: "a synchronous Chat turn whose handler fails mid-stream: chunks, then no record and no result ever",
		operation: "chat_stream", script: fixed(chatHandlerFailed), handlerFails: true},
}

// Scenarios lists the scenario names, in display order.
func Scenarios() []string {
	out := make([]string, len(scenarios))
	for i, sc := range scenarios {
		out[i] = sc.name
	}
	return out
}

// Describe is a one-line description of a scenario ("" if unknown).
func Describe(name string) string {
	if sc := lookup(name); sc != nil {
		return sc.desc
	}
	return ""
}

func lookup(name string) *scenario {
	i := slices.IndexFunc(scenarios, func(sc scenario) bool { return sc.name == name })
	if i < 0 {
		return nil
	}
	return &scenarios[i]
}

func unknownScenario(name string) error {
	return fmt.Errorf("sim: unknown scenario %q (known: %s)", name, strings.Join(Scenarios(), ", "))
}

// script is a builder for a finite, paced script.
type script struct {
	steps []step
	rnd   uint32
}

func fixed(build func(*script)) func(Knobs) (iter.Seq[step], int) {
	return func(Knobs) (iter.Seq[step], int) {
		sc := &script{rnd: 7}
		build(sc)
		return slices.Values(sc.steps), defaultMaxEvents
	}
}

// at adds frames: the first after d, the rest right after it.
func (sc *script) at(d time.Duration, fs ...frame) {
	for i, f := range fs {
		if i > 0 {
			d = 0
		}
		sc.steps = append(sc.steps, step{delay: d, f: f})
	}
}

// jitter is a deterministic pseudo-random delay in [lo, hi] milliseconds.
func (sc *script) jitter(lo, hi int) time.Duration {
	sc.rnd = sc.rnd*1664525 + 1013904223
	return time.Duration(lo+int(sc.rnd>>16)%(hi-lo+1)) * time.Millisecond
}

// pieces splits text into deltas of one or two words, keeping all spacing,
// the way a model's tokens arrive.
func (sc *script) pieces(text string) []string {
	words := strings.SplitAfter(text, " ")
	var out []string
	for i := 0; i < len(words); {
		n := 1 + int(sc.jitter(0, 1)/time.Millisecond)
		n = min(n, len(words)-i)
		if p := strings.Join(words[i:i+n], ""); p != "" {
			out = append(out, p)
		}
		i += n
	}
	return out
}

// say streams text as Chat content deltas 30–80 ms apart.
func (sc *script) say(g chatGen, text string) {
	for _, p := range sc.pieces(text) {
		sc.at(sc.jitter(30, 80), g.delta(p))
	}
}

// write streams text as Responses output_text.delta batches.
func (sc *script) write(g *respGen, text string) {
	for _, p := range sc.pieces(text) {
		sc.at(sc.jitter(40, 80), g.textDelta(p)...)
	}
}

const ms = time.Millisecond

func chatTools(sc *script) {
	g := newChatGen("chat-tools")
	sc.at(400*ms, g.role())
	sc.say(g, "I'll take a look at the project layout first.")
	sc.at(250*ms, toolRunning("terminal", "💻", "ls -la", "call_terminal_1"))
	sc.at(1100*ms, toolCompleted("terminal", "call_terminal_1"))
	sc.say(g, " The tree is small; let me read the README too.")
	sc.at(200*ms, toolRunning("read_file", "📖", "README.md", "call_read_file_2"))
	sc.at(900*ms, toolCompleted("read_file", "call_read_file_2"))
	sc.say(g, "\n\nHere's what I found:\n\n"+
		"- `cmd/aipwatch/` holds the entry point (`main.go`)\n"+
		"- `model/` decides the verdict — one rule per row\n"+
		"- `README.md` mentions a naïve café-style demo ☕\n\n"+
		"Everything looks tidy 💻✨ Want me to run `go test ./...` next?")
	sc.at(250*ms, g.finishStop(chatUsage(1840, 212)))
	sc.at(30*ms, doneFrame())
}

func chatLength(sc *script) {
	g := newChatGen("chat-length")
	sc.at(400*ms, g.role())
	sc.say(g, "Here is the full changelog since v1.0:\n\n"+
		"1. Streaming for Chat and Responses\n"+
		"2. The naïve retry loop became a back-off\n"+
		"3. The café demo got a new")
	sc.at(200*ms, g.finishLength(chatUsage(934, 512), "Response truncated due to output length limit"))
	sc.at(30*ms, doneFrame())
}

func chatError(sc *script) {
	g := newChatGen("chat-error")
	sc.at(400*ms, g.role())
	sc.say(g, "Let me check that for you… ")
	sc.at(600*ms, g.finishError(chatUsage(611, 9), "upstream model 500"))
	sc.at(30*ms, doneFrame())
}

func chatCrash(sc *script) {
	g := newChatGen("chat-crash")
	sc.at(400*ms, g.role())
	sc.say(g, "Starting the analysis of the log files — first the ")
	sc.at(300*ms, g.crash())
	sc.at(30*ms, doneFrame())
}

func chatUnterminated(sc *script) {
	g := newChatGen("chat-unterminated")
	sc.at(400*ms, g.role())
	sc.say(g, "The upstream connection drops in the middle of this sent")
}

func chatTruncated(Knobs) (iter.Seq[step], int) {
	sc := &script{rnd: 11}
	g := newChatGen("chat-truncated")
	sc.at(400*ms, g.role())
	sc.say(g, "This answer fits, but its last frame lands exactly on max_events.")
	sc.at(200*ms, g.finishStop(chatUsage(120, 17)))
	sc.at(30*ms, doneFrame())
	return slices.Values(sc.steps), len(sc.steps)
}

func responsesTools(sc *script) {
	g := newRespGen("responses-tools")
	sc.at(300*ms, g.created())
	sc.write(g, "Let me check your notes first.")
	sc.at(200*ms, g.toolStarted("read_file", "call_read_file_1", o("path", "notes/todo.txt")))
	sc.at(900*ms, g.toolCompleted("call_read_file_1",
		`{"content": "1|# TODO\n2|- buy café beans ☕\n3|- fix the flaky test"}`)...)
	sc.at(200*ms, g.toolStarted("terminal", "call_terminal_2", o("command", "go test ./...")))
	sc.at(1200*ms, g.toolCompleted("call_terminal_2",
		`{"output": "ok  \taipwatch/model\t0.012s\n", "exit_code": 0}`)...)
	sc.write(g, " You have two items:\n\n"+
		"1. **Buy café beans** ☕\n"+
		"2. **Fix the flaky test** — `go test ./...` passes now ✅")
	sc.at(150*ms, g.completed(1324, 87)...)
}

func responsesFailed(sc *script) {
	g := newRespGen("responses-failed")
	sc.at(300*ms, g.created())
	sc.write(g, "Working on it — checking the provider…")
	sc.at(700*ms, g.failed("upstream provider returned HTTP 502 (Bad Gateway)"))
}

// chatHandlerFailed is a Chat turn that stops in the middle: the handler
// then fails (scenario handlerFails).
func chatHandlerFailed(sc *script) {
	g := newChatGen("sync-handler-failed")
	sc.at(400*ms, g.role())
	sc.say(g, "Reading the deployment logs now; the provider connection is about to reset in the middle of")
}

// lateCancel is a turn that completes while a cancel is on its way to the
// daemon (--demo=late-cancel sends one at once and holds it in transit,
// Knobs.CancelInTransit): its words come slowly enough, about 3 s at Speed
// 1, to watch the cancel stay pending while the provider goes on and
// finishes. The late cancel is then answered 200 and the result stays
// completed (protocol §6.3, "late cancel → 200 with the
// result kept").
func lateCancel(sc *script) {
	g := newChatGen("late-cancel")
	sc.at(300*ms, g.role())
	for _, p := range sc.pieces("Wrapping up: the report is written, the tests pass and the " +
		"branch is pushed. Nothing is left but to say so. All done — nothing else to do ✅") {
		sc.at(sc.jitter(120, 220), g.delta(p))
	}
	sc.at(100*ms, g.finishStop(chatUsage(40, 31)))
	sc.at(20*ms, doneFrame())
}

// finishedParagraphs bounds long when Knobs.Finished asks for a settled
// action.
const finishedParagraphs = 3

func long(k Knobs) (iter.Seq[step], int) {
	g := newChatGen("long")
	words := strings.Fields("The simulator keeps talking so that a viewer can scroll, pause, " +
		"resume and finally cancel. Each sentence is streamed a word or two at a time, " +
		"exactly like a model that has a lot to say about nothing in particular.")
	return func(yield func(step) bool) {
		if !yield(step{delay: 400 * ms, f: g.role()}) {
			return
		}
		for n := 1; !k.Finished || n <= finishedParagraphs; n++ {
			head := fmt.Sprintf("**Paragraph %d.** ", n)
			if n > 1 {
				head = "\n\n" + head
			}
			if !yield(step{delay: 100 * ms, floor: true, f: g.delta(head)}) {
				return
			}
			for _, w := range words {
				if !yield(step{delay: 100 * ms, floor: true, f: g.delta(w + " ")}) {
					return
				}
			}
		}
	}, 100000
}

// DefaultFirehoseN is the firehose size when Knobs.FirehoseN is 0.
const DefaultFirehoseN = 100000

// firehoseFiller starts each firehose delta; a follow frame (the chunk with
// its envelope) is then about 630 bytes, the size of a real Chat delta chunk.
const firehoseFiller = "token "

func firehose(k Knobs) (iter.Seq[step], int) {
	n := k.FirehoseN
	if n <= 0 {
		n = DefaultFirehoseN
	}
	g := newChatGen("firehose")
	return func(yield func(step) bool) {
		if !yield(step{delay: 300 * ms, f: g.role()}) {
			return
		}
		for i := range n {
			if !yield(step{f: g.delta(fmt.Sprintf("%s%06d ", firehoseFiller, i))}) {
				return
			}
		}
		if yield(step{f: g.finishStop(chatUsage(50, n))}) {
			yield(step{f: doneFrame()})
		}
	}, n + 4 // role + n deltas + finish + [DONE], one below the limit
}
