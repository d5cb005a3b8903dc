package topology

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeCPU is what sysfs says about one CPU.
type fakeCPU struct{ pkg, core, l3, numa int }

// fakeSysfs writes a sysfs tree for cpus (CPU i is cpus[i]); threads on the
// same package and core are SMT siblings; l3 < 0 leaves the cache out.
func fakeSysfs(t *testing.T, cpus []fakeCPU) string {
	t.Helper()
	root := t.TempDir()
	write := func(path, s string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cpuDir := filepath.Join(root, "devices", "system", "cpu")
	write(filepath.Join(cpuDir, "online"), "0-"+strconv.Itoa(len(cpus)-1))
	nodes := map[int][]string{}
	for i, c := range cpus {
		dir := filepath.Join(cpuDir, "cpu"+strconv.Itoa(i))
		write(filepath.Join(dir, "topology", "physical_package_id"), strconv.Itoa(c.pkg))
		write(filepath.Join(dir, "topology", "core_id"), strconv.Itoa(c.core))
		var sib []string
		for j, o := range cpus {
			if o.pkg == c.pkg && o.core == c.core {
				sib = append(sib, strconv.Itoa(j))
			}
		}
		write(filepath.Join(dir, "topology", "thread_siblings_list"), strings.Join(sib, ","))
		write(filepath.Join(dir, "cache", "index0", "level"), "1")
		if c.l3 >= 0 {
			write(filepath.Join(dir, "cache", "index3", "level"), "3")
			write(filepath.Join(dir, "cache", "index3", "id"), strconv.Itoa(c.l3))
		}
		nodes[c.numa] = append(nodes[c.numa], strconv.Itoa(i))
	}
	for n, list := range nodes {
		write(filepath.Join(root, "devices", "system", "node", "node"+strconv.Itoa(n), "cpulist"), strings.Join(list, ","))
	}
	return root
}

// epyc: one package, 4 CCDs (L3s) of 2 cores x 2 threads; threads 0-7 on
// the cores' first thread, 8-15 their siblings, as Linux numbers them.
func epyc() []fakeCPU {
	var cpus []fakeCPU
	for range 2 {
		for core := range 8 {
			cpus = append(cpus, fakeCPU{pkg: 0, core: core, l3: core / 2, numa: 0})
		}
	}
	return cpus
}

// spr: two packages, each one L3 and 4 NUMA nodes (sub-NUMA clustering), 2
// cores per tile, no SMT.
func spr() []fakeCPU {
	var cpus []fakeCPU
	for pkg := range 2 {
		for core := range 8 {
			cpus = append(cpus, fakeCPU{pkg: pkg, core: core, l3: pkg, numa: pkg*4 + core/2})
		}
	}
	return cpus
}

func TestReadChiplets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cpus     []fakeCPU
		from     string
		chiplets []int // by CPU
		siblings []int // of CPU 0
	}{
		{"EPYC: one L3 per CCD", epyc(), "l3", []int{0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3}, []int{0, 8}},
		{"SPR with SNC4: one L3 per package, tiles by NUMA node", spr(), "numa", []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}, []int{0}},
		{"two plain packages", []fakeCPU{{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 1, 1}, {1, 1, 1, 1}}, "package", []int{0, 0, 1, 1}, []int{0}},
		{"no L3 in sysfs", []fakeCPU{{0, 0, -1, 0}, {0, 1, -1, 0}}, "package", []int{0, 0}, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := Read(fakeSysfs(t, tc.cpus))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, c := range topo.CPUs {
				got = append(got, c.Chiplet)
			}
			if topo.ChipletsFrom != tc.from || !cmp.Equal(got, tc.chiplets) || !cmp.Equal(topo.CPUs[0].Siblings, tc.siblings) {
				t.Errorf("chiplets by %s %v, CPU 0's siblings %v; want by %s %v, %v", topo.ChipletsFrom, got, topo.CPUs[0].Siblings, tc.from, tc.chiplets, tc.siblings)
			}
		})
	}
}

func TestPairs(t *testing.T) {
	sprTopo, err := Read(fakeSysfs(t, spr()))
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := Pairs(sprTopo, sprTopo, 0, []Scope{IntraSocket, InterSocket, InterNode})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pairs {
		got = append(got, string(p.Scope)+" "+strconv.Itoa(p.Server.CPU)+"->"+strconv.Itoa(p.Client.CPU))
	}
	want := []string{
		"intraSocket 0->1", "intraSocket 0->2", "intraSocket 0->4", "intraSocket 0->6",
		"interSocket 0->8", "interSocket 0->10", "interSocket 0->12", "interSocket 0->14",
		"interNode 0->0", "interNode 0->2", "interNode 0->4", "interNode 0->6", "interNode 0->8", "interNode 0->10", "interNode 0->12", "interNode 0->14",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	if self := pairs[0]; slices.Contains(sprTopo.CPUs[0].Siblings, self.Client.CPU) || self.Client.Chiplet != 0 {
		t.Errorf("chiplet 0 to itself %+v: want another core of chiplet 0 (CPU 0's SMT siblings: %v)", self, sprTopo.CPUs[0].Siblings)
	}
	if p := pairs[4]; p.Client.Chiplet != 4 || p.Client.Package != 1 || p.Server.Package != 0 {
		t.Errorf("interSocket pair %+v", p)
	}

	epycTopo, err := Read(fakeSysfs(t, epyc()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from   int
		scopes []Scope
		client *Topology
		want   string
	}{
		{0, []Scope{InterSocket}, nil, "scope interSocket has no pair here: 16 CPUs in 1 socket(s), 4 chiplet(s) (one per L3 cache); leave the scope out, or give explicit pairs"},
		{4, []Scope{IntraSocket}, nil, "chiplet 4 does not exist: this machine has chiplets 0 to 3 (by l3)"},
		{0, []Scope{InterNode}, nil, "scope interNode needs the client node's topology"},
		{0, []Scope{"crossRack"}, nil, `unknown scope "crossRack"`},
	} {
		if _, err := Pairs(epycTopo, tc.client, tc.from, tc.scopes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Pairs(from %d, %v): %v, want %q", tc.from, tc.scopes, err, tc.want)
		}
	}
}

// This machine's own sysfs, read for real.
func TestReadThisMachine(t *testing.T) {
	topo, err := Read("/sys")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d CPUs, chiplets by %s: %+v", len(topo.CPUs), topo.ChipletsFrom, topo.CPUs)
	if len(topo.CPUs) == 0 || topo.CPUs[0].ID != 0 || len(topo.CPUs[0].Siblings) == 0 {
		t.Errorf("topology %+v", topo)
	}
	pairs, err := Pairs(topo, topo, 0, []Scope{InterNode})
	if err != nil || len(pairs) == 0 || pairs[0].Server.CPU != 0 {
		t.Errorf("interNode pairs %+v, %v", pairs, err)
	}
}

func TestParseList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0-1,8,10-11": {0, 1, 8, 10, 11}, "": nil} {
		if got, err := ParseList(in); err != nil || !cmp.Equal(got, want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"a", "3-1", "-1", "0-", "1,,2", "0-99999999"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) accepted", bad)
		}
	}
}
