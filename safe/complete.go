package safe

import "strings"

// Shell completion (design §11) puts words on the user's command line: a
// shell inserts what its candidates share unquoted, so a candidate that
// holds a ';', a '$(' or a space is a command the daemon chose, run at the
// next Enter. What reaches a shell is therefore a word of a fixed set of
// characters, bounded, with a description only when it is one clean line.

// The bounds of a completion answer (design §11), in bytes.
const (
	MaxCompletionWord   = 128       // a candidate's word
	MaxCompletionAnswer = 16 * 1024 // all the candidates, words and descriptions
)

// IDWord reports whether s is made of the characters AIP's IDs use: ASCII
// letters, digits, '_' and '-' (and is not empty). Only such an action ID
// is offered to a shell.
func IDWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !idChar(r) }) < 0
}

// CompletionIDs are the action IDs of lists a completion offers, in
// order, each once: only an ID of AIP's characters (act_, then IDWord's)
// reaches a shell's line (design §11).
func CompletionIDs(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, ids := range lists {
		for _, id := range ids {
			if strings.HasPrefix(id, "act_") && IDWord(id) && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

func idChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// shellWord reports whether s holds nothing a shell reads as more than a
// word's characters: the ID characters, and '.', ',', ':', '/', '=', '@',
// '+' and '%' (a context's name, a list of verdicts).
func shellWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !idChar(r) && !strings.ContainsRune(".,:/=@+%", r)
	}) < 0
}

// Completions is what of candidates (cobra's "word" or "word\tdescription")
// a shell is given: a candidate whose word holds any other character than
// a shell word's, or is longer than MaxCompletionWord, is left out; a
// description with a control character, a bidi control or invalid UTF-8
// is dropped (its word kept), a long one cut; and the candidates end
// before their total passes MaxCompletionAnswer.
func Completions(candidates []string) []string {
	out := make([]string, 0, len(candidates))
	total := 0
	for _, c := range candidates {
		word, desc, _ := strings.Cut(c, "\t")
		if !shellWord(word) || len(word) > MaxCompletionWord {
			continue
		}
		if desc != "" && Line(desc) == desc { // a tab is a control here too
			word += "\t" + cut(desc, MaxCompletionWord)
		}
		if total += len(word) + 1; total > MaxCompletionAnswer { // and its newline
			break
		}
		out = append(out, word)
	}
	return out
}
