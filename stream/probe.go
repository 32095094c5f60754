package stream

import (
	"context"
	"encoding/json"
	"time"

	"aipwatch/model"
)

// Probing an action (design §7, protocol §2.2): the console follows a live
// row by bounded per-action reads where the global log does not carry its
// events (a token scoped to a tenant reads a log without any chunk, result
// or cancel event of a Hermes action; the operator's own streaming
// submission, which the list lacks until it settles). One probe is two
// requests: the action's status, and while it has not settled one page of
// its events and chunks after the cursor the last probe ended at. What it
// read comes back as the global log's events would have said it (a chunk
// event per chunk, a result event once settled), so that the console takes
// it by the one route it takes the log's by (model.Fleet.AddEvents, the
// pulse).

// Probe is what one probe read of an action.
type Probe struct {
	ID     string
	Status model.ActionStatus // its status read ("unknown" while a sync or streaming one runs)
	// Events are the chunk events of the chunks read (their sequence, at
	// the time the daemon stored them when the page says it, else the
	// probe's) and a result event once the status is settled.
	Events []model.Event
	Chunks int    // chunks read
	Cursor string // where the next probe reads on
}

// Probe reads action id once: its status, then, unless it has settled,
// the page of its log after cursor ("" = its start).
func (c *Client) Probe(ctx context.Context, id, cursor string) (Probe, error) {
	cfg := c.Config()
	cfg.ActionID, cfg.Cursor, cfg.OnFrame, cfg.InFlight = id, "", nil, nil
	ac, err := New(cfg)
	if err != nil {
		return Probe{}, err
	}
	defer ac.closeIdle()
	p := Probe{ID: id, Cursor: cursor}
	st, e := ac.status(ctx)
	if e != nil {
		return p, ctxErr(ctx, e)
	}
	p.Status = st
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if model.TerminalState(st.State) {
		data, _ := json.Marshal(map[string]string{"action_id": id, "status": orString(st.ResultStatus, st.State)})
		p.Events = append(p.Events, model.Event{Kind: "aip.action.result", ActionID: id, OccurredAt: orString(st.UpdatedAt, now), Data: data})
		return p, nil
	}
	pg, e := ac.page(ctx, cursor)
	if e != nil {
		return p, ctxErr(ctx, e)
	}
	if pg.Cursor != "" {
		p.Cursor = pg.Cursor
	}
	// When the page's events say when a chunk was stored, that time;
	// otherwise the probe's.
	at := map[uint64]string{}
	for _, ev := range pg.Events {
		if ev.Kind != "aip.stream.chunk" {
			continue
		}
		var d struct {
			Sequence *uint64 `json:"sequence"`
		}
		if json.Unmarshal(ev.Data, &d) == nil && d.Sequence != nil {
			at[*d.Sequence] = ev.OccurredAt
		}
	}
	for _, ch := range pg.Chunks {
		data, _ := json.Marshal(map[string]any{"action_id": id, "sequence": ch.Sequence, "kind": ch.Kind})
		p.Events = append(p.Events, model.Event{Kind: "aip.stream.chunk", ActionID: id, OccurredAt: orString(at[ch.Sequence], now), Data: data})
	}
	p.Chunks = len(pg.Chunks)
	return p, nil
}

func orString(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}
