// Package model is aipwatch's pure domain state: AIP chunks, events, the
// cursor and the final result go in; the transcript, the tool calls and the
// one verdict come out. It does no I/O and imports nothing else of ours, so
// every rule of docs/design.md lives here once and the TUI,
// the plain and jsonl outputs, records and exports all read it.
//
// The rules, in short (design §2.5, §3; protocol §8, §9):
//   - Chunks are ordered by AIP sequence. An identical repeat is a replay and
//     is dropped; the same sequence with other content is a conflict (first
//     kept, anomaly); a chunk after a done/error chunk is an anomaly and does
//     not change the transcript. Events are de-duplicated by id. The AIP
//     sequence and the Responses sequence_number are never compared.
//   - A chunk below the highest sequence (a gap filled late, or a hostile
//     order) is applied by rebuilding the transcript from all chunks, paid
//     for by credit earned per chunk, so any arrival order costs a constant
//     factor of the in-order cost; until a rebuild is paid for, the late
//     chunks wait and readers see the transcript without them. A settled or
//     stopped action always shows them all (Action.Sync forces it).
//   - Evidence that contradicts itself is never verified (design §3): a
//     second Chat finish or terminal Responses frame that disagrees with the
//     first (even after the terminal chunk), a done and an error chunk in one
//     stream, or a chunk that could not be decoded (UndecodableChunk) is a
//     conflict (row 12), and the worse of two finishes counts for rows 8–11.
//   - Chat text comes from choices[0].delta.content (not StreamChunk.part);
//     hermes.tool.progress frames (kind data) update one tool per toolCallId;
//     the finish chunk keeps finish_reason, usage, error and hermes.
//   - Responses items are keyed by item_id / output_index, never by their
//     position in the terminal output; output_text.done is checked against
//     the deltas; response.completed/failed/incomplete settle the status.
//   - Action.Verdict applies design §3 in its order. Text never decides
//     anything; the final ActionResult wins over a conflicting last chunk.
//     Until the action settles the verdict is a live word (following,
//     awaiting result), and pending once the viewer stops.
//   - The fleet at a glance (design §13): Summarise computes the figures
//     per capability (verdict counts, first token and duration p50/p95,
//     tokens) from judged settled actions, for `aipwatch stats` and the
//     console alike; Pulse keeps the console's recent window (chunks a
//     second from the global log's chunk events, settled rows by minute
//     and verdict) from what the console already reads.
//   - The turn as a picture (design §16): Action.TurnTimeline puts the turn
//     on one axis (start to verdict, or now), from the times kept here: the
//     text, a span a tool call by outcome, the connection's and the
//     cancel's marks; Scale is the one geometry every drawing of it uses.
//
// The tests replay fixtures in testdata/ (written by testdata/gen.py from
// the frame shapes of docs/protocol.md §9) and check that replays,
// duplicates and out-of-order arrival never change the outcome.
package model
