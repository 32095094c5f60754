package config

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// The files one invocation reads to decide its daemons (design §9): the
// config file and the token files it and the flags name. Each is read once
// per invocation, however many connections are decided from it (the
// console and `ls --all-contexts` decide one a context), and each token is
// given to the protect function once.

// Caps of the files a connection reads: a token is a line, a CA file a
// few certificates. A bigger file is a mistake (or a device), not read.
const (
	MaxTokenFile = 64 << 10
	MaxCAFile    = 1 << 20
)

// Reads of those files, through which a test counts them.
var (
	loadFile  = Load
	readToken = ReadFile
)

// Files are one invocation's reads of the config file and the token
// files, kept; safe for several goroutines (`aipwatch contexts` probes
// every context at once).
type Files struct {
	getenv  func(string) string // the invocation's: the config's path and its $VARs
	protect func(token string)  // registers a token as a secret (safe.Protect), as soon as it is read

	mu        sync.Mutex
	loaded    bool
	file      *File // nil: no config file
	err       error // the config file could not be used
	tokens    map[string]tokenRead
	protected map[string]bool
}

// tokenRead is one token file as read.
type tokenRead struct {
	b    []byte
	mode os.FileMode
	err  error
}

// NewFiles are the reads of an invocation whose environment is getenv;
// protect is called once with each token it reads or is given.
func NewFiles(getenv func(string) string, protect func(token string)) *Files {
	return &Files{getenv: getenv, protect: protect, tokens: map[string]tokenRead{}, protected: map[string]bool{}}
}

// Config is the config file (nil when there is none), read once.
func (fs *Files) Config() (*File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !fs.loaded {
		fs.file, fs.err = loadFile(Path(fs.getenv), fs.getenv)
		fs.loaded = true
	}
	return fs.file, fs.err
}

// Token is the bearer token of the token file at path ("" for no path),
// its trailing newline trimmed: the file is read once and its token
// protected at once (design §5), before anything is written. A file
// readable by group or others gets a warning on warn: the token is a
// secret.
func (fs *Files) Token(path string, warn io.Writer) (string, error) {
	if path == "" {
		return "", nil
	}
	t := fs.read(path)
	if t.mode.Perm()&0o077 != 0 { // the mode is known once the file was opened, even when its read failed
		fmt.Fprintf(warn, "warning: token file %s is readable by group or others (mode %04o); chmod 600 it\n", path, t.mode.Perm())
	}
	if t.err != nil {
		return "", fmt.Errorf("token file: %w", t.err)
	}
	tok := tokenOf(t.b)
	if strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("token file %s holds more than one line", path)
	}
	if strings.TrimSpace(tok) == "" {
		// A file given but empty is a mistake, not "no token": requests
		// would go without Authorization and fail as if the token were wrong.
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}

// read is the token file at path, read once and its token protected.
func (fs *Files) read(path string) tokenRead {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if t, ok := fs.tokens[path]; ok {
		return t
	}
	var t tokenRead
	t.b, t.err = readToken(path, MaxTokenFile, func(fi os.FileInfo) error {
		t.mode = fi.Mode()
		return nil
	})
	fs.tokens[path] = t
	if t.err == nil {
		fs.protectLocked(tokenOf(t.b))
	}
	return t
}

// ReadTokens reads now every token file f names and the files paths name,
// so that each token is protected before anything is written: the rule is
// by value (design §5), whatever later carries a piece of a token (a
// URL's query, an error, another daemon's echo). A file that cannot be
// read is left to Token, which says why.
func (fs *Files) ReadTokens(f *File, paths ...string) {
	if f != nil {
		for _, name := range f.Names() {
			paths = append(paths, f.Contexts[name].TokenFile)
		}
	}
	for _, p := range paths {
		if p != "" {
			fs.read(p)
		}
	}
}

// tokenOf is a token file's token: its bytes, the trailing newline trimmed.
func tokenOf(b []byte) string { return strings.TrimRight(string(b), "\r\n") }

// Protect gives tok (a token from elsewhere: $AIP_TOKEN) to the protect
// function, once.
func (fs *Files) Protect(tok string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.protectLocked(tok)
}

func (fs *Files) protectLocked(tok string) {
	if tok == "" || fs.protected[tok] {
		return
	}
	fs.protected[tok] = true
	fs.protect(tok)
}
