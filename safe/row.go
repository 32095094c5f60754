package safe

import "strings"

// Row is the TUI's last guard, applied to every row of every frame (ui's
// screen.row): a row may hold aipwatch's own styling, SGR sequences
// ("ESC [ params m", which only set colours and attributes), and nothing
// else a terminal obeys. Any other escape sequence, C0 control (a newline
// too: a row is one line), DEL, C1 or bidi control, or invalid UTF-8 is
// shown as its placeholder, as Line shows it. A field that reached the
// renderer without its Line therefore still cannot move the cursor, set a
// title, write the clipboard or start a row of its own. A row with nothing
// to replace is returned as it is, without allocating.
func Row(s string) string { return clean(s, false, true) }

// sgrLen is the length of the SGR sequence at the start of s, or 0:
// ESC '[' then digits, ';' and ':' only, then 'm'; and not conceal (8),
// which would draw the rest of the row (a verdict) invisible.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for j := 2; j < len(s) && j < 64; j++ {
		switch c := s[j]; {
		case c == 'm':
			if conceals(s[2:j]) {
				return 0
			}
			return j + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// conceals reports whether SGR parameters hold conceal (8), skipping the
// arguments of extended colours (38/48/58;5;n and ;2;r;g;b).
func conceals(params string) bool {
	skip := 0 // arguments of an extended colour still to skip
	extended := false
	for params != "" {
		p := params
		if k := strings.IndexByte(params, ';'); k >= 0 {
			p, params = params[:k], params[k+1:]
		} else {
			params = ""
		}
		switch {
		case skip > 0:
			skip--
		case extended:
			extended = false
			switch p {
			case "5":
				skip = 1
			case "2":
				skip = 3
			}
		case p == "38" || p == "48" || p == "58":
			extended = true
		case strings.TrimLeft(p, "0") == "8":
			return true
		}
	}
	return false
}
