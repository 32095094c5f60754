package safe

import "strings"

// Notification is what a terminal is sent when an action settles (design
// §10): the bell, then the text as a desktop notification by OSC 9
// (iTerm2's form, read by iTerm2, WezTerm and Ghostty among others), and
// by OSC 777 ("notify;TITLE;BODY", rxvt-unicode's form, read by foot,
// Ghostty and WezTerm) when the route says the terminal speaks it. Each is
// ended by ST (ESC \); a terminal that does not know an OSC number skips
// the whole sequence, so the bell is what it shows. Inside a multiplexer
// (design §13) each OSC is wrapped to pass through it (Passthrough); the
// bell is not, the multiplexer rings it itself.
//
// The text is made one line (Line): no control in it can end the sequence
// early or start another, and the token is scrubbed; it is cut to
// MaxNotifyText bytes (a 300 KB finish_reason is not a 300 KB escape
// sequence, and screen drops a long one). OSC 9 text that starts with a
// digit is another command to ConEmu and Windows Terminal (9;4 is
// progress), so such a text gets a space before it, within the cap; a ';'
// in the OSC 777 title would start the body, so it is a ',' there.
func Notification(title, text string, r NotifyRoute) []byte {
	title, text = capText(title, MaxNotifyTitle), capText(text, MaxNotifyText)
	if text != "" && text[0] >= '0' && text[0] <= '9' {
		// The space counts in the cap (design §13: 256 bytes).
		text = cut(" "+text, MaxNotifyText)
	}
	b := make([]byte, 0, 4*len(text)+2*len(title)+64)
	b = append(b, '\a')
	osc := make([]byte, 0, 2*len(text)+len(title)+32)
	osc = append(osc, "\x1b]9;"...)
	osc = append(osc, text...)
	osc = append(osc, "\x1b\\"...)
	b = r.Mux.wrap(b, osc)
	if r.OSC777 {
		osc = append(osc[:0], "\x1b]777;notify;"...)
		osc = append(osc, strings.ReplaceAll(title, ";", ",")...)
		osc = append(osc, ';')
		osc = append(osc, text...)
		osc = append(osc, "\x1b\\"...)
		b = r.Mux.wrap(b, osc)
	}
	return b
}

// The caps on a notification's parts, in bytes of their one line.
const (
	MaxNotifyText  = 256
	MaxNotifyTitle = 64
)

// capText is s as one line (Line), at most n bytes, cut at a character
// with "…" after it. Only the first 4n bytes are cleaned: a placeholder
// takes at most four bytes for each byte it stands for.
func capText(s string, n int) string {
	if len(s) > 4*n {
		s = s[:4*n]
	}
	return cut(Line(s), n)
}

// cut is s when it is at most n bytes, else its start cut at a character
// with "…" after it, n bytes at most.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	at := n - len("…")
	for at > 0 && s[at]&0xC0 == 0x80 { // not inside a character
		at--
	}
	return s[:at] + "…"
}

// NotifyRoute is how a notification reaches the operator's terminal: what
// the terminal speaks and what stands between (design §10, §13).
type NotifyRoute struct {
	OSC777 bool        // the terminal reads OSC 777 too (SpeaksOSC777)
	Mux    Multiplexer // the multiplexer to pass through
}

// Multiplexer is a terminal multiplexer aipwatch runs in, which drops an
// OSC it does not know unless the OSC is wrapped for passthrough.
type Multiplexer int

// The multiplexers.
const (
	NoMultiplexer Multiplexer = iota
	Tmux                      // $TMUX set, or TERM=tmux…: DCS "tmux;" passthrough
	Screen                    // $STY set, or TERM=screen…: DCS passthrough
)

// DetectMultiplexer tells the multiplexer from $TMUX, $STY and $TERM:
// tmux sets TMUX (and usually TERM=tmux… or screen…), screen sets STY
// (and TERM=screen…). TERM=screen… with neither is taken for screen.
func DetectMultiplexer(tmux, sty, term string) Multiplexer {
	switch {
	case tmux != "" || strings.HasPrefix(term, "tmux"):
		return Tmux
	case sty != "" || strings.HasPrefix(term, "screen"):
		return Screen
	}
	return NoMultiplexer
}

// wrap appends osc to b wrapped to pass through m. tmux: ESC P tmux; the
// sequence with each ESC doubled, ESC \ (tmux's passthrough; it lets it
// through when allow-passthrough is on, tmux 3.3 and later, or always
// before 3.3). screen: ESC P the sequence ESC \, the sequence ended by
// BEL, since its own ST would end screen's DCS early.
func (m Multiplexer) wrap(b, osc []byte) []byte {
	switch m {
	case Tmux:
		b = append(b, "\x1bPtmux;"...)
		for _, c := range osc {
			if c == 0x1b {
				b = append(b, 0x1b)
			}
			b = append(b, c)
		}
		return append(b, "\x1b\\"...)
	case Screen:
		b = append(b, "\x1bP"...)
		b = append(b, strings.TrimSuffix(string(osc), "\x1b\\")...)
		b = append(b, '\a')
		return append(b, "\x1b\\"...)
	}
	return append(b, osc...)
}

// PassthroughHint is what the operator is told once when tmux will drop
// the notifications (allow-passthrough is off): how to let them through.
// The bell still rings.
const PassthroughHint = "tmux drops the desktop notification (allow-passthrough is off): " +
	"tmux set -g allow-passthrough on lets it through; the bell still rings"

// SpeaksOSC777 reports whether the terminal says, in $TERM or
// $TERM_PROGRAM, that it reads OSC 777 notifications: foot
// (TERM=foot…), rxvt-unicode (rxvt-unicode…, with its notify extension),
// Ghostty (xterm-ghostty, TERM_PROGRAM=ghostty) and WezTerm
// (TERM_PROGRAM=WezTerm, or TERM=wezterm). TERM crosses SSH, TERM_PROGRAM
// mostly does not; elsewhere (tmux and screen among them) only the bell
// and OSC 9 are sent.
func SpeaksOSC777(term, termProgram string) bool {
	switch termProgram {
	case "ghostty", "WezTerm":
		return true
	}
	for _, p := range []string{"foot", "rxvt-unicode", "xterm-ghostty", "wezterm"} {
		if len(term) >= len(p) && term[:len(p)] == p {
			return true
		}
	}
	return false
}
