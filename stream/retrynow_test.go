package stream

import (
	"context"
	"testing"
	"time"
)

func TestRetryNowCutsTheWaitShort(t *testing.T) {
	wake := make(chan struct{}, 1)
	ctx := WithRetryNow(context.Background(), wake)
	done := make(chan bool)
	go func() { done <- sleep(ctx, time.Hour) }()
	wake <- struct{}{}
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("a retry-now ended the wait as cancelled")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("retry-now did not end the wait")
	}
	// Without the channel, sleep waits as before.
	if !sleep(context.Background(), time.Millisecond) {
		t.Fatal("plain sleep")
	}
}
