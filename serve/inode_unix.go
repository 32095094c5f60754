//go:build unix

package serve

import (
	"os"
	"syscall"
)

// inode is the file's inode, where the system says (a file replaced by a
// rename changes it even when its size and time do not).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) //nolint:unconvert // Ino is not uint64 on every unix
	}
	return 0
}
