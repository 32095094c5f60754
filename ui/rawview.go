package ui

import (
	"fmt"
	"sort"
	"strings"

	"aipwatch/render"
)

// The r diagnostics view of one retained chunk, in the text panel
// (ui/panel.go) it shares with the connection log.

func (m *Live) openRaw() {
	if m.opts.Redact {
		m.setNotice("the raw view is off under --redact", false)
		return
	}
	seq, ok := m.tr.Sequence(m.focusIndex())
	if !ok {
		if last, ok2 := m.action.LastSequence(); ok2 {
			seq, ok = last, true
		}
	}
	if !ok {
		m.setNotice("no chunk to show yet", false)
		return
	}
	m.raw = newPanel(m.keys, seq)
	m.mode = ModeRaw
	m.buildRaw()
}

func (m *Live) rawStep(d int) {
	seqs := m.action.Sequences()
	if len(seqs) == 0 {
		return
	}
	i := sort.Search(len(seqs), func(i int) bool { return seqs[i] >= m.raw.seq })
	i = min(max(i+d, 0), len(seqs)-1)
	m.raw = newPanel(m.keys, seqs[i])
	m.buildRaw()
}

// buildRaw renders the chunk's envelope (pretty, terminal-safe JSON) and
// its provider raw_data (sanitised text).
func (m *Live) buildRaw() {
	w := max(m.width, 10)
	st := m.st
	c, ok := m.action.ChunkAt(m.raw.seq)
	if !ok {
		m.setRaw([]string{st.Dim.Render(fmt.Sprintf("chunk %d is not retained", m.raw.seq))})
		return
	}
	head := fmt.Sprintf("chunk %d · kind %s", c.Sequence, render.Line(string(c.Kind)))
	if !c.ReceivedAt.IsZero() {
		head += " · received " + c.ReceivedAt.Format("15:04:05.000")
	}
	lines := []string{st.Header.Render(render.Truncate(head, w, "…")), "", st.Label.Render("envelope")}
	if c.RawDropped() {
		// Under the memory cap (model.Action.SetRawCap) the oldest chunks'
		// exact bytes and provider raw_data go; what was decided from them
		// stays.
		const gone = "raw bytes dropped under the memory cap"
		lines = append(lines, "  "+st.Dim.Render(gone), "", st.Label.Render("raw_data"), "  "+st.Dim.Render(gone))
		m.setRaw(lines)
		return
	}
	pretty, _ := render.PrettyJSON(string(c.Raw))
	lines = append(lines, render.WrapIndent(pretty, w, "  ")...)
	lines = append(lines, "", st.Label.Render("raw_data"))
	if rd, ok := c.ProviderRaw(); ok {
		raw := render.Clean(rd)
		if strings.TrimSpace(raw) == "" {
			lines = append(lines, "  "+st.Dim.Render("(empty)"))
		} else {
			lines = append(lines, render.WrapIndent(raw, w, "  ")...)
		}
	} else {
		lines = append(lines, "  "+st.Dim.Render("(none: not a Hermes provider frame)"))
	}
	m.setRaw(lines)
}

// setRaw gives the panel its rows, at the same position.
func (m *Live) setRaw(lines []string) {
	m.raw.setLines(lines, m.width, m.layout().body, false)
}
