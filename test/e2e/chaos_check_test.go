//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	mpiv2 "github.com/kubeflow/mpi-operator/pkg/apis/kubeflow/v2beta1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/results"
)

// chaosCounts are what checkChaos found wrong, by kind of fault.
type chaosCounts struct {
	repetitions int
	// duplicates: a child created twice, a repetition stored or completed
	// twice, a benchmark that Succeeded twice.
	duplicates int
	// lost: a repetition missing from the status or the store, a benchmark
	// that did not succeed.
	lost int
	// leaked: children whose owner is gone or that belong to no repetition
	// the benchmark ran.
	leaked int
	// retries: attempts beyond the first (nothing is evicted here).
	retries int
	// overlaps: benchmarks of one pool that ran at once.
	overlaps int
	// stray: files in a run's directory of the store that are no object
	// of it.
	stray int
}

// childKey is one child of a repetition: its benchmark, repetition, attempt
// and node slot.
type childKey struct {
	bench              string
	rep, attempt, slot int
}

// checkChaos checks the end state of the chaos test's benchmarks: errors for
// what is wrong, and their counts.
func checkChaos(t *testing.T, ns string, benches []benchmark, apiDown window) chaosCounts {
	t.Helper()
	ctx := context.Background()
	var c chaosCounts
	created := auditCreates(t, ns)

	// The children that exist now, by name.
	var jobs batchv1.JobList
	var mpiJobs mpiv2.MPIJobList
	if err := k8s.List(ctx, &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := k8s.List(ctx, &mpiJobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	kept := map[string]childKey{}      // "jobs/<name>", "mpijobs/<name>"
	keptAt := map[string]metav1.Time{} // their creationTimestamp
	for i := range jobs.Items {
		j := &jobs.Items[i]
		if j.Labels[benchv1.KindLabel] == "StorageBenchmark" {
			kept["jobs/"+j.Name] = keyOf(j, j.Labels[benchv1.BenchmarkLabel])
			keptAt["jobs/"+j.Name] = j.CreationTimestamp
		}
	}
	for i := range mpiJobs.Items {
		j := &mpiJobs.Items[i]
		kept["mpijobs/"+j.Name] = keyOf(j, j.Labels[benchv1.BenchmarkLabel])
		keptAt["mpijobs/"+j.Name] = j.CreationTimestamp
	}
	// Every create the manager made of a Job or MPIJob: once each.
	attempts := map[string]map[int]map[int]bool{} // bench -> rep -> attempts
	for name, n := range created {
		k, ok := kept[name]
		if !ok {
			t.Errorf("%s was created %d time(s) and is gone", name, n)
			c.lost++
			continue
		}
		if n > 1 {
			t.Errorf("%s (%s repetition %d attempt %d) was created %d times", name, k.bench, k.rep+1, k.attempt, n)
			c.duplicates += n - 1
		}
		addAttempt(attempts, k)
	}
	for name, k := range kept {
		switch {
		case created[name] > 0:
		case apiDown.holds(keptAt[name].Time):
			// kube-apiserver stored it and was stopped before it logged
			// the response: created once all the same.
			t.Logf("%s was created at %s, as kube-apiserver stopped: its create is not in the audit log", name, keptAt[name].Format(time.TimeOnly))
			addAttempt(attempts, k)
		default:
			t.Errorf("%s exists but its create is not in the audit log", name)
		}
	}

	events := benchEvents(t, ns)
	for _, bench := range benches {
		b := bench.object()
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(b), b); err != nil {
			t.Fatal(err)
		}
		kind, reps := "StorageBenchmark", 0
		switch x := bench.(type) {
		case storageBench:
			reps = int(x.Spec.Repetitions)
		case mpiBench:
			kind, reps = "MPIBenchmark", int(x.Spec.Repetitions)
		}
		st := bench.common()
		c.repetitions += reps
		id := kind + " " + b.GetName()
		if !meta.IsStatusConditionTrue(st.Conditions, benchv1.ConditionSucceeded) {
			t.Errorf("%s did not succeed: state %s, conditions %s", id, st.State, conditions(st.Conditions))
			c.lost += reps - int(st.CompletedRepetitions)
			continue
		}
		if int(st.CompletedRepetitions) != reps {
			t.Errorf("%s: completedRepetitions %d, want %d", id, st.CompletedRepetitions, reps)
			c.lost += max(reps-int(st.CompletedRepetitions), 0)
			c.duplicates += max(int(st.CompletedRepetitions)-reps, 0)
		}
		if n := events[eventKey{b.GetName(), "Succeeded", ""}]; n > 1 {
			t.Errorf("%s: %d Succeeded events", id, n)
			c.duplicates += n - 1
		}
		for rep := range reps {
			msg := fmt.Sprintf("Repetition %d/%d completed", rep+1, reps)
			if n := events[eventKey{b.GetName(), "RepetitionCompleted", msg}]; n > 1 {
				t.Errorf("%s: %d events %q", id, n, msg)
				c.duplicates += n - 1
			}
			as := attempts[b.GetName()][rep]
			if len(as) == 0 {
				t.Errorf("%s: repetition %d/%d: no Job or MPIJob was created", id, rep+1, reps)
				c.lost++
			}
			c.retries += max(len(as)-1, 0)
		}
		for k := range attempts[b.GetName()] {
			if k >= reps {
				t.Errorf("%s: a child of repetition %d of %d", id, k+1, reps)
				c.leaked++
			}
		}
		checkStored(t, &c, bench, kind, id, reps)
	}
	c.leaked += checkOwners(t, ns)
	c.overlaps = checkPoolTurns(t, benches, jobs.Items, mpiJobs.Items)
	return c
}

// checkPoolTurns checks that the benchmarks of a pool ran one at a time:
// from the creation of a benchmark's first child to the completion of its
// last, no other benchmark of the pool had a child (at the API server's
// one-second resolution). It returns the overlaps found.
func checkPoolTurns(t *testing.T, benches []benchmark, jobs []batchv1.Job, mpiJobs []mpiv2.MPIJob) int {
	t.Helper()
	type span struct {
		name       string
		start, end time.Time
	}
	spans := map[string]*span{}
	add := func(bench string, created metav1.Time, done *metav1.Time) {
		s := spans[bench]
		if s == nil {
			s = &span{name: bench, start: created.Time}
			spans[bench] = s
		}
		if created.Before(&metav1.Time{Time: s.start}) {
			s.start = created.Time
		}
		if done != nil && done.After(s.end) {
			s.end = done.Time
		}
	}
	for _, j := range jobs {
		if j.Labels[benchv1.KindLabel] == "StorageBenchmark" {
			add(j.Labels[benchv1.BenchmarkLabel], j.CreationTimestamp, j.Status.CompletionTime)
		}
	}
	for _, j := range mpiJobs {
		add(j.Labels[benchv1.BenchmarkLabel], j.CreationTimestamp, j.Status.CompletionTime)
	}
	byPool := map[string][]*span{}
	for _, b := range benches {
		pool := ""
		switch x := b.(type) {
		case storageBench:
			pool = string(x.Spec.Pool)
		case mpiBench:
			pool = string(x.Spec.Pool)
		}
		if s := spans[b.object().GetName()]; pool != "" && s != nil {
			byPool[pool] = append(byPool[pool], s)
		}
	}
	overlaps := 0
	for pool, ss := range byPool {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start.Before(ss[j].start) })
		for i := 1; i < len(ss); i++ {
			if prev := ss[i-1]; ss[i].start.Before(prev.end) {
				t.Errorf("pool %s: %s started at %s, before %s ended at %s", pool, ss[i].name, ss[i].start.Format(time.TimeOnly), prev.name, prev.end.Format(time.TimeOnly))
				overlaps++
			}
		}
	}
	return overlaps
}

// window is a span of time.
type window struct{ from, to time.Time }

// holds tells whether t, at the API server's one-second resolution, may
// fall within the window.
func (w window) holds(t time.Time) bool {
	return !w.from.IsZero() && !t.Before(w.from.Truncate(time.Second)) && !t.After(w.to)
}

func addAttempt(attempts map[string]map[int]map[int]bool, k childKey) {
	if attempts[k.bench] == nil {
		attempts[k.bench] = map[int]map[int]bool{}
	}
	if attempts[k.bench][k.rep] == nil {
		attempts[k.bench][k.rep] = map[int]bool{}
	}
	attempts[k.bench][k.rep][k.attempt] = true
}

func keyOf(obj metav1.Object, bench string) childKey {
	return childKey{bench: bench, rep: children.LabelInt(obj, benchv1.RepetitionLabel),
		attempt: children.LabelInt(obj, children.AttemptLabel), slot: children.LabelInt(obj, children.SlotLabel)}
}

// auditCreates counts, from the API server's audit log, the Jobs and
// MPIJobs of ns the manager created ("jobs/<name>" -> creates that
// succeeded).
func auditCreates(t *testing.T, ns string) map[string]int {
	t.Helper()
	f, err := os.Open(env["AUDIT_LOG"])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		var e struct {
			Stage, Verb string
			User        struct{ Username string }
			// ImpersonatedUser is the manager's ServiceAccount (the dev
			// cluster's manager impersonates it).
			ImpersonatedUser struct{ Username string }
			ObjectRef        struct{ Resource, Namespace, Name string }
			// ResponseStatus.Code is 201 for a create that made the object.
			ResponseStatus struct{ Code int }
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log %s: %v", env["AUDIT_LOG"], err)
		}
		r := e.ObjectRef
		if e.Stage != "ResponseComplete" || e.Verb != "create" || r.Namespace != ns ||
			e.ImpersonatedUser.Username != env["MANAGER_SERVICE_ACCOUNT"] || (r.Resource != "jobs" && r.Resource != "mpijobs") {
			continue
		}
		if r.Name == "" {
			t.Fatalf("audit log %s: a create of %s names no object", env["AUDIT_LOG"], r.Resource)
		}
		if e.ResponseStatus.Code == 201 {
			out[r.Resource+"/"+r.Name]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type eventKey struct{ object, reason, message string }

// benchEvents counts the events of ns by object, reason and, for
// RepetitionCompleted, the message up to "completed".
func benchEvents(t *testing.T, ns string) map[eventKey]int {
	t.Helper()
	var list corev1.EventList
	if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[eventKey]int{}
	for _, e := range list.Items {
		k := eventKey{object: e.InvolvedObject.Name, reason: e.Reason}
		switch e.Reason {
		case "Succeeded":
		case "RepetitionCompleted":
			k.message, _, _ = strings.Cut(e.Message, " completed")
			k.message += " completed"
		default:
			continue
		}
		n := int(e.Count)
		if e.Series != nil {
			n = max(n, int(e.Series.Count))
		}
		out[k] += max(n, 1)
	}
	return out
}

// checkStored reads the benchmark's run in the file store: each repetition's
// samples once (one attempt, as many samples as the others), its raw logs,
// the summary and the report.
func checkStored(t *testing.T, c *chaosCounts, bench benchmark, kind, id string, reps int) {
	t.Helper()
	b, st := bench.object(), bench.common()
	dir := filepath.Join(artifactDir(t, env["ARTIFACT_STORE"]), b.GetNamespace(), kind, b.GetName(), string(b.GetUID()))
	if want := "file://" + dir + "/"; st.ArtifactURI != want {
		t.Errorf("%s: artifactURI %q, want %q", id, st.ArtifactURI, want)
	}
	// outcome.json: the run succeeded, so the results database indexes it.
	for _, f := range []string{"summary.json", "samples.csv", "nodes.json", "report.html", "outcome.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	c.stray += strayFiles(t, id, dir)
	f, err := os.Open(filepath.Join(dir, "samples.ndjson"))
	if err != nil {
		t.Errorf("%s: %v", id, err)
		c.lost += reps
		return
	}
	defer f.Close()
	perRep := map[int]int{}
	attempts := map[int]map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		var s results.Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: samples.ndjson: %v", id, err)
		}
		perRep[s.Repetition]++
		if attempts[s.Repetition] == nil {
			attempts[s.Repetition] = map[string]bool{}
		}
		attempts[s.Repetition][s.Labels[results.LabelAttempt]] = true
	}
	want := perRep[0]
	for rep := range reps {
		raw, _ := filepath.Glob(filepath.Join(dir, "raw", fmt.Sprint(rep), "*.log"))
		switch {
		case perRep[rep] == 0:
			t.Errorf("%s: repetition %d/%d is not in samples.ndjson", id, rep+1, reps)
			c.lost++
		case len(attempts[rep]) > 1:
			t.Errorf("%s: repetition %d/%d is stored from attempts %v", id, rep+1, reps, keys(attempts[rep]))
			c.duplicates++
		case perRep[rep] != want:
			t.Errorf("%s: repetition %d/%d has %d samples, repetition 1 has %d", id, rep+1, reps, perRep[rep], want)
			c.duplicates++
		case len(raw) == 0:
			t.Errorf("%s: repetition %d/%d has no raw log", id, rep+1, reps)
			c.lost++
		}
	}
	for rep := range perRep {
		if rep < 0 || rep >= reps {
			t.Errorf("%s: samples.ndjson has repetition %d of %d", id, rep+1, reps)
			c.duplicates++
		}
	}
}

// runFile is what a run's directory may hold: the results, the outcome, the
// inputs (job.fio, steps.json), the raw logs and the file store's .attrs
// beside each.
var runFile = regexp.MustCompile(`^((samples\.ndjson|samples\.csv|summary\.json|nodes\.json|report\.html|outcome\.json|job\.fio|steps\.json)|raw/[0-9]+/[^/]+\.log)(\.attrs)?$`)

// strayFiles reports and counts the files of a run's directory that are no
// object the manager stores (a half-written upload's temporary file, say).
func strayFiles(t *testing.T, id, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !runFile.MatchString(filepath.ToSlash(rel)) {
			t.Errorf("%s: stray file %s in the store", id, rel)
			n++
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	return n
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkOwners counts the Jobs, MPIJobs, pods, ConfigMaps and claims of ns
// whose controller is gone (an error each).
func checkOwners(t *testing.T, ns string) int {
	t.Helper()
	ctx := context.Background()
	leaked := 0
	lists := []client.ObjectList{&batchv1.JobList{}, &mpiv2.MPIJobList{}, &corev1.PodList{}, &corev1.ConfigMapList{}, &corev1.PersistentVolumeClaimList{}}
	for _, l := range lists {
		if err := k8s.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			obj := it.(client.Object)
			ref := metav1.GetControllerOf(obj)
			if ref == nil {
				if obj.GetLabels()[benchv1.KindLabel] != "" {
					t.Errorf("%T %s has no controller", obj, obj.GetName())
					leaked++
				}
				continue
			}
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			if err != nil {
				t.Fatal(err)
			}
			owner := &unstructured.Unstructured{}
			owner.SetGroupVersionKind(gv.WithKind(ref.Kind))
			err = k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, owner)
			switch {
			case apierrors.IsNotFound(err) || (err == nil && owner.GetUID() != ref.UID):
				t.Errorf("%T %s: its controller %s %s is gone", obj, obj.GetName(), ref.Kind, ref.Name)
				leaked++
			case err != nil:
				t.Fatal(err)
			}
		}
	}
	return leaked
}
