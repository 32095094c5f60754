package safe

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
)

// TokenMark is what aipwatch writes where the token was (design §5).
const TokenMark = "[token]"

// scrubWindow is the length of the token substrings that may never be
// written: design §5 names 12 characters.
const scrubWindow = 12

// minSecret is the shortest secret Protect accepts: a shorter one would
// match ordinary words.
const minSecret = 6

// scrubber finds substrings of a secret in text. A pattern is one form of
// a secret as it could be written: raw, or escaped inside a JSON string.
type scrubber struct {
	pats []pattern
}

type pattern struct {
	p    string
	win  int                 // min(scrubWindow, len(p))
	set  [256]bool           // bytes of p
	wins map[string]struct{} // every win-byte substring of p
}

var (
	secretsMu sync.Mutex
	secrets   atomic.Pointer[scrubber] // nil: nothing to scrub (the fast path)
)

// Protect registers a secret (the bearer token): from now on, no
// 12-character substring of it (the whole of it when shorter) survives
// Text, Line, JSON, Scrub or a Writer; each run of them becomes
// TokenMark. Secrets shorter than 6 bytes are ignored. Registration is for
// the life of the process and only adds.
func Protect(secret string) {
	if len(secret) < minSecret {
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	old := secrets.Load()
	next := &scrubber{}
	if old != nil {
		for _, p := range old.pats {
			if p.p == secret {
				return
			}
		}
		next.pats = append(next.pats, old.pats...)
	}
	forms := []string{secret}
	if b, err := json.Marshal(secret); err == nil {
		if esc := string(b[1 : len(b)-1]); esc != secret {
			forms = append(forms, esc) // the form a JSON writer emits
		}
	}
	for _, f := range forms {
		next.pats = append(next.pats, newPattern(f))
	}
	secrets.Store(next)
}

func newPattern(p string) pattern {
	pt := pattern{p: p, win: min(scrubWindow, len(p)), wins: map[string]struct{}{}}
	for i := 0; i < len(p); i++ {
		pt.set[p[i]] = true
	}
	for i := 0; i+pt.win <= len(p); i++ {
		pt.wins[p[i:i+pt.win]] = struct{}{}
	}
	return pt
}

// Scrub replaces every run of text that holds a 12-character substring of
// a protected secret with TokenMark. Text holding none is returned as it
// is.
func Scrub(s string) string {
	sc := secrets.Load()
	if sc == nil {
		return s
	}
	return sc.scrub(s)
}

func (sc *scrubber) scrub(s string) string { return replaceSpans(s, sc.spans(s)) }

// scrubBefore is scrub(s[:cut]) given spans, the spans of all of s, when
// no span runs across cut: those that end by cut are s[:cut]'s own.
func (sc *scrubber) scrubBefore(s string, spans [][2]int, cut int) string {
	k := 0
	for k < len(spans) && spans[k][1] <= cut {
		k++
	}
	return replaceSpans(s[:cut], spans[:k])
}

// replaceSpans replaces each span of s with TokenMark.
func replaceSpans(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(TokenMark)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// spans returns the merged byte ranges of s covered by a secret window.
func (sc *scrubber) spans(s string) [][2]int {
	var spans [][2]int
	for pi := range sc.pats {
		spans = sc.pats[pi].addSpans(spans, s)
	}
	return spans
}

// addSpans adds p's windows in s to spans. A window's bytes are all bytes
// of p: each candidate is tested from its last byte back, and the next one
// starts after the last byte that is not (in most text, a few bytes are
// read for every window length skipped); along a run of p's bytes every
// window is looked up.
func (p *pattern) addSpans(spans [][2]int, s string) [][2]int {
	for i := 0; i+p.win <= len(s); { // no window starts before i
		j := i + p.win - 1
		for j >= i && p.set[s[j]] {
			j--
		}
		if j >= i {
			i = j + 1
			continue
		}
		for e := i + p.win; ; e++ { // s[e-win:e] is all p's bytes
			if _, ok := p.wins[s[e-p.win:e]]; ok {
				spans = addSpan(spans, e-p.win, e)
			}
			if e == len(s) || !p.set[s[e]] {
				i = e + 1
				break
			}
		}
	}
	return spans
}

// addSpan inserts [lo,hi) into sorted, merged spans.
func addSpan(spans [][2]int, lo, hi int) [][2]int {
	spans = append(spans, [2]int{lo, hi})
	// Keep it sorted and merged; the lists are tiny.
	for i := len(spans) - 1; i > 0 && spans[i][0] < spans[i-1][0]; i-- {
		spans[i], spans[i-1] = spans[i-1], spans[i]
	}
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// holdBack is how many bytes at the end of s could be the start of a
// secret window continued by the next write: the longest suffix shorter
// than the window that is a substring of a secret form.
func (sc *scrubber) holdBack(s string) int {
	n := 0
	for _, p := range sc.pats {
		for k := min(p.win-1, len(s)); k > n; k-- {
			if strings.Contains(p.p, s[len(s)-k:]) {
				n = k
				break
			}
		}
	}
	return n
}
