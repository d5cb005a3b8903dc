package ior

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/results"
	"github.com/benchwright/benchwright/test/fixtures"
)

// units are the units each metric must carry.
var units = map[string]string{
	"bandwidth": "MiB/s", "bandwidth_max": "MiB/s", "bandwidth_min": "MiB/s", "bandwidth_mean": "MiB/s",
	"iops": "ops/s", "iops_max": "ops/s", "iops_min": "ops/s", "iops_mean": "ops/s",
	"latency": "s",
}

func sample(test, metric string, v float64, labels map[string]string) results.Sample {
	rep, _ := strconv.Atoi(labels["iteration"]) // IOR's iterations are repetitions
	return results.Sample{Test: test, Metric: metric, Value: v, Unit: units[metric], Labels: labels, Repetition: rep}
}

// withLabels is base with the key/value pairs kv set; an empty value deletes
// the key.
func withLabels(base map[string]string, kv ...string) map[string]string {
	l := maps.Clone(base)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(l, kv[i])
			continue
		}
		l[kv[i]] = kv[i+1]
	}
	return l
}

// row is the samples of one per-iteration row: bandwidth, then iops and
// latency when the version prints them (-1 = not printed).
func row(test string, labels map[string]string, bw, iops, lat float64) []results.Sample {
	out := []results.Sample{sample(test, "bandwidth", bw, labels)}
	if iops >= 0 {
		out = append(out, sample(test, "iops", iops, labels), sample(test, "latency", lat, labels))
	}
	return out
}

func TestParseFixtures(t *testing.T) {
	files := fixtures.Glob(t, "ior/*")
	// Every value was read off the file. Sizes: "xfersize = 262144 bytes" and
	// "1 MiB" are exact; "blocksize : 126.95 GiB" is not, the summary's blksiz
	// 136314880000 is.
	v301 := map[string]string{"tool": "ior", "tool_version": "3.0.1", "iteration": "0", "api": "POSIX",
		"tasks": "1", "transfer_size": "262144", "block_size": "1048576", "segments": "1", "file_per_proc": "false"}
	easy := map[string]string{"tool": "ior", "tool_version": "3.3.0+dev", "iteration": "0", "api": "POSIX",
		"tasks": "400", "transfer_size": "16777216", "block_size": "136314880000", "segments": "1",
		"file_per_proc": "true"}
	hard := withLabels(easy, "transfer_size", "47008", "block_size", "47008", "segments", "200000",
		"file_per_proc", "false")
	v400 := withLabels(v301, "tool_version", "4.0.0rc1")
	tests := []struct {
		file string
		want []results.Sample
		err  string
	}{{
		// 3.0.1: no IOPS/Latency columns, the "Summary:" settings block, a remove row.
		file: "ior_3.0.1_text_write_read_1task_bgq_hpcbench.txt",
		want: append(row("write", v301, 75.82, -1, 0), row("read", v301, 85.18, -1, 0)...),
	}, {
		file: "ior_3.3.0dev_easy_write_fpp_400tasks_io500.txt",
		want: row("write", easy, 139582, 8728, 0.040890),
	}, {
		// Latency 259.29 s is reported as printed: IOR 3.3 divides rank 0's
		// read time by blockSize/transferSize = 1, ignoring the 200000 segments.
		file: "ior_3.3.0dev_hard_read_shared_400tasks_io500.txt",
		want: row("read", hard, 13816, 308374, 259.29),
	}, {
		file: "ior_4.0.0rc1_text_1task_metrics-operator.txt",
		want: append(row("write", v400, 443.65, 1981.01, 0.000505), row("read", v400, 3584.88, 15033, 0.000067)...),
	}, {
		// The log ends after a complete write row: the run did not finish,
		// so that row is not reported.
		file: "ior_4.1.0dev_easy_write_truncated_io500.txt",
		err:  "IOR output is truncated",
	}}
	tested := map[string]bool{}
	for _, tc := range tests {
		tested[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			got, err := Parse(fixtures.Read(t, "ior/"+tc.file))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || got != nil {
					t.Fatalf("got %d samples, error %v; want no samples and an error containing %q", len(got), err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
	}
	for _, f := range files {
		if !tested[filepath.Base(f)] {
			t.Errorf("fixture %s has no test", f)
		}
	}
}

// text400 is fixtures/ior/ior_4.0.0rc1_text_1task_metrics-operator.txt,
// copied; the tests below edit it.
const text400 = `IOR-4.0.0rc1: MPI Coordinated Test of Parallel I/O
Began               : Wed Aug 23 23:40:51 2023
Command line        : ior -w -r -o testfile
Machine             : Linux metricset-sample-m-0-29fn8.ms.default.svc.cluster.local
TestID              : 0
StartTime           : Wed Aug 23 23:40:51 2023
Path                : testfile
FS                  : 467.9 GiB   Used FS: 85.9%   Inodes: 29.8 Mi   Used Inodes: 21.1%

Options: 
api                 : POSIX
apiVersion          : 
test filename       : testfile
access              : single-shared-file
type                : independent
segments            : 1
ordering in a file  : sequential
ordering inter file : no tasks offsets
nodes               : 1
tasks               : 1
clients per node    : 1
repetitions         : 1
xfersize            : 262144 bytes
blocksize           : 1 MiB
aggregate filesize  : 1 MiB

Results: 

access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter
------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----
write     443.65     1981.01    0.000505    1024.00    256.00     0.000229   0.002019   0.000006   0.002254   0   
read      3584.88    15033      0.000067    1024.00    256.00     0.000009   0.000266   0.000004   0.000279   0   

Summary of all tests:
Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum
write         443.65     443.65     443.65       0.00    1774.62    1774.62    1774.62       0.00    0.00225         NA            NA     0      1   1    1   0     0        1         0    0      1  1048576   262144       1.0 POSIX      0
read         3584.88    3584.88    3584.88       0.00   14339.50   14339.50   14339.50       0.00    0.00028         NA            NA     0      1   1    1   0     0        1         0    0      1  1048576   262144       1.0 POSIX      0
Finished            : Wed Aug 23 23:40:51 2023
`

const (
	writeRow = "write     443.65     1981.01    0.000505    1024.00    256.00     0.000229   0.002019   0.000006   0.002254   0   \n"
	readRow  = "read      3584.88    15033      0.000067    1024.00    256.00     0.000009   0.000266   0.000004   0.000279   0   \n"
)

// edit replaces old (which must occur) in s by new.
func edit(tb testing.TB, s, old, replacement string) string {
	tb.Helper()
	if !strings.Contains(s, old) {
		tb.Fatalf("%q not in the input", old)
	}
	return strings.Replace(s, old, replacement, 1)
}

// TestParseTextEdited covers what the fixtures do not, on edited copies of
// text400 (edited: not real output).
func TestParseTextEdited(t *testing.T) {
	base := map[string]string{"tool": "ior", "tool_version": "4.0.0rc1", "api": "POSIX", "tasks": "1",
		"transfer_size": "262144", "block_size": "1048576", "segments": "1", "file_per_proc": "false"}
	it0 := withLabels(base, "iteration", "0")
	it1 := withLabels(base, "iteration", "1")
	noSummary, _, _ := strings.Cut(text400, "Summary of all tests:")
	tests := []struct {
		name string
		in   string
		want []results.Sample
	}{{
		// -i 2: a second row per access, labelled iteration=1.
		name: "two iterations",
		in: edit(t, text400, readRow,
			readRow+strings.Replace(writeRow, "0   \n", "1   \n", 1)+strings.Replace(readRow, "0   \n", "1   \n", 1)),
		want: slices.Concat(row("write", it0, 443.65, 1981.01, 0.000505), row("read", it0, 3584.88, 15033, 0.000067),
			row("write", it1, 443.65, 1981.01, 0.000505), row("read", it1, 3584.88, 15033, 0.000067)),
	}, {
		// No per-iteration rows: the summary's max, min and mean are reported.
		name: "summary only",
		in:   edit(t, text400, writeRow+readRow, ""),
		want: []results.Sample{
			sample("write", "bandwidth_max", 443.65, base), sample("write", "bandwidth_min", 443.65, base),
			sample("write", "bandwidth_mean", 443.65, base), sample("write", "iops_max", 1774.62, base),
			sample("write", "iops_min", 1774.62, base), sample("write", "iops_mean", 1774.62, base),
			sample("read", "bandwidth_max", 3584.88, base), sample("read", "bandwidth_min", 3584.88, base),
			sample("read", "bandwidth_mean", 3584.88, base), sample("read", "iops_max", 14339.50, base),
			sample("read", "iops_min", 14339.50, base), sample("read", "iops_mean", 14339.50, base),
		},
	}, {
		// A rounded block size, no summary: block_size is left out rather
		// than guessed; file-per-process from the Options block.
		name: "inexact size",
		in: edit(t, edit(t, edit(t, noSummary+"Finished            : Wed Aug 23 23:40:51 2023\n",
			"blocksize           : 1 MiB", "blocksize           : 126.95 GiB"),
			"single-shared-file", "file-per-process"), readRow, ""),
		want: row("write", withLabels(it0, "block_size", "", "file_per_proc", "true"), 443.65, 1981.01, 0.000505),
	}, {
		// A script (-f) with two tests: test_id tells their samples apart.
		name: "two tests",
		in: edit(t, text400, "\nSummary of all tests:",
			"TestID              : 1\n\nOptions: \ntasks               : 2\n\n"+
				"access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n"+
				writeRow+"\nSummary of all tests:"),
		want: slices.Concat(
			row("write", withLabels(it0, "test_id", "0"), 443.65, 1981.01, 0.000505),
			row("read", withLabels(it0, "test_id", "0"), 3584.88, 15033, 0.000067),
			row("write", map[string]string{"tool": "ior", "tool_version": "4.0.0rc1", "tasks": "2",
				"iteration": "0", "test_id": "1"}, 443.65, 1981.01, 0.000505)),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
	}
}

// json400 is hand-written, in the shape with one array per iteration under
// "Results" (PrintRepeatStart), which the real IOR 4.0.0 does not print: it
// lists the results flat (see TestParseRealJSON and testdata/real). The
// parser reads both. Doubles with "%.4f", ShowFileSystemSize's keys left out;
// the figures are consistent: 16 MiB in 4 tasks x 4 MiB.
const json400 = `{
  "Version": "4.0.0",
  "Began": "Thu Nov  6 00:16:43 2025",
  "Command line": "ior -w -r -i 2 -t 1m -b 4m -F -O summaryFormat=JSON -o /scratch/ior.dat",
  "Machine": "Linux worker-0",
  "tests": [
    {
      "TestID": 0,
      "StartTime": "Thu Nov  6 00:16:43 2025",
      "Parameters": {
        "testID": 0, 
        "refnum": 0, 
        "api": "POSIX", 
        "platform": "worker-0(Linux)", 
        "testFileName": "/scratch/ior.dat", 
        "deadlineForStonewall": 0, 
        "stoneWallingWearOut": 0, 
        "maxTimeDuration": 0, 
        "outlierThreshold": 0, 
        "options": "(null)", 
        "dryRun": 0, 
        "nodes": 2, 
        "memoryPerTask": 0, 
        "memoryPerNode": 0, 
        "tasksPerNode": 2, 
        "repetitions": 2, 
        "multiFile": 0, 
        "interTestDelay": 0, 
        "fsync": 0, 
        "fsyncperwrite": 0, 
        "useExistingTestFile": 0, 
        "uniqueDir": 0, 
        "singleXferAttempt": 0, 
        "readFile": 1, 
        "writeFile": 1, 
        "filePerProc": 1, 
        "reorderTasks": 0, 
        "reorderTasksRandom": 0, 
        "reorderTasksRandomSeed": 0, 
        "randomOffset": 0, 
        "checkWrite": 0, 
        "checkRead": 0, 
        "dataPacketType": 0, 
        "keepFile": 0, 
        "keepFileWithError": 0, 
        "warningAsErrors": 0, 
        "verbose": 0, 
        "data packet type": "g", 
        "setTimeStampSignature/incompressibleSeed": 0, 
        "collective": 0, 
        "segmentCount": 1, 
        "transferSize": 1048576, 
        "blockSize": 4194304
      }, 
      "Options": {
        "api": "POSIX", 
        "apiVersion": "", 
        "test filename": "/scratch/ior.dat", 
        "access": "file-per-process", 
        "type": "independent", 
        "segments": 1, 
        "ordering in a file": "sequential", 
        "ordering inter file": "no tasks offsets", 
        "nodes": 2, 
        "tasks": 4, 
        "clients per node": 2, 
        "repetitions": 2, 
        "xfersize": "1 MiB", 
        "blocksize": "4 MiB", 
        "aggregate filesize": "16 MiB"
      }, 
      "Results": [
        [
          {
            "access": "write", "bwMiB": 1230.7692, "blockKiB": 4096.0000, "xferKiB": 1024.0000, "iops": 1240.3101,
            "latency": 0.0032, "openTime": 0.0001, "wrRdTime": 0.0129, "closeTime": 0.0000, "totalTime": 0.0130
          }, 
          {
            "access": "read", "bwMiB": 4000.0000, "blockKiB": 4096.0000, "xferKiB": 1024.0000, "iops": 4102.5641,
            "latency": 0.0010, "openTime": 0.0001, "wrRdTime": 0.0039, "closeTime": 0.0000, "totalTime": 0.0040
          }, 
          {
            "access": "remove", "totalTime": 0.0008
          }
        ], 
        [
          {
            "access": "write", "bwMiB": 1280.0000, "blockKiB": 4096.0000, "xferKiB": 1024.0000, "iops": 1290.3226,
            "latency": 0.0031, "openTime": 0.0001, "wrRdTime": 0.0124, "closeTime": 0.0000, "totalTime": 0.0125
          }, 
          {
            "access": "read", "bwMiB": 3200.0000, "blockKiB": 4096.0000, "xferKiB": 1024.0000, "iops": 3265.3061,
            "latency": 0.0012, "openTime": 0.0001, "wrRdTime": 0.0049, "closeTime": 0.0000, "totalTime": 0.0050
          }, 
          {
            "access": "remove", "totalTime": 0.0007
          }
        ]
      ], 
      "max": {
        "writeMiB": 1280.0000, 
        "writeMB": 1342.1773, 
        "readMiB": 4000.0000, 
        "readMB": 4194.3040
      }
    }
  ], 
  "summary": [
    {
      "operation": "write", "API": "POSIX", "TestID": 0, "ReferenceNumber": 0, "segmentCount": 1,
      "blockSize": 4194304, "transferSize": 1048576, "numTasks": 4, "tasksPerNode": 2, "repetitions": 2,
      "filePerProc": 1, "reorderTasks": 0, "taskPerNodeOffset": 1, "reorderTasksRandom": 0,
      "reorderTasksRandomSeed": 0, "bwMaxMIB": 1280.0000, "bwMinMIB": 1230.7692, "bwMeanMIB": 1255.3846,
      "bwStdMIB": 24.6154, "OPsMax": 1280.0000, "OPsMin": 1230.7692, "OPsMean": 1255.3846, "OPsSD": 24.6154,
      "MeanTime": 0.0128, "xsizeMiB": 16.0000
    }, 
    {
      "operation": "read", "API": "POSIX", "TestID": 0, "ReferenceNumber": 0, "segmentCount": 1,
      "blockSize": 4194304, "transferSize": 1048576, "numTasks": 4, "tasksPerNode": 2, "repetitions": 2,
      "filePerProc": 1, "reorderTasks": 0, "taskPerNodeOffset": 1, "reorderTasksRandom": 0,
      "reorderTasksRandomSeed": 0, "bwMaxMIB": 4000.0000, "bwMinMIB": 3200.0000, "bwMeanMIB": 3600.0000,
      "bwStdMIB": 400.0000, "OPsMax": 4000.0000, "OPsMin": 3200.0000, "OPsMean": 3600.0000, "OPsSD": 400.0000,
      "MeanTime": 0.0045, "xsizeMiB": 16.0000
    }
  ], 
  "Finished": "Thu Nov  6 00:16:44 2025"
}
`

func TestParseJSON(t *testing.T) {
	base := map[string]string{"tool": "ior", "tool_version": "4.0.0", "api": "POSIX", "tasks": "4",
		"transfer_size": "1048576", "block_size": "4194304", "segments": "1", "file_per_proc": "true"}
	it0 := withLabels(base, "iteration", "0")
	it1 := withLabels(base, "iteration", "1")
	resultsStart := strings.Index(json400, `"Results": [`)
	resultsEnd := strings.Index(json400, `"max": {`)
	tests := []struct {
		name string
		in   string
		want []results.Sample
	}{{
		// Per-iteration results only: the summary is derived from them.
		name: "iterations",
		in:   json400,
		want: slices.Concat(row("write", it0, 1230.7692, 1240.3101, 0.0032), row("read", it0, 4000, 4102.5641, 0.0010),
			row("write", it1, 1280, 1290.3226, 0.0031), row("read", it1, 3200, 3265.3061, 0.0012)),
	}, {
		// Text around the document (mpirun noise) is ignored.
		name: "surrounded",
		in:   "Warning: Permanently added 'worker-1' (ED25519) to the list of known hosts.\n" + json400 + "\n[done]\n",
		want: slices.Concat(row("write", it0, 1230.7692, 1240.3101, 0.0032), row("read", it0, 4000, 4102.5641, 0.0010),
			row("write", it1, 1280, 1290.3226, 0.0031), row("read", it1, 3200, 3265.3061, 0.0012)),
	}, {
		name: "summary only",
		in:   json400[:resultsStart] + `"Results": [], ` + json400[resultsEnd:],
		want: []results.Sample{
			sample("write", "bandwidth_max", 1280, base), sample("write", "bandwidth_min", 1230.7692, base),
			sample("write", "bandwidth_mean", 1255.3846, base), sample("write", "iops_max", 1280, base),
			sample("write", "iops_min", 1230.7692, base), sample("write", "iops_mean", 1255.3846, base),
			sample("read", "bandwidth_max", 4000, base), sample("read", "bandwidth_min", 3200, base),
			sample("read", "bandwidth_mean", 3600, base), sample("read", "iops_max", 4000, base),
			sample("read", "iops_min", 3200, base), sample("read", "iops_mean", 3600, base),
		},
	}, {
		// IOR 3.2 printed no iops or latency. Only write has a result row:
		// read is reported from the summary.
		name: "no iops",
		in: json400[:resultsStart] + `"Results": [[{"access": "write", "bwMiB": 1230.7692, "blockKiB": 4096.0000}]], ` +
			json400[resultsEnd:],
		want: append(row("write", it0, 1230.7692, -1, 0),
			sample("read", "bandwidth_max", 4000, base), sample("read", "bandwidth_min", 3200, base),
			sample("read", "bandwidth_mean", 3600, base), sample("read", "iops_max", 4000, base),
			sample("read", "iops_min", 3200, base), sample("read", "iops_mean", 3600, base)),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseRealJSON reads IOR 4.0.0's JSON as the real program printed it
// here (testdata/real/README.md): on stdout, and in the file of
// -O summaryFile=, whose stdout only names the file.
func TestParseRealJSON(t *testing.T) {
	labels := func(fpp string, it int) map[string]string {
		return map[string]string{"tool": "ior", "tool_version": "4.0.0", "api": "POSIX", "tasks": "2",
			"transfer_size": "1048576", "block_size": "16777216", "segments": "1", "file_per_proc": fpp,
			"iteration": strconv.Itoa(it)}
	}
	// The figures as the files hold them (bwMiB, iops, latency).
	fpp := slices.Concat(
		row("write", labels("true", 0), 9381.2629, 9615.1392, 0.0002), row("read", labels("true", 0), 29222.2356, 29440.1685, 0.0001),
		row("write", labels("true", 1), 3804.8966, 3838.3015, 0.0002), row("read", labels("true", 1), 30657.3157, 30798.0101, 0.0001))
	shared := slices.Concat(
		row("write", labels("false", 0), 5162.2203, 5258.6972, 0.0004), row("read", labels("false", 0), 28020.4025, 28321.9515, 0.0001),
		row("write", labels("false", 1), 5635.8483, 5740.9525, 0.0003), row("read", labels("false", 1), 17535.6321, 17639.3387, 0.0001))
	for file, want := range map[string][]results.Sample{
		"ior_4.0.0_json_fpp_2tasks_openmpi.txt":                 fpp,
		"ior_4.0.0_json_summaryfile_shared_2tasks_openmpi.json": shared,
	} {
		t.Run(file, func(t *testing.T) {
			got, err := Parse(readReal(t, file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("samples (-want +got):\n%s", diff)
			}
		})
	}
	_, err := Parse(readReal(t, "ior_4.0.0_summaryfile_stdout_openmpi.txt"))
	if err == nil || !strings.Contains(err.Error(), "IOR wrote its results to /work/main/internal/mpi/testdata/real/ior_4.0.0_json_summaryfile_shared_2tasks_openmpi.json (-O summaryFile=)") ||
		!strings.Contains(err.Error(), "benchwright parse --tool ior ") {
		t.Errorf("stdout of -O summaryFile=: got %v, want a pointer to the file", err)
	}
}

func TestParseErrors(t *testing.T) {
	headerEnd := strings.Index(text400, "Options:")
	finished := "Finished            : Wed Aug 23 23:40:51 2023\n"
	noFinish := strings.TrimSuffix(text400, finished)
	resultsStart := strings.Index(json400, `"Results": [`)
	resultsEnd := strings.Index(json400, `"max": {`)
	jsonResults := func(results string) string {
		return json400[:resultsStart] + `"Results": ` + results + `, ` + json400[resultsEnd:]
	}
	tests := []struct {
		name      string
		in        string
		err       string // a part of the message
		noSamples bool   // errors.Is(err, results.ErrNoSamples)
	}{
		{name: "empty", in: " \n\t\n", noSamples: true},
		{name: "not IOR", in: "hello\nworld\n", err: `not IOR output: no "IOR-<version>`},
		{name: "osu output", in: "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                       1.62\n",
			err: `not IOR output`},
		{name: "csv", in: "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter\n",
			err: "CSV output"},
		{name: "ior ERROR line",
			in:  text400[:headerEnd] + `ior ERROR: open64("/scratch/ior.dat", 66, 0664) failed, errno 2, No such file or directory (aiori-POSIX.c:412)` + "\n",
			err: `IOR reported an error: "ior ERROR: open64(\"/scratch/ior.dat\", 66, 0664) failed, errno 2, No such file or directory (aiori-POSIX.c:412)"`},
		{name: "IOR 4 ERROR line", in: edit(t, text400, readRow, "ERROR: cannot open file, (aiori-POSIX.c:563)\n"),
			err: `IOR reported an error: "ERROR: cannot open file, (aiori-POSIX.c:563)"`},
		{name: "IOR 3.0 error", in: "IOR-3.0.1: MPI Coordinated Test of Parallel I/O\n** error **\nERROR in aiori-POSIX.c (line 256): cannot open file.\n",
			err: `"ERROR in aiori-POSIX.c (line 256): cannot open file."`},
		{name: "FAIL message", in: text400[:headerEnd] + "11/06/2025 00:16:43: Process 3: FAILED in create_file, Unable to open file\n",
			err: `"11/06/2025 00:16:43: Process 3: FAILED in create_file, Unable to open file"`},
		{name: "tagged output", in: text400[:headerEnd] + "[1,3]<stderr>:ior ERROR: write() failed, errno 28\n",
			err: `"[1,3]<stderr>:ior ERROR: write() failed, errno 28"`},
		{name: "truncated", in: noFinish, err: "IOR output is truncated"},
		{name: "cut mid-row", in: text400[:strings.Index(text400, readRow)+20], err: "IOR output is truncated"},
		{name: "two runs", in: text400 + text400, err: "2 IOR runs"},
		{name: "no results", in: text400[:headerEnd] + finished, noSamples: true},
		{name: "unknown result column", in: edit(t, text400, "Latency(s)", "Lat(us)"), err: `unknown column "Lat(us)"`},
		{name: "unknown summary column", in: edit(t, text400, "RefNum", "Ref#"), err: `unknown column "Ref#"`},
		{name: "duplicate column", in: edit(t, text400, "IOPS   ", "iter   "), err: `column "iter" appears twice`},
		{name: "no iter column", in: edit(t, text400, "   iter\n", "\n"), err: `no "iter" column`},
		{name: "NaN", in: edit(t, text400, "443.65     1981.01", "nan        1981.01"), err: `bw(MiB/s): "nan" is not finite`},
		{name: "Inf", in: edit(t, text400, "1981.01", "inf    "), err: `IOPS: "inf" is not finite`},
		{name: "-nan", in: edit(t, text400, "0.000505", "-nan    "), err: `Latency(s): "-nan" is not finite`},
		{name: "negative dash", in: edit(t, text400, "0.000505", "   -    "), err: `Latency(s): "-" (IOR's rendering of a negative figure)`},
		{name: "negative", in: edit(t, text400, "443.65  ", "-443.65 "), err: `"-443.65" is negative`},
		{name: "garbage figure", in: edit(t, text400, "443.65  ", "0x1p-2  "), err: `"0x1p-2" is not a number`},
		{name: "out of range", in: edit(t, text400, "443.65  ", "1e999   "), err: `"1e999" is out of range`},
		{name: "short row", in: edit(t, text400, "0.000279   0   \n", "0.000279\n"), err: "IOR result row has 10 fields, its header 11"},
		{name: "bad iteration", in: edit(t, text400, "0.000279   0   \n", "0.000279   x   \n"), err: `iteration "x"`},
		{name: "negative summary", in: edit(t, text400, "443.65     443.65     443.65", "443.65     -1         443.65"),
			err: `Min(MiB): "-1" is negative`},
		{name: "bad fPP", in: edit(t, text400, "1   0     0        1         0", "1   2     0        1         0"),
			err: `fPP: "2" is not a valid value`},
		{name: "bad test ID", in: edit(t, text400, "TestID              : 0", "TestID              : x"),
			err: `test ID "x" is not a number`},
		{name: "JSON truncated", in: json400[:resultsEnd], err: "IOR JSON output is truncated"},
		{name: "JSON nan", in: strings.Replace(json400, "1230.7692,", "nan,", 1), err: "parsing IOR JSON at byte"},
		{name: "JSON inf", in: strings.Replace(json400, "1230.7692,", `"inf",`, 1), err: `write bwMiB: "inf" is not finite`},
		{name: "JSON negative", in: jsonResults(`[[{"access": "read", "bwMiB": -1.0000}]]`), err: `read bwMiB: "-1.0000" is negative`},
		{name: "JSON access", in: jsonResults(`[[{"access": "append", "bwMiB": 1.0000}]]`), err: `unknown access "append"`},
		{name: "JSON no bw", in: jsonResults(`[[{"access": "write", "iops": 1.0000}]]`), err: "write result without bwMiB"},
		{name: "JSON wrong type", in: jsonResults(`{"access": "write"}`), err: "parsing IOR JSON"},
		{name: "JSON negative size", in: strings.Replace(json400, `"blockSize": 4194304`, `"blockSize": -1`, 1),
			err: "block_size is negative"},
		{name: "JSON fPP", in: strings.Replace(json400, `"filePerProc": 1,`, `"filePerProc": 2,`, 1), err: "file_per_proc is 2"},
		{name: "JSON no tests", in: `{"Version": "4.0.0", "Began": "Thu Nov  6 00:16:43 2025"}`, err: "not IOR JSON output"},
		{name: "JSON no results", in: `{"Version": "4.0.0", "tests": [], "summary": []}`, noSamples: true},
		{name: "JSON twice", in: json400 + json400, err: "more than one IOR JSON document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if err == nil || got != nil {
				t.Fatalf("got %d samples and error %v; want an error", len(got), err)
			}
			if tc.noSamples != errors.Is(err, results.ErrNoSamples) {
				t.Errorf("errors.Is(%v, ErrNoSamples) = %v", err, !tc.noSamples)
			}
			if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %q does not contain %q", err, tc.err)
			}
		})
	}
}

// readReal reads a file of testdata/real: outputs of the real IOR built
// from its release sources on this project's machines (see its README.md).
func readReal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
