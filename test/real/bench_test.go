//go:build real

package real

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// BenchmarkFioStorageBenchmarkVsBarePod measures what benchwright costs a
// fio run on a real node: PAIRS (default 5) pairs of the quickstart's fio
// jobs, one repetition through a StorageBenchmark and the same job file in a
// bare pod of the same image on the same node, in alternating order. Per
// pair it logs both IOPS of the first job and their ratio, and the wall time
// from creation to Succeeded against the bare pod's own run time; it reports
// the median ratio (iops-ratio) and the operator's median added seconds.
//
//	make bench-real                 # or: PAIRS=8 make bench-real
func BenchmarkFioStorageBenchmarkVsBarePod(b *testing.B) {
	pairs := 5
	if p, err := strconv.Atoi(os.Getenv("PAIRS")); err == nil && p > 0 {
		pairs = p
	}
	node := nodes()[0]
	ns := newNamespace(b)
	var ratios, added, bareAdded []float64
	var jobFile string
	for i := range pairs {
		bench := func() (float64, time.Duration, string) {
			return runQuickstartOnce(b, ns, node, fmt.Sprintf("pair-%d", i+1), nil)
		}
		var sb, bare float64
		var sbWall time.Duration
		var bareRun bareRun
		if i%2 == 0 {
			sb, sbWall, jobFile = bench()
			bareRun = runBareFio(b, ns, node, jobFile)
		} else {
			// The job file the manager wrote in the pair before: the same
			// spec always gives the same one.
			bareRun = runBareFio(b, ns, node, jobFile)
			sb, sbWall, _ = bench()
		}
		bare = bareRun.iops[quickstartJob]
		ratio := sb / bare
		ratios = append(ratios, ratio)
		added = append(added, (sbWall - bareRun.ran).Seconds())
		bareAdded = append(bareAdded, (bareRun.wall - bareRun.ran).Seconds())
		order := "StorageBenchmark first"
		if i%2 == 1 {
			order = "bare pod first"
		}
		// On stdout, not b.Logf: go test cuts a benchmark's log short.
		fmt.Printf("pair %d (%s): StorageBenchmark %.0f IOPS in %.1f s from creation to Succeeded; bare pod %.0f IOPS, fio ran %.1f s (%.1f s from creation); ratio %.4f",
			i+1, order, sb, sbWall.Seconds(), bare, bareRun.ran.Seconds(), bareRun.wall.Seconds(), ratio)
		fmt.Println()
	}
	b.ReportMetric(median(ratios), "iops-ratio")
	b.ReportMetric(median(added), "added-s")
	b.ReportMetric(median(bareAdded), "bare-pod-added-s")
	fmt.Printf("median IOPS ratio %.4f over %d pairs (%s); StorageBenchmark creation to Succeeded minus fio's run time: median %.1f s (a bare pod's creation to Succeeded minus its run: %.1f s)\n",
		median(ratios), pairs, fmtAll(ratios), median(added), median(bareAdded))
}

// quickstartJob is the job whose IOPS the benchmark compares.
const quickstartJob = "randread-4k-qd16"

// runQuickstartOnce runs the quickstart's fio jobs once on node through a
// StorageBenchmark named name (after edit, when set) and returns the first
// job's read IOPS, the time from creation to Succeeded, and the job file the
// manager wrote.
func runQuickstartOnce(tb testing.TB, ns, node, name string, edit func(*benchv1.StorageBenchmark)) (float64, time.Duration, string) {
	tb.Helper()
	sb := &benchv1.StorageBenchmark{}
	util.LoadExample(tb, "quickstart/fio.yaml", sb)
	sb.Namespace, sb.Name = ns, name
	if edit != nil {
		edit(sb)
	}
	sb.Spec.Repetitions = 1
	sb.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	began := time.Now()
	if err := k8s.Create(ctx(), sb); err != nil {
		tb.Fatal(err)
	}
	util.WaitFor(tb, 5*time.Minute, sb.Name+" finished", func() (bool, string) {
		if err := k8s.Get(ctx(), client.ObjectKeyFromObject(sb), sb); err != nil {
			return false, err.Error()
		}
		if sb.Status.State == benchv1.StateFailed {
			tb.Fatalf("%s failed: %+v", sb.Name, sb.Status.Conditions)
		}
		return sb.Status.State == benchv1.StateSucceeded, string(sb.Status.State)
	})
	wall := time.Since(began)
	jobFile := jobFileOf(tb, sb)
	var iops float64
	for _, r := range sb.Status.Results {
		if r.Test == quickstartJob && r.Read != nil && r.Read.IOPS != nil {
			iops = r.Read.IOPS.Median
		}
	}
	util.DeleteAndWaitGone(tb, k8s, sb, 2*time.Minute)
	return iops, wall, jobFile
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fmtAll(v []float64) string {
	out := ""
	for i, x := range v {
		if i > 0 {
			out += " "
		}
		out += strconv.FormatFloat(x, 'f', 4, 64)
	}
	return out
}
