package safe

import (
	"strings"
	"testing"
)

func TestNotificationBytes(t *testing.T) {
	got := string(Notification("aipwatch", "act_1: verified (AIP result completed)", false))
	if want := "\a\x1b]9;act_1: verified (AIP result completed)\x1b\\"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	got = string(Notification("aip;watch", "act_1: failed", true))
	if want := "\a\x1b]9;act_1: failed\x1b\\\x1b]777;notify;aip,watch;act_1: failed\x1b\\"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	// A leading digit is not read as an OSC 9 sub-command.
	if got := string(Notification("t", "4;3 progress", false)); got != "\a\x1b]9; 4;3 progress\x1b\\" {
		t.Fatalf("%q", got)
	}
}

// Nothing in the text can end the sequence or start another, and the
// token never leaves.
func TestNotificationIsSanitised(t *testing.T) {
	const secret = "sk-notify-secret-0123456789"
	Protect(secret)
	text := "x\x1b\\\x1b]52;c;ZXZpbA==\a\u009d0;t\u009c\n" + secret
	got := string(Notification("aipwatch\x07", text, true))
	frame := strings.NewReplacer("\a\x1b]9;", "", "\x1b\\\x1b]777;notify;", "", "\x1b\\", "").Replace(got)
	for _, bad := range []string{"\x1b", "\a", "\u009d", "\u009c", "\n", secret[:12]} {
		if strings.Contains(frame, bad) {
			t.Fatalf("%q survives in %q", bad, got)
		}
	}
	if strings.Count(got, "\x1b") != 4 || strings.Count(got, "\a") != 1 {
		t.Fatalf("sequences %q: want BEL, two OSC and their two ST", got)
	}
}

func TestSpeaksOSC777(t *testing.T) {
	for _, tc := range []struct {
		term, prog string
		want       bool
	}{
		{"foot", "", true}, {"foot-extra", "", true}, {"rxvt-unicode-256color", "", true},
		{"xterm-ghostty", "", true}, {"xterm-256color", "ghostty", true}, {"xterm-256color", "WezTerm", true},
		{"xterm-256color", "iTerm.app", false}, {"xterm-256color", "", false}, {"screen-256color", "", false},
		{"tmux-256color", "tmux", false}, {"", "", false}, {"xterm-kitty", "", false},
	} {
		if got := SpeaksOSC777(tc.term, tc.prog); got != tc.want {
			t.Errorf("SpeaksOSC777(%q, %q) = %v", tc.term, tc.prog, got)
		}
	}
}
