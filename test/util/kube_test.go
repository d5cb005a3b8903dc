package util

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// fatalTB records Fatalf and ends the goroutine as the real one does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestWaitForReturnsOnceDone(t *testing.T) {
	calls := 0
	WaitFor(t, time.Second, "the third call", func() (bool, string) {
		calls++
		return calls == 3, fmt.Sprintf("call %d", calls)
	})
	if calls != 3 {
		t.Errorf("%d calls, want 3", calls)
	}
}

func TestWaitForSaysWhatItLastSaw(t *testing.T) {
	tb := &fatalTB{TB: t}
	calls := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(tb, 3*PollInterval, "nothing", func() (bool, string) {
			calls++
			return false, fmt.Sprintf("call %d", calls)
		})
	}()
	<-done
	if want := fmt.Sprintf("nothing: not within %s; last seen: call %d", 3*PollInterval, calls); tb.msg != want || calls < 3 {
		t.Errorf("failed with %q after %d calls, want %q", tb.msg, calls, want)
	}
}
