package networkbenchmark

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/benchrun"
	"github.com/benchwright/benchwright/internal/children"
	"github.com/benchwright/benchwright/internal/netbench"
)

const (
	kind = "NetworkBenchmark"
	// container runs `benchwright netbench`.
	container = "netbench"
	tmpVolume = "tmp"
	// nonRootID runs the tools: they need no privilege, no capability.
	nonRootID = 65532
)

// childLabels mark every object a benchmark owns.
func childLabels(b *benchv1.NetworkBenchmark) map[string]string {
	return map[string]string{benchv1.BenchmarkLabel: children.LabelValue(b.Name), benchv1.KindLabel: kind}
}

// jobName names the Job of node slot of an attempt: "<name>-r<rep>-n<slot>",
// with "-a<attempt>" on retries.
func jobName(bench string, rep, slot, attempt int) string {
	suffix := fmt.Sprintf("-r%d-n%d", rep, slot)
	if attempt > 0 {
		suffix += "-a" + strconv.Itoa(attempt)
	}
	return children.Name(bench, suffix)
}

// serviceName names the headless Service that gives each slot's pod a DNS
// name: slot-<i>.<service>.
func serviceName(bench string) string { return children.Name(bench, "-net") }

// hostname is slot i's pod's host name under the Service.
func hostname(slot int) string { return "slot-" + strconv.Itoa(slot) }

// peers are every slot's DNS name, as the runners reach each other.
func peers(b *benchv1.NetworkBenchmark) string {
	names := make([]string, b.Spec.NodesOrDefault())
	for i := range names {
		names[i] = hostname(i) + "." + serviceName(b.Name)
	}
	return strings.Join(names, ",")
}

// constructService is the headless Service of one attempt's pods: its
// selector holds the repetition and the attempt, so that a lost attempt's
// pods, terminating, are no longer published under the peers' names. It
// publishes pods before they are ready: a runner answers as soon as it runs.
func constructService(b *benchv1.NetworkBenchmark, rep, attempt int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(b.Name), Namespace: b.Namespace, Labels: childLabels(b)},
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 attemptLabels(b, rep, attempt),
			PublishNotReadyAddresses: true,
			Ports:                    []corev1.ServicePort{{Name: "control", Port: netbench.ControlPort, Protocol: corev1.ProtocolTCP}},
		},
	}
}

// attemptLabels select the pods of one attempt of a repetition.
func attemptLabels(b *benchv1.NetworkBenchmark, rep, attempt int) map[string]string {
	labels := childLabels(b)
	labels[benchv1.RepetitionLabel] = strconv.Itoa(rep)
	labels[children.AttemptLabel] = strconv.Itoa(attempt)
	return labels
}

// networkPolicyName names the benchmark's NetworkPolicy.
func networkPolicyName(bench string) string { return children.Name(bench, "-net") }

// constructNetworkPolicy is the benchmark's NetworkPolicy: its pods take
// connections only from its own pods (the control port, the steps' servers
// and fabtests' out-of-band sockets each accept whoever connects first), and
// reach out as they did. The network plugin enforces it; pods on the host
// network are outside any NetworkPolicy.
func constructNetworkPolicy(b *benchv1.NetworkBenchmark) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: networkPolicyName(b.Name), Namespace: b.Namespace, Labels: childLabels(b)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: childLabels(b)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: childLabels(b)}}},
			}},
		},
	}
}

// jobParams picks one Job of a repetition.
type jobParams struct {
	rep, slot, attempt int
	image              string
	// nodeFactsImage runs the node-facts step: the manager's image; empty,
	// none.
	nodeFactsImage string
}

// constructJob is the Job of one node slot of one repetition attempt: one
// pod that runs the slot's steps. It runs once (backoffLimit 0): the
// controller decides what a failure means.
func constructJob(b *benchv1.NetworkBenchmark, p jobParams) (*batchv1.Job, error) {
	input, err := json.Marshal(netbench.InputOf(&b.Spec))
	if err != nil {
		return nil, err
	}
	labels := attemptLabels(b, p.rep, p.attempt)
	labels[children.SlotLabel] = strconv.Itoa(p.slot)
	deadline := int64((benchrun.StartTimeout(b.Spec.Timeouts) + benchrun.RunTimeout(b.Spec.Timeouts)).Seconds())
	argv := []string{"benchwright", "netbench", "--slot", strconv.Itoa(p.slot), "--input", string(input),
		"--peers", peers(b), "--step-timeout", benchrun.RunTimeout(b.Spec.Timeouts).String()}
	c := corev1.Container{
		Name: container, Image: p.image, ImagePullPolicy: corev1.PullIfNotPresent,
		Command: argv[:1], Args: argv[1:],
		Env: []corev1.EnvVar{
			{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		},
		Ports:        []corev1.ContainerPort{{Name: "control", ContainerPort: netbench.ControlPort, Protocol: corev1.ProtocolTCP}},
		VolumeMounts: []corev1.VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
	if b.Spec.Resources != nil {
		c.Resources = *b.Spec.Resources
	}
	spec := corev1.PodSpec{
		RestartPolicy:                corev1.RestartPolicyNever,
		AutomountServiceAccountToken: ptr.To(false),
		EnableServiceLinks:           ptr.To(false),
		Containers:                   []corev1.Container{c},
		// The image is read-only; iperf3 keeps its send buffer in a /tmp file.
		Volumes:                       []corev1.Volume{{Name: tmpVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		Hostname:                      hostname(p.slot),
		Subdomain:                     serviceName(b.Name),
		HostNetwork:                   b.Spec.HostNetwork,
		TerminationGracePeriodSeconds: ptr.To[int64](10),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](nonRootID), RunAsGroup: ptr.To[int64](nonRootID),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
	if p.nodeFactsImage != "" {
		spec.InitContainers = []corev1.Container{children.NodeFactsStep(p.nodeFactsImage, b.Spec.HostNetwork, c.Resources)}
	}
	children.Monitor(&spec, p.nodeFactsImage, b.Spec.Monitoring, nil)
	if b.Spec.HostNetwork {
		// Cluster DNS still resolves the peers' names.
		spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	placePod(&spec, b, p)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: jobName(b.Name, p.rep, p.slot, p.attempt), Namespace: b.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To[int32](1), Completions: ptr.To[int32](1), BackoffLimit: ptr.To[int32](0),
			ActiveDeadlineSeconds: &deadline,
			Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec},
		},
	}, nil
}

// placePod keeps the pod on the benchmark's nodes, one pod per node.
func placePod(spec *corev1.PodSpec, b *benchv1.NetworkBenchmark, p jobParams) {
	children.Place(spec, b.Spec.Placement)
	if b.Spec.Nodes <= 1 {
		return
	}
	children.OneSlotPerNode(spec, attemptLabels(b, p.rep, p.attempt))
}
