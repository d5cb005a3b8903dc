//go:build real

package real

import (
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/test/util"
)

// The manager indexes each succeeded run in its results database (the
// chart's default: SQLite on its artifact volume), and `benchwright
// history` reads the runs of a configuration through its own port-forward:
// the same benchmark run twice is one configuration with two runs.
func TestHistoryOfRealRuns(t *testing.T) {
	ns := newNamespace(t)
	spec := `
nodeSelector: {kubernetes.io/os: linux}
repetitions: 2
volumes: {emptyDir: {}}
fio:
  size: 16M
  runtime: 2s
  jobs:
  - {name: hist-randread, rw: randread, blockSize: 4k}
`
	var uids []string
	for range 2 {
		b := storageBenchmark(t, ns, "nightly-fio", spec)
		waitSucceeded(t, b, &b.Status.BenchmarkStatusCommon, 3*time.Minute)
		uids = append(uids, string(b.UID))
		util.DeleteAndWaitGone(t, k8s, b, 2*time.Minute)
	}
	cli := buildCLI(t)
	history := func(format string) []byte {
		out, err := exec.Command(cli, "history", "--metric", "read_iops", "--test", "hist-randread", "-n", ns, "--format", format,
			"--kubeconfig", env["KUBECONFIG"], "--manager", env["SYSTEM_NAMESPACE"]+"/benchwright-manager").CombinedOutput()
		if err != nil {
			t.Fatalf("benchwright history --format %s: %v\n%s", format, err, out)
		}
		return out
	}
	t.Logf("benchwright history --metric read_iops --test hist-randread -n %s:\n%s", ns, history("text"))
	var hs []resultsdb.History
	if err := json.Unmarshal(history("json"), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].Config.Series != "nightly-fio" || hs[0].Config.Namespace != ns || len(hs[0].Points) != 2 {
		t.Fatalf("want one configuration with two runs: %+v", hs)
	}
	for i, p := range hs[0].Points {
		if p.RunUID != uids[i] || p.N != 2 || p.Median <= 0 {
			t.Errorf("point %d: %+v, want run %s's median of 2 repetitions", i, p, uids[i])
		}
	}
}
