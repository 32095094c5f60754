//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/charmbracelet/x/ansi"
)

// openPty opens a pseudo-terminal of cols columns: the program writes to
// slave as to an operator's terminal, the test reads master. Skipped where
// the system has no pseudo-terminals.
func openPty(t *testing.T, cols uint16) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	ioctl := func(f *os.File, req uintptr, arg unsafe.Pointer) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
			t.Fatalf("ioctl %#x: %v", req, errno)
		}
	}
	var unlock int32
	ioctl(m, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(m, syscall.TIOCGPTN, unsafe.Pointer(&n))
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ws := struct{ row, col, x, y uint16 }{24, cols, 0, 0}
	ioctl(s, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	return m, s
}

// design §7: on a terminal ls's table fits the terminal's width (its wide
// cells cut); into a pipe the same table keeps its cells whole, wider.
func TestListFitsTheTerminalsWidth(t *testing.T) {
	t.Parallel()
	const cols = 60
	master, slave := openPty(t, cols)
	read := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, master) // until the slave is closed (EIO)
		read <- b.String()
	}()
	var errb bytes.Buffer
	code := Run([]string{"ls", "--demo"}, strings.NewReader(""), slave, &errb, noEnv, testKeys())
	_ = slave.Close()
	screen := <-read
	if code != 0 {
		t.Fatalf("ls --demo on a terminal: exit %d\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(ansi.Strip(screen), "\r", "")), "\n")
	if len(lines) < 2 {
		t.Fatalf("ls --demo on a terminal printed %q", screen)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > cols {
			t.Errorf("a line of %d columns on a terminal of %d: %q", w, cols, l)
		}
	}

	code, out, errOut := runCLI(t, "ls", "--demo")
	wide := 0
	for _, l := range strings.Split(out, "\n") {
		wide = max(wide, ansi.StringWidth(l))
	}
	if code != 0 || wide <= cols {
		t.Fatalf("ls --demo into a pipe: exit %d, widest line %d, want its cells whole (above %d)\n%s%s", code, wide, cols, out, errOut)
	}
}
