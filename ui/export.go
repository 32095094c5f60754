package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/output"
	"aipwatch/render"
	"aipwatch/safe"
)

// e: the action as Markdown (output.Markdown, the same as --export) or as
// a self-contained HTML report (output.HTML; design §16), in a file only
// its owner can read. Given a path (--export FILE), e writes the format
// its extension names (output.FormatOf); else it asks which, and names
// the file. The export is built here, from the model this goroutine owns;
// the file is written in a command.

// exportedMsg is a finished export.
type exportedMsg struct {
	path string
	err  error
}

// askExport is e: the export at once to the path main gave, else the
// choice of a format (ModeExport).
func (m *Live) askExport() tea.Cmd {
	if m.opts.NoExport != "" {
		m.setNotice(m.opts.NoExport, false)
		return nil
	}
	if m.opts.ExportPath != "" {
		return m.exportCmd(output.FormatOf(m.opts.ExportPath))
	}
	m.mode = ModeExport
	m.relayout()
	return nil
}

// onExportKey is the format's choice: Markdown, HTML, or none.
func (m *Live) onExportKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.ExportMarkdown):
		m.mode = ModeNormal
		m.relayout()
		return m.exportCmd(output.ExportMarkdown)
	case key.Matches(msg, m.keys.ExportHTML):
		m.mode = ModeNormal
		m.relayout()
		return m.exportCmd(output.ExportHTML)
	case key.Matches(msg, m.keys.ExportCancel):
		m.mode = ModeNormal
		m.relayout()
	}
	return nil
}

// exportLine is the choice's line, in place of the help line.
func (m *Live) exportLine() string {
	k := m.keys
	line := m.st.Note.Render("export as: ") + m.st.HelpKey.Render(k.ExportMarkdown.Help().Key) + " " + k.ExportMarkdown.Help().Desc +
		m.st.Dim.Render(" · ") + m.st.HelpKey.Render(k.ExportHTML.Help().Key) + " " + k.ExportHTML.Help().Desc +
		m.st.Dim.Render(" · ") + m.st.HelpKey.Render(k.ExportCancel.Help().Key) + " " + k.ExportCancel.Help().Desc
	return render.Truncate(line, m.width, "…")
}

func (m *Live) exportCmd(f output.ExportFormat) tea.Cmd {
	now := m.clock()
	o := output.HTMLOptions{MarkdownOptions: output.MarkdownOptions{Redact: m.opts.Redact, Version: m.opts.Version, Now: now}}
	if m.opts.Resume != nil {
		o.Resume = m.opts.Resume(m.action.Cursor)
	}
	data := output.Export(m.action, f, o)
	path, generated := m.opts.ExportPath, false
	if path == "" {
		path, generated = exportName(m.opts.ActionID, now, f.Ext()), true
	}
	return m.tag(func() tea.Msg {
		p, err := writeExport(path, data, generated)
		return exportedMsg{path: p, err: err}
	})
}

func (m *Live) onExported(msg exportedMsg) {
	if msg.err != nil {
		m.setNotice("export failed: "+msg.err.Error(), false)
		return
	}
	what := "exported to " + msg.path
	if m.opts.Redact {
		what += " (redacted)"
	}
	m.setNotice(what, true)
}

// ExportName is the Markdown file e writes when main passes no path:
// aipwatch-<action id>-<UTC yyyymmddThhmmssZ>.md in the current
// directory. Anything but letters, digits, '-', '_' and '.' in the ID
// becomes '_', so the name stays one file here. The HTML report's name
// ends in .html instead.
func ExportName(actionID string, now time.Time) string { return exportName(actionID, now, ".md") }

func exportName(actionID string, now time.Time, ext string) string {
	id := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, actionID)
	id = strings.Trim(id, ".")
	if id == "" {
		id = "action"
	}
	return fmt.Sprintf("aipwatch-%s-%s%s", id, now.UTC().Format("20060102T150405Z"), ext)
}

// writeExport writes data with mode 0600. A generated name never replaces
// a file (a second export in the same second gets "-2", …); a path given
// by the operator is replaced, as --export replaces it at exit.
func writeExport(path string, data []byte, generated bool) (string, error) {
	write := safe.WritePrivate // no symlink followed; mode 0600
	if generated {
		write = safe.CreatePrivate
	}
	p := path
	for n := 2; ; n++ {
		err := write(p, data)
		if err == nil || !generated || !errors.Is(err, fs.ErrExist) || n > 99 {
			return p, err
		}
		ext := filepath.Ext(path)
		p = strings.TrimSuffix(path, ext) + fmt.Sprintf("-%d%s", n, ext)
	}
}
