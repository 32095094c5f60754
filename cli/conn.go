package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"aipwatch/config"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// One connection (design §1, §9): a daemon's URL, credentials, TLS and the
// context that gave them, decided in one place (newConn), and the one place
// a stream client is built (newClient over conn.config).

// connFlags are the global flags that name a daemon, as given.
type connFlags struct {
	url               string
	context           string
	tokenFile         string
	cacert            string
	allowInsecureHTTP bool

	files *config.Files // the invocation's config and token files, each read once
}

// conn is one daemon, credentials and TLS decided.
type conn struct {
	url               string
	tokenFile         string
	token             string // from $AIP_TOKEN or the token file; never printed
	cacert            string
	allowInsecureHTTP bool
	urlGiven          bool       // --url, $AIP_URL or a context's url, not the default
	ctx               config.Use // what the config file's context gave this connection (config.Resolve)

	loaded bool          // load ran: the token is read and protected
	http   *http.Client  // the TLS client, built once (stream.HTTPClient)
	files  *config.Files // where the token file is read (nil: read afresh)
}

// defaultURL is the daemon when nothing names one (design §1).
const defaultURL = "http://127.0.0.1:8080"

// newConn decides a daemon from the flags, then the environment, then the
// config file's context, field by field (design §9). readConfig is false
// for a demo (its daemon is its own) and a replay (it reaches none).
func newConn(f connFlags, readConfig bool, getenv func(string) string) conn {
	c := conn{url: f.url, tokenFile: f.tokenFile, cacert: f.cacert, allowInsecureHTTP: f.allowInsecureHTTP, files: filesOf(f, getenv)}
	if c.url == "" {
		c.url = getenv("AIP_URL")
	}
	c.urlGiven = c.url != ""
	if c.tokenFile == "" {
		c.tokenFile = getenv("AIP_TOKEN_FILE")
	}
	if c.tokenFile == "" {
		c.tokenFile = getenv("GETAIP_NATIVE_BEARER_TOKEN_FILE")
	}
	if c.tokenFile == "" {
		// The token itself may come from the environment, never a flag.
		c.token = getenv("AIP_TOKEN")
	}
	file, err := c.files.Config()
	// Every token this invocation knows of is protected before anything
	// is written: the one it will send and every one the config file names.
	c.files.Protect(c.token)
	c.files.ReadTokens(file, c.tokenFile)
	if readConfig {
		c.applyContext(f.context, file, err, getenv)
	}
	if c.url == "" {
		c.url = defaultURL
	}
	return c
}

// forContext is the daemon of the config file's context name, with the
// flags that name no daemon (--allow-insecure-http as given): what
// `--context name` would give. The variables that would override a
// context's URL or token apply to one daemon; across all of them each
// context's own is used.
func forContext(f connFlags, name string, getenv func(string) string) conn {
	f.url, f.tokenFile, f.cacert, f.context = "", "", "", name
	return newConn(f, true, func(k string) string {
		switch k {
		case "AIP_URL", "AIP_TOKEN_FILE", "GETAIP_NATIVE_BEARER_TOKEN_FILE", "AIP_TOKEN":
			return ""
		}
		return getenv(k)
	})
}

// local points the connection at a daemon aipwatch runs itself (a demo's
// simulator): it asks for no token, so no real one goes to it.
func (c *conn) local(url string) {
	c.url, c.urlGiven, c.tokenFile, c.token, c.cacert = url, true, "", "", ""
}

// check enforces the transport rule of design §1 on the connection's URL;
// a context the config file does not have is a usage error, as in
// `contexts use`.
func (c *conn) check() error {
	if errors.Is(c.ctx.Err, config.ErrUnknownContext) {
		return output.UsageError(c.ctx.Err.Error())
	}
	return checkURL(c.url, c.allowInsecureHTTP)
}

// load reads the token (the token file's, else $AIP_TOKEN's) and registers
// it with safe.Protect, so from here on no 12-character piece of it is
// written anywhere, whatever the server echoes (design §5). A config the
// run could not use stops it here, the first step of every request.
func (c *conn) load(stderr io.Writer) error {
	if c.loaded {
		return nil
	}
	if err := c.checkContext(stderr); err != nil {
		return err
	}
	if c.files == nil {
		c.files = newInvocationFiles(nil) // a conn not made by newConn: its token file only
	}
	tok, err := c.files.Token(c.tokenFile, stderr)
	if err != nil {
		return c.wrapContext("token_file", c.ctx.TokenFile, err)
	}
	if tok != "" {
		c.token = tok
	}
	c.files.Protect(c.token)
	c.loaded = true
	return nil
}

// config is the stream configuration of this daemon's routes: URL, token,
// TLS and the pacing of every client.
func (c *conn) config(stderr io.Writer) (stream.Config, error) {
	if err := c.load(stderr); err != nil {
		return stream.Config{}, err
	}
	if c.http == nil {
		pem, err := c.readCA()
		if err != nil {
			return stream.Config{}, err
		}
		h, err := stream.HTTPClient(pem, c.cacert)
		if err != nil {
			return stream.Config{}, c.wrapContext("cacert", c.ctx.CACert, err)
		}
		c.http = h
	}
	return paced(stream.Config{BaseURL: c.url, Token: c.token, HTTP: c.http}), nil
}

// readCA reads the CA file (nil when none) through config.ReadFile: a
// FIFO, a device or a huge file is an error that names the flag or key.
func (c *conn) readCA() ([]byte, error) {
	if c.cacert == "" {
		return nil, nil
	}
	pem, err := config.ReadFile(c.cacert, config.MaxCAFile, nil)
	if err == nil {
		return pem, nil
	}
	if c.ctx.CACert {
		return nil, c.wrapContext("cacert", true, err)
	}
	return nil, fmt.Errorf("--cacert: %w", err)
}

// newInvocationFiles are an invocation's reads of the config file and the
// token files (config.Files), each token given to safe.Protect as it is
// read; a variable, through which a test counts them.
var newInvocationFiles = func(getenv func(string) string) *config.Files {
	return config.NewFiles(getenv, safe.Protect)
}

// filesOf are the invocation's files of f; a connFlags made outside an
// invocation (none in the tree) reads them afresh with getenv.
func filesOf(f connFlags, getenv func(string) string) *config.Files {
	if f.files != nil {
		return f.files
	}
	return newInvocationFiles(getenv)
}

// newClient is the one place a stream client is built: for one action
// when cfg names one, else for the daemon-wide routes (the list, the
// global log).
func newClient(cfg stream.Config) (*stream.Client, error) {
	if cfg.ActionID == "" {
		return stream.NewDaemon(cfg)
	}
	return stream.New(cfg)
}

// daemon is the client of the daemon-wide routes.
func (c *conn) daemon(stderr io.Writer) (*stream.Client, error) {
	cfg, err := c.config(stderr)
	if err != nil {
		return nil, err
	}
	return newClient(cfg)
}

// quietDaemon is daemon for a read of several daemons or a shell's
// completion: the URL checked first, nothing said on stderr.
func (c *conn) quietDaemon() (*stream.Client, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	return c.daemon(io.Discard)
}

// tokenSource names where the token comes from, for the journal: never
// the token.
func (c *conn) tokenSource() string {
	switch {
	case c.tokenFile != "":
		return "file:" + c.tokenFile
	case c.token != "":
		return "env:AIP_TOKEN"
	}
	return "none"
}

// hostOf is the host:port of a daemon's URL, as an error names it ("no
// answer from HOST within D"), without credentials.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return redactURL(raw)
}

// shownURL is the URL without credentials, as it is shown, journalled and
// recorded.
func (c *conn) shownURL() string { return redactURL(c.url) }

// retryPacing is the back-off between tries of every client the commands
// make; zero values are stream's defaults (250 ms doubling to 10 s), which
// no flag changes. The tests shorten it (TestMain) so that no test waits
// out the production back-off of a daemon that refuses or is not there.
var retryPacing struct{ min, max time.Duration }

// asyncPostTimeout bounds an async submission's POST (zero: stream's
// 1 min; no flag changes it). A test shortens it to tell a sync POST,
// which is never bounded, from an async one without waiting a minute.
var asyncPostTimeout time.Duration

// paced is cfg with retryPacing and asyncPostTimeout.
func paced(cfg stream.Config) stream.Config {
	cfg.BackoffMin, cfg.BackoffMax = retryPacing.min, retryPacing.max
	cfg.SubmitTimeout = asyncPostTimeout
	return cfg
}
