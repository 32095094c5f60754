package split

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/ui"
)

// At 80x24 three panes stack, the two without the focus shrunk to one
// row: each names its action by what tells it from the others (the IDs'
// shared start cut, never their middle) and its context; a box's title
// names it whole, CONTEXT/ID (issue 46 items 10, 12).
func TestPaneNamesKeepWhatDiffers(t *testing.T) {
	t.Parallel()
	ids := []string{"act_sim_console_sync_long", "act_sim_console_async_long", "act_sim_console_async_long"}
	ctxs := []string{"", "", "west"}
	var panes []ui.Options
	for i, id := range ids {
		panes = append(panes, ui.Options{ActionID: id, Context: ctxs[i], Keys: liveKeys(t), NoColor: true})
	}
	s := New(context.Background(), panes)
	t.Cleanup(s.Close)
	frame := ansi.Strip(s.View(80, 24))
	rows := strings.Split(frame, "\n")
	if !strings.Contains(rows[0], " 1 act_sim_console_sync_long ") {
		t.Errorf("the focused pane's title is not its whole ID: %q", rows[0])
	}
	var shrunk []string
	for _, r := range rows {
		if strings.HasPrefix(r, "─ 2 ") || strings.HasPrefix(r, "─ 3 ") {
			shrunk = append(shrunk, r)
		}
	}
	if len(shrunk) != 2 || !strings.HasPrefix(shrunk[0], "─ 2 …async_long ") || !strings.HasPrefix(shrunk[1], "─ 3 west/…async_long ") {
		t.Fatalf("shrunk rows %q, want ─ 2 …async_long and ─ 3 west/…async_long\n%s", shrunk, frame)
	}

	// The names alone: no cut that leaves act_ only, none of one pane, the
	// whole name in a title that has room, CONTEXT/ID.
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"act_0001", "act_0002"}, "act_0001|act_0002"},
		{[]string{"act_run_0001", "act_run_0002"}, "act_run_0001|act_run_0002"}, // they fit whole
		{[]string{"act_a_long_run_of_words_0001", "act_a_long_run_of_words_0002"}, "…0001|…0002"},
		{[]string{"act_one_pane_with_a_very_long_id_0001"}, "act_one_pane_with_a_ver…"},
		{[]string{"act_the_same_longer_than_24", "act_the_same_longer_than_24"}, "…24|…24"},
	} {
		var ps []ui.Options
		for _, id := range c.ids {
			ps = append(ps, ui.Options{ActionID: id})
		}
		if got := strings.Join(paneNames(ps).short, "|"); got != c.want {
			t.Errorf("%v: short names %q, want %q", c.ids, got, c.want)
		}
	}
	n := paneNames([]ui.Options{{ActionID: "act_run_of_words_0001", Context: "east"}, {ActionID: "act_run_of_words_0002"}})
	if n.title(0, 60) != "east/act_run_of_words_0001" || n.title(0, 12) != "east/…0001" || n.title(1, 60) != "act_run_of_words_0002" {
		t.Errorf("titles %q %q %q", n.title(0, 60), n.title(0, 12), n.title(1, 60))
	}
}
