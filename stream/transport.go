package stream

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The one transport of every request aipwatch sends: TLS verification
// always on (TLS 1.2 at least), --cacert adding a private CA, a 30 s bound
// on the reply's headers, and a redirect policy that never carries the
// token to another host or from https to http, and never follows a
// redirect of a POST. New wraps any client it is given in the same
// redirect policy.

// HTTPClient is the client for every request; caPEM is what --cacert
// names (a PEM file of CA certificates added to the system's, read by the
// caller), nil for none; caName names it in an error.
func HTTPClient(caPEM []byte, caName string) (*http.Client, error) {
	tr := newTransport()
	if caPEM != nil {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("--cacert %s holds no PEM certificate", caName)
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	return &http.Client{Transport: tr}, nil
}

func newTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 30 * time.Second
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	return tr
}

// maxRedirects is how many redirects one request follows.
const maxRedirects = 5

// safeRedirect never forwards the Authorization header to another host or
// from https to http (Go drops it cross-domain itself; this is stricter:
// another port or a subdomain is another host too), stops after
// maxRedirects, then defers to next. A POST (a submission: the whole
// envelope, prompt included) is never redirected: a 307 would re-send it
// to wherever the reply points and take that host's answer as aipd's. The
// redirect itself comes back as the reply (ErrUseLastResponse), which
// Post refuses.
func safeRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if m := via[0].Method; m != http.MethodGet && m != http.MethodHead {
			return http.ErrUseLastResponse
		}
		if len(via) >= maxRedirects {
			return errors.New("too many redirects")
		}
		first := via[0]
		if !strings.EqualFold(req.URL.Host, first.URL.Host) || (first.URL.Scheme == "https" && req.URL.Scheme != "https") {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}
