package podlogs

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
	"github.com/benchwright/benchwright/test/wrappers"
)

// countingLog serves one log and counts the reads.
type countingLog struct {
	log   []byte
	reads int
}

func (c *countingLog) ReadLog(context.Context, string, string, string) ([]byte, error) {
	c.reads++
	return c.log, nil
}

var capPod = wrappers.MakePod("fio-r0-n0-x", "ns").NodeName("node-a").Obj()

// A log over MaxLogBytes fails OutputTooLarge, naming the cap and quoting the
// log's end; one at the cap is read.
func TestReadOutputCapped(t *testing.T) {
	huge := append(bytes.Repeat([]byte("{\"jobname\": \"x\"},\n"), MaxLogBytes/18), "fio: the last words\n"...)
	_, err := ReadOutput(context.Background(), &countingLog{log: huge}, capPod, "fio")
	var oe *outcome.Outcome
	if !errors.As(err, &oe) || oe.Reason != benchv1.ReasonOutputTooLarge {
		t.Fatalf("a %d-byte log: %v, want an OutputTooLarge outcome", len(huge), err)
	}
	for _, want := range []string{"container fio is over", "over the 16 MiB", "MaxLogBytes", "last lines of the output:", "fio: the last words"} {
		if !strings.Contains(oe.Message, want) {
			t.Errorf("message %q does not say %q", oe.Message, want)
		}
	}
	if len(oe.Message) > 4096 {
		t.Errorf("message of %d bytes: a condition quotes the tail only", len(oe.Message))
	}
	if log, err := ReadOutput(context.Background(), &countingLog{log: huge[:MaxLogBytes]}, capPod, "fio"); err != nil || len(log) != MaxLogBytes {
		t.Errorf("a log of MaxLogBytes: %d bytes, %v", len(log), err)
	}
	if q := Quote(nil, &LogTooLargeError{Tail: []byte("fio: pread failed\n")}); !strings.Contains(q, "over the 16 MiB") || !strings.Contains(q, "fio: pread failed") {
		t.Errorf("Quote of a log over the cap: %q", q)
	}
}

// The API reader asks for one byte over the cap, and for a log over it, its
// last lines: never the whole log.
func TestAPILogReaderCapped(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		asked = append(asked, r.URL.Path+"?"+q.Encode())
		if q.Get("tailLines") != "" {
			_, _ = w.Write([]byte("progress 99%\nfio: the last words\n"))
			return
		}
		limit, _ := strconv.Atoi(q.Get("limitBytes"))
		_, _ = w.Write(bytes.Repeat([]byte("x"), min(limit, 20<<20))) // a 20 MiB log, as the kubelet limits it
	}))
	defer srv.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = APILogReader{Client: cs.CoreV1()}.ReadLog(context.Background(), "ns", "p", "fio")
	var tl *LogTooLargeError
	if !errors.As(err, &tl) || string(tl.Tail) != "progress 99%\nfio: the last words\n" {
		t.Fatalf("error %v, want a LogTooLargeError with the log's last lines", err)
	}
	want := []string{
		"/api/v1/namespaces/ns/pods/p/log?container=fio&limitBytes=16777217",
		"/api/v1/namespaces/ns/pods/p/log?container=fio&limitBytes=65536&tailLines=15",
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Errorf("asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
}
