package cli

import (
	"sync"

	"aipwatch/journal"
)

// journalCache is console.go's name for journal.Cache, made on its first
// use from the environment it is given.
type journalCache struct {
	getenv func(string) string
	once   sync.Once
	cache  *journal.Cache
}

func (c *journalCache) ids(baseURL string) []string {
	c.once.Do(func() { c.cache = journal.NewCache(c.getenv) })
	return c.cache.IDs(baseURL)
}
