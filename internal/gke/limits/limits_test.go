package limits

import (
	"slices"
	"testing"
)

func TestMachineLimits(t *testing.T) {
	for _, tc := range []struct {
		machine                 string
		vcpus                   int
		compact, tier1, threads bool
	}{
		{"c2-standard-60", 60, true, true, true},
		{"c2-standard-8", 8, true, false, true},
		{"c3-highcpu-44", 44, true, true, true},
		{"c3-standard-4-lssd", 4, true, false, true},
		{"n2-custom-32-65536", 32, true, true, true},
		{"c4a-standard-72", 72, true, false, false},
		{"t2d-standard-60", 60, false, false, false},
		{"e2-medium", 0, false, false, false},
		{"n1-standard-1", 1, false, false, false},
		{"h3-standard-88", 88, true, false, true},
	} {
		if got := VCPUs(tc.machine); got != tc.vcpus {
			t.Errorf("VCPUs(%s) = %d, want %d", tc.machine, got, tc.vcpus)
		}
		if CompactPlacement(tc.machine) != tc.compact || Tier1(tc.machine) != tc.tier1 || ThreadsPerCore(tc.machine) != tc.threads {
			t.Errorf("%s: compact %v, Tier_1 %v, threads per core %v; want %v, %v, %v", tc.machine,
				CompactPlacement(tc.machine), Tier1(tc.machine), ThreadsPerCore(tc.machine), tc.compact, tc.tier1, tc.threads)
		}
	}
	if !slices.IsSorted(Sysctls) || !Sysctl("net.core.busy_poll") || Sysctl("kernel.core_pattern") {
		t.Error("Sysctls: sorted, with net.core.busy_poll, without kernel.core_pattern (not in the pinned API's list)")
	}
}
