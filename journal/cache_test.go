package journal

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The console across contexts asks each context's journal IDs every poll:
// the file is read once while it is unchanged, whatever the contexts, and
// again once it changed.
func TestCacheReadsTheFileOnceAChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}
	j, err := Open(filepath.Join(dir, "aipwatch", FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	add := func(id, url string) {
		if err := j.Append(Entry{Time: time.Now(), Kind: KindSubmit, ActionID: id, BaseURL: url}); err != nil {
			t.Fatal(err)
		}
	}
	add("act_a_1", "http://a:1")
	add("act_b_1", "http://b:1")
	c := NewCache(getenv)
	for range 3 { // three polls of two contexts
		if got := c.IDs("http://a:1"); !slices.Equal(got, []string{"act_a_1"}) {
			t.Fatalf("context a: %v", got)
		}
		if got := c.IDs("http://b:1"); !slices.Equal(got, []string{"act_b_1"}) {
			t.Fatalf("context b: %v", got)
		}
	}
	if c.reads != 1 {
		t.Fatalf("an unchanged journal was read %d times, want 1", c.reads)
	}
	add("act_a_2", "http://a:1")
	if got := c.IDs("http://a:1"); !slices.Contains(got, "act_a_2") {
		t.Fatalf("a new submission is not seen: %v", got)
	}
	if c.reads != 2 {
		t.Fatalf("a changed journal was read %d times in all, want 2", c.reads)
	}
}
