package output

import (
	"io"
)

// ContextRow is one context of `aipwatch contexts` (design §9): where its
// daemon is and whether it answered; never its token.
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
