package ui

import (
	"fmt"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
)

// statusBar draws the rows under the body: the rule (the transcript's
// follow state and position, or the open panel's title), the status line
// (the verdict badge and what backs it) and the meters. It owns what these
// rows keep between frames; the live view gives it what they show, once
// a frame (barInput), and delegates.
type statusBar struct {
	st   *render.Styles
	rule ruleCache
}

// barInput is what the status bar shows: the live view's state, read
// once a frame (Live.in).
type barInput struct {
	width   int
	action  *model.Action
	verdict model.Verdict // Action.Verdict, computed once a frame
	mode    KeyMode
	rawSeq  uint64           // the raw panel's chunk
	conn    model.Connection // its LastLive: the last byte from the stream
	fatal   *stream.Error
	now     time.Time // the clock
	// review: the action had settled when aipwatch attached, or a --replay.
	review, replay, runDone, redact bool
	notify                          bool // a notification waits for the settle (ui/notify.go)
	// appearBy: aipd had no record of the action, and aipwatch waits for
	// it to appear until then (zero once something of it came).
	appearBy time.Time
	// timeline: the timeline's window, while it is shown (its rule's
	// right side).
	timeline string
}

// ruleInput is what the transcript's rule line shows: the key of its
// cache, and the search status while a search is on.
type ruleInput struct {
	key       ruleKey
	searching bool
	search    string // the search status (searchStatus), while searching
}

// ruleKey is everything the transcript's rule line shows outside search.
type ruleKey struct {
	width, top, body, total int
	follow, settled         bool
	stopped                 bool // the run stopped on an error: nothing more arrives
	newLines                int
	plain, markdown         bool
}

type ruleCache struct {
	ok   bool
	key  ruleKey
	line string
}

// ruleLine separates the transcript from the status bar; it carries the
// follow state and the position (or a panel's title).
func (b *statusBar) ruleLine(in *barInput, r ruleInput) string {
	st := b.st
	switch in.mode {
	case ModeRaw:
		return rule(st, in.width, st.Header.Render("raw chunk"), st.Dim.Render(fmt.Sprintf("seq %d", in.rawSeq)))
	case ModeLog:
		return rule(st, in.width, st.Header.Render("connection log"), st.Dim.Render(render.Plural(len(in.action.Timeline()), "entry", "entries")))
	case ModeTimeline:
		return rule(st, in.width, st.Header.Render("timeline"), st.Dim.Render(in.timeline))
	}
	if r.searching {
		return b.ruleLineFor(in, r) // the search status changes with every key
	}
	if c := &b.rule; c.ok && c.key == r.key {
		return c.line
	}
	line := b.ruleLineFor(in, r)
	b.rule = ruleCache{ok: true, key: r.key, line: line}
	return line
}

func (b *statusBar) ruleLineFor(in *barInput, r ruleInput) string {
	st, k := b.st, r.key
	pos := ""
	if k.total > 0 {
		pos = st.Dim.Render(fmt.Sprintf("%d–%d/%d", k.top+1, min(k.top+k.body, k.total), k.total))
	}
	// "following" means one thing: live, and the window moves with the
	// stream. Once settled, or stopped on an error, nothing more arrives:
	// the window is at the end or scrolled.
	var left string
	switch {
	case k.settled && k.follow:
		left = st.Dim.Render("end")
	case k.stopped && k.follow:
		left = st.Warn.Render("stopped") + st.Dim.Render(" · nothing more arrives")
	case k.settled || k.stopped:
		left = st.Dim.Render("scrolled · G goes to the end")
	case k.follow:
		left = st.Dim.Render("following")
	default:
		left = st.Warn.Render("paused")
		if k.newLines > 0 {
			left += " " + st.Warn.Render("↓ "+render.Plural(k.newLines, "new line", "new lines"))
		}
		left += st.Dim.Render(" · G follows")
	}
	if k.plain {
		left += st.Dim.Render(" · plain view")
	} else if !k.markdown {
		left += st.Dim.Render(" · markdown off")
	}
	if r.searching {
		left += st.Dim.Render(" · ") + r.search
	}
	return rule(st, in.width, left, pos)
}

// badgeWord is the word in the status badge.
func (b *statusBar) badgeWord(in *barInput) string {
	v := in.verdict
	switch {
	case v.Final:
		return v.Word
	case in.fatal != nil:
		return render.WordError
	case in.conn.Phase == model.ConnReconnecting:
		return render.WordReconnecting
	case in.conn.Phase == model.ConnConnecting && !in.review && in.action.ChunkCount() == 0 && !in.runDone:
		return render.WordConnecting
	case in.review && v.Word == model.LiveFollowing:
		return render.WordReading // "following" means live, nothing else
	}
	return v.Word
}

// statusLine: the verdict badge (a word, and a colour) and what backs it.
func (b *statusBar) statusLine(in *barInput) string {
	st := b.st
	v := in.verdict
	word := b.badgeWord(in)
	// A reason shown apart: the tools' count (its own line) or the code
	// leading the detail. The verdict names both (never their wording).
	apart := func(r string) bool { return r != "" && (r == v.ToolsReason || r == v.DetailCode) }
	var detail []string
	switch {
	case v.Final:
		if v.Detail != "" { // why it ended, first: it must survive truncation
			detail = append(detail, st.Warn.Render("error: "+render.Untrusted(v.Detail, in.redact)))
		}
		for _, r := range v.Reasons {
			if !apart(r) {
				detail = append(detail, render.Line(r))
			}
		}
	case word == render.WordError:
		detail = append(detail, errText(in.fatal, in.redact))
	case word == render.WordReconnecting:
		next := model.WaitLeft(in.conn.Wait - in.now.Sub(in.conn.Since))
		detail = append(detail, fmt.Sprintf("attempt %d, next try %s", in.conn.Attempt, next))
		if c := in.conn.Cause; c != "" {
			detail = append(detail, render.Untrusted(c, in.redact))
		}
	case word == render.WordConnecting:
		detail = append(detail, "reading the action status")
	case word == model.LiveAwaitingResult:
		detail = append(detail, "stream terminal seen: draining, then reading the result")
	case word == model.LiveFollowing || word == render.WordReading:
		switch {
		case in.replay:
			detail = append(detail, "replaying a recording")
		case in.review:
			detail = append(detail, "reading the retained stream")
		case in.runDone:
			detail = append(detail, "the stream ended before the action settled")
		case !in.appearBy.IsZero():
			left := max(in.appearBy.Sub(in.now), 0)
			detail = append(detail, fmt.Sprintf("waiting for %s to appear: %ds left",
				render.Line(in.action.ID), int((left+time.Second-1)/time.Second)))
		default:
			detail = append(detail, "live")
		}
		if in.conn.Resumes > 0 {
			detail = append(detail, "resumed "+render.Plural(in.conn.Resumes, "time", "times"))
		}
	}
	if !v.Final {
		for _, r := range v.Reasons {
			if !apart(r) {
				detail = append(detail, render.Line(r))
			}
		}
	}
	if c := in.action.CancelOutcome(); c != "" {
		cs := st.Warn
		if in.action.Settled() {
			cs = st.Note
		}
		if c == model.VerdictCancelled {
			c = "the cancel took effect"
		}
		detail = append([]string{cs.Render(render.Line(c))}, detail...)
	}
	s := st.Badge(word)
	if in.review {
		// A review (the action had settled when aipwatch attached, or a
		// --replay): said next to the verdict, so nobody takes it for live.
		s += " " + st.Badge(render.WordReview)
	}
	if len(detail) > 0 {
		s += " " + strings.Join(detail, st.Dim.Render(" · "))
	}
	return render.Truncate(s, in.width, "…")
}

// metersLine: tool effects to confirm, what the turn cost (or its rate
// while it streams), chunks, last sequence, liveness, cursor, anomalies.
func (b *statusBar) metersLine(in *barInput) string {
	st, a := b.st, in.action
	var segs []segment
	if n := in.verdict.UnconfirmedToolEffects; n > 0 {
		segs = append(segs, segment{st.Warn.Render(render.Plural(n, "tool effect", "tool effects") + " to confirm"), 7})
	}
	costAt := -1
	if c := b.cost(in, false); c != "" {
		costAt = len(segs)
		segs = append(segs, segment{c, 6})
	}
	segs = append(segs, segment{"chunks " + fmt.Sprint(a.ChunkCount()), 6})
	seq := "–"
	if s, ok := a.LastSequence(); ok {
		seq = fmt.Sprint(s)
	}
	segs = append(segs, segment{"seq " + seq, 5})
	switch {
	case in.runDone:
		segs = append(segs, segment{"stream closed", 3})
	case !in.conn.LastLive.IsZero():
		segs = append(segs, segment{"last byte " + render.Age(in.now.Sub(in.conn.LastLive)) + " ago", 3})
	}
	if a.Cursor != "" {
		segs = append(segs, segment{"cursor " + render.Short(a.Cursor, 22), 2})
	}
	if n := a.AnomalyCount(); n > 0 {
		segs = append(segs, segment{st.Anomaly.Render(render.Plural(n, "anomaly", "anomalies")), 4})
	}
	if in.notify {
		segs = append(segs, segment{"notify on settle", 3})
	}
	line := fitSegments(segs, st.Dim.Render(" · "), in.width)
	if costAt >= 0 && !strings.Contains(line, segs[costAt].text) {
		// No room for the whole cost line: its short form (no in/out).
		segs[costAt].text = b.cost(in, true)
		line = fitSegments(segs, st.Dim.Render(" · "), in.width)
	}
	return line
}

// cost is what the turn cost (design §4): while it streams, tokens per
// second (model.Action.RateLine, estimated from the text until the
// provider reports usage, which Chat and Responses send only at the end);
// once nothing more streams (settled, stopped, or the run over), the
// totals and the times (model.CostLine). "" before there is anything.
func (b *statusBar) cost(in *barInput, short bool) string {
	a := in.action
	if a.ChunkCount() == 0 {
		return ""
	}
	if !in.verdict.Final && !in.runDone && in.fatal == nil && a.Phase() != model.PhaseStopped {
		return a.RateLine()
	}
	if short {
		return model.CostLineShort(a.Usage(), a.Timing())
	}
	return a.Cost()
}

// barInput reads what the status bar shows, once a frame.
func (m *Live) barInput() barInput {
	c := m.conn()
	return barInput{
		width: m.width, action: m.action, verdict: m.action.Verdict(), mode: m.mode, rawSeq: m.raw.seq,
		conn: c, fatal: m.fatal(), now: m.clock(),
		review: m.review(), replay: m.opts.Replay, runDone: c.Done, redact: m.opts.Redact,
		notify:   m.notifyArmed,
		appearBy: m.appearBy,
		timeline: m.timelineRule(),
	}
}

// ruleInput reads what the transcript's rule line shows in layout l
// (nothing while a panel, which has a rule of its own, is open).
func (m *Live) ruleInput(l layout) ruleInput {
	if m.panel() {
		return ruleInput{}
	}
	r := ruleInput{key: ruleKey{width: m.width, top: m.tr.Top(), body: l.body, total: m.tr.Len(), follow: m.tr.Following(),
		newLines: m.tr.NewLines(), plain: m.plain, markdown: m.markdown, settled: m.action.Settled(),
		stopped: m.stopped()}}
	if m.searching() {
		r.searching, r.search = true, m.searchStatus()
	}
	return r
}
