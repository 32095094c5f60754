package stream

// A failed request as one clean line: the transport's cause without Go
// struct dumps or userinfo, and the token scrubbed from any error text.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// transportError turns a failed request into a one-liner such as
// "connection refused (127.0.0.1:8080)", never a Go struct dump or a URL
// with userinfo.
func (c *Client) transportError(op string, err error) *Error {
	if plainHTTP(err) {
		// No retry answers in TLS: the URL's scheme is wrong, at once.
		return c.clean(&Error{Op: op, Message: "this port speaks plain HTTP, not HTTPS (" + c.base.Host + ")", transport: true, plain: true})
	}
	return c.clean(&Error{Op: op, Message: c.transportMessage(err), Retryable: true, transport: true})
}

// plainHTTP reports whether err is the TLS client's on a server that
// answered the handshake in plain HTTP: the transport's "server gave HTTP
// response to HTTPS client", or the TLS record header it read ("HTTP/").
func plainHTTP(err error) bool {
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) && bytes.HasPrefix(rh.RecordHeader[:], []byte("HTTP/")) {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

func (c *Client) transportMessage(err error) string {
	host := c.base.Host
	var dnsErr *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr *x509.CertificateInvalidError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (" + host + ")"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by " + host
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable (" + host + ")"
	case errors.As(err, &dnsErr):
		return "cannot resolve host " + dnsErr.Name
	case errors.As(err, &unknownCA):
		return "TLS certificate of " + host + " is not signed by a trusted CA (see --cacert)"
	case errors.As(err, &hostErr):
		return "TLS certificate is not valid for " + host
	case errors.As(err, &certErr):
		return "TLS certificate of " + host + " is invalid"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed by " + host
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		// One wording for a daemon that does not answer, whichever bound
		// gave up (design §1): ours, never Go's "context deadline exceeded".
		return "no answer from " + host + " (timed out)"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop "Get \"http://user:pw@…\":"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg)-i > 8 {
		msg = msg[i+2:] // the innermost cause, e.g. "no route to host"
	}
	return oneLine(msg+" ("+host+")", 160)
}

// clean makes an Error safe to show: one line, never the token. The token
// goes before the line is cut to length: cutting first left a token the
// server echoed near the end as a prefix that redact no longer matched
// (FuzzErrorLine). The second pass is only a cheap belt and braces.
func (c *Client) clean(e *Error) *Error {
	e.Message = c.redact(oneLine(c.redact(e.Message), 200))
	e.Code = c.redact(oneLine(c.redact(e.Code), 80))
	if len(e.Details) > 0 {
		e.Details = json.RawMessage(c.redact(string(e.Details)))
	}
	return e
}

func (c *Client) redact(s string) string {
	if c.cfg.Token != "" && strings.Contains(s, c.cfg.Token) {
		s = strings.ReplaceAll(s, c.cfg.Token, "[redacted]")
	}
	return s
}
