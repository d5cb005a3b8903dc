package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/campaign"
	"github.com/benchwright/benchwright/internal/report"
)

// missingRuns are the benchmarks -l selects that did not succeed (a
// campaign's failed ones), and, given the campaign's matrix, each benchmark
// of a cell that was never made (its pool or tuning failed first): the
// report lists them, so a failed cell shows.
func (f clusterFlags) missingRuns(ctx context.Context, params campaign.Params) ([]report.Missing, error) {
	if f.selector == "" {
		return nil, nil
	}
	sel, err := labels.Parse(f.selector)
	if err != nil {
		return nil, fmt.Errorf("--selector: %w", err)
	}
	c, ns, err := f.client()
	if err != nil {
		return nil, err
	}
	var out []report.Missing
	seen := map[string]bool{}
	for _, list := range benchmarkKinds() {
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: sel}); err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, o := range items {
			b, ok := o.(benchmark)
			if !ok {
				continue
			}
			seen[b.GetName()] = true
			st := b.BenchmarkStatus()
			if st.State == benchv1.StateSucceeded {
				continue
			}
			m := report.Missing{Name: b.GetName(), Kind: b.GetObjectKind().GroupVersionKind().Kind, State: string(st.State),
				Cell: cellOf(b.GetLabels())}
			if m.Kind == "" {
				m.Kind = kindOf(list)
			}
			if m.State == "" {
				m.State = "Pending"
			}
			if cond := meta.FindStatusCondition(st.Conditions, benchv1.ConditionFailed); cond != nil && cond.Status == "True" {
				m.Reason = cond.Reason + ": " + cond.Message
			}
			out = append(out, m)
		}
	}
	if params.Pools == "" || params.Benchmarks == "" {
		return out, nil
	}
	m, err := campaign.Parse(params)
	if err != nil {
		return nil, fmt.Errorf("the campaign's matrix: %w", err)
	}
	wf := campaign.Workflow{Name: selectedCampaign(f.selector)}
	if wf.Name == "" {
		return nil, fmt.Errorf("--campaign-pools needs -l %s=WORKFLOW", benchv1.CampaignLabel)
	}
	for _, cell := range m.Cells() {
		for _, b := range m.Benchmarks {
			name := campaign.BenchmarkName(wf, cell, b)
			if !seen[name] {
				out = append(out, report.Missing{Name: name, Kind: b.Kind, Cell: cell.String(), State: "not created",
					Reason: "the cell failed before its benchmarks were made (its pool or tuning): the campaign's step says why"})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b report.Missing) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// cellOf is a campaign benchmark's cell, from its labels.
func cellOf(l map[string]string) string {
	pool, tuning := l[campaign.PoolLabel], l[campaign.TuningLabel]
	if pool == "" {
		return ""
	}
	return pool + "/" + tuning
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

func kindOf(list client.ObjectList) string {
	return strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", list), "*v1alpha1."), "List")
}
