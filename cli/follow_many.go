// Several actions at once (design §12): `aipwatch ID1 ID2 [ID3 ID4]`, each
// ID an act_… of the run's daemon or CONTEXT/act_… of another context's;
// aipwatch/run runs them as it runs one (a split view in a terminal, in
// plain and jsonl each action's lines, one verdict each).

package cli

import (
	"fmt"
	"strings"

	"aipwatch/output"
	"aipwatch/ui/split"
)

// target is one action of several: the word given, its ID, the context
// that names its daemon ("" = the run's own), and the connection to it.
type target struct {
	arg, id, context string
	conn             conn
}

// contextTarget splits CONTEXT/act_… (ok false for any other word).
func contextTarget(word string) (name, id string, ok bool) {
	name, id, ok = strings.Cut(word, "/")
	return name, id, ok && name != "" && strings.HasPrefix(id, "act_")
}

// resolveMany checks the words of several actions (or one of another
// context) and decides each one's daemon: every mistake is a usage error
// before any request.
func (o *follow) resolveMany(args []string, getenv func(string) string) error {
	r := &o.w.r
	if len(args) > split.MaxPanes {
		return output.UsageError(fmt.Sprintf("%d ACTION_IDs: at most %d at once", len(args), split.MaxPanes))
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"--cursor", o.f.cursor != ""}, {"--cancel", r.cancel}, {"--replay", o.f.replay != ""}, {"--demo", r.demo != ""},
		{"--record", r.record != ""}, {"--export", r.export != ""}, {"--speed", o.f.speed != 0}} {
		if f.set {
			return output.UsageError(f.name + " follows one action: give one ACTION_ID")
		}
	}
	o.w.conn = newConn(o.w.g.cf, true, getenv)
	seen := map[string]bool{}
	for _, w := range args {
		t := target{arg: w, id: w, conn: o.w.conn}
		if name, id, ok := contextTarget(w); ok {
			t.id, t.context, t.conn = id, name, forContext(o.w.g.cf, name, getenv)
		} else if !strings.HasPrefix(w, "act_") {
			return output.UsageError(fmt.Sprintf("%q is neither an ACTION_ID (act_…) nor CONTEXT/ACTION_ID", w))
		}
		if seen[w] {
			return output.UsageError(fmt.Sprintf("%s is given twice", w))
		}
		seen[w] = true
		if err := t.conn.check(); err != nil {
			return err
		}
		o.targets = append(o.targets, t)
	}
	return nil
}
