package networkbenchmark

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/netbench"
	"github.com/benchwright/benchwright/test/wrappers"
)

// seed2 is seed 2's fabtests between chiplets, on nodes nodes of pool c3.
func seed2(nodes int32) *wrappers.NetworkBenchmarkWrapper {
	return wrappers.MakeNetworkBenchmark("s2-fabtests-chiplets", "ns").UID("uid").Pool("c3").Repetitions(11).WarmupRepetitions(1).
		Nodes(nodes).ChipletPairs(0, benchv1.ScopeIntraSocket, benchv1.ScopeInterNode).
		Fabtests(benchv1.FabtestsSettings{Tests: []string{"fi_msg_bw"}, Provider: "tcp", WarmupIterations: ptr.To[int32](1024)})
}

func TestConstructJob(t *testing.T) {
	b := seed2(5).Obj()
	job, err := constructJob(b, jobParams{rep: 3, slot: 2, attempt: 1, image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if job.Name != "s2-fabtests-chiplets-r3-n2-a1" || len(validation.IsDNS1123Subdomain(job.Name)) > 0 {
		t.Errorf("job name %q", job.Name)
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	argv := append(slices.Clone(c.Command), c.Args...)
	if argv[0] != "benchwright" || argv[1] != "netbench" || argv[3] != "2" {
		t.Errorf("argv %q", argv)
	}
	// The pods find each other by name under the headless Service.
	i := slices.Index(argv, "--peers")
	peers := strings.Split(argv[i+1], ",")
	svc := constructService(b, 3, 1)
	if len(peers) != 5 || peers[2] != pod.Hostname+"."+pod.Subdomain || pod.Subdomain != svc.Name || svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("peers %q, hostname %q.%q, service %+v", peers, pod.Hostname, pod.Subdomain, svc.Spec)
	}
	// The Service publishes this attempt's pods alone: a lost attempt's,
	// terminating, are not found under the peers' names.
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	if !sel.Matches(labels.Set(job.Spec.Template.Labels)) {
		t.Errorf("service selector %v does not select the attempt's pods %v", svc.Spec.Selector, job.Spec.Template.Labels)
	}
	for _, other := range []jobParams{{rep: 3, slot: 2, attempt: 0}, {rep: 2, slot: 2, attempt: 1}} {
		lost, err := constructJob(b, jobParams{rep: other.rep, slot: other.slot, attempt: other.attempt, image: "img"})
		if err != nil {
			t.Fatal(err)
		}
		if sel.Matches(labels.Set(lost.Spec.Template.Labels)) {
			t.Errorf("service selector %v selects the pods of repetition %d attempt %d", svc.Spec.Selector, other.rep, other.attempt)
		}
	}
	// The input is the spec's, as the pods plan from it.
	var in netbench.Input
	if err := json.Unmarshal([]byte(argv[slices.Index(argv, "--input")+1]), &in); err != nil || in.Nodes != 5 || in.Fabtests.Tests[0] != "fi_msg_bw" {
		t.Errorf("input %+v (%v)", in, err)
	}
	// No privilege, no credentials, no host network unless asked.
	sc := c.SecurityContext
	if *pod.SecurityContext.RunAsNonRoot != true || *sc.AllowPrivilegeEscalation || sc.Capabilities.Drop[0] != "ALL" || *pod.AutomountServiceAccountToken || pod.HostNetwork {
		t.Errorf("security: pod %+v container %+v", pod.SecurityContext, sc)
	}
	// A writable /tmp in a read-only image: iperf3 needs one.
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/tmp" || pod.Volumes[0].EmptyDir == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("mounts %+v volumes %+v", c.VolumeMounts, pod.Volumes)
	}
	// One pod per node, on the pool's nodes.
	if pod.NodeSelector[benchv1.PoolLabel] != "c3" || pod.Affinity == nil || pod.Affinity.PodAntiAffinity == nil {
		t.Errorf("placement: selector %v affinity %+v", pod.NodeSelector, pod.Affinity)
	}
	if *job.Spec.BackoffLimit != 0 || job.Labels["benchwright.io/slot"] != "2" {
		t.Errorf("job %+v", job.Labels)
	}
}

// The NetworkPolicy lets only the benchmark's own pods connect to its pods
// (the rendezvous and the steps' servers accept whoever comes first), and
// leaves their egress alone.
func TestConstructNetworkPolicy(t *testing.T) {
	b := seed2(2).Obj()
	np := constructNetworkPolicy(b)
	job, err := constructJob(b, jobParams{rep: 1, slot: 1, attempt: 2, image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	pod := labels.Set(job.Spec.Template.Labels)
	if np.Namespace != b.Namespace || !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
		t.Errorf("policy %s/%s types %v, want ingress alone in the benchmark's namespace", np.Namespace, np.Name, np.Spec.PolicyTypes)
	}
	if sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector); err != nil || sel.Empty() || !sel.Matches(pod) {
		t.Errorf("policy selects %v, not the benchmark's pods %v", np.Spec.PodSelector, pod)
	}
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 || len(np.Spec.Ingress[0].Ports) != 0 {
		t.Fatalf("ingress %+v, want one rule from one peer", np.Spec.Ingress)
	}
	from := np.Spec.Ingress[0].From[0]
	sel, err := metav1.LabelSelectorAsSelector(from.PodSelector)
	if err != nil || from.NamespaceSelector != nil || from.IPBlock != nil || sel.Empty() || !sel.Matches(pod) {
		t.Errorf("ingress from %+v, want the benchmark's own pods in its namespace", from)
	}
	other, err := constructJob(seed2(2).Obj(), jobParams{image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	other.Spec.Template.Labels[benchv1.BenchmarkLabel] = "another"
	if sel.Matches(labels.Set(other.Spec.Template.Labels)) {
		t.Errorf("ingress from %v lets another benchmark's pods in", from.PodSelector)
	}
}

func TestConstructJobHostNetwork(t *testing.T) {
	job, err := constructJob(seed2(2).HostNetwork().Obj(), jobParams{image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if !pod.HostNetwork || pod.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
		t.Errorf("hostNetwork %v dnsPolicy %q: the peers' names would not resolve", pod.HostNetwork, pod.DNSPolicy)
	}
}

// Every pod runs as a non-root user without capabilities, escalation or a
// writable image, whatever the spec; hostNetwork (which the controller lets
// through only when the admin allows it) is the only namespace it changes.
func TestConstructJobSecurity(t *testing.T) {
	type podSecurity struct {
		Pod                           *corev1.PodSecurityContext
		Container                     *corev1.SecurityContext
		HostNetwork, HostPID, HostIPC bool
	}
	restricted := func(hostNetwork bool) podSecurity {
		return podSecurity{
			Pod: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Container: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
			HostNetwork: hostNetwork,
		}
	}
	for _, tc := range []struct {
		name string
		b    *benchv1.NetworkBenchmark
		want podSecurity
	}{
		{"pod network", seed2(2).Obj(), restricted(false)},
		{"host network", seed2(2).HostNetwork().Obj(), restricted(true)},
		{"an image of the user's", seed2(1).Image("registry.example/root-image:1").Obj(), restricted(false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			image := tc.b.Spec.Image
			if image == "" {
				image = "img"
			}
			job, err := constructJob(tc.b, jobParams{image: image})
			if err != nil {
				t.Fatal(err)
			}
			pod := job.Spec.Template.Spec
			if len(pod.InitContainers) != 0 || len(pod.Containers) != 1 {
				t.Fatalf("containers %d, init containers %d; want the one", len(pod.Containers), len(pod.InitContainers))
			}
			got := podSecurity{Pod: pod.SecurityContext, Container: pod.Containers[0].SecurityContext,
				HostNetwork: pod.HostNetwork, HostPID: pod.HostPID, HostIPC: pod.HostIPC}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("security (-want +got):\n%s", diff)
			}
		})
	}
}

// The node-facts step runs the manager's image whatever image the spec names,
// and says whose network its MTU is.
func TestConstructJobNodeFacts(t *testing.T) {
	for _, tc := range []struct {
		b       *benchv1.NetworkBenchmark
		network string
	}{{seed2(2).Image("example.com/mine:1").Obj(), "--network=pod"}, {seed2(2).HostNetwork().Obj(), "--network=host"}} {
		job, err := constructJob(tc.b, jobParams{image: "img", nodeFactsImage: "manager:v1"})
		if err != nil {
			t.Fatal(err)
		}
		pod := job.Spec.Template.Spec
		// The sampler first (a native sidecar), then the node's facts.
		want := []corev1.Container{
			children.SamplerSidecar("manager:v1", tc.b.Spec.Monitoring, nil),
			children.NodeFactsStep("manager:v1", tc.b.Spec.HostNetwork, pod.Containers[0].Resources),
		}
		if diff := cmp.Diff(want, pod.InitContainers); diff != "" {
			t.Errorf("init containers (-want +got):\n%s", diff)
		}
		if got := pod.InitContainers[1].Args; !slices.Contains(got, tc.network) {
			t.Errorf("args %v lack %s", got, tc.network)
		}
		if pod.ShareProcessNamespace == nil || !*pod.ShareProcessNamespace {
			t.Error("the pod does not share its process namespace with the sampler")
		}
	}
	job, err := constructJob(seed2(2).Obj(), jobParams{image: "img"})
	if err != nil || len(job.Spec.Template.Spec.InitContainers) != 0 {
		t.Errorf("without the manager's image: init containers %v (%v)", job.Spec.Template.Spec.InitContainers, err)
	}
}
