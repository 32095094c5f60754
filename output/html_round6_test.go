package output

import (
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// design §16: --export FILE.html and FILE.htm, in any case, write the HTML
// report; any other name Markdown.
func TestFormatOfEveryHTMLName(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]ExportFormat{
		"r.html": ExportHTML, "r.htm": ExportHTML, "R.HTML": ExportHTML, "dir/R.Htm": ExportHTML,
		"r.md": ExportMarkdown, "r": ExportMarkdown, "html": ExportMarkdown, "r.html.md": ExportMarkdown,
	} {
		if got := FormatOf(path); got != want {
			t.Errorf("%s: format %d, want %d", path, got, want)
		}
	}
}

// --redact masks in the report what it masks everywhere (design §4): the
// connection log's error details, each anomaly's detail, and the
// response_get input that carries the provider's response ID.
func TestRedactedHTMLMasksTheLogAnomaliesAndReconcileInput(t *testing.T) {
	t.Parallel()
	a := fixture(t, "responses_failed")
	r, ok := a.Reconcile()
	if !ok || r.ResponseGetInput == "" || a.Responses().ResponseID == "" {
		t.Fatalf("the fixture: reconcile %v %+v", ok, r)
	}
	a.Log(model.Happening{At: time.Date(2026, 12, 1, 10, 0, 9, 0, time.UTC), Kind: model.HapError, Detail: "detail-of-the-log-7Qx"})
	a.IngestChunk(model.StreamChunk{ActionID: "act_foreign_9Kp", Sequence: 900, Kind: model.KindData,
		Raw: []byte(`{"action_id":"act_foreign_9Kp","sequence":900,"kind":"data"}`)}, time.Time{})
	plain := string(HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Now: now}}))
	red := string(HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Redact: true, Now: now}}))
	for _, s := range []string{"detail-of-the-log-7Qx", "act_foreign_9Kp", `{&#34;response_id&#34;: &#34;` + a.Responses().ResponseID} {
		if !strings.Contains(plain, s) {
			t.Errorf("the report lacks %q (the test would prove nothing)", s)
		}
		if strings.Contains(red, s) {
			t.Errorf("the redacted report holds %q", s)
		}
	}
	if !strings.Contains(red, `{&#34;response_id&#34;: &#34;`+safe.Masked) {
		t.Error("the redacted report's response_get input is not the masked one")
	}
}
