package transcript

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

// renderBlock re-renders a block if anything its lines depend on changed,
// then brings its search matches up to date (nothing to do without a
// query, or when its lines did not change).
func (t *Transcript) renderBlock(b *block) {
	t.drawBlock(b)
	t.searchBlock(b)
}

func (t *Transcript) drawBlock(b *block) {
	o := t.opts
	tog := int8(0)
	if v, ok := t.toggled[b.key]; ok {
		tog = 1
		if !v {
			tog = 2
		}
	}
	ck := cacheKey{width: o.Width, markdown: o.Markdown, plain: o.Plain, redact: o.Redact, stamps: o.Timestamps, nowrap: o.NoWrap, text: b.text, anom: b.anom, rec: b.rec}
	if b.item != nil {
		ck.item, ck.version = b.item, b.item.Version
		// Settling changes only what is still open: an item not done
		// ("unfinished"), an inline tool still running. A finished item
		// is not drawn again when the action settles.
		ck.settled = o.Settled && (!b.item.Done || len(b.tools) > 0)
		_, ck.mdReady = t.mdLines(b, o.Width)
		ck.tools = toolsDigest(b.tools)
	}
	ck.toggle = tog
	if b.head != nil && b.ck == ck {
		return
	}
	t.renders++
	b.ck = ck
	b.full, b.chrome = nil, nil
	switch b.kind {
	case bNote:
		b.head, b.body = t.prefixed("note:", t.st.Note, b.text), nil
		b.collapsed, b.hidden = false, 0
		return
	case bAnomaly:
		detail := b.anom.Detail
		if o.Redact {
			detail = safe.Mask(detail)
		}
		p := fmt.Sprintf("anomaly %s at chunk %d:", safe.Line(string(b.anom.Kind)), b.anom.Sequence)
		b.head, b.body = t.prefixed(p, t.st.Anomaly, detail), nil
		b.collapsed, b.hidden = false, 0
		return
	case bReconcile:
		rec := b.rec
		lines := t.prefixed("next:", t.st.Warn, rec.Advice)
		if rec.ResponseGetInput != "" {
			lines = append(lines, t.prefixed("  response_get input:", t.st.Label, render.Untrusted(rec.ResponseGetInput, o.Redact))...)
		}
		if rec.SessionID != "" {
			lines = append(lines, t.prefixed("  Hermes session:", t.st.Label, render.Untrusted(rec.SessionID, o.Redact))...)
		}
		b.head, b.body = lines, nil
		b.collapsed, b.hidden = false, 0
		return
	case bMore:
		b.head, b.body = []string{t.st.Dim.Render(render.Truncate(b.text, o.Width, "…"))}, nil
		return
	}

	it := b.item
	head := t.itemHead(it) + t.stamp(it.FirstSeq)
	body, chrome := t.itemBody(b)
	_, b.ck.mdReady = t.mdLines(b, o.Width) // a synchronous render just made it ready
	for len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	if len(chrome) > len(body) {
		chrome = chrome[:len(body)]
	}
	b.chrome = chrome
	collapsed := it.Kind != model.ItemMessage && it.Done && len(body) > o.CollapseOver
	switch tog {
	case 1:
		collapsed = false
	case 2:
		collapsed = len(body) > 0
	}
	b.collapsed = collapsed
	if collapsed {
		b.hidden = len(body)
		hint := t.st.Dim.Render(" · " + render.Plural(len(body), "line hidden", "lines hidden"))
		b.head = []string{render.Truncate(head+hint, o.Width, "…")}
		b.body, b.full = nil, body
		return
	}
	b.hidden = 0
	b.head = []string{render.Truncate(head, o.Width, "…")}
	b.body = body
}

// noWrapWidth is the wrap width of the no-wrap view: lines break only at
// the text's own newlines (and past this many cells).
const noWrapWidth = 1 << 14

func (t *Transcript) wrapWidth() int {
	if t.opts.NoWrap {
		return noWrapWidth
	}
	return t.opts.Width
}

// cut fits each line to the width in the no-wrap view (a copy: the
// stream's lines are its cache).
func (t *Transcript) cut(lines []string) []string {
	if !t.opts.NoWrap {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = render.Truncate(l, t.opts.Width, "…")
	}
	return out
}

// stamp is " · 10:00:03" (local time) when timestamps are on: when the
// chunk at seq happened (model.Action.SeqTime).
func (t *Transcript) stamp(seq uint64) string {
	if !t.opts.Timestamps || t.action == nil {
		return ""
	}
	at, ok := t.action.SeqTime(seq)
	if !ok {
		return ""
	}
	return t.st.Dim.Render(" · " + at.Local().Format("15:04:05"))
}

// prefixed wraps "prefix text" with the prefix styled and continuation
// lines indented by two.
func (t *Transcript) prefixed(prefix string, style lipgloss.Style, text string) []string {
	w := t.opts.Width
	lines := render.Wrap(render.Clean(prefix+" "+text), max(w-2, 1))
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case i == 0 && strings.HasPrefix(l, prefix):
			out[i] = style.Render(prefix) + l[len(prefix):]
		case i == 0:
			out[i] = l
		default:
			out[i] = "  " + l
		}
	}
	return out
}

func (t *Transcript) itemHead(it *model.Item) string {
	st := t.st
	switch it.Kind {
	case model.ItemMessage:
		role := it.Role
		if role == "" {
			role = "assistant"
		}
		return t.frag("role\x00"+role, func() string { return "● " + st.Role.Render(safe.Line(role)) }) + t.status(it)
	case model.ItemReasoning:
		label := "reasoning"
		if it.Label != "" {
			label = safe.Line(it.Label)
		}
		return t.frag("reasoning\x00"+label, func() string { return st.Reasoning.Render("∴ " + label) }) + t.status(it)
	case model.ItemFunctionCall:
		name := safe.Line(it.Name)
		if name == "" {
			name = "function call"
		}
		h := "ƒ " + st.ToolName.Render(name)
		if it.CallID != "" {
			h += " " + st.Dim.Render(render.Untrusted(it.CallID, t.opts.Redact))
		}
		return h + t.status(it)
	case model.ItemFunctionOutput:
		h := "↳ " + st.ToolName.Render("output")
		if it.CallID != "" {
			h += " for " + st.Dim.Render(render.Untrusted(it.CallID, t.opts.Redact))
		}
		return h + t.status(it)
	default:
		label := safe.Line(it.Label)
		if label == "" {
			label = "notice"
		}
		return "◆ " + st.Notice.Render(label)
	}
}

// frag is a styled fragment that repeats from item to item (a role, a
// status), drawn once: a lipgloss Render costs microseconds, and 20,000
// items each drew three.
func (t *Transcript) frag(key string, draw func() string) string {
	if s, ok := t.frags[key]; ok {
		return s
	}
	if t.frags == nil || len(t.frags) >= 256 {
		t.frags = map[string]string{}
	}
	s := draw()
	t.frags[key] = s
	return s
}

// status is the " · word" after an item's heading.
func (t *Transcript) status(it *model.Item) string {
	st := t.st
	word := safe.Line(it.Status)
	open := word == "" || word == "in_progress"
	switch {
	case open && !it.Done && !t.opts.Settled:
		return t.frag("streaming", func() string { return st.Dim.Render(" · ") + st.Running.Render("streaming…") })
	case open && (!it.Done || word == "in_progress"):
		// Settled (or closed by a failed response) while still open.
		return t.frag("unfinished", func() string { return st.Dim.Render(" · ") + st.Warn.Render("unfinished") })
	case word == "":
		return ""
	}
	return t.frag("status\x00"+word, func() string { return t.statusWord(word) })
}

// statusWord is " · word" in the word's colour.
func (t *Transcript) statusWord(word string) string {
	st := t.st
	var s = st.Dim
	switch word {
	case "stop", "completed":
		s = st.OK
	case "length", "incomplete", "in_progress":
		s = st.Warn
	case "error", "failed":
		s = st.Error
	}
	return st.Dim.Render(" · ") + s.Render(word)
}

// itemBody draws an item's body. chrome marks the lines that are not the
// item's content (labels, placeholders), which search leaves out; nil
// means every line is content.
func (t *Transcript) itemBody(b *block) (lines []string, chrome []bool) {
	it, o, st := b.item, t.opts, t.st
	switch it.Kind {
	case model.ItemMessage:
		text := it.Text()
		inline := len(b.tools) > 0 && !o.Redact
		switch {
		case text == "" && !it.Done && !inline:
			return []string{st.Dim.Render("…")}, []bool{true}
		case text == "" && !inline:
			return []string{st.Dim.Render("(no text)")}, []bool{true}
		case o.Redact:
			return []string{st.Dim.Render(safe.Mask(text))}, nil
		}
		md := o.Markdown && !o.Plain && !o.NoWrap && it.Done && len(text) <= render.MaxMarkdown
		if inline {
			text = markTools(text, b.tools, md)
		}
		if md {
			lines, ok := t.mdLines(b, o.Width)
			switch {
			case ok && lines != nil:
				return t.inlined(lines, b.tools)
			case !ok:
				t.wantMarkdown(b, text)
				if lines, ok := t.mdLines(b, o.Width); ok && lines != nil {
					return t.inlined(lines, b.tools) // rendered synchronously
				}
			}
		}
		return t.inlined(t.cut(b.stream.Update(text, t.wrapWidth(), nil)), b.tools)
	case model.ItemReasoning:
		text := it.Text()
		switch {
		case text == "":
			return nil, nil
		case o.Redact:
			return []string{st.Dim.Render(safe.Mask(text))}, nil
		}
		return t.cut(b.stream.Update(text, t.wrapWidth(), func(s string) string { return st.Reasoning.Render(s) })), nil
	case model.ItemFunctionCall, model.ItemFunctionOutput:
		var out []string
		var ch []bool
		add := func(lines []string, chrome bool) {
			out = append(out, lines...)
			for range lines {
				ch = append(ch, chrome)
			}
		}
		if it.Kind == model.ItemFunctionCall {
			add([]string{"  " + st.Label.Render("arguments")}, true)
			add(t.jsonLines(it.Arguments, "(none)"))
		}
		add([]string{"  " + st.Label.Render("output")}, true)
		switch {
		case !it.HasOutput:
			add([]string{"    " + st.Dim.Render("(not yet)")}, true)
		case len(it.Output) == 0:
			add([]string{"    " + st.Dim.Render("(empty)")}, true)
		}
		for _, p := range it.Output {
			add(t.jsonLines(p, "(empty)"))
		}
		return out, ch
	default:
		text := it.Text()
		if text == "" {
			return nil, nil
		}
		if o.Redact {
			text = safe.Mask(text)
		}
		return render.WrapIndent(render.Clean(text), o.Width, "  "), nil
	}
}

// inlined puts the inline tool lines in place of their marks.
func (t *Transcript) inlined(lines []string, tools []*model.Tool) ([]string, []bool) {
	if len(tools) == 0 {
		return lines, nil
	}
	return t.replaceMarks(lines, tools)
}

// jsonLines draws arguments or an output: pretty JSON when it is JSON,
// indented under its label. chrome is true for the placeholder of an
// empty string.
func (t *Transcript) jsonLines(s, empty string) (lines []string, chrome bool) {
	switch {
	case s == "":
		return []string{"    " + t.st.Dim.Render(empty)}, true
	case t.opts.Redact:
		return []string{"    " + t.st.Dim.Render(safe.Mask(s))}, false
	}
	pretty, _ := render.PrettyJSON(s)
	return render.WrapIndent(pretty, t.opts.Width, "    "), false
}

// mdLines returns the cached markdown of b's item at width; ok is false
// when there is none for this version (lines is nil with ok true when the
// render failed and the plain wrap is used instead).
func (t *Transcript) mdLines(b *block, width int) ([]string, bool) {
	if b.item == nil || b.mdItem != b.item || b.mdVersion != b.item.Version || b.md == nil {
		return nil, false
	}
	lines, ok := b.md[width]
	return lines, ok
}

func (t *Transcript) wantMarkdown(b *block, text string) {
	w := t.opts.Width
	job := MarkdownJob{Key: b.key, Item: b.item, Version: b.item.Version, Width: w, Text: safe.Text(text)}
	if t.SyncMarkdown || t.md == nil {
		if t.md == nil {
			t.storeMarkdown(b, MarkdownResult{Job: job})
			return
		}
		t.storeMarkdown(b, job.Run(t.md))
		return
	}
	if b.mdPending == nil {
		b.mdPending = map[int]bool{}
	}
	if b.mdPending[w] {
		return
	}
	b.mdPending[w] = true
	t.jobs = append(t.jobs, job)
}

func (t *Transcript) storeMarkdown(b *block, r MarkdownResult) {
	if b.mdItem != r.Job.Item || b.mdVersion != r.Job.Version || b.md == nil {
		b.mdItem, b.mdVersion, b.md = r.Job.Item, r.Job.Version, map[int][]string{}
	}
	if r.Err != nil || len(r.Lines) == 0 {
		b.md[r.Job.Width] = nil
		return
	}
	b.md[r.Job.Width] = r.Lines
}

// CopyText is the text of block i for the clipboard, sanitised: a message's
// text, a call's arguments and output, a notice's text.
func (t *Transcript) CopyText(i int) string {
	if i < 0 || i >= len(t.blocks) {
		return ""
	}
	b := t.blocks[i]
	switch b.kind {
	case bAnomaly:
		return safe.Text(string(b.anom.Kind) + ": " + b.anom.Detail)
	case bReconcile:
		// The advice, then the fields it names, one a line.
		parts := []string{b.rec.Advice}
		if b.rec.ResponseGetInput != "" {
			parts = append(parts, "response_get input: "+b.rec.ResponseGetInput)
		}
		if b.rec.SessionID != "" {
			parts = append(parts, "Hermes session: "+b.rec.SessionID)
		}
		return safe.Text(strings.Join(parts, "\n"))
	}
	if b.item == nil {
		return safe.Text(b.text)
	}
	it := b.item
	switch it.Kind {
	case model.ItemFunctionCall, model.ItemFunctionOutput:
		var parts []string
		if it.Arguments != "" {
			p, _ := render.PrettyJSON(it.Arguments)
			parts = append(parts, p)
		}
		for _, o := range it.Output {
			p, _ := render.PrettyJSON(o)
			parts = append(parts, p)
		}
		return strings.Join(parts, "\n\n")
	}
	return safe.Text(it.Text())
}
