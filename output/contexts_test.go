package output

import (
	"strings"
	"testing"

	"aipwatch/safe"
)

// `aipwatch contexts` as a table (design §9): the current context marked
// *, a context with no token file says none, columns two spaces apart,
// every field one line (a daemon's words in the status too).
func TestWriteContextsTable(t *testing.T) {
	hostile := "refuses the token (401 auth.\x1b[31mbad\nx)"
	var b strings.Builder
	err := WriteContexts(&b, false, []ContextRow{
		{Name: "prod", Current: true, URL: "https://aipd.prod:8443", TokenFile: "/t/prod.token", Status: "ok", Reachable: true},
		{Name: "staging", URL: "http://127.0.0.1:8080", Status: hostile},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "  NAME     URL                     TOKEN FILE     DAEMON\n" +
		"* prod     https://aipd.prod:8443  /t/prod.token  ok\n" +
		"  staging  http://127.0.0.1:8080   none           " + safe.Line(hostile) + "\n"
	if got := b.String(); got != want || strings.Contains(got, "\x1b") {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// jsonl is one object a context, its token file as written ("" for none).
func TestWriteContextsJSONL(t *testing.T) {
	var b strings.Builder
	if err := WriteContexts(&b, true, []ContextRow{{Name: "down", URL: "http://127.0.0.1:1", Status: "connection refused"}}); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"context","name":"down","current":false,"url":"http://127.0.0.1:1","token_file":"","cacert":"","reachable":false,"status":"connection refused"}` + "\n"
	if b.String() != want {
		t.Errorf("jsonl %q, want %q", b.String(), want)
	}
}
