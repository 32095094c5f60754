package safe

// Notification is what a terminal is sent when an action settles (design
// §10): the bell, then the text as a desktop notification by OSC 9
// (iTerm2's form, read by iTerm2, WezTerm and Ghostty among others), and
// by OSC 777 ("notify;TITLE;BODY", rxvt-unicode's form, read by foot,
// Ghostty and WezTerm) when osc777. Each is ended by ST (ESC \); a
// terminal that does not know an OSC number skips the whole sequence, so
// the bell is what it shows.
//
// The text is made one line (Line): no control in it can end the sequence
// early or start another, and the token is scrubbed. OSC 9 text that
// starts with a digit is another command to ConEmu and Windows Terminal
// (9;4 is progress), so such a text gets a space before it; a ';' in the
// OSC 777 title would start the body, so it is a ',' there.
func Notification(title, text string, osc777 bool) []byte {
	title, text = Line(title), Line(text)
	if text != "" && text[0] >= '0' && text[0] <= '9' {
		text = " " + text
	}
	b := make([]byte, 0, 2*len(text)+len(title)+32)
	b = append(b, '\a')
	b = append(b, "\x1b]9;"...)
	b = append(b, text...)
	b = append(b, "\x1b\\"...)
	if osc777 {
		b = append(b, "\x1b]777;notify;"...)
		for i := 0; i < len(title); i++ {
			if title[i] == ';' {
				b = append(b, ',')
			} else {
				b = append(b, title[i])
			}
		}
		b = append(b, ';')
		b = append(b, text...)
		b = append(b, "\x1b\\"...)
	}
	return b
}

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
