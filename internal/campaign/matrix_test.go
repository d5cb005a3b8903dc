package campaign

import (
	"strings"
	"testing"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

func TestParseNamesTheFault(t *testing.T) {
	ok := Params{Pools: `[{"name": "c2"}]`, Benchmarks: `[{"name": "fio", "kind": "StorageBenchmark", "labels": {"benchwright.io/x-mhz": "2000"}, "spec": {}}]`}
	for _, tc := range []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"pools not JSON", func(p *Params) { p.Pools = `[{"name": "c2"` }, "parameter pools is not valid JSON"},
		{"pools null", func(p *Params) { p.Pools = `null` }, "parameter pools is null"},
		{"pools empty", func(p *Params) { p.Pools = `[]` }, "parameter pools is an empty list"},
		{"pools missing", func(p *Params) { p.Pools = `` }, "parameter pools is empty"},
		{"unknown field", func(p *Params) { p.Pools = `[{"name": "c2", "sepc": {}}]` }, `unknown field "sepc"`},
		{"trailing", func(p *Params) { p.Pools = `[{"name": "c2"}] x` }, "more after its JSON value"},
		{"bad name", func(p *Params) { p.Pools = `[{"name": "C2"}]` }, `parameter pools[0]: name "C2"`},
		{"duplicate", func(p *Params) { p.Pools = `[{"name": "a"}, {"name": "a"}]` }, `pools[1]: name "a" is also pools[0]'s`},
		{"unknown kind", func(p *Params) { p.Benchmarks = `[{"name": "x", "kind": "FooBenchmark"}]` }, `parameter benchmarks[0] ("x"): kind "FooBenchmark" is not one of`},
		{"no kind", func(p *Params) { p.Benchmarks = `[{"name": "x"}]` }, `parameter benchmarks[0] ("x"): no kind`},
		{"defaults null", func(p *Params) { p.PoolDefaults = `null` }, "parameter poolDefaults is null"},
		{"none with spec", func(p *Params) { p.Tunings = `[{"name": "none", "spec": {"preset": "x"}}]` }, `tuning "none" runs untuned`},
		{"share", func(p *Params) { p.SharePool = "yes" }, `parameter sharePool is "yes"`},
		{"baselines not an object", func(p *Params) { p.Baselines = `["c2"]` }, `parameter baselines is not valid JSON of its form`},
		{"baselines null", func(p *Params) { p.Baselines = `null` }, `parameter baselines is null`},
		{"baseline of no dimension", func(p *Params) { p.Baselines = `{"zone": "a"}` }, `parameter baselines: "zone" is no dimension of the campaign: give one of pool, tuning, benchmark`},
		{"baseline of no pool", func(p *Params) { p.Baselines = `{"pool": "c9"}` }, `parameter baselines: pool "c9" is none of the campaign's: give one of c2`},
		{"baseline of a label", func(p *Params) { p.Baselines = `{"x-mhz": "2000"}` }, `"x-mhz" is no dimension of the campaign`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			_, err := Parse(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v, want %q", err, tc.want)
			}
		})
	}
	m, err := Parse(ok)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tunings) != 1 || m.Tunings[0].Name != UntunedName || m.SharePool || m.Baselines != nil {
		t.Errorf("defaults: tunings %+v, sharePool %v, baselines %v; want [none], false, none", m.Tunings, m.SharePool, m.Baselines)
	}
}

func TestBaselines(t *testing.T) {
	m, err := Parse(Params{Pools: `[{"name": "c2"}, {"name": "c3"}]`, Tunings: `[{"name": "none"}, {"name": "tcp"}]`,
		Benchmarks: `[{"name": "1pd", "kind": "StorageBenchmark"}, {"name": "10pd", "kind": "StorageBenchmark"}]`,
		Baselines:  `{"pool": "c3", "benchmark": "10pd"}`})
	if err != nil {
		t.Fatal(err)
	}
	if m.Baselines[DimPool] != "c3" || m.Baselines[DimBenchmark] != "10pd" || len(m.Baselines) != 2 {
		t.Errorf("baselines %v", m.Baselines)
	}
	if strings.Join(m.Lead, ",") != "pool,benchmark" {
		t.Errorf("lead %v, want the baselines' order: pool, benchmark", m.Lead)
	}
	m2, err := Parse(Params{Pools: `[{"name": "c2"}]`, Benchmarks: `[{"name": "a", "kind": "StorageBenchmark"}, {"name": "b", "kind": "StorageBenchmark"}]`,
		Baselines: `{"benchmark": "b", "pool": "c2"}`})
	if err != nil || strings.Join(m2.Lead, ",") != "benchmark,pool" {
		t.Errorf("lead %v (%v), want benchmark, pool", m2.Lead, err)
	}
	names, values := m.Dimensions()
	if strings.Join(names, ",") != "pool,tuning,benchmark" || strings.Join(values[DimBenchmark], ",") != "1pd,10pd" || strings.Join(values[DimTuning], ",") != "none,tcp" {
		t.Errorf("dimensions %q, values %q", names, values)
	}
}

func TestObjects(t *testing.T) {
	m, err := Parse(Params{
		Pools:        `[{"name": "c3", "spec": {"gke": {"machineType": "c3-highcpu-176"}}}]`,
		PoolDefaults: `{"provider": "gke", "gke": {"nodeCount": 2, "machineType": "ignored"}}`,
		Tunings:      `[{"name": "none"}, {"name": "tcp", "spec": {"preset": "network-latency", "pool": "other"}}]`,
		Benchmarks:   `[{"name": "fio", "kind": "StorageBenchmark", "labels": {"benchwright.io/x-mhz": "2000"}, "spec": {"pool": "x", "tuning": "y", "repetitions": 3}}]`,
	})
	if err != nil {
		t.Fatal(err)
	}
	wf := Workflow{Namespace: "campaigns", Name: "s0-x7k2p", UID: "u-1"}
	cells := m.Cells()
	if len(cells) != 2 || cells[1].String() != "c3/tcp" {
		t.Fatalf("cells %v", cells)
	}
	pool := m.PoolObject(wf, cells[1])
	if pool.GetName() != "s0-x7k2p-c3-tcp" || pool.GetLabels()[benchv1.CampaignLabel] != "s0-x7k2p" ||
		pool.GetAnnotations()[benchv1.WorkflowUIDAnnotation] != "u-1" || pool.GetAnnotations()[benchv1.WorkflowAnnotation] != "campaigns/s0-x7k2p" {
		t.Errorf("pool %s labels %v annotations %v", pool.GetName(), pool.GetLabels(), pool.GetAnnotations())
	}
	gke := pool.Object["spec"].(map[string]any)["gke"].(map[string]any)
	if gke["machineType"] != "c3-highcpu-176" || gke["nodeCount"] != float64(2) || pool.Object["spec"].(map[string]any)["provider"] != "gke" {
		t.Errorf("pool spec %v: the pool's own values, poolDefaults for the rest", pool.Object["spec"])
	}
	if m.PoolDefaults["gke"].(map[string]any)["machineType"] != "ignored" {
		t.Error("filling a pool changed poolDefaults")
	}
	tuning := m.TuningObject(wf, cells[1])
	if tuning.GetName() != pool.GetName() || tuning.Object["spec"].(map[string]any)["pool"] != pool.GetName() {
		t.Errorf("tuning %s on %v, want both the pool's name", tuning.GetName(), tuning.Object["spec"])
	}
	b := m.BenchmarkObject(wf, cells[1], m.Benchmarks[0])
	spec := b.Object["spec"].(map[string]any)
	if b.GetName() != "s0-x7k2p-c3-tcp-fio" || b.GetNamespace() != "campaigns" || spec["pool"] != pool.GetName() || spec["tuning"] != pool.GetName() {
		t.Errorf("benchmark %s/%s spec %v", b.GetNamespace(), b.GetName(), spec)
	}
	l := b.GetLabels()
	if l[PoolLabel] != "c3" || l[TuningLabel] != "tcp" || l[BenchmarkLabel] != "fio" || l["benchwright.io/x-mhz"] != "2000" || l[benchv1.CampaignLabel] != "s0-x7k2p" {
		t.Errorf("benchmark labels %v", l)
	}
	if refs := b.GetOwnerReferences(); len(refs) != 1 || refs[0].Kind != "Workflow" || refs[0].UID != "u-1" {
		t.Errorf("owner references %+v, want the Workflow", refs)
	}
	untuned := m.BenchmarkObject(wf, cells[0], m.Benchmarks[0]).Object["spec"].(map[string]any)
	if _, has := untuned["tuning"]; has {
		t.Errorf("an untuned cell's benchmark names a tuning: %v", untuned)
	}
	m.SharePool = true
	if got := m.PoolName(wf, cells[1]); got != "s0-x7k2p-c3" {
		t.Errorf("shared pool name %s", got)
	}
	if _, err := m.Cell("c3", "nope"); err == nil || !strings.Contains(err.Error(), "the tunings none, tcp") {
		t.Errorf("Cell of an unknown tuning: %v", err)
	}
}
