package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// PrettyJSON indents s when it is a JSON object or array and reports
// whether it was; the result is terminal-safe (safe.JSON, then safe.Text).
// Anything else comes back sanitised and unchanged in layout.
func PrettyJSON(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return Clean(s), false
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(t), "", "  "); err != nil {
		return Clean(s), false
	}
	return Clean(string(safe.JSON(buf.Bytes()))), true
}

// Duration formats a measured duration for humans: model.HumanDuration,
// the one rule every output shows.
func Duration(d time.Duration) string { return model.HumanDuration(d) }

// Age formats how long ago something happened, in whole seconds.
func Age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// Short shortens an identifier to at most n cells, keeping its head and
// tail ("aev_cursor_01…9f2c"), after sanitising it to one line.
func Short(id string, n int) string {
	id = safe.Line(id)
	if Width(id) <= n || n < 5 {
		return Truncate(id, n, "…")
	}
	tail := (n - 1) / 3
	head := n - 1 - tail
	r := []rune(id)
	if len(r) <= n {
		return id
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// Untrusted prepares one untrusted line for drawing: masked under redact,
// else sanitised to one line.
func Untrusted(s string, redact bool) string {
	if redact {
		return safe.Mask(s)
	}
	return safe.Line(s)
}

// Plural is "1 thing" / "2 things".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Line sanitises one untrusted line (safe.Line), for callers that draw
// through this package.
func Line(s string) string { return safe.Line(s) }

// Mask is --redact's mask of one content string (safe.Mask).
func Mask(s string) string { return safe.Mask(s) }

// Masked is what a masked string shows.
const Masked = safe.Masked
