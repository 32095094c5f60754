package ui

import (
	"errors"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
)

// Update folds one message into the state: a key or a mouse wheel its
// host gives it (the focused view's), or a message of its own commands
// (ViewMsg: one of another view is ignored). It never does I/O: the
// backend, the cancel request and markdown renders are commands, and
// every message they make comes back tagged with the view's ID (tag.go).
// A detach (q, ctrl+c) is not a command: the host reads Detached.
func (m *Live) Update(msg tea.Msg) (*Live, tea.Cmd) {
	if vm, ok := msg.(ViewMsg); ok {
		if vm.ID != m.id {
			return m, nil // another view's
		}
		msg = vm.msg
	}
	m.changed()
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case incomingMsg:
		live := true
		for _, x := range msg {
			switch x := x.(type) {
			case backendExitMsg:
				live = false
				m.backendExit(x.err)
			case stream.Msg:
				cmds = append(cmds, m.onStream(x))
			}
		}
		m.sync(true)
		if live {
			cmds = append(cmds, m.tag(m.run.listen()))
		}
	case stream.Msg: // tests feed messages directly
		cmds = append(cmds, m.onStream(msg))
		m.sync(true)
	case backendExitMsg:
		m.backendExit(msg.err)
	case cancelReplyMsg:
		stream.ApplyAt(m.action, msg.reply, m.clock())
		switch {
		case msg.reply.Accepted && m.action.Settled():
			// The reply came after the outcome (a late cancel): the
			// status bar's cancel outcome says so; nothing is left to follow.
			m.setNotice("cancel reached aipd after the action had settled: nothing was stopped", false)
		case msg.reply.Accepted:
			m.setNotice("cancel accepted: following to the end for the real outcome", true)
		case m.opts.Replay:
			m.setNotice("cancel not sent: a replay has no live action to cancel", false)
		default:
			m.setNotice("cancel not accepted: "+errText(msg.reply.Err, m.opts.Redact), false)
		}
		m.sync(false)
	case exportedMsg:
		m.onExported(msg)
	case reconciledMsg: // ui/reconcile.go
		m.onReconciled(msg)
	case tea.PasteMsg:
		if m.mode == ModeSearch {
			cmds = append(cmds, m.onSearchKey(msg))
		}
	case markdownMsg:
		if m.tr.SetMarkdown(msg.res) {
			m.relayout()
		}
	case tickMsg:
		if m.notice != "" && m.clock().Sub(m.noticeAt) > noticeFor {
			m.notice = ""
		}
		if m.idle() {
			m.ticking = false
		} else {
			cmds = append(cmds, m.tick())
		}
	case tea.KeyPressMsg:
		cmds = append(cmds, m.onKey(msg))
	case tea.MouseWheelMsg:
		if m.panel() {
			m.raw.scroll(wheelDelta(msg), m.layout().body)
		} else if d := wheelDelta(msg); d != 0 {
			m.scrollBy(d)
		}
	}
	if m.reconcileOnSettle && m.reconcileReady() && m.mode == ModeNormal {
		m.reconcileOnSettle = false
		cmds = append(cmds, m.askReconcile())
	}
	if !m.ticking && !m.idle() {
		m.ticking = true
		cmds = append(cmds, m.tick())
	}
	cmds = append(cmds, m.markdownCmds()...)
	return m, tea.Batch(cmds...)
}

// idle: nothing on the screen changes with time any more (the run is over,
// no notice is waiting to expire), so the clock tick stops.
func (m *Live) idle() bool {
	return m.runDone() && (m.action.Settled() || m.fatal() != nil) && m.notice == ""
}

func wheelDelta(msg tea.MouseWheelMsg) int {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		return -3
	case tea.MouseWheelDown:
		return 3
	}
	return 0
}

// onStream applies one stream message through stream.Apply, the one switch
// over the messages: it updates the model, its timeline and its connection
// state. The screen reads the connection from the model, and the notices
// come from the timeline's new entries.
func (m *Live) onStream(msg stream.Msg) tea.Cmd {
	n, resumes := len(m.action.Timeline()), m.action.Connection().Resumes
	stream.ApplyAt(m.action, msg, m.clock())
	for _, h := range m.action.Timeline()[n:] {
		m.noticeOf(h, resumes)
	}
	var cmd tea.Cmd
	// --cancel fires once attached (stream.Attached: the one rule, output.Run
	// applies it too; a settled action's review gets "too late").
	if stream.Attached(msg) && m.opts.AutoCancel && !m.cancelled {
		cmd = m.sendCancel()
	}
	switch over := m.action.Settled() || m.stopped(); {
	case !over:
		// Running; again, too, when a later run of a replayed recording
		// goes on after an earlier one failed (model.Action.ConnReview).
		m.endedAt = time.Time{}
	case m.endedAt.IsZero():
		m.endedAt = m.streamNow()
		m.notice = "" // progress notices ("following to the end", "waiting for its first event") are over
		m.appearBy = time.Time{}
	}
	for _, h := range m.action.Timeline()[n:] {
		if h.Kind == model.HapNoLiveChunks {
			// design §14: the transcript was just read from the result, as
			// the action settled; the log panel, the closing lines and the
			// export's timeline keep the line.
			m.setNotice(render.Line(h.Text()), true)
		}
	}
	if n := m.notifyCmd(); n != nil {
		cmd = tea.Batch(cmd, n)
	}
	if m.noticeWaits {
		// "aipd has no record yet: waiting for its first event": it came.
		if b, ok := msg.(stream.BatchMsg); ok && len(b.Chunks)+len(b.Events) > 0 {
			m.notice, m.noticeWaits = "", false
		}
	}
	if b, ok := msg.(stream.BatchMsg); ok && len(b.Chunks)+len(b.Events) > 0 {
		m.appearBy = time.Time{} // it appeared
	}
	return cmd
}

// noticeOf raises the notice a new timeline entry calls for, if any;
// resumes is the connection's count of resumes before it.
func (m *Live) noticeOf(h model.Happening, resumes int) {
	switch h.Kind {
	case model.HapConnected, model.HapResumed:
		if m.action.Connection().Resumes > resumes {
			m.setNotice(fmt.Sprintf("resumed (attempt %d) from %s", h.Attempt, model.ResumedFrom(render.Short(h.Cursor, 24))), true)
		}
	case model.HapRestart, model.HapCursorFree:
		m.setNotice(render.Line(h.Text()), false)
	case model.HapNoRecord:
		m.setNotice(render.Line(h.Text()), true)
		m.noticeWaits = true
		if h.Wait > 0 {
			m.appearBy = h.At.Add(h.Wait)
		}
	case model.HapResultWait:
		m.setNotice(render.Line(h.Text()), true)
	}
}

// conn is the connection's state (model.Connection).
func (m *Live) conn() model.Connection { return m.action.Connection() }

// review: the action had settled when aipwatch attached, or a --replay.
func (m *Live) review() bool { return m.opts.Replay || m.conn().Review }

// runDone: the run is over, nothing more comes from the stream.
func (m *Live) runDone() bool { return m.conn().Done }

// Attached: aipd answered (a status read, a connection, a page or a
// chunk). Until then the screen of one action (Single) shows one inline line, not
// the full screen, and a fatal error quits at once so that main prints it
// on stderr with a hint (no dead full screen at start-up; ui.go); a host
// that is already full screen (the console) shows the view at once.
func (m *Live) Attached() bool { return m.conn().Answered }

// Failed is the error that stopped the following, if any (the status bar
// shows it).
func (m *Live) Failed() bool { return m.fatal() != nil }

// Detached: q or ctrl+c asked to detach from this view (never a cancel);
// the host decides what that is (the program ends, the console shows its
// list again).
func (m *Live) Detached() bool { return m.detached }

// stopped: the run stopped on an error before the action settled; nothing
// more arrives, and nothing here can be followed (no cancel).
func (m *Live) stopped() bool { return !m.action.Settled() && m.fatal() != nil }

// fatal is the error that stopped the following: the stream's (the
// model's connection state), else the backend's exit error.
func (m *Live) fatal() *stream.Error {
	// Apply sets the model's error from an ErrorMsg, a *stream.Error (an
	// assertion: errors.As would cost an allocation a frame).
	if se, ok := m.conn().Err.(*stream.Error); ok {
		return se
	}
	return m.exitErr
}

// backendExit: the backend returned; the run is over (as a DoneMsg says)
// and its error, if the stream sent none, is the fatal one.
func (m *Live) backendExit(err error) {
	stream.ApplyAt(m.action, stream.DoneMsg{}, m.clock())
	if err != nil && m.fatal() == nil {
		var se *stream.Error
		if errors.As(err, &se) {
			m.exitErr = se
		} else if !m.run.stopped(err) {
			m.exitErr = &stream.Error{Op: "follow", Message: err.Error()}
		}
	}
}

// errText is an error for the screen: under --redact only its code.
func errText(e *stream.Error, redact bool) string {
	if e == nil {
		return "no reply"
	}
	if redact {
		r := *e
		r.Message = render.Mask(r.Message)
		return render.Line(r.Error())
	}
	return render.Line(e.Error())
}

// sendCancel records the request and sends it (design §2.9).
func (m *Live) sendCancel() tea.Cmd {
	m.cancelled = true
	m.action.RequestCancel(m.cancelReason(), m.clock())
	m.setNotice("cancel requested: a cooperative stop; following to the end", true)
	m.sync(false)
	return m.tag(m.run.cancelCmd(m.cancelReason()))
}

// onKey handles a key press in the current mode.
func (m *Live) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		m.detached = true // detach, from anywhere
		return nil
	}
	if key.Matches(msg, k.Suspend) {
		// From anywhere too: the runtime's own message (untagged), which
		// hands the terminal back to the shell until fg.
		return tea.Suspend
	}
	switch m.mode {
	case ModeSearch:
		return m.onSearchKey(msg)
	case ModeConfirm:
		if m.rec.pending { // the R confirmation (ui/reconcile.go)
			return m.onReconcileConfirm(msg)
		}
		return m.onConfirmKey(msg)
	case ModeTimeline:
		m.onTimelineKey(msg)
		return nil
	case ModeExport:
		return m.onExportKey(msg)
	case ModeRaw, ModeLog:
		switch {
		case m.mode == ModeRaw && key.Matches(msg, k.Close), m.mode == ModeLog && key.Matches(msg, k.CloseLog),
			msg.String() == "q": // q closes the panel, as in less and k9s; ctrl+c still detaches
			m.mode = ModeNormal
			m.relayout()
		case m.raw.scrollKey(msg): // up, down, page up, page down: the viewport's
			m.raw.update(msg, m.layout().body)
		case key.Matches(msg, k.Top):
			m.raw.gotoTop(m.layout().body)
		case key.Matches(msg, k.Bottom):
			m.raw.gotoBottom(m.layout().body)
		case m.mode == ModeRaw && key.Matches(msg, k.RawPrev):
			m.rawStep(-1)
		case m.mode == ModeRaw && key.Matches(msg, k.RawNext):
			m.rawStep(1)
		case key.Matches(msg, k.Help):
			m.showHelp = !m.showHelp
		}
		return nil
	}

	body := m.layout().body
	if m.helpOverflows() { // the scroll keys scroll the ? overlay
		switch {
		case key.Matches(msg, k.Up):
			m.scrollHelp(-1)
			return nil
		case key.Matches(msg, k.Down):
			m.scrollHelp(1)
			return nil
		case key.Matches(msg, k.PageUp):
			m.scrollHelp(-m.helpRoom())
			return nil
		case key.Matches(msg, k.PageDown):
			m.scrollHelp(m.helpRoom())
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		m.detached = true
		return nil
	case key.Matches(msg, k.Up):
		m.scrollBy(-1)
	case key.Matches(msg, k.Down):
		m.scrollBy(1)
	case key.Matches(msg, k.PageUp):
		m.scrollBy(-max(body-1, 1))
	case key.Matches(msg, k.PageDown):
		m.scrollBy(max(body-1, 1))
	case key.Matches(msg, k.HalfUp):
		m.scrollBy(-max(body/2, 1))
	case key.Matches(msg, k.HalfDown):
		m.scrollBy(max(body/2, 1))
	case key.Matches(msg, k.Top):
		m.scrollTo(0)
	case key.Matches(msg, k.Bottom):
		m.resumeFollow()
	case key.Matches(msg, k.Next):
		m.moveFocus(1)
	case key.Matches(msg, k.Prev):
		m.moveFocus(-1)
	case key.Matches(msg, k.Toggle):
		m.toggleFocused()
	case key.Matches(msg, k.Help):
		m.showHelp, m.help.top = !m.showHelp, 0
		m.relayout()
	case key.Matches(msg, k.Tools):
		if len(m.action.Tools()) == 0 {
			m.setNotice("no tool calls yet", false)
			return nil
		}
		m.showTools = !m.showTools
		m.relayout()
	case key.Matches(msg, k.Markdown):
		m.markdown = !m.markdown
		if m.markdown && m.plain {
			m.setNotice("markdown is off in the plain view (p)", false)
		}
		m.sync(false)
	case key.Matches(msg, k.Plain):
		m.plain = !m.plain
		m.resize(m.width, m.height)
	case key.Matches(msg, k.Times):
		m.stamps = !m.stamps
		m.resize(m.width, m.height)
	case key.Matches(msg, k.Wrap):
		m.nowrap = !m.nowrap
		if m.nowrap {
			m.setNotice("wrap off: long lines are cut (…); w wraps again", true)
		}
		m.resize(m.width, m.height)
	case key.Matches(msg, k.Raw):
		m.openRaw()
	case key.Matches(msg, k.Log):
		m.openLog()
	case key.Matches(msg, k.Timeline):
		m.openTimeline()
	case key.Matches(msg, k.Copy):
		return m.copyFocused()
	case key.Matches(msg, k.Search):
		return m.openSearch()
	case m.searching() && key.Matches(msg, k.SearchNext):
		m.stepMatch(1)
	case m.searching() && key.Matches(msg, k.SearchPrev):
		m.stepMatch(-1)
	case key.Matches(msg, k.Export):
		return m.askExport()
	case key.Matches(msg, k.Notify): // ui/notify.go
		m.toggleNotify()
	case key.Matches(msg, k.RetryNow):
		if m.conn().Phase != model.ConnReconnecting {
			m.setNotice("connected: nothing to retry", false)
			return nil
		}
		m.action.ConnRetryNow() // the status bar says "next try now"
		m.setNotice("retrying now", true)
		return m.run.retryNowCmd()
	case key.Matches(msg, k.Reconcile): // ui/reconcile.go
		return m.askReconcile()
	case key.Matches(msg, k.Cancel):
		m.AskCancel()
	case msg.String() == "esc":
		switch {
		case m.showHelp:
			m.showHelp = false
			m.relayout()
		case m.searching():
			m.clearSearch()
		case m.notice != "":
			m.notice = ""
		}
	}
	return nil
}

// AskCancel is c: the confirmation that names the action, or the reason
// there is nothing to cancel. The console's c on a live row asks here, so
// the confirmation is the same one.
func (m *Live) AskCancel() {
	m.changed()
	switch {
	case m.opts.NoCancel != "":
		m.setNotice(m.opts.NoCancel, false)
	case m.opts.Replay:
		m.setNotice("a replay has no live action to cancel", false)
	case m.action.Settled():
		m.setNotice("the action has settled ("+m.action.Verdict().Word+"): there is nothing to cancel", false)
	case m.stopped():
		// Nothing would follow the cancel to its outcome (design §2.9).
		how := "run aipwatch again with --cancel"
		if m.opts.Resume != nil {
			how = "`" + m.opts.Resume(m.action.Cursor) + " --cancel`"
		}
		m.setNotice("following stopped on an error: no cancel from here; "+how+" sends one and follows it", false)
	case m.cancelled:
		m.setNotice("cancel already requested: "+m.action.CancelOutcome(), false)
	case m.nothingSeen():
		// No cancel for an action aipd has no record of and nothing of
		// which came: a mistyped ID, or a run not started yet.
		m.setNotice("nothing to cancel yet: aipd has no record of "+render.Line(m.opts.ActionID)+" (check the ID)", false)
	default:
		m.mode, m.confirmInput = ModeConfirm, ""
		m.relayout()
	}
}

// nothingSeen: aipd said it has no record of the action (its status
// read unknown) and no chunk or event of it came. Before the status is
// read nothing is known either way (the console opens a listed row).
func (m *Live) nothingSeen() bool {
	a := m.action
	return a.Status != nil && a.Status.State == model.StateUnknown && a.ChunkCount() == 0 && len(a.Events()) == 0
}

func (m *Live) copyFocused() tea.Cmd {
	if m.opts.Redact {
		m.setNotice("copy is off under --redact", false)
		return nil
	}
	i := m.focusIndex()
	text := m.tr.CopyText(i)
	if text == "" {
		m.setNotice("nothing to copy here", false)
		return nil
	}
	m.setNotice(fmt.Sprintf("copied %s of the focused item (OSC 52)", render.Plural(len(text), "byte", "bytes")), true)
	return tea.SetClipboard(text)
}

func (m *Live) toggleFocused() {
	i := m.focusIndex()
	if i < 0 {
		return
	}
	start, _ := m.tr.Span(i)
	screenRow := start - m.tr.Top()
	if !m.tr.Toggle(i) {
		m.setNotice("nothing to expand here", false)
		return
	}
	m.tr.Focus(i)
	if m.tr.Following() {
		m.relayout()
		return
	}
	// Keep the toggled item's heading where it was on the screen.
	start, _ = m.tr.Span(i)
	if screenRow < 0 || screenRow >= m.layout().body {
		screenRow = 0
	}
	m.setTop(start - screenRow)
}

// markdownCmds turns the transcript's pending markdown jobs into commands.
func (m *Live) markdownCmds() []tea.Cmd {
	jobs := m.tr.TakeMarkdownJobs()
	if len(jobs) == 0 {
		return nil
	}
	cmds := make([]tea.Cmd, 0, len(jobs))
	md := m.md
	for _, j := range jobs {
		cmds = append(cmds, m.tag(func() tea.Msg { return markdownMsg{res: j.Run(md)} }))
	}
	return cmds
}

// confirmLen is how many of the action ID's last characters the operator
// types to confirm a cancel, at least.
const confirmLen = 4

// confirmWord is what confirms a cancel: the action ID's last characters,
// as operators know from dangerous prompts. No key pressed by habit (y,
// enter, c twice) can send a cancel.
func (m *Live) confirmWord() string {
	return DistinctSuffix(m.opts.ActionID, m.opts.Neighbours)
}

// DistinctSuffix is the shortest end of id, confirmLen characters at least,
// that no other ID ends with: …sync_long beside …async_long asks for
// _sync_long, which names one action. The cancel's confirmation asks for
// it, and plain's lines of several actions are tagged with it.
func DistinctSuffix(id string, others []string) string {
	r := []rune(id)
	n := min(confirmLen, len(r))
	for _, o := range others {
		if o == id {
			continue
		}
		or := []rune(o)
		for n < len(r) && n <= len(or) && string(or[len(or)-n:]) == string(r[len(r)-n:]) {
			n++
		}
	}
	return string(r[len(r)-n:])
}

// onConfirmKey edits the confirmation: esc always keeps the action
// running, and so does n unless n is the next character to type; enter
// sends the cancel only once the typed text is the confirm word.
func (m *Live) onConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	word := []rune(m.confirmWord())
	typed := []rune(m.confirmInput)
	keep := func() tea.Cmd {
		m.mode, m.confirmInput = ModeNormal, ""
		m.setNotice("not cancelled: the action keeps running", true)
		m.relayout()
		return nil
	}
	switch s := msg.String(); {
	case s == "esc":
		return keep()
	case s == "enter":
		if string(typed) != string(word) {
			m.confirmBad = true
			return nil
		}
		m.mode, m.confirmInput = ModeNormal, ""
		m.relayout()
		if m.action.Settled() {
			m.setNotice("the action settled meanwhile: nothing to cancel", false)
			return nil
		}
		return m.sendCancel()
	case s == "backspace":
		if len(typed) > 0 {
			m.confirmInput = string(typed[:len(typed)-1])
		}
		m.confirmBad = false
	case msg.Text != "" && len([]rune(msg.Text)) == 1:
		r := []rune(msg.Text)[0]
		next := len(typed) < len(word) && word[len(typed)] == r
		if (r == 'n' || r == 'N') && !next {
			return keep()
		}
		if len(typed) < len(word) {
			m.confirmInput += string(r)
		}
		m.confirmBad = false
	}
	return nil
}
