package artifacts

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hangingUploadEnv makes the test binary, run again by
// TestUploadKilledMidway, upload to the file store at its value and never
// finish.
const hangingUploadEnv = "ARTIFACTS_TEST_HANGING_UPLOAD"

func init() {
	dir := os.Getenv(hangingUploadEnv)
	if dir == "" {
		return
	}
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		panic(err)
	}
	// Half a file, then nothing: the upload waits to be killed.
	_ = s.PutReader(context.Background(), "ns/Kind/name/uid/samples.ndjson", &halfThenHang{}, "application/x-ndjson")
	os.Exit(1)
}

type halfThenHang struct{ sent bool }

func (h *halfThenHang) Read(p []byte) (int, error) {
	if !h.sent {
		h.sent = true
		return copy(p, `{"repetition":1}`+"\n"), nil
	}
	select {}
}

// A manager killed while it uploads to a file:// store leaves the upload's
// temporary file beside the object: List must not take it for an object,
// and RemovePartial clears it, leaving the objects as they were.
func TestUploadKilledMidway(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, "file://"+dir)
	ctx := testContext(t)
	const key = "ns/Kind/name/uid/samples.ndjson"
	if err := s.Put(ctx, key, []byte(`{"repetition":0}`+"\n"), "application/x-ndjson"); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hangingUploadEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "ns", "Kind", "name", "uid")
	var partial []string
	for deadline := time.Now().Add(20 * time.Second); len(partial) == 0; {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the upload made no temporary file")
		}
		time.Sleep(10 * time.Millisecond)
		partial, _ = filepath.Glob(filepath.Join(runDir, "samples.ndjson.*"))
		partial = nonAttrs(partial)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	t.Logf("the killed upload left %s", filepath.Base(partial[0]))

	keys, err := s.List(ctx, "ns/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{key}, keys); diff != "" {
		t.Errorf("List after a killed upload (-want +got):\n%s", diff)
	}
	if err := s.RemovePartial("ns/Kind/name/uid/"); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(runDir, "*"))
	if diff := cmp.Diff([]string{filepath.Join(runDir, "samples.ndjson"), filepath.Join(runDir, "samples.ndjson.attrs")}, left); diff != "" {
		t.Errorf("files after RemovePartial (-want +got):\n%s", diff)
	}
	if data, err := s.Get(ctx, key); err != nil || string(data) != `{"repetition":0}`+"\n" {
		t.Errorf("the object after RemovePartial: %q, %v; want what it held before", data, err)
	}
	if err := s.RemovePartial("ns/Other/"); err != nil {
		t.Errorf("RemovePartial of a prefix with nothing: %v", err)
	}
}

func nonAttrs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".attrs") {
			out = append(out, p)
		}
	}
	return out
}
