package cli

import (
	"os"
	"sync"

	"aipwatch/config"
	"aipwatch/safe"
)

// The files one invocation reads to decide its daemons (design §9): the
// config file and the token files it and the flags name. Each is read once
// per invocation, however many connections are decided from it (the
// console and `ls --all-contexts` decide one a context), and each token is
// given to safe.Protect once.

// Reads of those files, through which a test counts them.
var (
	loadConfig   = config.Load
	readFileOnce = config.ReadFile
)

// invocationFiles are one invocation's reads of the config file and the
// token files, kept; safe for several goroutines (`aipwatch contexts`
// probes every context at once).
type invocationFiles struct {
	getenv func(string) string // the invocation's: the config's path and its $VARs

	mu        sync.Mutex
	loaded    bool
	file      *config.File // nil: no config file
	err       error        // the config file could not be used
	tokens    map[string]tokenRead
	protected map[string]bool
}

// tokenRead is one token file as read.
type tokenRead struct {
	b    []byte
	mode os.FileMode
	err  error
}

func newInvocationFiles(getenv func(string) string) *invocationFiles {
	return &invocationFiles{getenv: getenv, tokens: map[string]tokenRead{}, protected: map[string]bool{}}
}

// filesOf are the invocation's files of f; a connFlags made outside an
// invocation (none in the tree) reads them afresh with getenv.
func filesOf(f connFlags, getenv func(string) string) *invocationFiles {
	if f.files != nil {
		return f.files
	}
	return newInvocationFiles(getenv)
}

// config is the config file (nil when there is none), read once.
func (fs *invocationFiles) config() (*config.File, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if !fs.loaded {
		fs.file, fs.err = loadConfig(config.Path(fs.getenv), fs.getenv)
		fs.loaded = true
	}
	return fs.file, fs.err
}

// token is the token file at path, read once and its token protected at
// once (design §5), before anything is written.
func (fs *invocationFiles) token(path string) tokenRead {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if t, ok := fs.tokens[path]; ok {
		return t
	}
	var t tokenRead
	t.b, t.err = readFileOnce(path, maxTokenFile, func(fi os.FileInfo) error {
		t.mode = fi.Mode()
		return nil
	})
	fs.tokens[path] = t
	if t.err == nil {
		fs.protectLocked(tokenOf(t.b))
	}
	return t
}

func (fs *invocationFiles) protect(tok string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.protectLocked(tok)
}

func (fs *invocationFiles) protectLocked(tok string) {
	if tok == "" || fs.protected[tok] {
		return
	}
	fs.protected[tok] = true
	safe.Protect(tok)
}
