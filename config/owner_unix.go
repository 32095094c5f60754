//go:build unix

package config

import (
	"os"
	"syscall"
)

// ownerOf is the file's owner's uid, where the system says.
func ownerOf(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// openRead opens path for reading without blocking on a FIFO (a config
// that is one is refused as not a regular file, not waited on).
func openRead(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
