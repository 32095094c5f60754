package keys

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
	k := Default()
	for _, g := range k.For(Context{HasTools: true}).FullHelp() {
		for _, b := range g {
			if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
				t.Errorf("binding %v has no help or no keys", b.Keys())
			}
		}
	}
}

func TestConfirmShowsOnlyYesNo(t *testing.T) {
	k := Default().For(Context{Mode: Confirm, HasTools: true})
	short := helpKeys(k.ShortHelp())
	if len(short) != 2 || short["y"] == "" || short["n/esc"] == "" {
		t.Errorf("confirmation help = %v, want only y and n/esc", short)
	}
	full := k.FullHelp()
	if len(full) != 1 || len(full[0]) != 2 {
		t.Errorf("confirmation full help = %v", full)
	}
}

func TestContextChangesHelp(t *testing.T) {
	live := helpKeys(Default().For(Context{HasTools: true}).ShortHelp())
	if live["c"] == "" || live["q"] != "detach" || live["t"] == "" {
		t.Errorf("live help = %v", live)
	}
	settled := helpKeys(Default().For(Context{Settled: true}).ShortHelp())
	if _, ok := settled["c"]; ok || settled["q"] != "quit" {
		t.Errorf("settled help offers cancel or detach: %v", settled)
	}
	if _, ok := settled["t"]; ok {
		t.Errorf("no tools, yet t is offered: %v", settled)
	}
	paused := Default().For(Context{Paused: true}).ShortHelp()
	if paused[0].Help().Key != "G" {
		t.Errorf("paused help starts with %q, want G (follow)", paused[0].Help().Key)
	}
	var all []key.Binding
	for _, g := range Default().For(Context{Redact: true}).FullHelp() {
		all = append(all, g...)
	}
	red := helpKeys(all)
	if _, ok := red["r"]; ok {
		t.Error("raw view offered under --redact")
	}
	if _, ok := red["y"]; ok {
		t.Error("copy offered under --redact")
	}
	raw := helpKeys(Default().For(Context{Mode: Raw}).ShortHelp())
	if raw["esc/r"] == "" || raw["←/h"] == "" {
		t.Errorf("raw view help = %v", raw)
	}
}
