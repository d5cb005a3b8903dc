package mpi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHostfileHosts(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, variable, content string
		want                    []string
	}{
		{"OpenMPI", "OMPI_MCA_orte_default_hostfile", "lat-worker-0.lat.ns.svc slots=1\nlat-worker-1.lat.ns.svc slots=1\n",
			[]string{"lat-worker-0.lat.ns.svc", "lat-worker-1.lat.ns.svc"}},
		{"MPICH", "HYDRA_HOST_FILE", "lat-worker-0.lat.ns.svc:2\n\n# a comment\nlat-worker-0.lat.ns.svc:2\n",
			[]string{"lat-worker-0.lat.ns.svc"}},
		{"Intel", "I_MPI_HYDRA_HOST_FILE", "w-0.w.ns.svc:1\n", []string{"w-0.w.ns.svc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := HostfileHosts(func(v string) string {
				if v == tc.variable {
					return path
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("hosts (-want +got):\n%s", d)
			}
		})
	}
	if got, err := HostfileHosts(func(string) string { return "" }); got != nil || err != nil {
		t.Errorf("no hostfile variable: %v, %v", got, err)
	}
	if _, err := HostfileHosts(func(string) string { return filepath.Join(dir, "missing") }); err == nil {
		t.Error("a hostfile that does not exist: no error")
	}
}

func TestWaitForHosts(t *testing.T) {
	// The launcher's own name resolves on the third look, the worker's at once.
	tries := map[string]int{}
	lookup := func(_ context.Context, h string) error {
		tries[h]++
		if h == "launcher" && tries[h] < 3 {
			return errors.New("no such host")
		}
		return nil
	}
	took, err := WaitForHosts(context.Background(), []string{"launcher", "worker-0"}, 10*time.Second, lookup)
	if err != nil || tries["launcher"] != 3 || tries["worker-0"] != 1 || took < 400*time.Millisecond {
		t.Errorf("took %s, err %v, lookups %v", took, err, tries)
	}

	never := func(context.Context, string) error { return errors.New("no such host") }
	_, err = WaitForHosts(context.Background(), []string{"launcher", "worker-0"}, 300*time.Millisecond, never)
	if err == nil || !strings.Contains(err.Error(), "launcher, worker-0 did not resolve within 300ms: no such host") {
		t.Errorf("never resolving: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WaitForHosts(ctx, []string{"launcher"}, time.Minute, never); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestOwnRecord(t *testing.T) {
	hosts := filepath.Join(t.TempDir(), "hosts")
	content := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n" +
		"10.244.1.11\ts1-on-vm-r0-launcher.s1-on-vm-r0.default.svc.cluster.local\ts1-on-vm-r0-launcher\n"
	if err := os.WriteFile(hosts, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	svc, ip, ok := OwnRecord(hosts, "s1-on-vm-r0-launcher")
	if !ok || svc != "s1-on-vm-r0.default.svc.cluster.local" || ip != "10.244.1.11" {
		t.Errorf("OwnRecord = %q %q %v", svc, ip, ok)
	}
	if _, _, ok := OwnRecord(hosts, "other-pod"); ok {
		t.Error("a host name the file does not hold was found")
	}
	if _, _, ok := OwnRecord(filepath.Join(t.TempDir(), "none"), "x"); ok {
		t.Error("a missing file gave a record")
	}
}
