package gke_test

import (
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/gke"
	"github.com/benchwright/benchwright/test/fakegke"
)

// wantKind is how each of GKE's answers (the fake's Texts, GKE's own words)
// is classified: a busy cluster and a stockout are waited out, a refusal
// fails the pool with GKE's words.
var wantKind = map[fakegke.TextID]gke.Kind{
	fakegke.TextAutoUpgradeOnChannel:  gke.InvalidConfig,
	fakegke.TextAutoRepairOnChannel:   gke.InvalidConfig,
	fakegke.TextOperationRunning:      gke.Busy,
	fakegke.TextClusterNotReady:       gke.Busy,
	fakegke.TextConcurrentOperations:  gke.Busy,
	fakegke.TextIncompatibleOperation: gke.Busy,
	fakegke.TextZoneExhausted:         gke.Stockout,
	fakegke.TextInstanceStockout:      gke.Stockout,
	fakegke.TextInsufficientQuota:     gke.QuotaExceeded,
	fakegke.TextQuotaExceeded:         gke.QuotaExceeded,
	fakegke.TextPlacementMachineType:  gke.InvalidConfig,
	fakegke.TextPlacementZones:        gke.InvalidConfig,
	fakegke.TextTier1:                 gke.InvalidConfig,
	fakegke.TextThreadsPerCore:        gke.InvalidConfig,
	fakegke.TextInvalidSysctl:         gke.InvalidConfig,
	fakegke.TextLocationNotInRegion:   gke.InvalidConfig,
	fakegke.TextServiceAccountAccess:  gke.PermissionDenied,
	fakegke.TextUnavailable:           gke.Transient,
	fakegke.TextInternal:              gke.Transient,
	fakegke.TextNotFound:              gke.NotFound,
	fakegke.TextAlreadyExists:         gke.AlreadyExists,
	fakegke.TextInvalidNodePool:       gke.InvalidConfig,
}

// Every text the fake sends is classified as the provider must act on it,
// with its words kept; a new text needs a line here.
func TestGKEsTextsAreClassified(t *testing.T) {
	for id, text := range fakegke.Texts {
		want, ok := wantKind[id]
		if !ok {
			t.Errorf("%s: no expected kind", id)
			continue
		}
		if text.Source == "" {
			t.Errorf("%s: no source", id)
		}
		args := make([]any, strings.Count(text.Format, "%")-2*strings.Count(text.Format, "%%"))
		for i := range args {
			args[i] = "x"
		}
		st := text.Status(args...)
		err := gke.Classify(st.Err())
		if gke.KindOf(err) != want {
			t.Errorf("%s (%q): %v, want %v", id, st.Message(), gke.KindOf(err), want)
		}
	}
	for id := range wantKind {
		if _, ok := fakegke.Texts[id]; !ok {
			t.Errorf("%s: not in the fake's texts", id)
		}
	}
}
