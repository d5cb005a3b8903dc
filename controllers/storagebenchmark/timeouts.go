package storagebenchmark

import (
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
)

func startTimeout(b *benchv1.StorageBenchmark) time.Duration {
	return benchrun.StartTimeout(b.Spec.Timeouts)
}

func runTimeout(b *benchv1.StorageBenchmark) time.Duration {
	return benchrun.RunTimeout(b.Spec.Timeouts)
}

// unboundClaims names the claims that are not bound yet.
func unboundClaims(pvcs []corev1.PersistentVolumeClaim) []string {
	var out []string
	for _, c := range pvcs {
		if c.Status.Phase == corev1.ClaimBound {
			continue
		}
		class := "the default storage class"
		if c.Spec.StorageClassName != nil {
			class = "storage class " + *c.Spec.StorageClassName
		}
		phase := string(c.Status.Phase)
		if phase == "" {
			phase = string(corev1.ClaimPending)
		}
		out = append(out, fmt.Sprintf("%s (%s, %s)", c.Name, phase, class))
	}
	sort.Strings(out)
	return out
}
