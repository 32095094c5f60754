package split

import (
	"strings"

	"aipwatch/render"
	"aipwatch/ui"
)

// names are the panes' names (design §12: each pane names its action):
// full is CONTEXT/ID (the ID when the run named no context for it), a
// box's title; short is a shrunk pane's row: the full name when it fits
// in shortWidth, else what tells it from the others, the IDs' shared
// start cut (act_sim_console_sync_long and act_sim_console_async_long read
// …sync_long and …async_long), the context kept.
type names struct{ full, short []string }

// shortWidth is the most a shrunk pane's name takes of its row.
const shortWidth = 24

// paneNames names panes.
func paneNames(panes []ui.Options) names {
	n := names{full: make([]string, len(panes)), short: make([]string, len(panes))}
	cut := sharedStart(panes)
	for i, o := range panes {
		id := o.ActionID
		if cut > 0 {
			id = "…" + string([]rune(id)[cut:])
		}
		n.full[i] = o.ActionID
		if o.Context != "" {
			n.full[i], id = o.Context+"/"+o.ActionID, o.Context+"/"+id
		}
		if render.Width(render.Line(n.full[i])) <= shortWidth { // it fits whole
			id = n.full[i]
		}
		n.short[i] = render.Truncate(render.Line(id), shortWidth, "…")
	}
	return n
}

// sharedStart is how many runes every pane's ID starts with alike, back
// to the last _ or - among them (the cut ends on a word's start); 0 when
// that is no more than act_ or there is one pane.
func sharedStart(panes []ui.Options) int {
	if len(panes) < 2 {
		return 0
	}
	first := []rune(panes[0].ActionID)
	n := len(first)
	for _, o := range panes[1:] {
		r := []rune(o.ActionID)
		k := 0
		for k < n && k < len(r) && r[k] == first[k] {
			k++
		}
		n = k
	}
	if n >= len(first) { // an ID that is the others' start: keep its last word
		n = len(first) - 1
	}
	n = max(strings.LastIndexAny(string(first[:max(n, 0)]), "_-"), 0)
	n = len([]rune(string(first)[:n])) + 1 // past the separator
	if n <= len("act_") {
		return 0
	}
	return n
}

// title is pane i's name for a box's title of w columns: its full name
// when it fits, else its short one, cut in the middle when even that
// does not.
func (n names) title(i, w int) string {
	if s := render.Line(n.full[i]); render.Width(s) <= w {
		return s
	}
	return render.Short(n.short[i], w)
}
