package stream

import "context"

// "Retry now": an operator who knows aipd is back need not wait
// out the back-off. The caller of Run puts a channel in its context with
// WithRetryNow; a send on it ends the current wait between tries at once
// (sleep in run.go), as if the wait were over. Nothing else changes: the
// try that follows is the one that would have come, with the same cursor.

type retryNowKey struct{}

// WithRetryNow returns ctx carrying wake: a value sent on it cuts short the
// wait before the next try.
func WithRetryNow(ctx context.Context, wake <-chan struct{}) context.Context {
	return context.WithValue(ctx, retryNowKey{}, wake)
}

// retryNow is the context's wake channel, or nil (which never fires).
func retryNow(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(retryNowKey{}).(<-chan struct{})
	return ch
}
