package stream

import "aipwatch/model"

// Judged is the judgement of row's action as the fleet's figures count
// it (design §13, model.Summarise and model.Pulse): the row's capability
// and settle time, the judgement's verdict word, usage and timing. A
// judgement of an action that had not settled (Live) gives the word ""
// (not judged).
func (j Judgement) Judged(r *model.ActionRow) model.Judged {
	out := model.Judged{CapabilityID: r.CapabilityID, SettledAt: r.UpdatedAt}
	if j.Live {
		return out
	}
	out.Verdict, out.Usage, out.Timing = j.Word, j.Usage, j.Timing
	return out
}
