package model

import (
	"errors"
	"slices"
	"strings"
)

// SettledVerdicts are the verdicts of a settled action (design §3), in
// the order the fleet's figures show them (design §13).
var SettledVerdicts = [...]string{VerdictVerified, VerdictPartial, VerdictFailed, VerdictTruncated, VerdictIncomplete, VerdictCancelled}

// VerdictIndex is word's place in SettledVerdicts, -1 for any other word.
func VerdictIndex(word string) int {
	for i, w := range SettledVerdicts {
		if w == word {
			return i
		}
	}
	return -1
}

// ParseVerdicts reads a list of verdict words, as `ls --verdict=`,
// `--notify-on` and the config's notify_on give it (design §13):
// comma-separated, spaces around a word ignored, each one of
// SettledVerdicts, at least one. The words come back in SettledVerdicts'
// order, each once. The error names the first word that is no verdict and
// the words that are.
func ParseVerdicts(s string) ([]string, error) {
	var seen [len(SettledVerdicts)]bool
	some := false
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		i := VerdictIndex(w)
		if i < 0 {
			return nil, errors.New("not a verdict: " + quoteWord(w) + " (the verdicts: " + strings.Join(SettledVerdicts[:], ", ") + ")")
		}
		seen[i], some = true, true
	}
	if !some {
		return nil, errors.New("no verdict given (the verdicts: " + strings.Join(SettledVerdicts[:], ", ") + ")")
	}
	var out []string
	for i, ok := range seen {
		if ok {
			out = append(out, SettledVerdicts[i])
		}
	}
	return out, nil
}

// KeepVerdicts keeps, in place, the rows of batch judged one of keep (as
// ParseVerdicts reads them: `ls --verdict=`); every row when keep is
// empty. A live row, or one not judged, has no verdict and is left out.
func KeepVerdicts(batch []ActionRow, keep []string) []ActionRow {
	if len(keep) == 0 {
		return batch
	}
	out := batch[:0]
	for _, r := range batch {
		if slices.Contains(keep, r.Verdict) {
			out = append(out, r)
		}
	}
	return out
}

// quoteWord quotes a word of the operator's for an error line, cut to 40
// bytes and with its controls shown (an error line is one line).
func quoteWord(w string) string {
	if len(w) > 40 {
		w = w[:40] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, `"`+w+`"`)
}
