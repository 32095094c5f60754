package transcript

import (
	"fmt"
	"sort"
	"strconv"

	"aipwatch/model"
	"aipwatch/render"
)

// Options decide how the transcript is drawn. Changing any of them
// invalidates the affected cache entries on the next Sync.
type Options struct {
	Width        int  // cells for the text (a caller's gutter excluded)
	Markdown     bool // Glamour for finished messages
	Plain        bool // no decoration that would get in the way of copying
	Redact       bool // --redact: mask every untrusted content string
	CollapseOver int  // finished non-message items longer than this start collapsed (0 = 10)
	Settled      bool // the action settled: an item still open will not grow any more
	Timestamps   bool // item headings and inline tools show when they started (local time)
	NoWrap       bool // long lines of text are cut at the width (with …) instead of wrapped
}

// MaxAnomalies is how many anomalies the transcript lists; the rest are
// counted in one line.
const MaxAnomalies = 20

// Transcript is the rendered transcript of one action: one block per model
// item (then the model's notes and anomalies), each with its lines cached
// by what they were drawn from (cacheKey: the item and its version, the
// width, expanded or collapsed, markdown, plain, redact, timestamps, no
// wrap, its Markdown ready, still open when the action settled, its inline
// tools; a note's text, an anomaly, a reconciliation), and a line
// index (the first line of every block) so the visible window is found by
// binary search without touching the lines of other blocks. It is owned by
// one goroutine, like the model it reads.
type Transcript struct {
	st   *render.Styles
	md   *render.Markdown
	opts Options

	blocks  []*block
	byKey   map[string]*block
	offsets []int // offsets[i]: first line of block i; one separator line between blocks
	total   int
	toggled map[string]bool // explicit expand (true) / collapse (false)

	// SyncMarkdown renders markdown inside Sync instead of handing out
	// jobs (tests, and callers without a command loop).
	SyncMarkdown bool

	jobs []MarkdownJob

	query    render.Query
	cur      curMatch
	matchOff []int // matchOff[i]: matches before block i; the last entry is the total

	renders, highlights int // counters, for tests of the cache discipline

	frags map[string]string // styled fragments by what they show (frag)

	win window // the reading position and the focus (window.go)

	// The incremental Sync: the block of each item (the item blocks come
	// first, nItems of them), and the block of the item changed last.
	itemBlocks map[*model.Item]*block
	nItems     int
	active     *block
	activeSeq  uint64

	lastVersion uint64
	lastAction  *model.Action
	action      *model.Action // the model of the last Sync (inline tool durations)
	lastOpts    Options
	synced      bool
}

type blockKind int

const (
	bItem blockKind = iota
	bNote
	bAnomaly
	bMore
	bReconcile
)

type block struct {
	key  string
	pos  int // index in Transcript.blocks (set by reindex)
	kind blockKind
	item *model.Item
	// tools are the Chat tool calls drawn inline in this message.
	tools []*model.Tool
	text  string               // a note, the "… more" line
	anom  model.Anomaly        // bAnomaly
	rec   model.Reconciliation // bReconcile

	// What the cached lines were rendered from.
	ck cacheKey

	head, body []string
	collapsed  bool
	hidden     int // body lines hidden while collapsed

	stream render.TextLines // incremental wrap of a growing text

	// What search looks at: the full body while collapsed, and which body
	// lines are not content (labels, placeholders).
	full   []string
	chrome []bool

	// Search (see search.go): built only while a query is active.
	hay     *haystack
	matches []match        // hay.ms
	hl      map[int]string // restyled lines, by line in the block
	hlSpans map[int][]render.Span
	hlCur   int

	// Markdown of a finished message, per width, for mdVersion of mdItem.
	mdItem    *model.Item
	mdVersion uint64
	md        map[int][]string
	mdPending map[int]bool
}

type cacheKey struct {
	item     *model.Item
	version  uint64
	width    int
	toggle   int8 // 0 default, 1 expanded, 2 collapsed by the operator
	markdown bool
	plain    bool
	redact   bool
	settled  bool
	stamps   bool
	nowrap   bool
	mdReady  bool
	text     string
	anom     model.Anomaly
	rec      model.Reconciliation
	tools    uint64 // toolsDigest of the inline tools
}

// New returns an empty transcript drawing with st and md.
func New(st *render.Styles, md *render.Markdown) *Transcript {
	return &Transcript{st: st, md: md, byKey: map[string]*block{}, toggled: map[string]bool{},
		win: window{follow: true, focusAuto: true}}
}

// Options returns the current options.
func (t *Transcript) Options() Options { return t.opts }

// SetOptions changes the options; the next Sync re-renders what they affect.
func (t *Transcript) SetOptions(o Options) {
	if o.CollapseOver == 0 {
		o.CollapseOver = 10
	}
	if o.Width < 1 {
		o.Width = 1
	}
	t.opts = o
}

// Sync brings the blocks up to date with the model. It is cheap when
// nothing changed (the model's Version and the options are compared
// first). With the same model and options it is incremental: the blocks
// of the items the model changed since the last Sync (model.Action
// TakeChanged) are drawn again, new items at the end get new blocks, and
// the lines are re-indexed from the first block that changed, so a batch
// costs what it changed, not the whole transcript. Anything else (other
// options, a rebuilt model, an item inserted above others) costs one pass
// over the items plus the rendering of the items whose cache key changed.
func (t *Transcript) Sync(a *model.Action) {
	if t.opts.Width == 0 {
		t.SetOptions(t.opts)
	}
	if t.synced && a == t.lastAction && a.Version == t.lastVersion && t.opts == t.lastOpts {
		return
	}
	incremental := t.synced && a == t.lastAction && t.opts == t.lastOpts
	t.action = a
	changed, tools := a.TakeChanged()
	t.synced, t.lastAction, t.lastVersion, t.lastOpts = true, a, a.Version, t.opts
	if incremental && t.syncChanged(a, changed, tools) {
		return
	}
	t.syncAll(a)
}

// syncAll rebuilds the block list from every item, reusing the blocks
// (and their cached lines) of the same keys.
func (t *Transcript) syncAll(a *model.Action) {
	seen := make(map[string]bool, len(t.blocks))
	next := t.blocks[:0:0]
	add := t.adder(seen, &next)
	inline := inlineTools(a)
	items := a.Items()
	if t.itemBlocks == nil || len(t.itemBlocks) > 2*len(items) {
		t.itemBlocks = make(map[*model.Item]*block, len(items))
	} else {
		clear(t.itemBlocks)
	}
	for _, it := range items {
		b := add(itemKey(it), bItem)
		b.item = it
		b.tools = nil
		if it.Kind == model.ItemMessage && inline != nil {
			b.tools = inline[it.Key]
		}
		t.itemBlocks[it] = b
	}
	t.nItems = len(next)
	t.appendTail(add)
	for k := range t.byKey {
		if !seen[k] {
			delete(t.byKey, k)
		}
	}
	t.blocks = next
	for _, b := range t.blocks {
		t.renderBlock(b)
	}
	t.reindex(0)
	t.findActive()
}

// appendTail adds the blocks after the items: the model's notes, its
// first anomalies and their count, and the reconcile advice.
func (t *Transcript) appendTail(add func(string, blockKind) *block) {
	a := t.action
	for _, n := range a.Notes() {
		b := add("note:"+n, bNote)
		b.text = n
	}
	// The first MaxAnomalies and a count, without copying thousands.
	anoms, total := a.FirstAnomalies(MaxAnomalies+1), a.AnomalyCount()
	for i, an := range anoms {
		if i == MaxAnomalies {
			b := add("anom:more", bMore)
			b.text = fmt.Sprintf("… %s more", render.Plural(total-MaxAnomalies, "anomaly", "anomalies"))
			break
		}
		b := add(fmt.Sprintf("anom:%d:%s:%s", an.Sequence, an.Kind, an.Detail), bAnomaly)
		b.anom = an
	}
	if rec, ok := a.Reconcile(); ok {
		b := add("reconcile", bReconcile)
		b.rec = rec
	}
}

// adder returns the function that appends the block of a key to *next,
// reusing the block of that key, and numbering a key seen before.
func (t *Transcript) adder(seen map[string]bool, next *[]*block) func(string, blockKind) *block {
	return func(key string, kind blockKind) *block {
		if seen[key] {
			for n := 2; ; n++ {
				if k := key + "#" + strconv.Itoa(n); !seen[k] {
					key = k
					break
				}
			}
		}
		seen[key] = true
		b := t.byKey[key]
		if b == nil || b.kind != kind {
			b = &block{key: key, kind: kind}
			t.byKey[key] = b
		}
		*next = append(*next, b)
		return b
	}
}

// syncChanged is the incremental Sync: it reports false (and changes
// nothing) when the change is not one it handles, an item that is not
// new appearing other than at the end.
func (t *Transcript) syncChanged(a *model.Action, changed []*model.Item, tools []*model.Tool) bool {
	items := a.Items()
	old := t.nItems
	var fresh []*model.Item
	for _, it := range changed {
		if t.itemBlocks[it] == nil {
			fresh = append(fresh, it)
		}
	}
	if len(items) != old+len(fresh) {
		return false
	}
	for k, it := range fresh {
		if items[old+k] != it {
			return false // inserted above existing items: re-list them all
		}
	}
	// Chat tools drawn inline (a handful of items): the full pass.
	for _, tl := range tools {
		if tl.MessageKey != "" {
			return false
		}
	}
	hasMsg := false
	for _, it := range fresh {
		hasMsg = hasMsg || it.Kind == model.ItemMessage
	}
	if hasMsg {
		for _, tl := range a.Tools() {
			if tl.MessageKey != "" {
				return false
			}
		}
	}
	keys := make(map[string]bool, len(fresh))
	for _, it := range fresh {
		k := itemKey(it)
		if t.byKey[k] != nil || keys[k] {
			return false // a repeated key: the full pass numbers it
		}
		keys[k] = true
	}

	dirty := make([]*block, 0, len(changed))
	for _, it := range changed {
		if b := t.itemBlocks[it]; b != nil {
			dirty = append(dirty, b)
		}
	}
	// New items: blocks appended after the last item block.
	tail := append([]*block(nil), t.blocks[old:]...)
	blocks := t.blocks[:old]
	for _, it := range fresh {
		b := &block{key: itemKey(it), kind: bItem, item: it, pos: len(blocks)}
		t.byKey[b.key] = b
		t.itemBlocks[it] = b
		blocks = append(blocks, b)
		dirty = append(dirty, b)
	}
	t.nItems = len(blocks)

	// The tail is a few blocks: list it again, reusing blocks by key.
	seen := map[string]bool{}
	t.appendTail(t.adder(seen, &blocks))
	for _, b := range tail {
		if !seen[b.key] && t.byKey[b.key] == b {
			delete(t.byKey, b.key)
		}
	}
	t.blocks = blocks

	// The tail is re-indexed every time (a few blocks); new items from
	// where they start.
	from := min(old, t.nItems)
	for _, b := range t.blocks[t.nItems:] {
		t.renderBlock(b)
	}
	for _, b := range dirty {
		t.renderBlock(b)
		from = min(from, b.pos)
	}
	t.reindex(from)
	t.updateActive(dirty)
	return true
}

func itemKey(it *model.Item) string {
	if it.Key != "" {
		return "item:" + it.Key
	}
	return "idx:" + strconv.Itoa(it.Index)
}

// reindex brings the line index (and the match index) up to date from
// block from on; the blocks before it did not change.
func (t *Transcript) reindex(from int) {
	if cap(t.offsets) < len(t.blocks) {
		o := make([]int, len(t.blocks), 2*len(t.blocks))
		copy(o, t.offsets)
		t.offsets = o
	}
	t.offsets = t.offsets[:len(t.blocks)]
	from = min(max(from, 0), len(t.blocks))
	n := 0
	if from > 0 {
		n = t.offsets[from-1] + t.blocks[from-1].len()
	}
	for i := from; i < len(t.blocks); i++ {
		b := t.blocks[i]
		if i > 0 {
			n++ // separator
		}
		b.pos = i
		t.offsets[i] = n
		n += b.len()
	}
	t.total = n
	t.recount(from)
}

func (b *block) len() int { return len(b.head) + len(b.body) }

// Active is the block of the item changed last (the highest AIP sequence),
// or -1. In Responses the text after tool calls grows the message above
// them, so following the bottom alone would hide the text that arrives.
func (t *Transcript) Active() int {
	if t.active == nil {
		return -1
	}
	return t.active.pos
}

// findActive finds the active block among all blocks.
func (t *Transcript) findActive() {
	t.active, t.activeSeq = nil, 0
	for _, b := range t.blocks {
		if b.item != nil && (t.active == nil || b.item.LastSeq >= t.activeSeq) {
			t.active, t.activeSeq = b, b.item.LastSeq
		}
	}
}

// updateActive considers the blocks an incremental Sync drew: only their
// sequences moved (the others' did not change).
func (t *Transcript) updateActive(dirty []*block) {
	for _, b := range dirty {
		if b == t.active && b.item.LastSeq < t.activeSeq {
			t.findActive() // it went back: look again
			return
		}
	}
	for _, b := range dirty {
		seq := b.item.LastSeq
		if t.active == nil || seq > t.activeSeq || (seq == t.activeSeq && b.pos > t.active.pos) {
			t.active, t.activeSeq = b, seq
		}
	}
}

// LastItem is the last block that shows a model item, or -1.
func (t *Transcript) LastItem() int {
	for i := len(t.blocks) - 1; i >= 0; i-- {
		if t.blocks[i].item != nil {
			return i
		}
	}
	return -1
}

// Len is the number of lines.
func (t *Transcript) Len() int { return t.total }

// Blocks is the number of blocks.
func (t *Transcript) Blocks() int { return len(t.blocks) }

// Line returns line i (0 ≤ i < Len()).
func (t *Transcript) Line(i int) string {
	bi := t.BlockAt(i)
	if bi < 0 {
		return ""
	}
	b := t.blocks[bi]
	j := i - t.offsets[bi]
	switch {
	case j < len(b.head):
		return t.highlighted(b, j, b.head[j])
	case j < b.len():
		return t.highlighted(b, j, b.body[j-len(b.head)])
	}
	return "" // the separator after the block
}

// Lines appends lines [from, to) to dst. It walks the blocks from the one
// holding from, so its cost is the number of lines asked for.
func (t *Transcript) Lines(dst []string, from, to int) []string {
	from = max(from, 0)
	to = min(to, t.total)
	if from >= to {
		return dst
	}
	bi := t.BlockAt(from)
	j := from - t.offsets[bi]
	for i := from; i < to; i++ {
		b := t.blocks[bi]
		switch {
		case j < len(b.head):
			dst = append(dst, t.highlighted(b, j, b.head[j]))
		case j < b.len():
			dst = append(dst, t.highlighted(b, j, b.body[j-len(b.head)]))
		default:
			dst = append(dst, "")
		}
		j++
		if bi+1 < len(t.blocks) && i+1 >= t.offsets[bi+1] {
			bi++
			j = 0
		}
	}
	return dst
}

// BlockAt is the block holding line i (its trailing separator included),
// or -1 when there are no blocks.
func (t *Transcript) BlockAt(i int) int {
	if len(t.blocks) == 0 {
		return -1
	}
	k := sort.Search(len(t.offsets), func(k int) bool { return t.offsets[k] > i }) - 1
	return max(k, 0)
}

// Span is the first line and the line count of block i (separator not
// counted).
func (t *Transcript) Span(i int) (start, n int) {
	if i < 0 || i >= len(t.blocks) {
		return 0, 0
	}
	return t.offsets[i], t.blocks[i].len()
}

// Key is the stable identity of block i, for anchors and toggles.
func (t *Transcript) Key(i int) string {
	if i < 0 || i >= len(t.blocks) {
		return ""
	}
	return t.blocks[i].key
}

// Index returns the block with that key, or -1.
func (t *Transcript) Index(key string) int {
	b := t.byKey[key]
	if b == nil || b.pos >= len(t.blocks) || t.blocks[b.pos] != b {
		return -1
	}
	return b.pos
}

// Item is the model item of block i, or nil for notes and anomalies.
func (t *Transcript) Item(i int) *model.Item {
	if i < 0 || i >= len(t.blocks) {
		return nil
	}
	return t.blocks[i].item
}

// Sequence is the AIP sequence behind block i: the chunk that last changed
// its item, or the chunk an anomaly concerns.
func (t *Transcript) Sequence(i int) (uint64, bool) {
	if i < 0 || i >= len(t.blocks) {
		return 0, false
	}
	b := t.blocks[i]
	switch {
	case b.item != nil:
		return b.item.LastSeq, true
	case b.kind == bAnomaly:
		return b.anom.Sequence, true
	}
	return 0, false
}

// Collapsed reports whether block i is drawn collapsed, and how many lines
// it hides.
func (t *Transcript) Collapsed(i int) (bool, int) {
	if i < 0 || i >= len(t.blocks) {
		return false, 0
	}
	return t.blocks[i].collapsed, t.blocks[i].hidden
}

// Toggle expands a collapsed block or collapses an expanded one; it
// reports false when the block has nothing to hide.
func (t *Transcript) Toggle(i int) bool {
	if i < 0 || i >= len(t.blocks) {
		return false
	}
	b := t.blocks[i]
	if b.kind != bItem {
		return false
	}
	if !b.collapsed && len(b.body) == 0 {
		return false
	}
	t.toggled[b.key] = b.collapsed // collapsed → expand, and back
	t.renderBlock(b)
	t.reindex(i)
	return true
}

// TakeMarkdownJobs returns the markdown renders the last Sync found
// missing, and forgets them. Run each with (*Markdown).Run and hand the
// result to SetMarkdown.
func (t *Transcript) TakeMarkdownJobs() []MarkdownJob {
	j := t.jobs
	t.jobs = nil
	return j
}

// MarkdownJob is one finished message to render.
type MarkdownJob struct {
	Key     string
	Item    *model.Item
	Version uint64
	Width   int
	Text    string // sanitised
}

// MarkdownResult is a rendered job.
type MarkdownResult struct {
	Job   MarkdownJob
	Lines []string
	Err   error
}

// Run renders the job with md. It touches nothing but the job and the
// renderer, so it may run in any goroutine.
func (j MarkdownJob) Run(md *render.Markdown) MarkdownResult {
	lines, err := md.Render(j.Text, j.Width)
	return MarkdownResult{Job: j, Lines: lines, Err: err}
}

// SetMarkdown stores a rendered job if its block still shows that version
// of that item, and reports whether the transcript changed.
func (t *Transcript) SetMarkdown(r MarkdownResult) bool {
	b := t.byKey[r.Job.Key]
	if b == nil {
		return false
	}
	if b.mdPending != nil {
		delete(b.mdPending, r.Job.Width)
	}
	if b.item != r.Job.Item || b.item.Version != r.Job.Version {
		return false
	}
	t.storeMarkdown(b, r)
	before := b.len()
	t.renderBlock(b)
	if b.len() != before {
		t.reindex(b.pos)
	} else {
		t.recount(b.pos)
	}
	return true
}
