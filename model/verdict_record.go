package model

// VerdictRecord is the jsonl verdict object of design §4. Its keys are
// fixed: empty strings and zeros stay, tools and reasons are never null.
type VerdictRecord struct {
	Type                   string       `json:"type"`
	ActionID               string       `json:"action_id"`
	Verdict                string       `json:"verdict"`
	AIPStatus              string       `json:"aip_status"`
	ErrorCode              string       `json:"error_code"`
	Operation              string       `json:"operation"`
	FinishReason           string       `json:"finish_reason"`
	ResponseID             string       `json:"response_id"`
	ResponseStatus         string       `json:"response_status"`
	Text                   string       `json:"text" jsonl:"text"` // multi-line: output keeps its newlines
	Tools                  []ToolRecord `json:"tools"`
	UnconfirmedToolEffects int          `json:"unconfirmed_tool_effects"`
	Reasons                []string     `json:"reasons"`
	Detail                 string       `json:"detail"`
	Usage                  TurnUsage    `json:"usage"`
	Timing                 TurnTiming   `json:"timing"`
	Anomalies              int          `json:"anomalies"`
	Chunks                 int          `json:"chunks"`
	Cursor                 string       `json:"cursor"`
}

// ToolRecord is one tool in the verdict object.
type ToolRecord struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// Record builds the verdict object from the model: the one source for the
// jsonl output, the plain last line and the TUI status bar.
func (a *Action) Record() VerdictRecord {
	v := a.Verdict() // syncs
	rec := VerdictRecord{
		Type:                   "verdict",
		ActionID:               a.ID,
		Verdict:                v.Word,
		ErrorCode:              a.Result.ErrorCode(),
		Operation:              a.Operation(),
		FinishReason:           a.FinishReason(),
		ResponseID:             a.d.resp.ResponseID,
		ResponseStatus:         a.d.resp.Status,
		Text:                   a.Text(),
		Tools:                  []ToolRecord{},
		UnconfirmedToolEffects: v.UnconfirmedToolEffects,
		Reasons:                append([]string{}, v.Reasons...),
		Detail:                 v.Detail,
		Usage:                  a.Usage(),
		Timing:                 a.Timing(),
		Anomalies:              len(a.ingestAnoms) + len(a.d.anoms),
		Chunks:                 a.ChunkCount(),
		Cursor:                 a.Cursor,
	}
	switch {
	case a.Result != nil:
		rec.AIPStatus = a.Result.Status
	case a.Status != nil:
		rec.AIPStatus = a.Status.State
	}
	for _, t := range a.d.tools {
		rec.Tools = append(rec.Tools, ToolRecord{ID: t.ID, Name: t.Name, Status: t.Status})
	}
	return rec
}
