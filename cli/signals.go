package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// detachContext is done when the operator interrupts, terminates or hangs up
// aipwatch: each of them detaches (design §2, exit 8), whatever the command.
// One place, so that no command forgets one of the three signals.
func detachContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
