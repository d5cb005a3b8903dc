package children

import (
	"strings"
	"testing"
)

// An input of MaxInputBytes passes; one byte more is refused, saying what
// to shrink.
func TestCheckInputSize(t *testing.T) {
	if err := CheckInputSize("the job file", strings.Repeat("x", MaxInputBytes), "fewer jobs"); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	err := CheckInputSize("the job file", strings.Repeat("x", MaxInputBytes+1), "fewer jobs")
	if err == nil || err.Error() != "the job file is 129 KiB, over the 128 KiB a pod's annotation carries: fewer jobs" {
		t.Errorf("over the bound: %v", err)
	}
}
