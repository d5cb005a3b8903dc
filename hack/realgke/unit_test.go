package main

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
)

func TestNodeNamesAreGKEs(t *testing.T) {
	for _, tc := range []struct{ cluster, pool, pattern string }{
		{"cluster-1", "default-pool", `^gke-cluster-1-default-pool-[0-9a-f]{8}-[a-z0-9]{4}$`},
		// gke-CLUSTER is cut to 24 characters (no trailing '-'), the pool to
		// fit 63.
		{"benchwright-real-cluster-one", "c2-standard-60-compact-placement-smt-off",
			`^gke-benchwright-real-clu-c2-standard-60-compact-p-[0-9a-f]{8}-[a-z0-9]{4}$`},
		{"abcdefghijklmnopqrs-x", "p", `^gke-abcdefghijklmnopqrs-p-[0-9a-f]{8}-[a-z0-9]{4}$`},
	} {
		names := nodeNames(tc.cluster, tc.pool, 3)
		hash := ""
		for _, n := range names {
			if !regexp.MustCompile(tc.pattern).MatchString(n) || len(n) > 63 {
				t.Errorf("nodeNames(%q, %q): %q (%d characters), want %s within 63", tc.cluster, tc.pool, n, len(n), tc.pattern)
			}
			h := n[len(n)-len("0123abcd-wxyz") : len(n)-len("-wxyz")]
			if hash != "" && h != hash {
				t.Errorf("nodes of one pool %v have different instance-group hashes", names)
			}
			hash = h
		}
		if names[0] == names[1] || names[1] == names[2] || names[0] == names[2] {
			t.Errorf("names %v are not distinct", names)
		}
	}
}

func TestNodeLabelsAndTaints(t *testing.T) {
	np := &containerpb.NodePool{
		Name: "p",
		Config: &containerpb.NodeConfig{
			MachineType: "c3-highcpu-176", ImageType: "UBUNTU_CONTAINERD", Labels: map[string]string{"team": "hpc"},
			DiskType: "pd-ssd", Spot: true,
			Taints: []*containerpb.NodeTaint{
				{Key: "a", Value: "1", Effect: containerpb.NodeTaint_PREFER_NO_SCHEDULE},
				{Key: "b", Value: "2", Effect: containerpb.NodeTaint_NO_EXECUTE},
			},
		},
	}
	if zones := poolZones(np, "europe-west4"); !slices.Equal(zones, []string{"europe-west4-a", "europe-west4-b", "europe-west4-c"}) {
		t.Errorf("a pool without locations in a regional cluster is in %v, want its three zones", zones)
	}
	zone := poolZones(np, "europe-west4")[0]
	labels, err := nodeLabels(np, zone)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"team": "hpc", LabelMachineFamily: "c3", LabelOSDistribution: "ubuntu",
		corev1.LabelTopologyZone: "europe-west4-a", corev1.LabelTopologyRegion: "europe-west4",
		corev1.LabelFailureDomainBetaZone: "europe-west4-a", LabelBootDisk: "pd-ssd", LabelSpot: "true",
		LabelContainerRuntime: "containerd",
	} {
		if labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, labels[k], v)
		}
	}
	taints, err := nodeTaints(np)
	if err != nil || len(taints) != 2 || taints[0].ToString() != "a=1:PreferNoSchedule" || taints[1].ToString() != "b=2:NoExecute" {
		t.Errorf("taints %v (%v), want a=1:PreferNoSchedule, b=2:NoExecute", taints, err)
	}
	np.Config.Taints = []*containerpb.NodeTaint{{Key: "c", Value: "3"}}
	if _, err := nodeTaints(np); err == nil || !strings.Contains(err.Error(), "NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE") {
		t.Errorf("a taint without an effect: %v, want the effects to choose from", err)
	}
	np.Config.ImageType = "WINDOWS_LTSC_CONTAINERD"
	if _, err := nodeLabels(np, zone); err == nil || !strings.Contains(err.Error(), "use COS_CONTAINERD or UBUNTU_CONTAINERD") {
		t.Errorf("a Windows image: %v, want what to use", err)
	}
}

func TestSlotsAreTakenAllOrNone(t *testing.T) {
	s := newSlots([]int{3, 4})
	if _, ok := s.take("big", 3); ok || s.inUse() != 0 {
		t.Fatalf("taking 3 of 2 slots: ok %v, %d in use; want refused, none taken", ok, s.inUse())
	}
	var wg sync.WaitGroup
	got := make(chan []int, 10)
	for range 10 {
		wg.Go(func() {
			if taken, ok := s.take("p", 1); ok {
				got <- taken
			}
		})
	}
	wg.Wait()
	close(got)
	seen := map[int]bool{}
	for taken := range got {
		if seen[taken[0]] {
			t.Errorf("slot %d given twice", taken[0])
		}
		seen[taken[0]] = true
	}
	if len(seen) != 2 {
		t.Errorf("10 creates of 1 node took slots %v, want 3 and 4 once each", seen)
	}
	s.free([]int{3})
	if taken, ok := s.take("q", 1); !ok || taken[0] != 3 {
		t.Errorf("after freeing slot 3: %v %v, want slot 3", taken, ok)
	}
}

func TestFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slots", "3,x"}, `"x" is not a slot number`},
		{[]string{"--slots", "3,3"}, "slot 3 is given twice"},
		{[]string{"--slots", "0"}, "not a slot number"},
	} {
		if _, err := parseSlots(tc.args[1]); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	full := []string{"--tls-cert", "c", "--tls-key", "k", "--cluster", "projects/p/locations/z/clusters/c",
		"--kubeconfig", "kc", "--slots", "3", "--host-config", "h"}
	if _, err := parseFlags(full); err != nil {
		t.Errorf("every flag given: %v", err)
	}
	if _, err := parseFlags(full[2:]); err == nil || err.Error() != "--tls-cert is required" {
		t.Errorf("without --tls-cert: %v, want it named", err)
	}
	if err := run(append(full[:4:4], "--cluster", "clusters/c", "--kubeconfig", "kc", "--slots", "3", "--host-config", "h")); err == nil || !strings.HasPrefix(err.Error(), "--cluster:") {
		t.Errorf("a malformed --cluster: %v, want it named", err)
	}
}
