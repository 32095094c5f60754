package stream

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"
)

// The global follow's reconnect says its wait as people read it, to a
// tenth of a second (the console's footer read "reconnecting in 3.702s").
func TestFollowGlobalReconnectWaitIsRounded(t *testing.T) {
	g := &globalLog{conn: func(w http.ResponseWriter, _ *http.Request, _ int) { sseOK(w) }} // then EOF: a reconnect
	wait := 3702 * time.Millisecond
	c := g.start(t, Config{BackoffMin: wait, BackoffMax: wait})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	human := regexp.MustCompile(`^reconnecting in [0-9]\.[0-9]s: `)
	var cause string
	_ = c.FollowEvents(ctx, nil, SinkFunc(func(m Msg) {
		if l, ok := m.(GlobalLinkMsg); ok && !l.Live && cause == "" {
			cause = l.Cause
			cancel() // the wait is said before it is waited
		}
	}))
	if !human.MatchString(cause) {
		t.Fatalf("the reconnect reads %q, want its wait to a tenth of a second", cause)
	}
}
