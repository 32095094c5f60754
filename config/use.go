package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// ErrUnknownContext is SetCurrent's error for a name the file does not
// hold (a usage error: nothing was written).
var ErrUnknownContext = errors.New("no such context")

// currentLine is a top-level `current = "…"` (or '…') line: what is before
// and after the value is kept as it is.
var currentLine = regexp.MustCompile(`^(\s*current\s*=\s*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*')(.*)$`)

// SetCurrent makes name the file's current context (design §11): the file
// is read once, as Load reads it, its `current` line rewritten (or one
// added at the top), every other byte kept, and the result written to a new
// file in the same directory renamed over the old one, so that a crash
// leaves the old file or the new one, never half of either. What is
// checked (its contexts) and what is rewritten are the same bytes. A
// config that is a symbolic link (a dotfiles repository's file) is
// written through it: the new file goes beside the link's target, which
// the read checked as it checks the file, and the link stays. The new
// file keeps the old one's mode within 0600 (a 0400 file stays 0400; one
// group or others may read becomes 0600).
func SetCurrent(path, name string, getenv func(string) string) error {
	var b []byte
	err := os.ErrNotExist
	if path != "" {
		b, err = readConfig(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("there is no config file at %s", path)
	}
	if err != nil {
		return err
	}
	f, err := parse(path, b, getenv)
	if err != nil {
		return err
	}
	if _, ok := f.Contexts[name]; !ok {
		return fmt.Errorf("%w %q in %s (contexts: %s)", ErrUnknownContext, name, path, strings.Join(f.Names(), ", "))
	}
	out, err := withCurrent(string(b), name)
	if err == nil {
		// Read back as Load reads it: a line that only looks like the
		// key (a quoted "current", a line of a multi-line string) must
		// not be rewritten into a broken file or a changed context.
		if g, perr := parse(path, []byte(out), getenv); perr != nil || g.Current != name || !reflect.DeepEqual(g.Contexts, f.Contexts) {
			err = errors.New("its current key could not be rewritten in place: edit it by hand")
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return err
	}
	if err := replaceFile(target, []byte(out), fi.Mode().Perm()&0o600); err != nil {
		if target != path {
			return fmt.Errorf("%s links to %s, which could not be replaced: %w", path, target, err)
		}
		return err
	}
	return nil
}

// withCurrent is text with its top-level current set to name.
func withCurrent(text, name string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		trimmed := strings.TrimSpace(body)
		if strings.HasPrefix(trimmed, "[") {
			break // a table: the top level is over
		}
		if !strings.HasPrefix(trimmed, "current") {
			continue
		}
		m := currentLine.FindStringSubmatch(body)
		if m == nil {
			return "", errors.New("its current line is not current = \"NAME\": edit it by hand")
		}
		lines[i] = m[1] + `"` + name + `"` + m[3] + l[len(body):]
		return strings.Join(lines, ""), nil
	}
	return `current = "` + name + "\"\n" + text, nil
}

// replaceFile writes b to a new file of mode perm beside path and renames
// it over path.
func replaceFile(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config.toml.*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			_ = os.Remove(tmp.Name()) // best effort: the old file is untouched either way
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the old file is untouched either way
		done = true
		return err
	}
	done = true
	return nil
}
