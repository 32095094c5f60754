// Package pulse is the console's pulse (design §13): the fleet at a
// glance, one to three lines at the top of the console, and the figures
// per capability a key opens. It is a component the console hosts: the
// console passes it what it already reads (the global log's events, the
// settled rows it lists and judges) and asks it for its lines; it reads
// nothing itself and does no I/O.
package pulse

import (
	"strconv"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

// Strip is the pulse: its figures (model.Pulse), whether it is folded
// away or shows the capabilities, and the lines it drew last, kept while
// what they show is the same.
type Strip struct {
	p       *model.Pulse
	folded  bool
	caps    bool
	version uint64 // the settled rows' figures changed

	drawn cacheKey
	lines []string
	gen   uint64 // moves whenever the lines are drawn again (Gen)
}

// cacheKey is what the lines drawn show: the figures' version and aipd's
// clock to the step (the chunk rate moves a cell a model.PulseStep),
// the room, and the modes.
type cacheKey struct {
	version       uint64
	step          int64
	width, height int
	folded, caps  bool
	color         bool
	set           bool
}

// The sizes the pulse keeps its three lines at: below either, the first
// line alone (design §13: at 80 columns, the first line alone stays).
const (
	TallWidth  = 100
	TallHeight = 24
)

// New returns an unfolded pulse with no figures yet.
func New() *Strip { return &Strip{p: model.NewPulse()} }

// AddEvents counts a batch of the global log's events read at now. The
// lines are drawn again at the next step of aipd's clock, not at every
// batch: a busy log brings thirty a second.
func (s *Strip) AddEvents(evs []model.Event, now time.Time) { s.p.AddEvents(evs, now) }

// Settle takes a settled row, judged or not yet (stream.Judgement.Judged
// gives it), read at now.
func (s *Strip) Settle(key string, j model.Judged, now time.Time) {
	if s.p.Settle(key, j, now) {
		s.version++
	}
}

// ToggleFold folds the pulse away, or back.
func (s *Strip) ToggleFold() { s.folded = !s.folded }

// ToggleCapabilities opens the figures per capability, or closes them;
// opening unfolds the pulse.
func (s *Strip) ToggleCapabilities() {
	s.caps = !s.caps
	if s.caps {
		s.folded = false
	}
}

// Folded reports the pulse folded away.
func (s *Strip) Folded() bool { return s.folded }

// Capabilities reports the figures per capability open.
func (s *Strip) Capabilities() bool { return s.caps }

// Gen moves whenever Lines draws the lines again: a host's frame cache
// keys on it.
func (s *Strip) Gen() uint64 { return s.gen }

// Lines are the pulse's lines for a console of width × height at the
// local time now, each at most width cells: none when folded; the first
// line alone below TallWidth or TallHeight, else three; then, when open,
// a line a capability, at most a third of the height. The slice is the
// strip's own, kept until the next call: the caller does not change it.
func (s *Strip) Lines(st *render.Styles, width, height int, now time.Time) []string {
	k := cacheKey{version: s.version, step: s.p.Now(now).Unix() / int64(model.PulseStep/time.Second),
		width: width, height: height, folded: s.folded, caps: s.caps, color: st.Color, set: true}
	if k == s.drawn {
		return s.lines
	}
	s.drawn, s.lines = k, s.lines[:0]
	s.gen++
	if s.folded || width <= 0 || height <= 0 {
		return s.lines
	}
	f := s.p.Figures(now)
	s.lines = append(s.lines, render.PulseLine(&f, width))
	if width >= TallWidth && height >= TallHeight {
		v := st.PulseVerdictLines(&f, width)
		s.lines = append(s.lines, v[0], v[1])
	}
	if s.caps {
		caps := render.CapabilityLines(s.p.Capabilities(now), width)
		if len(caps) == 0 {
			caps = []string{render.Truncate("no settled action judged in the last "+strconv.Itoa(int(model.PulseWindow/time.Minute))+" minutes", width, "…")}
		}
		s.lines = append(s.lines, caps[:min(len(caps), max(1, height/3))]...)
	}
	return s.lines
}
