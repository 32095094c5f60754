package journal

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Load reads this machine's submission journal (Path of getenv, up to
// MaxRead), nil when there is none or it cannot be read; warn, when set,
// gets what the read has to say (a refused journal, the entries skipped).
// Several daemons read it once.
func Load(getenv func(string) string, warn func([]string)) []Entry {
	path, err := Path(getenv)
	if err != nil {
		return nil
	}
	l, err := ReadLog(path, MaxRead)
	if warn != nil {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.Warnings = append(l.Warnings, "journal not read: "+err.Error())
		}
		warn(l.Warnings)
	}
	if err != nil {
		return nil
	}
	return l.Entries
}

// Cache is this machine's submission journal as the console's polls read
// it: each context's poll loop asks for its daemon's IDs every period, and
// the file (up to MaxRead) is read again only when its size or
// modification time changed, not once a context a poll. Safe for
// concurrent use.
type Cache struct {
	getenv func(string) string

	mu      sync.Mutex
	size    int64
	mod     time.Time
	read    bool
	entries []Entry
	reads   int // the reads of the file (a test counts them)
}

// NewCache is the cache of the journal getenv locates (Path).
func NewCache(getenv func(string) string) *Cache {
	return &Cache{getenv: getenv}
}

// IDs are the action IDs the journal knows for the daemon at baseURL.
func (c *Cache) IDs(baseURL string) []string {
	path, err := Path(c.getenv)
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
		c.entries, c.size, c.mod, c.read = Load(c.getenv, nil), st.Size(), st.ModTime(), true
		c.reads++
	}
	return ActionIDs(c.entries, baseURL)
}
