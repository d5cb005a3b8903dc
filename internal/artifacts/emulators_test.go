package artifacts

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchwright/benchwright/test/util"
)

// emulators runs hack/emulators.sh once, which builds (or finds cached) the
// emulator binaries and prints KEY=path lines.
var emulators = sync.OnceValues(func() (map[string]string, error) {
	cmd := exec.Command(filepath.Join("..", "..", "hack", "emulators.sh"))
	cmd.Stderr = os.Stderr // progress of a cold build
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("hack/emulators.sh: %w", err)
	}
	bins := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			bins[k] = v
		}
	}
	return bins, nil
})

// emulator returns the path of an emulator binary. Without one the test fails
// on CI (CI set) and is skipped elsewhere.
func emulator(t *testing.T, key string) string {
	t.Helper()
	bins, err := emulators()
	if err == nil && bins[key] == "" {
		err = fmt.Errorf("hack/emulators.sh printed no %s", key)
	}
	if err == nil {
		if _, err = os.Stat(bins[key]); err == nil {
			return bins[key]
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("emulator %s: %v", key, err)
	}
	t.Skipf("emulator %s unavailable: %v", key, err)
	return ""
}

// freeAddr returns a 127.0.0.1 address with a port free at the time of the call.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// serve starts a server, kills it when the test ends and waits until GET
// readyURL answers 200. The server's output is logged if the test failed.
func serve(t *testing.T, name string, env []string, readyURL string, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})

	client := &http.Client{Timeout: time.Second}
	util.WaitFor(t, 60*time.Second, name+" ready at "+readyURL, func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("%s exited before it was ready", name)
		default:
		}
		resp, err := client.Get(readyURL)
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
}

// startFakeGCS starts fake-gcs-server in memory and points gcsblob at it
// through STORAGE_EMULATOR_HOST. It returns the address.
func startFakeGCS(t *testing.T) string {
	t.Helper()
	bin := emulator(t, "FAKE_GCS_SERVER")
	addr := freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	serve(t, "fake-gcs-server", nil, "http://"+addr+"/storage/v1/b", bin,
		"-scheme", "http", "-host", host, "-port", port, "-backend", "memory",
		"-external-url", "http://"+addr, "-public-host", addr, "-log-level", "warn")
	t.Setenv("STORAGE_EMULATOR_HOST", addr)
	return addr
}

// MinIO's root credentials, which the tests pass to s3blob as AWS credentials.
const (
	minioUser     = "benchwright"
	minioPassword = "benchwright-secret"
)

// startMinIO starts MinIO on a temporary directory and sets the AWS
// environment s3blob reads. It returns the address. (MinIO also listens on
// [::1] at the same port, whatever --address says.)
func startMinIO(t *testing.T) string {
	t.Helper()
	bin := emulator(t, "MINIO")
	addr, console, dir := freeAddr(t), freeAddr(t), t.TempDir()
	env := []string{
		"MINIO_ROOT_USER=" + minioUser, "MINIO_ROOT_PASSWORD=" + minioPassword,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off",
	}
	serve(t, "minio", env, "http://"+addr+"/minio/health/live", bin,
		"server", filepath.Join(dir, "data"), "--address", addr, "--console-address", console,
		"--certs-dir", filepath.Join(dir, "certs"), "--quiet")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           minioUser,
		"AWS_SECRET_ACCESS_KEY":       minioPassword,
		"AWS_CONFIG_FILE":             filepath.Join(dir, "aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	return addr
}
