package model

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fleet is what the operator console knows about the daemon's actions
// (design §7): the action list, the global event log (the only place a
// live synchronous action shows, protocol §2.2) and this
// machine's submission journal, merged into one row per action. It does no
// I/O; the console feeds it.
type Fleet struct {
	rows map[string]*ActionRow
	// listed: the contexts whose list has been read at least once. Until
	// it has, a chunk on the global log cannot say that its action is a
	// synchronous one the list lacks (an async one the list will show as
	// running reads the same): such an event makes no row.
	listed  map[string]bool
	Version uint64 // increases on every change, for caches
}

// ActionRow is one action of the console and of `aipwatch ls`.
type ActionRow struct {
	ActionID     string
	CapabilityID string // cap:hermes_agent:ENDPOINT:OPERATION, "" when the daemon does not know it yet
	State        string // lifecycle state; "streaming" for a live sync action seen only on the global log
	QueuedState  string
	ResultStatus string
	StartedAt    time.Time
	UpdatedAt    time.Time // the list's updated_at, or the latest event's time, whichever is later
	LeaseWorker  string
	LeaseExpires time.Time
	Attempts     int

	Listed   bool   // in the daemon's last list read
	LiveSync bool   // seen only on the global log: a synchronous action with no record yet
	LastSeq  uint64 // highest chunk sequence seen on the global log
	HasSeq   bool
	Journal  bool   // this machine's submission journal knows it
	Older    bool   // read from an older page the operator asked for (Fleet.AddOlder)
	Context  string // the config file's context it was read from, "" for the one daemon (design §9)
	// Verdict is the judged verdict word of a settled row (design §7),
	// set by whoever judged it (ls --verdict); "" when not judged.
	Verdict string
	// Unreachable: the row stands for the context's daemon, which could not
	// be read (its error); the others are listed all the same.
	Unreachable string
}

// Endpoint and Operation split the capability ID (cap:hermes_agent:E:O).
func (r *ActionRow) Endpoint() string { return capPart(r.CapabilityID, 2) }

// Operation is the capability's last part (chat_stream, responses_stream, …).
func (r *ActionRow) Operation() string { return capPart(r.CapabilityID, 3) }

func capPart(id string, i int) string {
	parts := strings.SplitN(id, ":", 4)
	if len(parts) == 4 {
		return parts[i]
	}
	if i == 3 {
		return id
	}
	return ""
}

// LeaseStuck reports a worker lease whose expiry has passed while the
// action still runs: a stuck worker.
func (r *ActionRow) LeaseStuck(now time.Time) bool {
	return r.LeaseWorker != "" && !r.LeaseExpires.IsZero() && now.After(r.LeaseExpires) && !TerminalState(r.State)
}

// Settled reports a terminal state.
func (r *ActionRow) Settled() bool { return TerminalState(r.State) }

// JournalOnly: this machine submitted it, and the daemon neither lists it
// nor shows it on the global log (evicted, another daemon, or never
// accepted).
func (r *ActionRow) JournalOnly() bool { return r.Journal && !r.Listed && !r.LiveSync }

// ShortAge is an age for a column: "12s", "4m", "3h", "2d"; "" for no time.
func ShortAge(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return strconv.Itoa(max(0, int(d.Seconds()))) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d"
}

// NewFleet returns an empty fleet.
func NewFleet() *Fleet { return &Fleet{rows: map[string]*ActionRow{}, listed: map[string]bool{}} }

func (f *Fleet) row(ctx, id string) *ActionRow {
	k := rowKey(ctx, id)
	r, ok := f.rows[k]
	if !ok {
		r = &ActionRow{ActionID: id, Context: ctx}
		f.rows[k] = r
	}
	return r
}

// Key is the row's key in its fleet: its action ID, qualified by its
// context when it has one (a console across contexts: two daemons may
// hold one ID).
func (r *ActionRow) Key() string { return rowKey(r.Context, r.ActionID) }

// RowByKey is the row of key (ActionRow.Key).
func (f *Fleet) RowByKey(key string) (ActionRow, bool) {
	if r, ok := f.rows[key]; ok {
		return *r, true
	}
	return ActionRow{}, false
}

// rowKey is a row's key: its action ID, qualified by its context when the
// fleet holds several daemons' rows (two daemons may hold one ID).
func rowKey(ctx, id string) string {
	if ctx == "" {
		return id
	}
	return ctx + "\x00" + id
}

// SetList takes a complete list read. Rows the list no longer holds stay
// when the global log or the journal knows them (a journal entry the daemon
// no longer lists stays visible, marked as not listed).
func (f *Fleet) SetList(list []ActionStatus) {
	f.listed[""] = true
	seen := f.take(list, false)
	for id, r := range f.rows {
		if seen[id] || !r.Listed {
			continue
		}
		r.Listed = false
		if !r.Journal && !r.HasSeq {
			delete(f.rows, id)
		}
	}
	f.Version++
}

// SetWindow takes one poll of a large daemon (design §7): the rows in a
// live state and the list's tail. What the fleet holds stays bounded by
// what is live and recent: a row in neither is dropped, unless an older
// page the operator asked for holds it (AddOlder), this machine's journal
// marks it, or the global log shows it streaming.
func (f *Fleet) SetWindow(live, recent []ActionStatus) {
	f.setWindow(func(string) bool { return true }, live, recent)
	f.listed[""] = true
	for _, l := range [2][]ActionStatus{live, recent} {
		for i := range l {
			f.listed[l[i].Context] = true
		}
	}
}

// SetWindowOf is SetWindow for one context's daemon (design §9: each is
// polled on its own): only the rows of context ctx are taken or dropped.
func (f *Fleet) SetWindowOf(ctx string, live, recent []ActionStatus) {
	f.setWindow(func(c string) bool { return c == ctx }, live, recent)
	f.listed[ctx] = true
}

func (f *Fleet) setWindow(mine func(ctx string) bool, live, recent []ActionStatus) {
	seen := f.take(live, false)
	for id := range f.take(recent, false) {
		seen[id] = true
	}
	for id, r := range f.rows {
		switch {
		case seen[id] || !mine(r.Context):
		case r.Older && r.Listed:
		case r.Journal || r.LiveSync:
			r.Listed = r.Listed && r.Older
		default:
			delete(f.rows, id)
		}
	}
	f.Version++
}

// MarkUnreachable shows context ctx's daemon as not read (why, at at):
// its one row of the kind (ActionRow.Unreachable) says so, and the rows
// its last answer gave stay (the console marks them stale).
func (f *Fleet) MarkUnreachable(ctx, why string, at time.Time) {
	r := f.row(ctx, "")
	r.Unreachable, r.State = why, ""
	if at.After(r.UpdatedAt) {
		r.UpdatedAt = at
	}
	f.Version++
}

// Holds reports whether the fleet holds a row of context ctx.
func (f *Fleet) Holds(ctx string) bool {
	for _, r := range f.rows {
		if r.Context == ctx {
			return true
		}
	}
	return false
}

// AddOlder takes an older page of the list, read because the operator
// asked for it; its rows stay until the console closes.
func (f *Fleet) AddOlder(page []ActionStatus) {
	f.take(page, true)
	f.Version++
}

// take updates the rows of list; it returns their IDs.
func (f *Fleet) take(list []ActionStatus, older bool) map[string]bool {
	seen := make(map[string]bool, len(list))
	for i := range list {
		st := &list[i]
		if st.ActionID == "" && st.Unreachable == "" {
			continue
		}
		seen[rowKey(st.Context, st.ActionID)] = true
		r := f.row(st.Context, st.ActionID)
		r.Listed, r.LiveSync = true, false
		r.Older = r.Older || older
		r.takeStatus(st)
	}
	return seen
}

// RowOf is the row of one listed action (`ls` prints rows as their pages
// arrive, without a fleet).
func RowOf(st *ActionStatus) ActionRow {
	r := ActionRow{ActionID: st.ActionID, Listed: true}
	r.takeStatus(st)
	return r
}

// takeStatus sets the row's fields from the list's ActionStatus.
func (r *ActionRow) takeStatus(st *ActionStatus) {
	r.CapabilityID = orDefault(st.CapabilityID, r.CapabilityID)
	r.Context, r.Unreachable = st.Context, st.Unreachable
	r.State, r.QueuedState, r.ResultStatus = st.State, st.QueuedState, st.ResultStatus
	r.StartedAt = parseTime(st.StartedAt)
	if u := parseTime(st.UpdatedAt); u.After(r.UpdatedAt) {
		r.UpdatedAt = u
	}
	r.LeaseWorker, r.LeaseExpires, r.Attempts = "", time.Time{}, 0
	if st.Lease != nil {
		r.LeaseWorker, r.LeaseExpires = st.Lease.WorkerID, parseTime(st.Lease.ExpiresAt)
	}
	if st.Retry != nil {
		r.Attempts = st.Retry.Attempts
	}
}

// AddEvents takes events of the global log: a chunk event of an action the
// list does not hold is a live synchronous stream; every event moves the
// action's last activity. An action first seen in this batch and already
// settled in it gets no row: the window of old events the console joins
// the log with (design §7) would otherwise fill it with history.
func (f *Fleet) AddEvents(evs []Event) {
	var fresh map[string]bool
	defer func() {
		for id := range fresh {
			if r := f.rows[id]; r != nil && !r.Listed && !r.LiveSync && !r.Journal {
				delete(f.rows, id)
			}
		}
	}()
	for _, e := range evs {
		var data struct {
			ActionID string  `json:"action_id"`
			Sequence *uint64 `json:"sequence"`
			Status   string  `json:"status"`
		}
		_ = json.Unmarshal(e.Data, &data) // a field that does not decode is left out
		id := orDefault(e.ActionID, data.ActionID)
		if id == "" {
			continue
		}
		if _, ok := f.rows[rowKey(e.Context, id)]; !ok {
			if fresh == nil {
				fresh = map[string]bool{}
			}
			fresh[rowKey(e.Context, id)] = true
		}
		r := f.row(e.Context, id)
		if at := parseTime(e.OccurredAt); at.After(r.UpdatedAt) {
			r.UpdatedAt = at
		}
		switch e.Kind {
		case "aip.stream.chunk":
			if seq := data.Sequence; seq != nil && (!r.HasSeq || *seq > r.LastSeq) {
				r.LastSeq, r.HasSeq = *seq, true
			}
			if !r.Listed && !r.Settled() && f.listed[e.Context] {
				r.LiveSync, r.State = true, StateStreaming
			}
		case "aip.action.result":
			if st := data.Status; st != "" && !r.Listed {
				// Settled: the next list read holds it with its state.
				r.LiveSync, r.State, r.ResultStatus = false, st, st
			}
		case "aip.action.cancelled":
			if !r.Listed {
				r.LiveSync = false
			}
		}
	}
	f.Version++
}

// MarkJournal marks the actions this machine's submission journal knows;
// one the daemon does not list stays visible.
func (f *Fleet) MarkJournal(ids []string) { f.MarkJournalIn("", ids) }

// MarkJournalIn is MarkJournal for the actions of context ctx's daemon
// (the journal's entries made against its URL).
func (f *Fleet) MarkJournalIn(ctx string, ids []string) {
	for _, id := range ids {
		if id != "" {
			f.row(ctx, id).Journal = true
		}
	}
	f.Version++
}

// Filter selects rows: Query matches the ID, the capability, the state or the context
// (case-insensitive substring); States, when set, keeps only those states.
type Filter struct {
	Query   string
	States  []string
	Context string // only this context's rows ("" = every context's)
}

// Rows are the matching rows, most recently updated first (design §7),
// to the second, then by ID.
func (f *Fleet) Rows(flt Filter) []ActionRow {
	q := strings.ToLower(flt.Query)
	out := make([]ActionRow, 0, len(f.rows))
	for _, r := range f.rows {
		if len(flt.States) > 0 && !slices.Contains(flt.States, r.State) {
			continue
		}
		if flt.Context != "" && r.Context != flt.Context {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(r.ActionID+" "+r.CapabilityID+" "+r.State+" "+r.Context), q) {
			continue
		}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b ActionRow) int {
		// To the second, as the ages show: two live streams updated within
		// the same second keep their places instead of swapping at every
		// chunk (each swap redraws the console's table).
		if c := b.UpdatedAt.Truncate(time.Second).Compare(a.UpdatedAt.Truncate(time.Second)); c != 0 {
			return c
		}
		if c := strings.Compare(a.ActionID, b.ActionID); c != 0 {
			return c
		}
		return strings.Compare(a.Context, b.Context)
	})
	return out
}

// Row is the row of id, if the fleet holds it.
func (f *Fleet) Row(id string) (ActionRow, bool) {
	if r, ok := f.rows[id]; ok {
		return *r, true
	}
	// Rows of several contexts are keyed by context too (rowKey): the
	// first with that ID (the fleet holds the live and recent rows only).
	for _, r := range f.rows {
		if r.ActionID == id {
			return *r, true
		}
	}
	return ActionRow{}, false
}

// Len is the number of rows.
func (f *Fleet) Len() int { return len(f.rows) }

func parseTime(s string) time.Time {
	t, _ := parseRFC3339(s)
	return t
}
