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
