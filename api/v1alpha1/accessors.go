package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The benchmark kinds share their common spec and status through these
// accessors; the shared state machine reads nothing else of them.

// BenchmarkSpec returns the spec every benchmark kind shares.
func (b *StorageBenchmark) BenchmarkSpec() *BenchmarkSpecCommon { return &b.Spec.BenchmarkSpecCommon }

// BenchmarkStatus returns the status every benchmark kind shares.
func (b *StorageBenchmark) BenchmarkStatus() *BenchmarkStatusCommon {
	return &b.Status.BenchmarkStatusCommon
}

// BenchmarkSpec returns the spec every benchmark kind shares.
func (b *MPIBenchmark) BenchmarkSpec() *BenchmarkSpecCommon { return &b.Spec.BenchmarkSpecCommon }

// BenchmarkStatus returns the status every benchmark kind shares.
func (b *MPIBenchmark) BenchmarkStatus() *BenchmarkStatusCommon {
	return &b.Status.BenchmarkStatusCommon
}

// BenchmarkSpec returns the spec every benchmark kind shares.
func (b *NetworkBenchmark) BenchmarkSpec() *BenchmarkSpecCommon { return &b.Spec.BenchmarkSpecCommon }

// BenchmarkStatus returns the status every benchmark kind shares.
func (b *NetworkBenchmark) BenchmarkStatus() *BenchmarkStatusCommon {
	return &b.Status.BenchmarkStatusCommon
}

// The conditions of every kind, in cluster-api's getter and setter style:
// internal/conditions sets one through them.

// GetConditions returns the benchmark's conditions.
func (b *StorageBenchmark) GetConditions() []metav1.Condition { return b.Status.Conditions }

// SetConditions replaces the benchmark's conditions.
func (b *StorageBenchmark) SetConditions(c []metav1.Condition) { b.Status.Conditions = c }

// GetConditions returns the benchmark's conditions.
func (b *MPIBenchmark) GetConditions() []metav1.Condition { return b.Status.Conditions }

// SetConditions replaces the benchmark's conditions.
func (b *MPIBenchmark) SetConditions(c []metav1.Condition) { b.Status.Conditions = c }

// GetConditions returns the benchmark's conditions.
func (b *NetworkBenchmark) GetConditions() []metav1.Condition { return b.Status.Conditions }

// SetConditions replaces the benchmark's conditions.
func (b *NetworkBenchmark) SetConditions(c []metav1.Condition) { b.Status.Conditions = c }

// GetConditions returns the pool's conditions.
func (p *BenchmarkPool) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions replaces the pool's conditions.
func (p *BenchmarkPool) SetConditions(c []metav1.Condition) { p.Status.Conditions = c }

// GetConditions returns the profile's conditions.
func (p *TuningProfile) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions replaces the profile's conditions.
func (p *TuningProfile) SetConditions(c []metav1.Condition) { p.Status.Conditions = c }
