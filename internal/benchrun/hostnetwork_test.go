package benchrun

import (
	"errors"
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

func TestCheckHostNetwork(t *testing.T) {
	for _, tc := range []struct {
		asked, allowed, refused bool
	}{
		{false, false, false},
		{false, true, false},
		{true, true, false},
		{true, false, true},
	} {
		err := CheckHostNetwork("spec.hostNetwork", tc.asked, tc.allowed)
		if !tc.refused {
			if err != nil {
				t.Errorf("asked %v allowed %v: %v", tc.asked, tc.allowed, err)
			}
			continue
		}
		var oe *outcome.Outcome
		if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonInvalidSpec ||
			!strings.Contains(oe.Message, "spec.hostNetwork") || !strings.Contains(oe.Message, "allowHostNetwork") {
			t.Errorf("asked without the admin's leave: %v, want InvalidSpec naming the field and the chart value", err)
		}
	}
}
