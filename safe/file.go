package safe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// OpenPrivate opens a file aipwatch writes (--record, --export, the
// journal) with mode 0600. It is the one rule for those files:
//   - no symlink is followed at path (O_NOFOLLOW): a link planted where the
//     operator expects a new file cannot redirect the write;
//   - the open never blocks (O_NONBLOCK): a FIFO planted there cannot hang
//     the run before the checks below refuse it;
//   - the file must be a regular file owned by the user with one link: a
//     device, a FIFO, another user's file or a hard link to some other
//     file is refused before anything is written or chmod-ed;
//   - an existing file keeps its mode on open, so it is tightened to 0600.
//
// O_TRUNC is applied only after those checks, so a refused file is never
// truncated.
func OpenPrivate(path string, flag int) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	f, err := openChecked(path, flag&^os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	if trunc {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// OpenPrivateRead opens a private file (the journal) for reading under
// the same rules as OpenPrivate, without changing its mode.
func OpenPrivateRead(path string) (*os.File, error) {
	return openChecked(path, os.O_RDONLY, 0)
}

func openChecked(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: refusing to follow it", path)
		}
		if errors.Is(err, syscall.ENXIO) {
			// O_WRONLY|O_NONBLOCK on a FIFO with no reader.
			return nil, fmt.Errorf("%s is not a regular file", path)
		}
		return nil, err
	}
	if err := checkPrivate(path, f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkPrivate refuses what is not a regular file of the user's with one
// link.
func checkPrivate(path string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user (uid %d): refusing it", path, st.Uid)
	}
	if st.Nlink > 1 {
		return fmt.Errorf("%s has %d hard links: refusing to write or read another file through it", path, st.Nlink)
	}
	return nil
}

// LimitedReadPrivate reads at most limit bytes of a private file opened with
// OpenPrivateRead: the last limit bytes when it is longer (the newest
// lines), with skipped saying how many bytes before them were not read.
func LimitedReadPrivate(path string, limit int64) (b []byte, skipped int64, err error) {
	f, err := OpenPrivateRead(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if size := fi.Size(); size > limit {
		skipped = size - limit
		if _, err := f.Seek(skipped, io.SeekStart); err != nil {
			return nil, 0, err
		}
	}
	// The file may grow while it is read: the limit holds anyway.
	b, err = io.ReadAll(io.LimitReader(f, limit))
	return b, skipped, err
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

// CheckPrivate tells, before anything is written, whether a private file
// can be written at path ("" can): it opens it as OpenPrivate does and
// leaves no file behind.
func CheckPrivate(path string) error {
	if path == "" {
		return nil
	}
	_, statErr := os.Lstat(path)
	f, err := OpenPrivate(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return err
	}
	f.Close()
	if os.IsNotExist(statErr) {
		_ = os.Remove(path) // the probe's own empty file
	}
	return nil
}
