// Package reconcile holds the rules of reading back what the provider
// stored for a settled action (design §8): what to read (a Responses
// response.id, a Chat session_id, from the stream or the journal), the one
// read-only action that reads it, journalled first and never retried, and
// what its reply means. It never changes the verdict. The command
// (cli/reconcile.go) and the TUI's R key only wire it.
package reconcile

import (
	"fmt"
	"strings"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/submit"
)

// Result is what one read-only reconcile action read (design §8).
type Result struct {
	Op           string // response_get or session_get
	Capability   string
	ActionID     string // the reconcile action's own ID
	Target       string // the response.id or session_id read
	StoredStatus string // completed, failed, incomplete, in_progress, stored, not_found; "" = no answer
	Meaning      string // one line for the operator
	Refused      bool   // aipd or the policy refused the read (or no reply)
}

// Plan is the one read-only action a reconcile submits.
type Plan struct {
	Of     string // the action read back
	Op     string // response_get or session_get
	Target string // the response.id or session_id
	CapID  string // the read's capability
}

// PlanRead decides the read for a settled action from its model and the
// journal.
func PlanRead(actionID, baseURL string, a *model.Action, jpath string) (Plan, error) {
	return PlanFrom(actionID, a, Journalled(actionID, baseURL, jpath))
}

// Journalled is the last submit line of an action in the journal made
// against the daemon at baseURL, if any: the same ID on another daemon is
// another action (its session is not this one's).
func Journalled(actionID, baseURL, jpath string) journal.Entry {
	return JournalledAll(baseURL, jpath)[actionID]
}

// JournalledAll is Journalled for every action of the journal, by ID.
func JournalledAll(baseURL, jpath string) map[string]journal.Entry {
	all := map[string]journal.Entry{}
	daemon := journal.SameDaemon(baseURL)
	if entries, err := journal.Read(jpath); err == nil {
		for _, e := range entries {
			if e.Kind == journal.KindSubmit && daemon(e.BaseURL) {
				all[e.ActionID] = e
			}
		}
	}
	return all
}

// PlanFrom is PlanRead without I/O (the TUI calls it in Update).
func PlanFrom(actionID string, a *model.Action, orig journal.Entry) (Plan, error) {
	op, target := readTarget(a, orig)
	endpoint := endpointOf(a, orig)
	if op == "" || endpoint == "" {
		var why string
		switch {
		case op != "":
			why = "the endpoint of the original action is unknown"
		case a.Operation() == submit.OpChat || strings.HasSuffix(orig.CapabilityID, ":"+submit.OpChat):
			why = "no Hermes session_id was captured from the stream nor kept in this machine's journal from the submitted input"
		case a.Operation() == submit.OpResponses || strings.HasSuffix(orig.CapabilityID, ":"+submit.OpResponses):
			why = "no response.id was captured (was body.store true?)"
		default:
			why = "aipwatch reads back only a Responses response.id or a Chat session_id, and neither is known"
		}
		return Plan{}, fmt.Errorf("nothing to reconcile for %s: %s; the verdict stands: %s", actionID, why, verdictWords(a.Verdict()))
	}
	return Plan{Of: actionID, Op: op, Target: target, CapID: "cap:hermes_agent:" + endpoint + ":" + op}, nil
}

// Line is the one-line form of a read's outcome (plain, the TUI).
func (r Result) Line(redact bool) string {
	by := ""
	if r.ActionID != "" {
		by = " by " + r.ActionID
	}
	return fmt.Sprintf("stored: %s (%s of %s%s; the verdict is unchanged): %s", r.Status(), r.Op, r.Shown(redact), by, r.Meaning)
}

// Status is the stored status read, as every output says it: "no answer"
// when the read got none.
func (r Result) Status() string {
	if r.StoredStatus == "" {
		return "no answer"
	}
	return r.StoredStatus
}

// Shown masks the provider ID under --redact.
func (r Result) Shown(redact bool) string {
	if redact {
		return safe.Masked
	}
	return safe.Line(r.Target)
}

// verdictWords is the verdict as plain's verdict line says it: the word,
// then its reasons.
func verdictWords(v model.Verdict) string {
	return "verdict: " + v.Word + " (" + strings.Join(v.Reasons, ", ") + ")"
}

// Markdown is the export's section of the read (reconcile's --export).
func (r Result) Markdown(redact bool) string {
	target := safe.MDCode(r.Target)
	if redact {
		target = safe.MDInline(safe.Masked)
	}
	// Untrusted parts (the meaning can quote aipd's message) go through
	// the export's Markdown route (design §5).
	return safe.MDSprintf("\n## Reconciled\n\n- stored status: **%s** (%s of %s, read by %s; the verdict is unchanged)\n- %s\n",
		r.Status(), r.Op, target, safe.MDCode(r.ActionID), r.Meaning).String()
}
