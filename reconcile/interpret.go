package reconcile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/submit"
)

// readTarget decides what to read for a settled action: response_get of
// the captured response.id for Responses, the session read of the
// session_id for Chat (the finish chunk's, else the one the journal kept
// from the submitted input).
func readTarget(a *model.Action, journalled journal.Entry) (op, target string) {
	if id := a.Responses().ResponseID; id != "" {
		return submit.OpResponseGet, id
	}
	if r, ok := a.Reconcile(); ok && r.SessionID != "" {
		return submit.OpSessionGet, r.SessionID
	}
	if a.Operation() == submit.OpChat || strings.HasSuffix(journalled.CapabilityID, ":"+submit.OpChat) {
		if f := a.Chat().Finish; f != nil && f.Hermes != nil && f.Hermes.SessionID != "" {
			return submit.OpSessionGet, f.Hermes.SessionID
		}
		if journalled.SessionID != "" {
			return submit.OpSessionGet, journalled.SessionID
		}
	}
	return "", ""
}

// endpointOf is the endpoint of the original action: the result's
// endpoint_id, else its status's capability_id, else the journal's.
func endpointOf(a *model.Action, journalled journal.Entry) string {
	if e := a.Endpoint(); e != "" {
		return e
	}
	for _, capID := range []string{statusCapability(a), journalled.CapabilityID} {
		if ep, _, ok := submit.Capability(capID); ok {
			return ep
		}
	}
	return ""
}

func statusCapability(a *model.Action) string {
	if a.Status != nil {
		return a.Status.CapabilityID
	}
	return ""
}

// Interpret turns the read's reply into the stored status (guide §14,
// protocol §3: the provider's 404 arrives as HTTP 400
// connector.hermes_agent.remote_rejected).
func Interpret(op string, out stream.PostOutcome) (status, meaning string, refused bool) {
	status, meaning, refused = interpretReply(op, out)
	if out.Err == nil && !out.Uncertain && out.Reply.Replay && !refused {
		// The read's key is derived from the original action, so a second
		// reconcile can get the first read's answer again
		// (output.idempotent_replay, protocol §1.3).
		meaning += " (an earlier read's answer, replayed by aipd under the same idempotency key: the stored state may have changed since)"
	}
	return status, meaning, refused
}

func interpretReply(op string, out stream.PostOutcome) (status, meaning string, refused bool) {
	provider := providerStatus(out.Err)
	switch {
	case out.Uncertain:
		return "", "no reply to the read (" + oneLineErr(out.Err) + "); it was not retried: the journal holds its ID", true
	case out.Err != nil && notStored(out.Err, provider):
		if op == submit.OpSessionGet {
			return "not_found", "Hermes has no such session (404): it was not stored, was deleted, or the request reached another Hermes instance", false
		}
		return "not_found", "Hermes has no such response (404): it was not stored (store false), was evicted or deleted, or the request reached another response store", false
	case out.Err != nil && (out.Err.Code == "connector.hermes_agent.authentication" || out.Err.Code == "connector.hermes_agent.missing_credential"):
		// A provider 401/403 arrives as HTTP 401 (protocol open
		// point 8): Hermes refused aipd's own key for it.
		return "", "refused: Hermes refused aipd's own key for it (" + oneLineErr(out.Err) + "); aipd accepted your token, so it is not your token to fix", true
	case out.Err != nil && out.Err.Code == stream.CodeRemoteRejected:
		// Another provider 4xx (open point 8): Hermes answered, but not that
		// the object is missing.
		return "", fmt.Sprintf("refused: Hermes rejected the read with HTTP %d (%s); that is not a 404, so nothing is known of the stored state", provider, oneLineErr(out.Err)), true
	case out.Err != nil && (out.Err.Code == "connector.hermes_agent.remote_temporary" || out.Err.Code == "connector.hermes_agent.transport"):
		// A provider 429/5xx, or no answer from it, is HTTP 503 (open point 8).
		return "", "refused: Hermes is unavailable or rate-limited (" + oneLineErr(out.Err) + "); the read was not retried: reconcile again later", true
	case out.Err != nil && out.Err.Code == "resource.not_found":
		return "", "refused: aipd does not know this capability (" + oneLineErr(out.Err) + ")", true
	case out.Err != nil:
		return "", "refused: " + oneLineErr(out.Err), true
	case out.Reply.Result == nil:
		return "", "refused: the read was only acknowledged, not answered", true
	}
	r := out.Reply.Result
	if r.Status != model.StateCompleted {
		code := r.Status
		if r.Error != nil {
			code = r.Error.Code
		}
		return "", "refused: the read ended " + safe.Line(r.Status) + " (" + safe.Line(code) + ")", true
	}
	var o struct {
		Status string `json:"status"`
		ID     string `json:"id"`
	}
	_ = json.Unmarshal(r.Output, &o)
	if op == submit.OpSessionGet {
		return "stored", "Hermes holds the session; inspect it before deciding that another action is safe", false
	}
	switch o.Status {
	case "completed":
		return "completed", "the stored response is completed: a terminal provider object to review", false
	case "failed":
		return "failed", "the stored response is failed: the retained failure state", false
	case "incomplete":
		return "incomplete", "the stored response is incomplete: partial output kept after a disconnect or cancellation; do not submit a replacement", false
	case "":
		return "unknown", "the stored response has no status", false
	}
	return safe.Line(o.Status), "the stored response reads " + safe.Line(o.Status), false
}

// providerStatus is the provider's HTTP status a connector error names:
// the connector's message reads "Hermes endpoint `EP` returned HTTP N"
// (hermes_failure_with_retry_safety); 0 when it names none.
func providerStatus(e *stream.Error) int {
	if e == nil || !strings.HasPrefix(e.Code, "connector.") {
		return 0
	}
	m := providerStatusRE.FindStringSubmatch(e.Message)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var providerStatusRE = regexp.MustCompile(`returned HTTP (\d{3})\b`)

// notStored: the provider's 404 on a read, whichever way aipd sends it
// (protocol open point 8: HTTP 400
// connector.hermes_agent.remote_rejected; protocol §3 said 502, kept as a
// reading). A remote_rejected that names no provider status is taken as
// the 404 too; one that names another status is not.
func notStored(e *stream.Error, provider int) bool {
	switch {
	case provider == http.StatusNotFound:
		return true
	case e.Code == stream.CodeRemoteRejected:
		return provider == 0
	}
	return false
}

func oneLineErr(e *stream.Error) string {
	if e == nil {
		return "no detail"
	}
	return safe.Line(e.Error())
}
