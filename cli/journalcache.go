package cli

import (
	"os"
	"sync"
	"time"

	"aipwatch/journal"
)

// journalCache is this machine's submission journal as the console's
// polls read it: each context's poll loop asks for its daemon's IDs every
// period, and the file (up to journal.MaxRead) is read again only when its
// size or modification time changed, not once a context a poll.
type journalCache struct {
	getenv func(string) string

	mu      sync.Mutex
	size    int64
	mod     time.Time
	read    bool
	entries []journal.Entry
	reads   int // the reads of the file (a test counts them)
}

// ids are the action IDs the journal knows for the daemon at baseURL.
func (c *journalCache) ids(baseURL string) []string {
	path, err := journal.Path(c.getenv)
	if err != nil {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil // no journal yet
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Stat before the read: a write in between is read now and again at
	// the next call (its size or time differs), never missed.
	if !c.read || st.Size() != c.size || !st.ModTime().Equal(c.mod) {
		c.entries, c.size, c.mod, c.read = readJournal(c.getenv, nil), st.Size(), st.ModTime(), true
		c.reads++
	}
	return journal.ActionIDs(c.entries, baseURL)
}
