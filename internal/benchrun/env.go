package benchrun

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/podlogs"
	"github.com/benchwright/benchwright/internal/resultsdb"
	"github.com/benchwright/benchwright/internal/runstore"
)

// Env is what every benchmark reconciler takes from the manager.
type Env struct {
	client.Client
	// APIReader reads around the cache (see Kit).
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  record.EventRecorder
	// Logs reads the tools' output from finished pods.
	Logs podlogs.LogReader
	// Store keeps raw logs, samples and summaries.
	Store *artifacts.Store
	// ResultsDB indexes each succeeded run for its history (nil: none).
	ResultsDB *resultsdb.DB
	// Clock is the time (time.Now when nil).
	Clock func() time.Time
	// NodeFactsImage is the manager's image: its /benchwright runs the
	// node-facts step of every benchmark pod (children.NodeFactsStep).
	// Empty: the pods have no such step and nodes.json no facts.
	NodeFactsImage string
	// Workers is how many benchmarks of the kind reconcile at once (1 when 0).
	Workers int
	// collectWake wakes a benchmark of the kind whose turn to collect came
	// (set by Controller).
	collectWake chan event.GenericEvent
}

// Now is the reconciler's time.
func (e *Env) Now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

// Kit creates and checks children, reading around the cache when an
// APIReader is set.
func (e *Env) Kit() children.Kit { return children.NewKit(e.Client, e.APIReader, e.Scheme) }

// Run is a benchmark's place in the artifact store; started is its
// status.startTime (now when not set yet).
func (e *Env) Run(obj metav1.Object, kind string, started *metav1.Time) runstore.Run {
	start := e.Now()
	if started != nil {
		start = started.Time
	}
	return runstore.Run{
		Store:    e.Store,
		Location: artifacts.Location{Namespace: obj.GetNamespace(), Kind: kind, Name: obj.GetName(), UID: string(obj.GetUID())},
		Started:  start, Finished: e.Now(),
		Labels: obj.GetLabels(),
	}
}

// NewEnv takes a reconciler's clients, scheme and event recorder (named
// controller) from the manager.
func NewEnv(mgr manager.Manager, controller string, logs podlogs.LogReader, store *artifacts.Store) Env {
	return Env{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorderFor(controller), Logs: logs, Store: store,
	}
}
