package sim

import (
	"encoding/hex"
	"strconv"
	"time"
)

// A production daemon keeps every action it ever ran and every event of
// every stream in its global log (protocol §2.1, §2.2). A
// Fleet's History stands for that past without holding it: N settled
// actions and H events whose rows and frames are computed from their index
// when a request reads them, so that a test or a benchmark can run 100,000
// actions and 10,000,000 events in a few megabytes.

// History is the settled past of a Fleet, before its live members.
type History struct {
	// Actions settled before the fleet started; they come first in the
	// list (updated_at ascending, §2.1), a step apart.
	Actions int
	// Events of those actions in the global log, before every member's
	// (§2.2): each action's chunk events, then its aip.action.result.
	// Spread evenly over the actions (the first ones get one more when
	// they do not divide).
	Events int64
}

// history is the arithmetic of a History.
type history struct {
	n      int
	events int64
	per    int64 // events per action
	rem    int64 // the first rem actions have per+1
	end    time.Time
	step   time.Duration
}

// histStates is the cycle of the settled states over the actions, so that
// a state filter (§2.1) has something to find in each.
var histStates = [20]string{
	"completed", "completed", "completed", "failed", "completed",
	"completed", "completed", "cancelled", "completed", "completed",
	"completed", "completed", "completed", "failed", "completed",
	"completed", "completed", "dead_lettered", "completed", "completed",
}

// histPositions[state] are the positions of a state in histStates.
var histPositions = func() map[string][]int {
	m := map[string][]int{}
	for i, s := range histStates {
		m[s] = append(m[s], i)
	}
	return m
}()

func newHistory(h History, start time.Time) history {
	hi := history{n: max(h.Actions, 0), events: max(h.Events, 0)}
	if hi.n == 0 {
		hi.events = 0 // no action to own them
	}
	if hi.n > 0 {
		hi.per, hi.rem = hi.events/int64(hi.n), hi.events%int64(hi.n)
	}
	// An action's events are a millisecond apart and end at its
	// updated_at; the actions are at least 30 s apart (100,000 of them are
	// a month), and the newest a minute before the fleet started.
	hi.step = max(30*time.Second, time.Duration(hi.per+2)*time.Millisecond)
	hi.end = start.Add(-time.Minute).UTC()
	return hi
}

// state of action a.
func (h *history) state(a int) string { return histStates[a%len(histStates)] }

// async: the action went through the queue (a queue record: queued_state,
// a worker's start time, B4). A dead-lettered one always did, and a failed
// async action is dead-lettered, never failed (A7).
func (h *history) async(a int) bool {
	st := h.state(a)
	return st == "dead_lettered" || (st == "completed" && a%4 == 1)
}

func (h *history) operation(a int) string {
	if a%3 == 2 {
		return "responses_stream"
	}
	return "chat_stream"
}

func (h *history) updated(a int) time.Time {
	return h.end.Add(-time.Duration(h.n-1-a) * h.step)
}

// id is action a's ID: act_ and 32 hex digits, its index in the last 8 so
// that a route finds it again.
func (h *history) id(a int) string {
	var b [16]byte
	x := uint64(a)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	for i := range 12 {
		x ^= x >> 29
		x *= 0xBF58476D1CE4E5B9
		b[i] = byte(x >> 56)
	}
	b[12], b[13], b[14], b[15] = byte(a>>24), byte(a>>16), byte(a>>8), byte(a)
	return "act_" + hex.EncodeToString(b[:])
}

// index is the action an ID names, or -1.
func (h *history) index(id string) int {
	if len(id) != 4+32 {
		return -1
	}
	n, err := strconv.ParseUint(id[len(id)-8:], 16, 32)
	if err != nil || n >= uint64(h.n) || h.id(int(n)) != id {
		return -1
	}
	return int(n)
}

// count of actions in state ("" = all).
func (h *history) count(state string) int {
	if state == "" {
		return h.n
	}
	pos := histPositions[state]
	full, rest := h.n/len(histStates), h.n%len(histStates)
	c := full * len(pos)
	for _, p := range pos {
		if p < rest {
			c++
		}
	}
	return c
}

// nth is the index of the k-th action in state ("" = all), in list order.
func (h *history) nth(state string, k int) int {
	if state == "" {
		return k
	}
	pos := histPositions[state]
	return k/len(pos)*len(histStates) + pos[k%len(pos)]
}

// eventsOf is the position of action a's first event and how many it has.
func (h *history) eventsOf(a int) (first, count int64) {
	ai := int64(a)
	if ai < h.rem {
		return ai * (h.per + 1), h.per + 1
	}
	return h.rem*(h.per+1) + (ai-h.rem)*h.per, h.per
}

// actionAt is the action owning the event at position j < h.events.
func (h *history) actionAt(j int64) int {
	cut := h.rem * (h.per + 1)
	if j < cut {
		return int(j / (h.per + 1))
	}
	return int(h.rem + (j-cut)/h.per)
}

// histEvent is the event at a position: a chunk (seq) or the result.
type histEvent struct {
	action int
	result bool
	seq    int64
	last   bool // the action's last chunk
	at     time.Time
}

func (h *history) event(j int64) histEvent {
	a := h.actionAt(j)
	first, count := h.eventsOf(a)
	k := j - first
	at := h.updated(a).Add(-time.Duration(count-1-k) * time.Millisecond)
	return histEvent{action: a, result: k == count-1, seq: k, last: k == count-2, at: at}
}

// kind of the event at j, without building it.
func (h *history) kindAt(j int64) string {
	a := h.actionAt(j)
	first, count := h.eventsOf(a)
	if j-first == count-1 {
		return "aip.action.result"
	}
	return "aip.stream.chunk"
}

// resultStatus is the stored result's status: a dead-lettered action
// keeps its failed result (A7); a cancelled synchronous run stores a
// cancelled one (A1).
func (h *history) resultStatus(a int) string {
	if st := h.state(a); st != "dead_lettered" {
		return st
	}
	return "failed"
}

// appendEvent appends the Event JSON at position j, and returns its id
// and kind.
func (h *history) appendEvent(b []byte, j int64) ([]byte, string, string) {
	e := h.event(j)
	id := h.id(e.action)
	if e.result {
		eid := "evt_" + fakeHex(id+"/aip.action.result/1", 32)
		b = append(b, `{"id":"`...)
		b = append(b, eid...)
		b = append(b, `","kind":"aip.action.result","occurred_at":"`...)
		b = e.at.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","action_id":"`...)
		b = append(b, id...)
		b = append(b, `","data":{"action_id":"`...)
		b = append(b, id...)
		b = append(b, `","status":"`...)
		b = append(b, h.resultStatus(e.action)...)
		return append(b, `"}}`...), eid, "aip.action.result"
	}
	kind := "delta"
	if e.last {
		kind = "done"
	}
	b = appendChunkEventJSON(b, id, uint64(e.seq), kind, e.at)
	return b, chunkEventID(id, uint64(e.seq)), "aip.stream.chunk"
}

// row is action a's ActionStatus as the list shows it (§2.1): with a queue
// record, the capability, queued_state and the worker's start; a
// synchronous action's record is written as it settles (B4).
func (h *history) row(a int) obj {
	st := h.state(a)
	up := h.updated(a).Format(time.RFC3339Nano)
	v := o("action_id", h.id(a), "capability_id", "cap:hermes_agent:"+simEndpoint+":"+h.operation(a), "state", st)
	started := up
	if h.async(a) {
		v = append(v, kv{"queued_state", st})
		started = h.updated(a).Add(-4 * time.Second).Format(time.RFC3339Nano)
	}
	v = append(v, kv{"result_status", h.resultStatus(a)}, kv{"started_at", started}, kv{"updated_at", up}, kv{"completed_at", up})
	return v
}

// past is how action a ran, for the review of its run (past.go): ending
// at its updated_at, at a pace and with a time to first content of its
// own, the same at every read. Providers' turns vary that way: most think
// well under a second and run for seconds, a few think for seconds and run
// near a minute (the square and cube of a uniform draw skew the spread
// towards the short ones).
func (h *history) past(a int) PastRun {
	u, v := unitDraw(a, 1), unitDraw(a, 2)
	return PastRun{
		End:   h.updated(a),
		Pace:  0.5 + 7.5*u*u,                                                     // chat-tools: 2.7 s to 43 s
		Think: 200*time.Millisecond + time.Duration(v*v*v*3800)*time.Millisecond, // 0.2 s to 4 s
	}
}

// unitDraw is a deterministic draw in [0, 1) for action a (splitmix64 of
// a and salt).
func unitDraw(a, salt int) float64 {
	x := uint64(a)*0x9E3779B97F4A7C15 + uint64(salt)*0xD1B54A32D192ED03 //nolint:gosec // any bits will do
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// scenario is the script whose settled run stands for action a when its
// own routes are read (the list row's times and the global log's events
// are the history's; the run's are when it was opened).
func (h *history) scenario(a int) (string, string) {
	responses := h.operation(a) == "responses_stream"
	switch h.state(a) {
	case "failed":
		if responses {
			return "responses-failed", ModeSync
		}
		return "chat-unterminated", ModeSync
	case "cancelled":
		return "long", ModeSync
	case "dead_lettered":
		return "async-dead-lettered", ModeAsync
	}
	mode := ModeSync
	if h.async(a) {
		mode = ModeAsync
	}
	if responses {
		return "responses-tools", mode
	}
	return "chat-tools", mode
}
