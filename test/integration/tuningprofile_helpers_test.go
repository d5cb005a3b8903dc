package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/controllers/tuningprofile"
	"github.com/benchwright/benchwright/internal/artifacts"
	"github.com/benchwright/benchwright/internal/tuning"
	"github.com/benchwright/benchwright/test/util"
	"github.com/benchwright/benchwright/test/wrappers"
)

// tuningEnv is one test's namespace (where the tuner DaemonSets go), the
// TuningProfile controller, and tunerNodes standing in for the DaemonSet
// controller and the nodes' kubelets.
type tuningEnv struct {
	ns    string
	nodes *tunerNodes
}

func newTuningEnv(t *testing.T) *tuningEnv {
	t.Helper()
	ns := testNamespace(t, "tp-")
	e := &tuningEnv{ns: ns, nodes: &tunerNodes{t: t, ns: ns, roots: map[string]string{}, logs: map[string][]byte{}}}
	startController(t, ns, func(mgr ctrl.Manager, store *artifacts.Store) error {
		return (&tuningprofile.Reconciler{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
			Recorder: mgr.GetEventRecorderFor("tuningprofile-controller"), Logs: e.nodes,
			Image: "registry.example/tuner:test", Namespace: ns, Poll: 200 * time.Millisecond,
		}).SetupWithManager(mgr)
	}, e.nodes.run)
	return e
}

// tunerNodes plays the DaemonSet controller and the kubelet: for each tuner
// DaemonSet it creates a pod on every matching Node object, runs the real
// tuner logic (tuning.Apply, or tuning.Restore when the settings say
// restore) against a temporary root of that node, and serves the report line
// as the pod's log. A pod whose template is outdated, whose node no longer
// matches or whose DaemonSet is gone is terminated the way the tuner handles
// SIGTERM: tuning.Restore, then the pod goes. A node that is down does
// neither.
type tunerNodes struct {
	t  *testing.T
	ns string

	mu    sync.Mutex
	roots map[string]string // node -> its /proc/sys and /sys
	logs  map[string][]byte // pod -> log
	down  map[string]bool   // nodes whose kubelet neither starts nor stops pods
}

// setDown stops or starts a node's kubelet.
func (k *tunerNodes) setDown(node string, down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down == nil {
		k.down = map[string]bool{}
	}
	k.down[node] = down
}

func (k *tunerNodes) isDown(node string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.down[node]
}

// freshNode are a node's values before tuning, by path under its root.
var freshNode = map[string]string{
	"proc/sys/net/core/busy_poll":                          "0\n",
	"proc/sys/net/core/busy_read":                          "0\n",
	"proc/sys/net/ipv4/tcp_fastopen":                       "1\n",
	"proc/sys/net/ipv4/tcp_rmem":                           "4096\t131072\t6291456\n",
	"proc/sys/net/ipv4/tcp_wmem":                           "4096\t16384\t4194304\n",
	"proc/sys/kernel/numa_balancing":                       "1\n",
	"proc/sys/kernel/hung_task_timeout_secs":               "120\n",
	"proc/sys/kernel/nmi_watchdog":                         "1\n",
	"proc/sys/kernel/timer_migration":                      "1\n",
	"proc/sys/kernel/panic":                                "0\n",
	"proc/sys/vm/stat_interval":                            "1\n",
	"proc/sys/vm/swappiness":                               "60\n",
	"proc/sys/vm/panic_on_oom":                             "0\n",
	"proc/sys/vm/dirty_ratio":                              "20\n",
	"proc/sys/vm/dirty_background_ratio":                   "10\n",
	"sys/kernel/mm/transparent_hugepage/enabled":           "always [madvise] never\n",
	"sys/devices/system/cpu/smt/control":                   "on\n",
	"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "powersave\n",
	"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "powersave\n",
}

// addNode creates a Node object and its fresh root; breakSwappiness makes
// vm.swappiness a file that keeps nothing written to it.
func (k *tunerNodes) addNode(t *testing.T, name string, labels map[string]string, taints []corev1.Taint, breakSwappiness bool) {
	t.Helper()
	root := t.TempDir()
	for rel, v := range freshNode {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k.mu.Lock()
	k.roots[name] = root
	k.mu.Unlock()
	if breakSwappiness {
		k.breakFile(t, name, "proc/sys/vm/swappiness")
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
	if err := k8sClient.Create(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), n) })
}

// breakFile makes a node's setting a file that keeps nothing written to it.
func (k *tunerNodes) breakFile(t *testing.T, node, rel string) {
	t.Helper()
	p := filepath.Join(k.root(node), rel)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, p); err != nil {
		t.Fatal(err)
	}
}

// mendFile makes a broken setting a plain file again, holding v.
func (k *tunerNodes) mendFile(t *testing.T, node, rel, v string) {
	t.Helper()
	p := filepath.Join(k.root(node), rel)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// value is a node's setting as the tuner reads it.
func (k *tunerNodes) value(t *testing.T, node, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(k.root(node), rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// untouched fails unless every file of the node holds its fresh value.
func (k *tunerNodes) untouched(t *testing.T, node string) {
	t.Helper()
	for rel, v := range freshNode {
		got, want := k.value(t, node, rel), strings.Join(strings.Fields(v), " ")
		if strings.HasSuffix(rel, "transparent_hugepage/enabled") && got == "madvise" {
			continue // written back as the bracketed choice alone
		}
		if got != want {
			t.Errorf("node %s: %s = %q, want its original %q", node, rel, got, want)
		}
	}
}

func (k *tunerNodes) root(node string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.roots[node]
}

// ReadLog serves what the tuner printed, like pods/log.
func (k *tunerNodes) ReadLog(_ context.Context, namespace, pod, container string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	out, ok := k.logs[pod]
	if !ok || namespace != k.ns || container != "tuner" {
		return nil, fmt.Errorf("pods %q not found or container %q has no log", pod, container)
	}
	return out, nil
}

// ReadLogTail serves the last lines, like pods/log?tailLines.
func (k *tunerNodes) ReadLogTail(ctx context.Context, namespace, pod, container string, lines int64) ([]byte, error) {
	out, err := k.ReadLog(ctx, namespace, pod, container)
	if err != nil {
		return nil, err
	}
	all := bytes.SplitAfter(out, []byte("\n"))
	if int64(len(all)) > lines {
		all = all[int64(len(all))-lines:]
	}
	return bytes.Join(all, nil), nil
}

func (k *tunerNodes) run(ctx context.Context) {
	for ctx.Err() == nil {
		k.sync(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

const templateHashAnnotation = "test.benchwright.io/template-hash"

// sync is one pass of the DaemonSet controller and the kubelets.
func (k *tunerNodes) sync(ctx context.Context) {
	var dss appsv1.DaemonSetList
	var pods corev1.PodList
	var nodes corev1.NodeList
	if k8sClient.List(ctx, &dss, client.InNamespace(k.ns)) != nil || k8sClient.List(ctx, &pods, client.InNamespace(k.ns)) != nil ||
		k8sClient.List(ctx, &nodes) != nil {
		return
	}
	wanted := map[string]bool{} // pod names the DaemonSets want now
	for i := range dss.Items {
		ds := &dss.Items[i]
		if !ds.DeletionTimestamp.IsZero() {
			continue
		}
		for j := range nodes.Items {
			if n := &nodes.Items[j]; schedulable(ds, n) {
				name := podName(ds, n.Name)
				wanted[name] = true
				if !exists(pods.Items, name) && !k.isDown(n.Name) {
					k.start(ctx, ds, n.Name, name)
				}
			}
		}
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		switch {
		case k.isDown(p.Spec.NodeName):
		case !wanted[p.Name]:
			k.terminate(ctx, p)
		case restoring(p) && !k.restoredLast(p.Name):
			k.restore(p) // the restoring tuner tries again every interval
		}
	}
}

// restoring tells a pod of a deleted profile's tuner (the settings say restore).
func restoring(p *corev1.Pod) bool { return p.Annotations[restoreAnnotation] == "true" }

const restoreAnnotation = "test.benchwright.io/restore"

// restoredLast tells whether the pod's last report is a clean "restored".
func (k *tunerNodes) restoredLast(pod string) bool {
	k.mu.Lock()
	log := k.logs[pod]
	k.mu.Unlock()
	r, err := tuning.ParseReports(log)
	return err == nil && r.Phase == tuning.PhaseRestored && r.Error == ""
}

// restore is one pass of a restoring tuner: it takes over whatever
// originals the profile's earlier tuners left on the node.
func (k *tunerNodes) restore(p *corev1.Pod) {
	c := p.Spec.Containers[0]
	profile := argValue(c.Args, "--profile")
	gen, _ := strconv.ParseInt(argValue(c.Args, "--generation"), 10, 64)
	sf := k.stateFile(p.Spec.NodeName, profile, "")
	rep, _ := tuning.Restore(k.host(p.Spec.NodeName), sf)
	k.print(p.Name, p.Spec.NodeName, profile, gen, rep)
}

// schedulable: the node matches the pod template's selector and its taints
// are tolerated, as the DaemonSet controller decides. The nodes count as
// Ready: the API server's node.kubernetes.io/not-ready taint, which a node
// lifecycle controller would lift, is passed over.
func schedulable(ds *appsv1.DaemonSet, n *corev1.Node) bool {
	spec := &ds.Spec.Template.Spec
	for key, v := range spec.NodeSelector {
		if n.Labels[key] != v {
			return false
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil &&
		!matchesTerms(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, n.Labels) {
		return false
	}
	for i := range n.Spec.Taints {
		taint := &n.Spec.Taints[i]
		ok := taint.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(taint.Key, "node.kubernetes.io/")
		for _, tol := range ds.Spec.Template.Spec.Tolerations {
			ok = ok || tol.ToleratesTaint(taint)
		}
		if !ok {
			return false
		}
	}
	return true
}

// matchesTerms is the scheduler's required node affinity on labels: any
// term, every expression of it.
func matchesTerms(terms []corev1.NodeSelectorTerm, labels map[string]string) bool {
	for _, term := range terms {
		ok := true
		for _, e := range term.MatchExpressions {
			v, has := labels[e.Key]
			switch e.Operator {
			case corev1.NodeSelectorOpIn:
				ok = ok && has && slices.Contains(e.Values, v)
			case corev1.NodeSelectorOpNotIn:
				ok = ok && !slices.Contains(e.Values, v)
			case corev1.NodeSelectorOpExists:
				ok = ok && has
			case corev1.NodeSelectorOpDoesNotExist:
				ok = ok && !has
			default:
				ok = false // Gt, Lt: not used by the tuner
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// podName is unique per DaemonSet, node and template: a new template is a
// new pod.
func podName(ds *appsv1.DaemonSet, node string) string {
	return ds.Name + "-" + node + "-" + templateHash(ds)[:6]
}

func templateHash(ds *appsv1.DaemonSet) string {
	b, _ := json.Marshal(ds.Spec.Template)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func exists(pods []corev1.Pod, name string) bool {
	for i := range pods {
		if pods[i].Name == name {
			return true
		}
	}
	return false
}

// start creates the pod on the node, runs the tuner's Apply with the pod's
// settings and arguments, records its report as the log, and marks the pod
// Running.
func (k *tunerNodes) start(ctx context.Context, ds *appsv1.DaemonSet, node, name string) {
	c := ds.Spec.Template.Spec.Containers[0]
	generation := argValue(c.Args, "--generation")
	profile := argValue(c.Args, "--profile")
	cfg, err := k.settings(ctx, ds)
	if err != nil || strconv.FormatInt(cfg.Generation, 10) != generation {
		return // the ConfigMap is not there yet: the real tuner waits too
	}
	pod := wrappers.MakePod(name, k.ns).Labels(ds.Spec.Template.Labels).
		Annotations(map[string]string{templateHashAnnotation: templateHash(ds), restoreAnnotation: strconv.FormatBool(cfg.Restore)}).
		Annotations(ds.Spec.Template.Annotations).
		ControlledBy(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")).Spec(ds.Spec.Template.Spec).NodeName(node).Obj()
	if err := k8sClient.Create(ctx, pod); err != nil {
		k.report(ctx, "creating tuner pod %s: %v", name, err)
		return
	}
	if cfg.Restore {
		k.restore(pod)
	} else {
		rep, err := tuning.Apply(k.host(node), k.stateFile(node, profile, name), cfg.Settings, cfg.AllowUnlistedSysctls)
		if err != nil {
			k.report(ctx, "tuner on %s: %v", node, err)
		}
		k.print(name, node, profile, cfg.Generation, rep)
	}
	start := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start, ContainerStatuses: []corev1.ContainerStatus{{
		Name: c.Name, Image: c.Image, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
	}}}
	k.report(ctx, "running tuner pod status: %v", k8sClient.Status().Update(ctx, pod))
}

// terminate is SIGTERM to the tuner: it restores, prints the restored
// report, and the pod goes.
func (k *tunerNodes) terminate(ctx context.Context, p *corev1.Pod) {
	if restoring(p) && k.root(p.Spec.NodeName) != "" {
		k.restore(p)
	} else if p.Spec.NodeName != "" && k.root(p.Spec.NodeName) != "" {
		profile := argValue(p.Spec.Containers[0].Args, "--profile")
		gen, _ := strconv.ParseInt(argValue(p.Spec.Containers[0].Args, "--generation"), 10, 64)
		rep, err := tuning.Restore(k.host(p.Spec.NodeName), k.stateFile(p.Spec.NodeName, profile, p.Name))
		if err != nil {
			k.report(ctx, "restoring %s: %v", p.Spec.NodeName, err)
		}
		k.print(p.Name, p.Spec.NodeName, profile, gen, rep)
	}
	err := k8sClient.Delete(ctx, p, client.GracePeriodSeconds(0))
	if apierrors.IsNotFound(err) {
		err = nil
	}
	k.report(ctx, "deleting tuner pod: %v", err)
}

func (k *tunerNodes) settings(ctx context.Context, ds *appsv1.DaemonSet) (tuning.Config, error) {
	var cfg tuning.Config
	var cm corev1.ConfigMap
	name := ds.Spec.Template.Spec.Volumes[0].ConfigMap.Name
	if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: k.ns, Name: name}, &cm); err != nil {
		return cfg, err
	}
	return cfg, json.Unmarshal([]byte(cm.Data["settings.json"]), &cfg)
}

func (k *tunerNodes) host(node string) tuning.Host {
	root := k.root(node)
	return tuning.Host{ProcSys: filepath.Join(root, "proc/sys"), SysFS: filepath.Join(root, "sys")}
}

// stateFile is the hostPath state of the node; each pod is its own owner.
func (k *tunerNodes) stateFile(node, profile, pod string) tuning.StateFile {
	return tuning.StateFile{Path: filepath.Join(k.root(node), "state", profile+".json"), Owner: pod}
}

func (k *tunerNodes) print(pod, node, profile string, gen int64, rep tuning.Report) {
	rep.Node, rep.Profile, rep.Generation = node, profile, gen
	k.mu.Lock()
	defer k.mu.Unlock()
	k.logs[pod] = append(k.logs[pod], []byte(tuning.ReportLine(rep)+"\n")...)
}

func argValue(args []string, flag string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// report fails the test on an error, unless the test is over.
func (k *tunerNodes) report(ctx context.Context, format string, args ...any) {
	if err, _ := args[len(args)-1].(error); err == nil || ctx.Err() != nil {
		return
	}
	k.t.Errorf("tuner nodes: "+format, args...)
}

// createProfile creates a TuningProfile from a YAML spec and deletes it when
// the test ends, while its controller still runs (the finalizer needs it).
func (e *tuningEnv) createProfile(t *testing.T, name, spec string) *benchv1.TuningProfile {
	t.Helper()
	p := &benchv1.TuningProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := yaml.UnmarshalStrict([]byte(spec), &p.Spec); err != nil {
		t.Fatalf("spec of %s: %v", name, err)
	}
	if err := k8sClient.Create(context.Background(), p); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	t.Cleanup(func() {
		e.nodes.mu.Lock()
		e.nodes.down = nil
		e.nodes.mu.Unlock()
		_ = k8sClient.Delete(context.Background(), p)
		waitGone(t, p, 30*time.Second)
	})
	return p
}

// waitProfile waits until the profile satisfies ok.
func waitProfile(t *testing.T, name, what string, ok func(*benchv1.TuningProfile) bool) *benchv1.TuningProfile {
	t.Helper()
	p := &benchv1.TuningProfile{}
	util.WaitFor(t, 30*time.Second, "TuningProfile "+name+" "+what, func() (bool, string) {
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Name: name}, p); err != nil {
			t.Fatal(err)
		}
		return ok(p), fmt.Sprintf("status: %+v", p.Status)
	})
	return p
}

func waitGone(t *testing.T, obj client.Object, within time.Duration) {
	t.Helper()
	util.WaitFor(t, within, fmt.Sprintf("%T %s gone", obj, obj.GetName()), func() (bool, string) {
		err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
		return apierrors.IsNotFound(err), fmt.Sprintf("still there (%v)", err)
	})
}

// tunerPods is each node's tuner pod, once no node has two: the DaemonSet
// controller's pass that starts a rolled tuner's new pod terminates the old
// one after it, so a list between the two sees both.
func (e *tuningEnv) tunerPods(t *testing.T) map[string]corev1.Pod {
	t.Helper()
	out := map[string]corev1.Pod{}
	util.WaitFor(t, 30*time.Second, "one tuner pod per node", func() (bool, string) {
		var pods corev1.PodList
		if err := k8sClient.List(context.Background(), &pods, client.InNamespace(e.ns)); err != nil {
			return false, err.Error()
		}
		clear(out)
		for _, p := range pods.Items {
			if old, two := out[p.Spec.NodeName]; two {
				return false, fmt.Sprintf("node %s has pods %s and %s", p.Spec.NodeName, old.Name, p.Name)
			}
			out[p.Spec.NodeName] = p
		}
		return true, ""
	})
	return out
}
