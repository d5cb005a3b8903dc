package main

import (
	"testing"

	"github.com/benchwright/benchwright/internal/campaign"
)

func TestCampaignOf(t *testing.T) {
	if campaignOf(nil, map[string]map[string]string{}) != nil {
		t.Error("benchmarks of no campaign make a campaign")
	}
	place := placeOf(map[string]string{campaign.PoolLabel: "c2", campaign.TuningLabel: "none", campaign.BenchmarkLabel: "1pd"})
	if place["pool"] != "c2" || place["tuning"] != "none" || place["benchmark"] != "1pd" || placeOf(map[string]string{"app": "x"}) != nil {
		t.Errorf("place %v", place)
	}
	places := map[string]map[string]string{"wf-c2-none-1pd": place}
	m, err := campaign.Parse(campaign.Params{Pools: `[{"name": "c2"}, {"name": "c3"}]`,
		Benchmarks: `[{"name": "1pd", "kind": "StorageBenchmark"}, {"name": "10pd", "kind": "StorageBenchmark"}]`})
	if err != nil {
		t.Fatal(err)
	}
	c := campaignOf(m, places)
	if len(c.Dimensions) != 3 || c.Dimensions[2].Name != "benchmark" || c.Dimensions[2].Values[0] != "1pd" || c.Places["wf-c2-none-1pd"]["pool"] != "c2" {
		t.Errorf("with the matrix: %+v", c)
	}
	if c := campaignOf(nil, places); len(c.Dimensions) != 3 || c.Dimensions[0].Values != nil {
		t.Errorf("without the matrix, the values are the report's to find: %+v", c.Dimensions)
	}
}
