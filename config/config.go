// Package config reads aipwatch's config file: named contexts, one per aipd
// an operator works with, and the current one (design §9).
//
//	current = "prod"
//	[contexts.prod]
//	url = "https://aipd.prod.internal:8443"
//	token_file = "~/.config/aip/prod.token"
//	cacert = "~/.config/aip/prod-ca.pem"
//	[contexts.staging]
//	url = "http://127.0.0.1:8080"
//
// It holds no secret (a context names its token's file, never the token),
// but it decides where the token goes: a file that someone else may write
// is refused, and every mistake is an error naming the context and key.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// MaxSize is the largest config file read: a few contexts take a few
// hundred bytes, and a huge file is a mistake (or a device), not a config.
const MaxSize = 1 << 20

// Context is one named daemon: where it is and how to reach it. Paths are
// expanded (~, $VAR) and absolute.
type Context struct {
	Name              string
	URL               string
	TokenFile         string
	CACert            string
	AllowInsecureHTTP bool
	// NotifyOn is the console's --notify-on for this context's daemon
	// (design §13): verdict words, comma-separated, as written (the
	// command checks them).
	NotifyOn string
}

// File is a read config file.
type File struct {
	Path     string
	Current  string             // the context used when none is named ("" = none)
	Contexts map[string]Context // by name
	Serve    Serve              // the [serve] table (serve.go)
}

// Names are the contexts' names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Contexts))
	for n := range f.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Pick is the context named name, else the current one. ok is false when
// neither is set (no context applies); a name the file does not hold is
// an error that lists those it does.
func (f *File) Pick(name string) (c Context, ok bool, err error) {
	if name == "" {
		name = f.Current
	}
	if name == "" {
		return Context{}, false, nil
	}
	c, ok = f.Contexts[name]
	if !ok {
		return Context{}, false, fmt.Errorf("%s: %w %q (contexts: %s)", f.Path, ErrUnknownContext, name, strings.Join(f.Names(), ", "))
	}
	return c, true, nil
}

// Path is where the config file lives: $XDG_CONFIG_HOME/aipwatch/config.toml,
// else ~/.config/aipwatch/config.toml ("" when neither can be known).
func Path(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "aipwatch", "config.toml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "aipwatch", "config.toml")
	}
	return ""
}

// raw is the file as TOML has it; unknown keys are errors (a typo in
// `token_flie` must not silently send no token).
type raw struct {
	Current  string                `toml:"current"`
	Contexts map[string]rawContext `toml:"contexts"`
	Serve    rawServe              `toml:"serve"`
}

type rawContext struct {
	URL               string `toml:"url"`
	TokenFile         string `toml:"token_file"`
	CACert            string `toml:"cacert"`
	AllowInsecureHTTP bool   `toml:"allow_insecure_http"`
	NotifyOn          string `toml:"notify_on"`
}

// Load reads the config file at path. No file is no error: f is nil and
// aipwatch behaves as it does without contexts.
func Load(path string, getenv func(string) string) (*File, error) {
	if path == "" {
		return nil, nil
	}
	b, err := readConfig(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parse(path, b, getenv)
}

// parse reads b, the config file at path.
func parse(path string, b []byte, getenv func(string) string) (*File, error) {
	var r raw
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, decodeError(path, err)
	}
	f := &File{Path: path, Current: r.Current, Contexts: map[string]Context{}}
	exp := expander{dir: filepath.Dir(path), getenv: getenv}
	for name, rc := range r.Contexts {
		c, err := resolve(name, rc, r.Contexts, exp)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		f.Contexts[name] = c
	}
	var err error
	if f.Serve, err = resolveServe(r.Serve, exp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Current != "" {
		if _, ok := f.Contexts[f.Current]; !ok {
			return nil, fmt.Errorf("%s: current = %q names no context (contexts: %s)", path, f.Current, strings.Join(f.Names(), ", "))
		}
	}
	return f, nil
}

// readConfig is how the config file is read (a test counts the reads).
var readConfig = readCapped

// readCapped reads the file if it is a regular file no one else may write,
// of at most MaxSize bytes.
func readCapped(path string) ([]byte, error) {
	return ReadTrusted(path, MaxSize, "it decides where the token is sent")
}

// ReadTrusted reads a file that decides something aipwatch trusts (the
// config file: where the token is sent; serve's authorized_keys files: who
// may connect), as ReadFile does, if no one but the user (or root) may
// write it or its folder, of at most max bytes; why says what the file
// decides, in the error that refuses it.
func ReadTrusted(path string, max int64, why string) ([]byte, error) {
	// A symlinked file (a dotfiles repository) is followed, and its
	// target checked.
	return ReadFile(path, max, func(fi os.FileInfo) error {
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s may be written by group or others (mode %04o): %s; chmod 600 it", path, fi.Mode().Perm(), why)
		}
		if owner, ok := ownerOf(fi); ok && owner != os.Getuid() && owner != 0 {
			return fmt.Errorf("%s belongs to another user (uid %d): %s", path, owner, why)
		}
		// Its folders too, as ssh checks them: whoever may replace the
		// file decides as much as whoever may write it.
		return checkDirs(path, why)
	})
}

// ReadFile reads a small file aipwatch is pointed at (the config file, a
// token file, a CA file): opened without blocking (a FIFO is refused as
// not a regular file, never waited on), then checked, so that what is
// checked is what is read: a regular file (not /dev/zero) of at most max
// bytes, and check, when set, on its mode. A bigger file is an error, never
// read whole.
func ReadFile(path string, max int64, check func(os.FileInfo) error) ([]byte, error) {
	fh, err := openRead(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if check != nil {
		if err := check(fi); err != nil {
			return nil, err
		}
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes: at most %d are read", path, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", path, max)
	}
	return b, nil
}

// checkDirs refuses a config whose directory (and, for a symlinked config,
// its target's) may be written by group or others, or belongs to another
// user, as ssh refuses its config in a loose directory: whoever can write
// the directory can put another file in its place, and the file decides
// where the token is sent. The error names the directory and the fix.
func checkDirs(path, why string) error {
	dirs := []string{filepath.Dir(path)}
	if target, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(target) != dirs[0] {
		dirs = append(dirs, filepath.Dir(target))
	}
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is in %s, which group or others may write (mode %04o): another user could replace it, and %s; chmod go-w %s", path, dir, fi.Mode().Perm(), why, dir)
		}
		if owner, ok := ownerOf(fi); ok && owner != os.Getuid() && owner != 0 {
			return fmt.Errorf("%s is in %s, which belongs to another user (uid %d): %s", path, dir, owner, why)
		}
	}
	return nil
}

// decodeError names the line of a TOML mistake, and every unknown key
// with its line.
func decodeError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var lines []string
		for i := range strict.Errors {
			e := &strict.Errors[i]
			row, _ := e.Position()
			lines = append(lines, fmt.Sprintf("%s:%d: unknown key %s", path, row, strings.Join(e.Key(), ".")))
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %s", path, row, col, strings.TrimPrefix(de.Error(), "toml: "))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// resolve checks one context and expands its paths.
func resolve(name string, rc rawContext, all map[string]rawContext, exp expander) (Context, error) {
	key := func(k string) string { return "contexts." + name + "." + k }
	if !validName(name) {
		return Context{}, fmt.Errorf("context name %q: use letters, digits, '-', '_' or '.'", name)
	}
	c := Context{Name: name, URL: strings.TrimSpace(rc.URL), AllowInsecureHTTP: rc.AllowInsecureHTTP, NotifyOn: rc.NotifyOn}
	switch {
	case c.URL == "":
		return Context{}, fmt.Errorf("%s is missing: every context names its aipd", key("url"))
	case !strings.Contains(c.URL, "://"):
		if _, isName := all[c.URL]; isName {
			return Context{}, fmt.Errorf("%s = %q names a context, not a URL: give the daemon's URL (https://host:port)", key("url"), c.URL)
		}
		return Context{}, fmt.Errorf("%s = %q has no scheme: did you mean https://%s?", key("url"), c.URL, c.URL)
	}
	var err error
	if c.TokenFile, err = exp.path(rc.TokenFile); err != nil {
		return Context{}, fmt.Errorf("%s: %w", key("token_file"), err)
	}
	if c.CACert, err = exp.path(rc.CACert); err != nil {
		return Context{}, fmt.Errorf("%s: %w", key("cacert"), err)
	}
	return c, nil
}

// expander turns a path as written in the file into an absolute one: a
// leading ~/ is the home directory, $VAR and ${VAR} the environment's
// (unset is an error, not an empty string), and a relative path is
// relative to the config file's directory, as kubectl's kubeconfig does.
type expander struct {
	dir    string
	getenv func(string) string
}

func (e expander) path(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	var missing []string
	p = os.Expand(p, func(v string) string {
		val := e.getenv(v)
		if val == "" {
			missing = append(missing, "$"+v)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s not set", strings.Join(missing, ", "))
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := e.getenv("HOME")
		if home == "" {
			return "", errors.New("~ but $HOME is not set")
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%q: ~user is not expanded; write the path in full", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.dir, p)
	}
	return filepath.Clean(p), nil
}

// validName: a context's name is letters, digits, '-', '_' and '.', so
// that it prints as itself everywhere (a quoted TOML key could hold any
// byte).
func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}
