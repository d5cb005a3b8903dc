package tuning

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// StopAtEnv is for crash tests only. Set to "originals-saved:K", the process
// stops for good right after the originals of the K-th setting it applies
// are on disk, before that setting is written; set to "restored:K", right
// after the K-th original is written back. Stopped, it prints StopLine and
// the point on stderr and sleeps until it is killed. Unset (as on any node)
// it does nothing.
const StopAtEnv = "BENCHWRIGHT_TUNER_TEST_STOP_AT"

// StopLine starts the line a process stopped by StopAtEnv prints.
const StopLine = "benchwright-tuner: test stop point reached: "

// Stop points.
const (
	stopOriginalsSaved = "originals-saved"
	stopRestored       = "restored"
)

var stopCounts = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// stopPoint counts a pass at point and stops there if StopAtEnv asks.
func stopPoint(point string) {
	at := os.Getenv(StopAtEnv)
	if at == "" {
		return
	}
	stopCounts.Lock()
	stopCounts.n[point]++
	n := stopCounts.n[point]
	stopCounts.Unlock()
	if at != fmt.Sprintf("%s:%d", point, n) {
		return
	}
	fmt.Fprintln(os.Stderr, StopLine+at)
	for {
		time.Sleep(time.Hour)
	}
}
