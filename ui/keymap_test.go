package ui

import (
	"testing"

	"charm.land/bubbles/v2/key"
)

func helpKeys(bs []key.Binding) map[string]string {
	out := map[string]string{}
	for _, b := range bs {
		out[b.Help().Key] = b.Help().Desc
	}
	return out
}

func TestEveryBindingHasHelp(t *testing.T) {
	t.Parallel()
	k := realKeys(t)
	for _, g := range k.For(KeyContext{HasTools: true}).FullHelp() {
		for _, b := range g {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("binding %v has no help or no keys", b.Keys())
			}
		}
	}
}

func TestConfirmShowsOnlyEnterAndNo(t *testing.T) {
	t.Parallel()
	k := realKeys(t).For(KeyContext{Mode: ModeConfirm, HasTools: true})
	short := helpKeys(k.ShortHelp())
	if len(short) != 2 || short["enter"] == "" || short["n/esc"] == "" {
		t.Errorf("confirmation help = %v, want only enter and n/esc", short)
	}
	if k.Yes.Keys()[0] != "enter" {
		t.Errorf("the confirmation is sent by %v: y is copy, and a habit", k.Yes.Keys())
	}
	full := k.FullHelp()
	if len(full) != 1 || len(full[0]) != 2 {
		t.Errorf("confirmation full help = %v", full)
	}
}

func TestContextChangesHelp(t *testing.T) {
	t.Parallel()
	live := helpKeys(realKeys(t).For(KeyContext{HasTools: true}).ShortHelp())
	if live["c"] == "" || live["q"] != "detach" || live["t"] == "" {
		t.Errorf("live help = %v", live)
	}
	settled := helpKeys(realKeys(t).For(KeyContext{Settled: true}).ShortHelp())
	if _, ok := settled["c"]; ok || settled["q"] != "quit" {
		t.Errorf("settled help offers cancel or detach: %v", settled)
	}
	if _, ok := settled["t"]; ok {
		t.Errorf("no tools, yet t is offered: %v", settled)
	}
	paused := realKeys(t).For(KeyContext{Paused: true}).ShortHelp()
	if paused[0].Help().Key != "G" {
		t.Errorf("paused help starts with %q, want G (follow)", paused[0].Help().Key)
	}
	var all []key.Binding
	for _, g := range realKeys(t).For(KeyContext{Redact: true}).FullHelp() {
		all = append(all, g...)
	}
	red := helpKeys(all)
	if _, ok := red["r"]; ok {
		t.Error("raw view offered under --redact")
	}
	if _, ok := red["y"]; ok {
		t.Error("copy offered under --redact")
	}
	raw := helpKeys(realKeys(t).For(KeyContext{Mode: ModeRaw}).ShortHelp())
	if raw["esc/q"] == "" || raw["←/h"] == "" || raw["q"] != "" {
		t.Errorf("raw view help = %v", raw)
	}
}

func TestSearchAndExportHelp(t *testing.T) {
	t.Parallel()
	all := func(c KeyContext) map[string]string {
		var bs []key.Binding
		for _, g := range realKeys(t).For(c).FullHelp() {
			bs = append(bs, g...)
		}
		return helpKeys(bs)
	}
	idle := all(KeyContext{Settled: true})
	if idle["/"] == "" || idle["e"] == "" {
		t.Errorf("/ and e missing from the full help: %v", idle)
	}
	if _, ok := idle["n"]; ok {
		t.Errorf("n offered without a search: %v", idle)
	}
	active := all(KeyContext{Settled: true, Search: true})
	if active["n"] != "next match" || active["N"] != "previous match" || active["esc"] != "clear search" {
		t.Errorf("search help = %v", active)
	}
	short := helpKeys(realKeys(t).For(KeyContext{Search: true}).ShortHelp())
	if short["n/N"] == "" || short["esc"] == "" {
		t.Errorf("short help during a search = %v", short)
	}
	typing := helpKeys(realKeys(t).For(KeyContext{Mode: ModeSearch, Search: true}).ShortHelp())
	if len(typing) != 2 || typing["enter"] == "" || typing["esc"] != "cancel" {
		t.Errorf("query line help = %v, want only enter and esc", typing)
	}
	if _, ok := helpKeys(realKeys(t).For(KeyContext{Replay: true}).ShortHelp())["c"]; ok {
		t.Error("a replay offers cancel")
	}
}

func TestShortHelpFit(t *testing.T) {
	t.Parallel()
	width := func(bs []key.Binding) int {
		n := 0
		for i, b := range bs {
			if i > 0 {
				n += 3
			}
			n += len([]rune(b.Help().Key)) + 1 + len([]rune(b.Help().Desc))
		}
		return n
	}
	for _, c := range []KeyContext{{}, {HasTools: true}, {Paused: true, HasTools: true, Search: true}, {Settled: true, HasTools: true, Search: true}} {
		k := realKeys(t).For(c)
		for _, w := range []int{40, 80, 120} {
			got := k.ShortHelpFit(w, width)
			if width(got) > w {
				t.Errorf("%+v at %d: %d wide", c, w, width(got))
			}
			keys := helpKeys(got)
			if keys["?"] == "" || keys["q"] == "" {
				t.Errorf("%+v at %d: q or ? left out: %v", c, w, keys)
			}
			if c.Search && w >= 80 && keys["n/N"] == "" {
				t.Errorf("%+v at %d: n/N left out", c, w)
			}
		}
	}
}
