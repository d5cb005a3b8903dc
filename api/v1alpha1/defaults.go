package v1alpha1

import "cmp"

// The CRDs' defaults (+kubebuilder:default) for code that reads a spec the
// API server has not defaulted: a local run, a test, a spec built in Go. Each
// is written here once; the markers on the fields stay the source of truth
// for the API server.

// RepetitionsOrDefault is repetitions, or 1 when unset.
func (p RepetitionPolicy) RepetitionsOrDefault() int32 { return max(p.Repetitions, 1) }

// RanksPerNodeOrDefault is ranksPerNode, or 1 when unset.
func (l MPILayout) RanksPerNodeOrDefault() int32 { return max(l.RanksPerNode, 1) }

// ImplementationOrDefault is the implementation, or OpenMPI when unset.
func (s MPISettings) ImplementationOrDefault() MPIImplementation {
	return cmp.Or(s.Implementation, OpenMPI)
}

// APIOrDefault is IOR's API (-a), or POSIX when unset.
func (s IORSettings) APIOrDefault() IORAPI { return cmp.Or(s.API, "POSIX") }

// TransferSizeOrDefault is IOR's transfer size (-t), or 1m when unset.
func (s IORSettings) TransferSizeOrDefault() string { return cmp.Or(s.TransferSize, "1m") }

// BlockSizeOrDefault is IOR's block size (-b), or 16m when unset.
func (s IORSettings) BlockSizeOrDefault() string { return cmp.Or(s.BlockSize, "16m") }

// SegmentsOrDefault is IOR's segment count (-s), or 1 when unset.
func (s IORSettings) SegmentsOrDefault() int32 { return max(s.Segments, 1) }

// NodesOrDefault is the number of nodes, or 1 when unset.
func (s NetworkBenchmarkSpec) NodesOrDefault() int32 { return max(s.Nodes, 1) }

// ProviderOrDefault is the libfabric provider, or tcp when unset.
func (f FabtestsSettings) ProviderOrDefault() string { return cmp.Or(f.Provider, "tcp") }

// StreamsOrDefault is iperf3's parallel streams (-P), or 1 when unset.
func (s IPerf3Settings) StreamsOrDefault() int32 { return max(s.Streams, 1) }

// CountOrDefault is the number of volumes, or 1 when unset.
func (v StorageVolumes) CountOrDefault() int32 { return max(v.Count, 1) }

// ProcessesOrDefault is how many dd processes run the test at once, or 1 when unset.
func (t DDTest) ProcessesOrDefault() int32 { return max(t.Processes, 1) }
