package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/output"
	"aipwatch/safe"
)

// e: the transcript as Markdown (output.Markdown, the same as --export) in
// a file only its owner can read. The Markdown is built here, from the
// model this goroutine owns; the file is written in a command.

// exportedMsg is a finished export.
type exportedMsg struct {
	path string
	err  error
}

func (m *Live) exportCmd() tea.Cmd {
	if m.opts.NoExport != "" {
		m.setNotice(m.opts.NoExport, false)
		return nil
	}
	now := m.clock()
	data := output.Markdown(m.action, output.MarkdownOptions{Redact: m.opts.Redact, Version: m.opts.Version, Now: now})
	path, generated := m.opts.ExportPath, false
	if path == "" {
		path, generated = ExportName(m.opts.ActionID, now), true
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

// ExportName is the file e writes when main passes no path:
// aipwatch-<action id>-<UTC yyyymmddThhmmssZ>.md in the current
// directory. Anything but letters, digits, '-', '_' and '.' in the ID
// becomes '_', so the name stays one file here.
func ExportName(actionID string, now time.Time) string {
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
	return fmt.Sprintf("aipwatch-%s-%s.md", id, now.UTC().Format("20060102T150405Z"))
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
		p = strings.TrimSuffix(path, ".md") + fmt.Sprintf("-%d.md", n)
	}
}
