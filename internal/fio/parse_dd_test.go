package fio

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchwright/benchwright/internal/results"
)

func TestParseDD(t *testing.T) {
	tests := []struct {
		name string
		file string // testdata/ or fixtures/; empty: use data
		data string
		want []DDResult
	}{
		{name: "GNU with GiB", file: "fixtures/dd/dd_gnu_1GiB_oflag_direct_notable-notes.txt",
			want: []DDResult{{1073741824, 1.94133, "553 MB/s"}}},
		{name: "old GNU without GiB, time output after", file: "fixtures/dd/dd_gnu_old_format_noGiB_with_time_nersc.txt",
			want: []DDResult{{2147479552, 11.6774, "184 MB/s"}}},
		{name: "BSD macOS", file: "fixtures/dd/dd_bsd_macos_bytes_transferred_notable-notes.txt",
			want: []DDResult{{25165824, 0.026832, "937899773 bytes/sec"}}},
		{name: "GNU 9.1 write oflag=dsync", file: "dd_gnu9.1_write_8MiB_dsync.txt",
			want: []DDResult{{8388608, 0.0245746, "341 MB/s"}}},
		{name: "GNU 9.1 read", file: "dd_gnu9.1_read_8MiB.txt",
			want: []DDResult{{8388608, 0.00049272, "17.0 GB/s"}}},
		{name: "one unit, seconds as 1.775e-05", file: "dd_gnu9.1_512B_one_unit.txt",
			want: []DDResult{{512, 1.775e-05, "28.8 MB/s"}}},
		{name: "singular byte", file: "dd_gnu9.1_1byte_singular.txt",
			want: []DDResult{{1, 1.703e-05, "58.7 kB/s"}}},
		{name: "de_DE decimal comma", file: "dd_gnu9.1_de_DE_read_decimal_comma.txt",
			want: []DDResult{{8388608, 0.00055757, "15,0 GB/s"}}},
		{name: "fr_FR no-break space", file: "dd_gnu9.1_fr_FR_write_decimal_comma.txt",
			want: []DDResult{{8388608, 0.0117355, "715 MB/s"}}},
		{name: "status=progress lines skipped", file: "dd_gnu9.1_status_progress.txt",
			want: []DDResult{{36864000, 3.66058, "10.1 MB/s"}}},
		{name: "partial read warning is no error", file: "dd_gnu9.1_partial_read_warning.txt",
			want: []DDResult{{90112, 0.00026282, "343 MB/s"}}},
		{name: "one unit", data: "512 bytes copied, 0.0001 s, 5.1 MB/s\n",
			want: []DDResult{{512, 0.0001, "5.1 MB/s"}}},
		{name: "decimal comma", data: "1073741824 bytes (1,1 GB, 1,0 GiB) copied, 1,94133 s, 553 MB/s",
			want: []DDResult{{1073741824, 1.94133, "553 MB/s"}}},
		{name: "BusyBox", data: "10240+0 records in\n10240+0 records out\n83886080 bytes (80.0MB) copied, 3.084522 seconds, 25.9MB/s\n",
			want: []DDResult{{83886080, 3.084522, "25.9MB/s"}}},
		{name: "CRLF and two runs", data: "1+0 records in\r\n1+0 records out\r\n512 bytes copied, 0.5 s, 1.0 kB/s\r\n" +
			"2147479552 bytes (2.1 GB) copied, 11.6774 s, 184 MB/s\r\n",
			want: []DDResult{{512, 0.5, "1.0 kB/s"}, {2147479552, 11.6774, "184 MB/s"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if tt.file != "" {
				data = readInput(t, tt.file)
			}
			got, err := ParseDD(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseDDLocales reads the summaries of the same dd read run in the 41
// locales coreutils 9.1 has translations for: words, word order, decimal
// commas and full-width commas differ.
func TestParseDDLocales(t *testing.T) {
	got, err := ParseDD(readInput(t, "dd_gnu9.1_read_8MiB_41_locales.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 41 {
		t.Fatalf("got %d results, want 41", len(got))
	}
	for i, r := range got {
		if r.Bytes != 8388608 || r.Seconds <= 0 || r.Seconds > 0.01 {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	want := []DDResult{
		{8388608, 0.00131481, "6,4 GB/s"}, // uk_UA: "скопійовано 8388608 байтів (...), 0,00131481 s, ..."
		{8388608, 0.00114625, "7.3 GB/s"}, // zh_CN: "... 已复制，0.00114625 s，7.3 GB/s"
	}
	if diff := cmp.Diff(want, []DDResult{got[37], got[39]}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseDDErrors(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		data     string
		want     []DDResult
		wantLine string // the DDError's line; empty: another error
		wantIs   error
	}{
		{name: "ENOSPC", file: "dd_gnu9.1_dev_full_enospc.txt",
			want:     []DDResult{{0, 0.00024614, "0.0 kB/s"}},
			wantLine: "dd: error writing '/dev/full': No space left on device"},
		{name: "invoked as /usr/bin/dd", file: "dd_gnu9.1_usr_bin_dd_enospc.txt",
			want:     []DDResult{{0, 5.657e-05, "0.0 kB/s"}},
			wantLine: "/usr/bin/dd: error writing '/dev/full': No space left on device"},
		{name: "open failed", data: "dd: failed to open '/data/0/x': Permission denied\n",
			wantLine: "dd: failed to open '/data/0/x': Permission denied"},
		{name: "empty", wantIs: results.ErrNoSamples},
		{name: "no summary", data: "0+0 records in\n0+0 records out\n", wantIs: results.ErrNoSamples},
		{name: "bytes overflow", data: "99999999999999999999 bytes copied, 1 s, 1 B/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if tt.file != "" {
				data = readInput(t, tt.file)
			}
			got, err := ParseDD(data)
			if err == nil {
				t.Fatalf("no error; results %+v", got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			var ddErr *DDError
			switch {
			case tt.wantLine != "":
				if !errors.As(err, &ddErr) || ddErr.Line != tt.wantLine {
					t.Errorf("error %v, want a DDError of %q", err, tt.wantLine)
				}
				if !strings.Contains(err.Error(), `"`+tt.wantLine+`"`) {
					t.Errorf("error %q does not quote the line", err)
				}
			case tt.wantIs != nil:
				if !errors.Is(err, tt.wantIs) {
					t.Errorf("error %v, want %v", err, tt.wantIs)
				}
			case errors.As(err, &ddErr):
				t.Errorf("error %v, want no DDError", err)
			}
		})
	}
}

func TestDDSamples(t *testing.T) {
	labels := map[string]string{"tool": "dd"}
	r := DDResult{Bytes: 1073741824, Seconds: 1.94133, ReportedRate: "553 MB/s"}
	tests := []struct {
		name      string
		r         DDResult
		direction string
		want      []results.Sample
	}{
		{name: "write", r: r, direction: "write", want: []results.Sample{
			{Test: "t", Metric: "write_bw", Value: 1073741824 / 1.94133 / mib, Unit: "MiB/s", Labels: labels},
			{Test: "t", Metric: "write_bytes", Value: 1073741824, Unit: "B", Labels: labels},
			{Test: "t", Metric: "write_seconds", Value: 1.94133, Unit: "s", Labels: labels},
		}},
		{name: "no direction", r: r, want: []results.Sample{
			{Test: "t", Metric: "bw", Value: 1073741824 / 1.94133 / mib, Unit: "MiB/s", Labels: labels},
			{Test: "t", Metric: "bytes", Value: 1073741824, Unit: "B", Labels: labels},
			{Test: "t", Metric: "seconds", Value: 1.94133, Unit: "s", Labels: labels},
		}},
		{name: "zero seconds: no bw", r: DDResult{Bytes: 0, Seconds: 0}, direction: "read", want: []results.Sample{
			{Test: "t", Metric: "read_bytes", Value: 0, Unit: "B", Labels: labels},
			{Test: "t", Metric: "read_seconds", Value: 0, Unit: "s", Labels: labels},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DDSamples(tt.r, "t", tt.direction), approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
