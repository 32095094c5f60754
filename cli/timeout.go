package cli

import (
	"time"

	"github.com/spf13/pflag"

	"aipwatch/output"
	"aipwatch/stream"
)

// listTimeout is --timeout of the commands that read a daemon's list (ls,
// ls --all-contexts, stats): how long a read waits for a daemon to start
// answering before it is given up and named (a daemon that accepts and
// never answers). The transport's own bound on a reply's headers is 30 s;
// this is well under it.
type listTimeout struct{ d time.Duration }

const defaultListTimeout = 10 * time.Second

func (t *listTimeout) add(fs *pflag.FlagSet) {
	fs.DurationVar(&t.d, "timeout", defaultListTimeout, "give up on a daemon that has not started answering a read within this `DURATION` (a daemon that accepts and never answers), and name it")
}

func (t *listTimeout) check() error {
	if t.d <= 0 {
		return output.UsageError("--timeout takes a duration above 0, such as 5s")
	}
	return nil
}

// bound is client with its reads bounded by the timeout (its judge's too:
// it reads with the client's configuration).
func (t *listTimeout) bound(client *stream.Client) (*stream.Client, error) {
	if client == nil || t.d <= 0 {
		return client, nil
	}
	cfg := client.Config()
	cfg.RequestTimeout = t.d
	return newClient(cfg)
}
