package safe

import (
	"net/url"
	"strings"
)

// A daemon URL carries no credential: a token in its query string would be
// printed in the resume command, journalled in base_url, recorded in a
// recording's header and shown in errors, none of which the token scrubber
// knows to hide (only the bearer token is Protected).

// SecretParam reports whether a query parameter's name says it carries a
// credential: token, access_token, api_key, key, auth, sig, password…, and
// any name ending in token, key, secret or password (case and - vs _
// ignored).
func SecretParam(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	switch n {
	case "auth", "authorization", "bearer", "jwt", "sig", "signature", "pwd", "passwd", "credential", "credentials":
		return true
	}
	for _, suffix := range []string{"token", "key", "secret", "password"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// URLSecrets splits a URL into the URL without its credentials (the
// user:password@ and every SecretParam of the query) and the credential
// values it held. An unparsable URL is returned as "" with no secrets.
func URLSecrets(raw string) (clean string, secrets []string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil
	}
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
		u.User = nil
	}
	if u.RawQuery != "" {
		q := u.Query()
		for name, vs := range q {
			if SecretParam(name) {
				for _, v := range vs {
					if v != "" {
						secrets = append(secrets, v)
					}
				}
				q.Del(name)
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), secrets
}

// ShownURL is raw as it may be shown (an error line, the resume command, a
// hint): without its credentials (URLSecrets), and, when it carried any
// (a user@ or user:password@, a credential parameter), without the value
// of any query parameter (`?k=…`: a token under a name SecretParam does
// not know), its fragment, or a credential's value anywhere else in it.
// Whatever the token's source, a URL that carries one shows no value
// that could be it. An unparsable URL is "".
func ShownURL(raw string) string {
	clean, secrets := URLSecrets(raw)
	if clean == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.User != nil {
		secrets = append(secrets, u.User.Username())
	} else if len(secrets) == 0 {
		return clean
	}
	c, err := url.Parse(clean)
	if err != nil {
		return ""
	}
	c.Fragment, c.RawFragment = "", ""
	query := c.RawQuery
	c.RawQuery = ""
	shown := c.String()
	for _, s := range secrets {
		if len(s) >= 4 { // a one-letter user name is no secret to hide
			shown = strings.ReplaceAll(shown, s, "…")
		}
	}
	if query != "" {
		var names []string
		for _, kv := range strings.Split(query, "&") {
			name, _, _ := strings.Cut(kv, "=")
			if n, err := url.QueryUnescape(name); err == nil && Line(n) == n && !secretValue(n, secrets) {
				names = append(names, url.QueryEscape(n)+"=…")
			} else {
				names = append(names, "…")
			}
		}
		shown += "?" + strings.Join(names, "&")
	}
	return shown
}

// secretValue reports whether s holds one of secrets (of four bytes or
// more).
func secretValue(s string, secrets []string) bool {
	for _, v := range secrets {
		if len(v) >= 4 && strings.Contains(s, v) {
			return true
		}
	}
	return false
}
