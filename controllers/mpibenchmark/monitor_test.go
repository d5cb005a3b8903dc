package mpibenchmark

import (
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/mpi"
)

func TestStepPhases(t *testing.T) {
	l := &mpi.Launch{Steps: []mpi.Step{{Tests: []string{"osu_latency"}}, {Tests: []string{"PingPong", "Allreduce"}}, {Tests: []string{"osu_bw"}}}}
	end := time.UnixMilli(1_000_000)
	log := mpi.StepHeader(1, 3, []string{"mpirun"}) + mpi.StepTrailerAt(1, 3, 0, 2*time.Second, end) +
		mpi.StepHeader(2, 3, []string{"mpirun"}) + mpi.StepTrailerAt(2, 3, 0, 5*time.Second, end.Add(5*time.Second)) +
		mpi.StepHeader(3, 3, []string{"mpirun"}) + mpi.StepTrailer(3, 3, 0, time.Second) // an older runner: no end
	got := stepPhases(l, []byte(log))
	want := []struct {
		test       string
		start, end int64
	}{{"osu_latency", 998_000, 1_000_000}, {"PingPong", 1_000_000, 1_005_000}, {"Allreduce", 1_000_000, 1_005_000}}
	if len(got) != len(want) {
		t.Fatalf("phases %+v", got)
	}
	for i, w := range want {
		if got[i].Test != w.test || got[i].StartMs != w.start || got[i].EndMs != w.end {
			t.Errorf("phase %d %+v, want %+v", i, got[i], w)
		}
	}
	if stepPhases(l, []byte("garbage")) != nil {
		t.Error("phases from a log that is no step log")
	}
}
