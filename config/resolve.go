package config

import "fmt"

// Named contexts (design §9): the config file names the daemons an
// operator works with; --context or $AIPWATCH_CONTEXT picks one, else the
// file's current one. Flags and the AIP_* variables win over the file,
// field by field; no file is today's behaviour exactly.

// Daemon is a daemon as the flags and the environment named it, before
// the config file is read ("" where they named nothing), or as Resolve
// decided it.
type Daemon struct {
	URL               string
	TokenFile         string
	Token             bool // a token itself came from the environment ($AIP_TOKEN)
	CACert            string
	AllowInsecureHTTP bool
}

// Rules are the checks of a context that are not the config file's own:
// the caller's, which know the URL's and the verdicts' rules.
type Rules struct {
	// SameDaemon reports whether a context's URL names the daemon the
	// flags or the environment named.
	SameDaemon func(contextURL string) bool
	// CheckNotifyOn checks a context's notify_on (its verdict words).
	CheckNotifyOn func(notifyOn string) error
}

// Use is what a daemon took from a context: which fields, so the errors
// name the context and key, and the resume command names the context
// instead of repeating what it gives.
type Use struct {
	Name      string // "" = no context applies
	Explicit  bool   // named by --context or $AIPWATCH_CONTEXT, not the file's current
	Err       error  // the config file could not be used: every command that reaches aipd stops on it
	URL       bool   // the URL is the context's
	TokenFile bool   // the token file is the context's token_file
	CACert    bool   // the CA file is the context's
	EnvToken  string // the variable that gave the token while the URL is the context's: said, it goes there
	Skipped   string // the context not used because --url or $AIP_URL named another daemon
	NotifyOn  string // the context's notify_on (the console's --notify-on, design §13), as written
}

// Resolve fills what the flags and the environment left empty in d from
// the context named (name, else $AIPWATCH_CONTEXT, else f's current one);
// f and loadErr are Load's. A config that cannot be used is kept in
// Use.Err, for the first request to report.
func Resolve(d Daemon, name string, f *File, loadErr error, rules Rules, getenv func(string) string) (Daemon, Use) {
	var u Use
	if name == "" {
		name = getenv("AIPWATCH_CONTEXT")
	}
	u.Explicit = name != ""
	if loadErr != nil {
		u.Err = loadErr
		return d, u
	}
	if f == nil {
		if name != "" {
			u.Err = fmt.Errorf("context %q: there is no config file (%s); see aipwatch contexts --help", name, PathShown(getenv))
		}
		return d, u
	}
	c, ok, err := f.Pick(name)
	if err != nil || !ok {
		u.Err = err
		return d, u
	}
	if d.URL != "" && !rules.SameDaemon(c.URL) {
		// --url or $AIP_URL names another daemon: none of the context's
		// credentials go there (a context's token is for its own URL).
		u.Skipped = c.Name
		return d, u
	}
	u.Name, u.NotifyOn = c.Name, c.NotifyOn
	if c.NotifyOn != "" {
		if err := rules.CheckNotifyOn(c.NotifyOn); err != nil {
			u.Err = fmt.Errorf("%s: contexts.%s.notify_on: %w", f.Path, c.Name, err)
			return d, u
		}
	}
	if d.URL == "" {
		d.URL, u.URL = c.URL, true
	}
	switch {
	case d.TokenFile == "" && !d.Token:
		d.TokenFile, u.TokenFile = c.TokenFile, c.TokenFile != ""
	case u.URL:
		u.EnvToken = tokenVariable(d.TokenFile, getenv)
	}
	if d.CACert == "" {
		d.CACert, u.CACert = c.CACert, c.CACert != ""
	}
	d.AllowInsecureHTTP = d.AllowInsecureHTTP || c.AllowInsecureHTTP
	return d, u
}

// tokenVariable names where a token that is not the context's came from.
func tokenVariable(tokenFile string, getenv func(string) string) string {
	for _, v := range []string{"AIP_TOKEN_FILE", "GETAIP_NATIVE_BEARER_TOKEN_FILE"} {
		if tokenFile != "" && getenv(v) == tokenFile {
			return "$" + v
		}
	}
	if tokenFile != "" {
		return "--token-file"
	}
	return "$AIP_TOKEN"
}

// PathShown is the config file's path as help and errors name it, also
// when it cannot be known.
func PathShown(getenv func(string) string) string {
	if p := Path(getenv); p != "" {
		return p
	}
	return "$XDG_CONFIG_HOME/aipwatch/config.toml"
}
