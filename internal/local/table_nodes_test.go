package local

import (
	"strings"
	"testing"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/internal/sampler"
)

// The sampler's summaries are no rows of the figures' table: a line per
// test says what the machine did.
func TestPrintTableSaysWhatTheMachineDid(t *testing.T) {
	src := map[string]string{sampler.LabelSource: sampler.SourceValue}
	disk := map[string]string{sampler.LabelSource: sampler.SourceValue, sampler.LabelDevice: "vda"}
	summaries := []results.Summary{
		{Test: "randread", Metric: "read_iops", Unit: "IOPS", Stats: results.Compute([]float64{90000})},
		{Test: "randread", Metric: sampler.MetricCPUUtil, Unit: "%", Labels: src, Stats: results.Compute([]float64{27.4})},
		{Test: "randread", Metric: sampler.MetricBusiestCore, Unit: "%", Labels: src, Stats: results.Compute([]float64{31})},
		{Test: "randread", Metric: sampler.MetricDiskIOPS, Unit: "IOPS", Labels: disk, Stats: results.Compute([]float64{88000})},
		{Test: "randread", Metric: sampler.MetricDiskUtil, Unit: "%", Labels: disk, Stats: results.Compute([]float64{95.2})},
	}
	var out strings.Builder
	if err := PrintTable(&out, summaries); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "disk_iops") || !strings.Contains(got, "read_iops") {
		t.Errorf("the table:\n%s\nwant read_iops and no sampler row", got)
	}
	if !strings.Contains(got, "the machine during randread: CPU 27 %, busiest core 31 %, vda 95 % busy") {
		t.Errorf("no line on the machine:\n%s", got)
	}
}
