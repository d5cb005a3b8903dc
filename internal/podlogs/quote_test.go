package podlogs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			name: "fio's own error lines",
			log: `{
  "fio version" : "fio-3.36",
fio: pid=0, err=2/file:filesetup.c:1113, func=open(/data/0/randread.0.0), error=No such file or directory
  "jobs" : []
}
`,
			want: "it said:\nfio: pid=0, err=2/file:filesetup.c:1113, func=open(/data/0/randread.0.0), error=No such file or directory",
		},
		{
			name: "a line with \", err=\" after some prefix",
			log:  "2025-03-04T10:00:00Z fio: pid=31, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error\nread: IOPS=1\n",
			want: "it said:\n2025-03-04T10:00:00Z fio: pid=31, err=5/file:io_u.c:1889, func=io_u error, error=Input/output error",
		},
		{
			name: "dd",
			log:  "dd: error writing '/data/0/dd.bin': No space left on device\n1024+0 records in\n1023+0 records out\n",
			want: "it said:\ndd: error writing '/data/0/dd.bin': No space left on device",
		},
		{
			name: "IOR",
			log: "IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n" +
				"ior ERROR: open64(\"/data/ior.dat\", 66, 0664) failed, errno 13, Permission denied (aiori-POSIX.c:412)\n" +
				"ERROR: open64(\"/data/ior.dat\", 66, 0664) failed. Error: Permission denied, (aiori-POSIX.c:540)\n" +
				"MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\n",
			want: "it said:\n" +
				"ior ERROR: open64(\"/data/ior.dat\", 66, 0664) failed, errno 13, Permission denied (aiori-POSIX.c:412)\n" +
				"ERROR: open64(\"/data/ior.dat\", 66, 0664) failed. Error: Permission denied, (aiori-POSIX.c:540)\n" +
				"MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD",
		},
		{
			name: "Open MPI, indented lines trimmed",
			log: "--------------------------------------------------------------------------\n" +
				"  ORTE was unable to reliably start one or more daemons.\n" +
				"This usually is caused by:\n" +
				"--------------------------------------------------------------------------\n" +
				"mpirun noticed that process rank 1 with PID 0 on node lat-r0-worker-1 exited on signal 9 (Killed).\n",
			want: "it said:\nORTE was unable to reliably start one or more daemons.\n" +
				"mpirun noticed that process rank 1 with PID 0 on node lat-r0-worker-1 exited on signal 9 (Killed).",
		},
		{
			name: "MPICH Hydra and an MPI abort",
			log: "[mpiexec@lat-r0-launcher] HYDU_sock_write (utils/sock/sock.c:256): write error (Bad file descriptor)\n" +
				"HYDU_create_process (utils/launch/launch.c:74): execvp error on file osu_bw (No such file or directory)\n" +
				"Abort(1) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error\n" +
				"Fatal error in PMPI_Init: Other MPI error, error stack:\n" +
				"mpiexec: unable to start\n",
			want: "it said:\n" +
				"[mpiexec@lat-r0-launcher] HYDU_sock_write (utils/sock/sock.c:256): write error (Bad file descriptor)\n" +
				"HYDU_create_process (utils/launch/launch.c:74): execvp error on file osu_bw (No such file or directory)\n" +
				"Abort(1) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error\n" +
				"Fatal error in PMPI_Init: Other MPI error, error stack:\n" +
				"mpiexec: unable to start",
		},
		{
			name: "no error lines: the tail",
			log:  "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                      32.29\n",
			want: "last lines of the output:\n# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                      32.29",
		},
		{
			name: "a word inside a line is no error line",
			log:  "see the fio: manual\nthe mpirun command\n",
			want: "last lines of the output:\nsee the fio: manual\nthe mpirun command",
		},
		{
			name: "empty",
			want: "(the tool printed nothing)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Diagnostics([]byte(tt.log))); diff != "" {
				t.Errorf("Diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiagnosticsLimits(t *testing.T) {
	t.Run("at most 8 lines", func(t *testing.T) {
		var log, want []string
		for i := 1; i <= 10; i++ {
			line := fmt.Sprintf("fio: error %d", i)
			log = append(log, line, "noise")
			if i <= 8 {
				want = append(want, line)
			}
		}
		got := Diagnostics([]byte(strings.Join(log, "\n")))
		if diff := cmp.Diff("it said:\n"+strings.Join(want, "\n")+"\n…", got); diff != "" {
			t.Errorf("Diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("exactly 8 lines have no ellipsis", func(t *testing.T) {
		var log []string
		for i := 1; i <= 8; i++ {
			log = append(log, fmt.Sprintf("dd: error %d", i))
		}
		got := Diagnostics([]byte(strings.Join(log, "\n") + "\n"))
		if diff := cmp.Diff("it said:\n"+strings.Join(log, "\n"), got); diff != "" {
			t.Errorf("Diagnostics (-want +got):\n%s", diff)
		}
	})
	t.Run("at most 2048 bytes", func(t *testing.T) {
		long := "fio: " + strings.Repeat("x", 995) // 1000 bytes
		log := strings.Repeat(long+"\n", 3)
		want := "it said:\n" + (long + "\n" + long + "\n" + long)[:2048] + "…"
		if diff := cmp.Diff(want, Diagnostics([]byte(log))); diff != "" {
			t.Errorf("Diagnostics (-want +got):\n%s", diff)
		}
	})
}

func TestTail(t *testing.T) {
	lines := func(from, to int) string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("line %d", i))
		}
		return strings.Join(out, "\n")
	}
	long := strings.Repeat("y", 1000)
	tests := []struct {
		name, log, want string
	}{
		{"empty", "", "(the tool printed nothing)"},
		{"only newlines", "\n\n\n", "(the tool printed nothing)"},
		{"one line without a newline", "done", "last lines of the output:\ndone"},
		{"trailing newlines dropped", "a\nb\n\n", "last lines of the output:\na\nb"},
		{"15 lines: all", lines(1, 15) + "\n", "last lines of the output:\n" + lines(1, 15)},
		{"20 lines: the last 15", lines(1, 20) + "\n", "last lines of the output:\n" + lines(6, 20)},
		{"blank lines inside count", "a\n\nb", "last lines of the output:\na\n\nb"},
		{"more than 2048 bytes: the last 2048", long + "\n" + long + "\n" + long + "\n",
			"last lines of the output:\n…" + (long + "\n" + long + "\n" + long)[3002-2048:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Tail([]byte(tt.log))); diff != "" {
				t.Errorf("Tail (-want +got):\n%s", diff)
			}
		})
	}
}
