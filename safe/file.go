package safe

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// OpenPrivate opens a file aipwatch writes (--record, --export) with mode
// 0600, refusing to follow a symlink at path (O_NOFOLLOW): a link planted
// where the operator expects a new file cannot redirect the write. An
// existing file keeps its mode on open, so it is tightened to 0600.
func OpenPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: refusing to follow it", path)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WritePrivate writes b to path (created or truncated) through
// OpenPrivate: exports hold model output and tool results. It is the one
// owner-only file writer (--export, the TUI's e, reconcile's --export).
func WritePrivate(path string, b []byte) error {
	return writePrivate(path, b, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// CreatePrivate is WritePrivate of a new file: an existing file at path
// is left alone and the error is fs.ErrExist.
func CreatePrivate(path string, b []byte) error {
	return writePrivate(path, b, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
}

func writePrivate(path string, b []byte, flag int) error {
	f, err := OpenPrivate(path, flag)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
