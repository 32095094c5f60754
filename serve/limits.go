package serve

import (
	"net"
	"sync"
	"time"
)

// The bounds on connections (design §15): a rate per address (a flood of
// connections from one place is refused before its handshake) and a
// bound on the connections open at once (sessions and handshakes). Both
// are checked before any byte of SSH is read.

// gate admits connections.
type gate struct {
	perMinute int // connections a minute from one address
	maxConns  int // connections open at once

	mu      sync.Mutex
	open    int
	buckets map[string]*bucket
	sweep   time.Time
	said    map[string]time.Time // when a refusal of the address was last logged
}

// bucket is one address's token bucket: perMinute tokens, refilled
// continuously.
type bucket struct {
	tokens float64
	at     time.Time
}

func newGate(perMinute, maxConns int) *gate {
	return &gate{perMinute: perMinute, maxConns: maxConns, buckets: map[string]*bucket{}, said: map[string]time.Time{}}
}

// admit takes a token of addr's bucket and a connection's room; why says
// what refused it ("" = admitted: call done when it closes). log is false
// for a refusal of an address already logged this minute.
func (g *gate) admit(addr net.Addr, now time.Time) (why string, log bool) {
	host := hostOf(addr)
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.sweep) > time.Minute {
		g.sweepLocked(now)
	}
	b := g.buckets[host]
	if b == nil {
		b = &bucket{tokens: float64(g.perMinute), at: now}
		g.buckets[host] = b
	}
	b.tokens = min(float64(g.perMinute), b.tokens+now.Sub(b.at).Minutes()*float64(g.perMinute))
	b.at = now
	switch {
	case b.tokens < 1:
		why = "more than the connections a minute one address may open"
	case g.open >= g.maxConns:
		why = "the server has as many connections open as it takes"
	default:
		b.tokens--
		g.open++
		return "", false
	}
	if t, ok := g.said[host]; ok && now.Sub(t) < time.Minute {
		return why, false
	}
	g.said[host] = now
	return why, true
}

// done gives back an admitted connection's room.
func (g *gate) done() {
	g.mu.Lock()
	g.open--
	g.mu.Unlock()
}

// sweepLocked forgets the addresses whose buckets are full again.
func (g *gate) sweepLocked(now time.Time) {
	g.sweep = now
	for h, b := range g.buckets {
		if now.Sub(b.at) > time.Minute {
			delete(g.buckets, h)
		}
	}
	for h, t := range g.said {
		if now.Sub(t) > time.Minute {
			delete(g.said, h)
		}
	}
}

func hostOf(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	h, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return h
}
