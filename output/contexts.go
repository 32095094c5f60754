package output

import (
	"bufio"
	"io"
	"text/tabwriter"

	"aipwatch/safe"
)

// ContextRow is one context of `aipwatch contexts` (design §9): where its
// daemon is (its URL without credentials) and whether it answered; never
// its token.
type ContextRow struct {
	Name, URL, TokenFile, CACert, Status string
	Current, Reachable                   bool
}

// contextObject is a ContextRow in jsonl; its keys are fixed.
type contextObject struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Current   bool   `json:"current"`
	URL       string `json:"url"`
	TokenFile string `json:"token_file"`
	CACert    string `json:"cacert"`
	Reachable bool   `json:"reachable"`
	Status    string `json:"status"`
}

// WriteContextJSONL writes one context as a JSON line. The status may
// carry a daemon's words: every field is one line (WriteObject).
func WriteContextJSONL(w io.Writer, r ContextRow) {
	_ = WriteObject(w, contextObject{Type: "context", Name: r.Name, Current: r.Current,
		URL: r.URL, TokenFile: r.TokenFile, CACert: r.CACert, Reachable: r.Reachable, Status: r.Status})
}

// WriteContexts writes `aipwatch contexts`' rows: with jsonl a JSON line
// each, else a table whose current context is marked * and whose token
// file is "none" when the context names none. Every field is one line.
func WriteContexts(w io.Writer, jsonl bool, rows []ContextRow) error {
	if jsonl {
		for _, r := range rows {
			WriteContextJSONL(w, r)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	bw := bufio.NewWriter(tw)
	bw.WriteString("  NAME\tURL\tTOKEN FILE\tDAEMON\n")
	for _, r := range rows {
		mark, token := " ", r.TokenFile
		if r.Current {
			mark = "*"
		}
		if token == "" {
			token = "none"
		}
		bw.WriteString(safe.Sprintf("%s %s\t%s\t%s\t%s\n", mark, r.Name, r.URL, token, r.Status).String())
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return tw.Flush()
}
