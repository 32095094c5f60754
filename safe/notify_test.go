package safe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNotificationBytes(t *testing.T) {
	got := string(Notification("aipwatch", "act_1: verified (AIP result completed)", NotifyRoute{}))
	if want := "\a\x1b]9;act_1: verified (AIP result completed)\x1b\\"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	got = string(Notification("aip;watch", "act_1: failed", NotifyRoute{OSC777: true}))
	if want := "\a\x1b]9;act_1: failed\x1b\\\x1b]777;notify;aip,watch;act_1: failed\x1b\\"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	// A leading digit is not read as an OSC 9 sub-command.
	if got := string(Notification("t", "4;3 progress", NotifyRoute{})); got != "\a\x1b]9; 4;3 progress\x1b\\" {
		t.Fatalf("%q", got)
	}
}

// Nothing in the text can end the sequence or start another, and the
// token never leaves.
func TestNotificationIsSanitised(t *testing.T) {
	const secret = "sk-notify-secret-0123456789"
	Protect(secret)
	text := "x\x1b\\\x1b]52;c;ZXZpbA==\a\u009d0;t\u009c\n" + secret
	got := string(Notification("aipwatch\x07", text, NotifyRoute{OSC777: true}))
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

// design §13: a 300 KB text is not a 300 KB escape sequence.
func TestNotificationTextIsCapped(t *testing.T) {
	huge := "act_1: failed (finish_reason " + strings.Repeat("é\x1b", 150_000) + ")"
	got := Notification(strings.Repeat("t", 1000), huge, NotifyRoute{OSC777: true, Mux: Tmux})
	if len(got) > 4*(MaxNotifyText+MaxNotifyTitle)+64 {
		t.Fatalf("%d bytes", len(got))
	}
	// Each OSC's text is at most 256 bytes, cut at a character, with "…".
	body := strings.TrimSuffix(strings.TrimPrefix(string(Notification("t", huge, NotifyRoute{})), "\a\x1b]9;"), "\x1b\\")
	if len(body) > 256 || !strings.HasSuffix(body, "…") || !utf8.ValidString(body) || !strings.HasPrefix(body, "act_1: failed") {
		t.Fatalf("%d bytes: %q", len(body), body)
	}
	if short := "act_1: verified"; capText(short, MaxNotifyText) != short {
		t.Fatalf("a short text changed: %q", capText(short, MaxNotifyText))
	}
	// Exactly at the cap it stays; one byte over, it is cut.
	at := strings.Repeat("a", MaxNotifyText)
	if capText(at, MaxNotifyText) != at || capText(at+"b", MaxNotifyText) != strings.Repeat("a", MaxNotifyText-3)+"…" {
		t.Fatalf("at the cap: %q", capText(at+"b", MaxNotifyText))
	}
}

// design §13: under tmux and screen each OSC is wrapped for passthrough,
// the bell is not.
func TestNotificationPassthrough(t *testing.T) {
	got := string(Notification("aipwatch", "3 actions failed", NotifyRoute{OSC777: true, Mux: Tmux}))
	want := "\a" +
		"\x1bPtmux;\x1b\x1b]9;3 actions failed\x1b\x1b\\\x1b\\" +
		"\x1bPtmux;\x1b\x1b]777;notify;aipwatch;3 actions failed\x1b\x1b\\\x1b\\"
	if want = strings.ReplaceAll(want, ";3 actions", "; 3 actions"); got != want { // a leading digit gets a space
		t.Fatalf("tmux:\n%q\nwant\n%q", got, want)
	}
	got = string(Notification("aipwatch", "act_1: failed", NotifyRoute{Mux: Screen}))
	if want := "\a\x1bP\x1b]9;act_1: failed\a\x1b\\"; got != want {
		t.Fatalf("screen: %q, want %q", got, want)
	}
	// A hostile text cannot end the passthrough early: it holds no ESC.
	got = string(Notification("t", "x\x1b\\\x1bPtmux;\x1b\x1b]52;c;ZXZpbA==\a", NotifyRoute{Mux: Tmux}))
	if strings.Count(got, "\x1b") != 6 || strings.Count(got, "\a") != 1 { // the wrapping's six
		t.Fatalf("%q", got)
	}
}

func TestDetectMultiplexer(t *testing.T) {
	for _, tc := range []struct {
		tmux, sty, term string
		want            Multiplexer
	}{
		{"/tmp/tmux-1000/default,123,0", "", "screen-256color", Tmux},
		{"/tmp/tmux-1000/default,123,0", "", "xterm-256color", Tmux},
		{"", "", "tmux-256color", Tmux},
		{"", "1234.pts-0.host", "screen.xterm-256color", Screen},
		{"", "1234.pts-0.host", "xterm", Screen},
		{"", "", "screen", Screen},
		{"", "", "xterm-256color", NoMultiplexer},
		{"", "", "", NoMultiplexer},
	} {
		if got := DetectMultiplexer(tc.tmux, tc.sty, tc.term); got != tc.want {
			t.Errorf("DetectMultiplexer(%q, %q, %q) = %v, want %v", tc.tmux, tc.sty, tc.term, got, tc.want)
		}
	}
}

// oscTexts are the texts of a notification's OSC 9 and OSC 777 (title and
// body), read off its bytes without a multiplexer.
func oscTexts(t *testing.T, b []byte) (osc9, title, body string) {
	t.Helper()
	s, ok := strings.CutPrefix(string(b), "\a\x1b]9;")
	if !ok {
		t.Fatalf("no OSC 9: %q", b)
	}
	osc9, rest, ok := strings.Cut(s, "\x1b\\")
	if !ok {
		t.Fatalf("OSC 9 not ended: %q", b)
	}
	if rest == "" {
		return osc9, "", ""
	}
	s, ok = strings.CutPrefix(rest, "\x1b]777;notify;")
	if !ok || !strings.HasSuffix(s, "\x1b\\") {
		t.Fatalf("OSC 777: %q", rest)
	}
	title, body, _ = strings.Cut(strings.TrimSuffix(s, "\x1b\\"), ";")
	return osc9, title, body
}

// design §13: a notification's text is at most 256 bytes as it is sent,
// the space before a leading digit counted; its title at most 64; one
// valid line, never a leading digit (an OSC 9 sub-command).
func FuzzNotificationCap(f *testing.F) {
	f.Add("aipwatch", "act_1: verified")
	f.Add("t", "1"+strings.Repeat("a", 255))     // 256 bytes with a leading digit
	f.Add("t", "9"+strings.Repeat("é", 200))     // cut at a character
	f.Add("t", "4"+strings.Repeat("a", 254)+"é") // the space pushes a character over
	f.Add(strings.Repeat("9", 100), "3 actions failed")
	f.Add("a;b\x1b", "\x1b]9;4;3\a"+strings.Repeat("\u202e", 100))
	f.Fuzz(func(t *testing.T, title, text string) {
		osc9, ttl, body := oscTexts(t, Notification(title, text, NotifyRoute{OSC777: true}))
		if osc9 != body {
			t.Fatalf("OSC 9 %q, OSC 777 %q", osc9, body)
		}
		if len(body) > 256 || len(ttl) > 64 {
			t.Fatalf("text %d bytes, title %d bytes", len(body), len(ttl))
		}
		for _, part := range []string{body, ttl} {
			if !utf8.ValidString(part) || Line(part) != part {
				t.Fatalf("not one clean line: %q", part)
			}
		}
		if body != "" && body[0] >= '0' && body[0] <= '9' {
			t.Fatalf("a leading digit: %q", body)
		}
	})
}
