package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/campaigngc"
	"github.com/benchwright/benchwright/internal/report/compare"
	"github.com/benchwright/benchwright/internal/report/source"
	"github.com/benchwright/benchwright/internal/results"
)

// campaignView is what a report knows of the campaign -l selects.
type campaignView struct {
	// cells are its benchmarks, cell by cell (see campaignCells).
	cells []compare.Cell
	// campaign places each benchmark in the campaign's dimensions; nil when
	// none is a campaign's.
	campaign *compare.Campaign
	// baselines are the campaign's baselines parameter, and lead the
	// dimensions it names, in its order.
	baselines map[string]string
	lead      []string
}

// campaignCells lists the benchmarks -l selects with how each ended, and
// where each is in the campaign's dimensions (its campaign labels). Given
// the campaign's matrix (a campaign's report step), that is every cell's
// benchmark, a cell that failed before making its benchmarks included, each
// with its state and headline figure or reason, and the dimensions' values
// in the order the matrix lists them; without it, only those that did not
// succeed, and the values in the order the runs have them.
func (f clusterFlags) campaignCells(ctx context.Context, params campaign.Params) (campaignView, error) {
	var view campaignView
	if f.selector == "" {
		return view, nil
	}
	sel, err := labels.Parse(f.selector)
	if err != nil {
		return view, fmt.Errorf("--selector: %w", err)
	}
	c, ns, err := f.client()
	if err != nil {
		return view, err
	}
	var m *campaign.Matrix
	if params.Pools != "" && params.Benchmarks != "" {
		if m, err = campaign.Parse(params); err != nil {
			return view, fmt.Errorf("the campaign's matrix: %w", err)
		}
		view.baselines, view.lead = m.Baselines, m.Lead
	}
	var out []compare.Cell
	seen := map[string]bool{}
	places := map[string]map[string]string{}
	err = eachBenchmark(ctx, c, c.Scheme(), ns, func(kind string, b benchmark) {
		seen[b.GetName()] = true
		if p := placeOf(b.GetLabels()); p != nil {
			places[b.GetName()] = p
		}
		if cell := cellOf(b, kind); m != nil || !cell.Succeeded() {
			out = append(out, cell)
		}
	}, client.MatchingLabelsSelector{Selector: sel})
	if err != nil {
		return view, err
	}
	view.campaign = campaignOf(m, places)
	if m != nil {
		wf := campaign.Workflow{Namespace: ns, Name: selectedCampaign(f.selector)}
		if wf.Name == "" {
			return view, fmt.Errorf("--campaign-pools needs -l %s=WORKFLOW", benchv1.CampaignLabel)
		}
		// Why a cell's pool or tuning went, as the manager told the
		// Workflow; none readable (an older chart's role): its step says.
		events, _ := campaign.WorkflowEvents(ctx, c, wf)
		for _, cell := range m.Cells() {
			for _, b := range m.Benchmarks {
				if name := campaign.BenchmarkName(wf, cell, b); !seen[name] {
					out = append(out, compare.Cell{Pool: cell.Pool.Name, Tuning: cell.Tuning.Name, Benchmark: b.Name, Name: name, Kind: b.Kind,
						State: "not created", Result: notCreated(events, m.PoolName(wf, cell))})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b compare.Cell) int { return strings.Compare(a.Name, b.Name) })
	if m != nil {
		// In the campaign's order: pools, then tunings, then benchmarks, as listed.
		rank := func(c compare.Cell) [3]int {
			return [3]int{indexOf(m.Pools, c.Pool), indexOf(m.Tunings, c.Tuning), indexOf(m.Benchmarks, c.Benchmark)}
		}
		slices.SortStableFunc(out, func(a, b compare.Cell) int {
			ra, rb := rank(a), rank(b)
			return slices.Compare(ra[:], rb[:])
		})
	}
	view.cells = out
	return view, nil
}

// notCreated says why a cell made no benchmark: what the manager told of
// its pool or tuning (both named pool), else where to look.
func notCreated(events []corev1.Event, pool string) string {
	const head = "the cell failed before its benchmarks were made"
	for _, kind := range []string{"BenchmarkPool", "TuningProfile"} {
		if told := campaigngc.Told(events, kind, pool); told != "" {
			return head + ": its " + kind + " " + pool + " went: " + told
		}
	}
	return head + " (its pool or tuning): its step says why"
}

// placeOf is where a benchmark's campaign labels put it in the campaign's
// dimensions; nil for a benchmark of no campaign.
func placeOf(l map[string]string) map[string]string {
	if l[campaign.PoolLabel] == "" {
		return nil
	}
	return map[string]string{campaign.DimPool: l[campaign.PoolLabel], campaign.DimTuning: l[campaign.TuningLabel],
		campaign.DimBenchmark: l[campaign.BenchmarkLabel]}
}

// storedCampaign is the campaign of stored runs, from the benchmark labels
// their summaries keep: nil when none of them was a campaign's cell.
func storedCampaign(ctx context.Context, src source.Source, runs []compare.Run) (*compare.Campaign, error) {
	labels, err := compare.RunLabels(ctx, src, runs)
	if err != nil {
		return nil, err
	}
	places := map[string]map[string]string{}
	for i, l := range labels {
		if p := placeOf(l); p != nil {
			places[runs[i].Name] = p
		}
	}
	return campaignOf(nil, places), nil
}

// campaignOf is the report's view of a campaign's dimensions: as the matrix
// lists them when there is one; else their values in the order the report
// finds them. Nil when neither a matrix nor a campaign's benchmark is there.
func campaignOf(m *campaign.Matrix, places map[string]map[string]string) *compare.Campaign {
	if m == nil && len(places) == 0 {
		return nil
	}
	c := &compare.Campaign{Places: places}
	names := []string{campaign.DimPool, campaign.DimTuning, campaign.DimBenchmark}
	var values map[string][]string
	if m != nil {
		names, values = m.Dimensions()
	}
	for _, n := range names {
		c.Dimensions = append(c.Dimensions, compare.Dimension{Name: n, Values: values[n]})
	}
	return c
}

// indexOf is the place of the entry named name, or len(es) (after all).
func indexOf(es []campaign.Entry, name string) int {
	if i := slices.IndexFunc(es, func(e campaign.Entry) bool { return e.Name == name }); i >= 0 {
		return i
	}
	return len(es)
}

// cellOf is a benchmark as a report's cell: its campaign labels, its state,
// and its headline figure (as kubectl get shows it) or why it failed.
func cellOf(b benchmark, kind string) compare.Cell {
	l := b.GetLabels()
	st := b.BenchmarkStatus()
	c := compare.Cell{Pool: l[campaign.PoolLabel], Tuning: l[campaign.TuningLabel], Benchmark: l[campaign.BenchmarkLabel],
		Name: b.GetName(), Kind: kind, State: string(st.State)}
	if c.Benchmark == "" {
		c.Benchmark = b.GetName()
	}
	if c.State == "" {
		c.State = string(benchv1.StatePending)
	}
	if cond := meta.FindStatusCondition(st.Conditions, benchv1.ConditionFailed); cond != nil && cond.Status == "True" {
		c.Result = cond.Reason + ": " + cond.Message
	} else {
		c.Result = headline(b)
	}
	c.Expectations, c.ExpectationsFailed = expectationsOf(st)
	c.History, c.Regressed = historyOf(st)
	return c
}

// historyOf says how a run stands against its configuration's history,
// from its Regressed condition; empty without one (no results database).
func historyOf(st *benchv1.BenchmarkStatusCommon) (string, bool) {
	cond := meta.FindStatusCondition(st.Conditions, benchv1.ConditionRegressed)
	switch {
	case cond == nil:
		return "", false
	case cond.Status == metav1.ConditionTrue:
		return "regressed: " + cond.Message, true
	case cond.Reason == benchv1.ReasonImproved:
		return "improved: " + cond.Message, false
	case cond.Reason == benchv1.ReasonOutlier:
		return "one-off: " + cond.Message, false
	case cond.Status == metav1.ConditionFalse:
		return "steady: " + cond.Message, false
	}
	return "not judged: " + cond.Message, false
}

// expectationsOf says how a benchmark's expectations stand, from its
// MeetsExpectations condition; empty without one.
func expectationsOf(st *benchv1.BenchmarkStatusCommon) (string, bool) {
	cond := meta.FindStatusCondition(st.Conditions, benchv1.ConditionMeetsExpectations)
	switch {
	case cond == nil:
		return "", false
	case cond.Status == metav1.ConditionTrue:
		return "hold: " + strings.TrimPrefix(cond.Message, "all "), false
	case cond.Status == metav1.ConditionFalse:
		return "fail: " + cond.Message, true
	}
	return "not checked: " + cond.Message, false
}

// headline is a benchmark's headline figure, as its kubectl get columns,
// the figure its users look for first leading (IOR's bandwidth, not its
// per-operation latency), written as people write figures: "1,100 µs",
// "0.0012 MB/s peak".
func headline(b benchmark) string {
	mb := func(v *float64) string { return results.FormatValue(*v) + " MB/s peak" }
	us := func(v *float64) string { return results.FormatValue(*v) + " µs" }
	var parts []string
	switch o := b.(type) {
	case *benchv1.StorageBenchmark:
		parts = append(parts, o.Status.Headline)
	case *benchv1.MPIBenchmark:
		s := o.Status.Summary
		if s.LatencyMicroseconds != nil && o.Spec.Suite != benchv1.SuiteIOR {
			parts = append(parts, us(s.LatencyMicroseconds))
		}
		if s.PeakBandwidthMBps != nil {
			parts = append(parts, mb(s.PeakBandwidthMBps))
		}
	case *benchv1.NetworkBenchmark:
		if s := o.Status.Summary; s.PeakBandwidthMBps != nil {
			parts = append(parts, mb(s.PeakBandwidthMBps))
		}
		if s := o.Status.Summary; s.LatencyMicroseconds != nil {
			parts = append(parts, us(s.LatencyMicroseconds))
		}
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), ", ")
}

// selectedCampaign is the campaign a selector picks (benchwright.io/campaign=X).
func selectedCampaign(selector string) string {
	sel, err := labels.Parse(selector)
	if err != nil {
		return ""
	}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		if r.Key() == benchv1.CampaignLabel && r.Values().Len() == 1 {
			return r.Values().List()[0]
		}
	}
	return ""
}
