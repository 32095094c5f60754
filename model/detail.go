package model

import "strings"

// detailMaxRunes bounds the failure detail: it is one line of a status bar
// or of plain output, not a log.
const detailMaxRunes = 300

// failureDetail is why an unverified action ended, in the evidence's own
// words (design §4), the provider's first: the Chat finish chunk's
// error.message or its hermes failure, or the Responses response.failed
// error; else the AIP result's error code and message. "" for a verified
// or unsettled action, or when no evidence carries words (the reasons then
// say all there is). The text is untrusted: every writer sanitises it
// (safe.Line) and --redact masks it.
func (a *Action) failureDetail(v Verdict) (detail, code string) {
	if !v.Final || v.Word == VerdictVerified {
		return "", ""
	}
	var d string
	switch a.streamKind() {
	case OpChat:
		d = chatDetail(a.d.chat.Finish)
	case OpResponses:
		if e := a.d.resp.Error; e != nil {
			d = providerErrorText(e)
		}
	}
	if d == "" && a.Result != nil && a.Result.Error != nil {
		e := a.Result.Error
		switch {
		case e.Code != "" && e.Message != "":
			d, code = e.Code+": "+e.Message, e.Code
		default:
			d = e.Code + e.Message
		}
	}
	return clipDetail(d), code
}

func chatDetail(f *ChatFinish) string {
	if f == nil {
		return ""
	}
	if f.Error != nil {
		if s := providerErrorText(f.Error); s != "" {
			return s
		}
	}
	if h := f.Hermes; h != nil && (h.Failed || h.Error != "") {
		switch {
		case h.Error != "":
			return h.Error
		case h.ErrorCode != "":
			return h.ErrorCode
		}
	}
	return ""
}

func providerErrorText(e *ProviderError) string {
	switch {
	case e.Message != "":
		return e.Message
	case e.Code != "":
		return e.Code
	}
	return e.Type
}

// clipDetail keeps the detail on one bounded line: surrounding space goes,
// runs of whitespace (a newline included) become one space.
func clipDetail(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > detailMaxRunes {
		s = string(r[:detailMaxRunes-1]) + "…"
	}
	return s
}
