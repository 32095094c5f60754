package run

import (
	"fmt"
	"io"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/stream"
)

// The closing of a run: the exit code (model.ExitOf) and the lines that
// say what keeps running and how to resume it (output.DetachLines), each
// target as the closing lines name it.

// exit is the run's exit code; when any action still runs, w gets what
// says so and how to resume: quitting is not cancellation.
func (p *Plan) exit(runs []outcome, w io.Writer) int {
	ws := make([]output.Watched, len(runs))
	actions, errs := make([]*model.Action, len(runs)), make([]error, len(runs))
	for i, r := range runs {
		ws[i], actions[i], errs[i] = p.watch(i, r), r.a, r.err
	}
	fmt.Fprint(w, output.DetachLines(ws, p.resume()))
	return model.ExitOf(actions, errs)
}

// watch is target i, whose run is r, as the closing lines name it.
func (p *Plan) watch(i int, r outcome) output.Watched {
	t := p.Targets[i]
	w := output.Watched{Action: r.a, Failed: r.err != nil, Name: t.Name(), Arg: t.Arg, Cursor: t.Cursor}
	if s, ok := t.Runner.(*stream.Submission); ok && s.HeldOpen() {
		w.HeldOpen, w.Key = true, s.IdempotencyKey
	}
	return w
}

func (p *Plan) resume() output.Resume {
	return output.Resume{Command: p.Resume, Again: p.Again, Replay: p.Flags.Replay}
}

// tags are the targets' line tags (output.Tags of their names).
func (p *Plan) tags() []string {
	names := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		names[i] = t.Name()
	}
	return output.Tags(names)
}

// untagged is target i's name when its lines carry no tag (one action)
// and the run named a context for it: plain's first line and the TUI's
// first closing line say it, "action: CONTEXT/act_…"; else "".
func (p *Plan) untagged(i int) string {
	if t := p.Targets[i]; len(p.Targets) == 1 && t.Context != "" {
		return t.Name()
	}
	return ""
}
