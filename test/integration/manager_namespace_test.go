package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/benchwright/benchwright/test/util"
)

// The chart's policy on the manager's namespace, on the real API server: it
// admits the manager's pod (its account and image, created by the
// ReplicaSet controller for its Deployment's ReplicaSet) and the tuner's
// (benchwright-tuner, the tuner image, no token, created by the DaemonSet
// controller), and refuses every other pod there. Before it, anyone who
// could submit a Workflow in that namespace ran a pod as the manager (Argo
// does not check spec.serviceAccountName) or a privileged one; and before
// the creator was checked, anyone who could create pods there copied the
// manager's owner reference and image and chose its args.
func TestChartPolicyManagerNamespaceAdmitsOnlyManagerAndTuner(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "mgr-ns-")
	campaigns := testNamespace(t, "mgr-campaigns-")
	createAll(t, renderChart(t, "mgrns", ns, campaigns, "templates/pod-policy.yaml"))

	const (
		managerImage = "ghcr.io/benchwright/manager:v0.1.0"
		tunerImage   = "ghcr.io/benchwright/tuner:v0.1.0"
	)
	owner := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name,
			UID: types.UID("0e7c6b1e-0000-4000-8000-" + strings.Repeat("0", 12)), Controller: ptr.To(true)}}
	}
	pod := func(name, account, image string, owners []metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owners},
			Spec:       corev1.PodSpec{ServiceAccountName: account, Containers: []corev1.Container{{Name: "c", Image: image}}},
		}
	}
	tuner := func(name, image string, owners []metav1.OwnerReference) *corev1.Pod {
		p := pod(name, "benchwright-tuner", image, owners)
		p.Spec.AutomountServiceAccountToken = ptr.To(false)
		p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		return p
	}
	// The controllers as kube-controller-manager runs them with
	// --use-service-account-credentials (the API server's bootstrap RBAC lets
	// these accounts create pods); kwok's runs as a cluster admin. carol may
	// create pods in the namespace, and is no admin.
	as := func(user string, groups ...string) client.Client {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		cl, err := client.New(c, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	var (
		replicaSets = as("system:serviceaccount:kube-system:replicaset-controller")
		daemonSets  = as("system:serviceaccount:kube-system:daemon-set-controller")
		kcm         = as("kwok-admin", "system:masters")
		carol       = as("carol")
	)
	podAuthor := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-author", Namespace: ns}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "delete", "get", "update", "patch"},
	}}}
	podAuthors := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pod-author", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: podAuthor.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "carol"}}}
	for _, o := range []client.Object{podAuthor, podAuthors} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	managerPod := func(name string) *corev1.Pod {
		p := pod(name, "mgrns-benchwright-manager", managerImage, owner("ReplicaSet", "mgrns-benchwright-manager-7d9f8"))
		p.Spec.Containers[0].Command = []string{"/manager"}
		return p
	}
	evilManager := managerPod("mgrns-benchwright-manager-7d9f8-evil")
	evilManager.Spec.Containers[0].Args = []string{"--fio-image=evil"}
	// A Workflow's step pod as Argo's controller makes it, naming the
	// manager's account: the attack of the review.
	workflowStep := pod("s0-x7k2p-1234", "mgrns-benchwright-manager", "quay.io/argoproj/argoexec:v3.6.10",
		[]metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow", Name: "s0-x7k2p",
			UID: types.UID("0e7c6b1e-0000-4000-8000-000000000001"), Controller: ptr.To(true)}})
	privileged := pod("root", "default", "debian:12", nil)
	privileged.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	withInit := pod("mgrns-benchwright-manager-7d9f8-init", "mgrns-benchwright-manager", managerImage, owner("ReplicaSet", "mgrns-benchwright-manager-7d9f8"))
	withInit.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "debian:12"}}
	tokenTuner := tuner("tuner-token", tunerImage, owner("DaemonSet", "p-tuner"))
	tokenTuner.Spec.AutomountServiceAccountToken = nil

	const refusal = "is the manager's namespace: it admits only the manager's pods"
	// The policy takes a moment to be enforced after it is created.
	util.WaitFor(t, 30*time.Second, "the policy enforced", func() (bool, string) {
		err := k8sClient.Create(ctx, workflowStep)
		if err == nil {
			_ = k8sClient.Delete(ctx, workflowStep)
			return false, "a Workflow's pod as the manager was admitted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), refusal), err.Error()
	})
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		admit bool
		by    client.Client
	}{
		{"the manager's pod", managerPod("mgrns-benchwright-manager-7d9f8-abcde"), true, replicaSets},
		{"the tuner's pod", tuner("p-tuner-x2v4k", tunerImage, owner("DaemonSet", "p-tuner")), true, daemonSets},
		{"the manager's pod from a controller manager that runs as an admin (kwok's)", managerPod("mgrns-benchwright-manager-7d9f8-kcm"), true, kcm},
		{"the tuner's pod from a controller manager that runs as an admin (kwok's)", tuner("p-tuner-kcm", tunerImage, owner("DaemonSet", "p-tuner")), true, kcm},
		{"the manager's owner and image with other args, by a user", evilManager, false, carol},
		{"the manager's pod, by a user", managerPod("mgrns-benchwright-manager-7d9f8-user"), false, carol},
		{"a privileged tuner pod with a DaemonSet owner, by a user", tuner("p-tuner-user", tunerImage, owner("DaemonSet", "p-tuner")), false, carol},
		{"the manager's pod from the DaemonSet controller", managerPod("mgrns-benchwright-manager-7d9f8-ds"), false, daemonSets},
		{"the tuner's pod from the ReplicaSet controller", tuner("p-tuner-rs", tunerImage, owner("DaemonSet", "p-tuner")), false, replicaSets},
		{"a Workflow's step as the manager", workflowStep, false, carol},
		{"a bare privileged pod", privileged, false, carol},
		{"the manager's account and image, no owner", pod("bare-manager", "mgrns-benchwright-manager", managerImage, nil), false, replicaSets},
		{"the manager's account, another image", pod("mgrns-benchwright-manager-7d9f8-other", "mgrns-benchwright-manager", "debian:12", owner("ReplicaSet", "mgrns-benchwright-manager-7d9f8")), false, replicaSets},
		{"the manager's account, an init container of another image", withInit, false, replicaSets},
		{"the manager's account, a ReplicaSet of another Deployment", pod("mgrns-benchwright-manager-x-7d9f8-abcde", "mgrns-benchwright-manager", managerImage, owner("ReplicaSet", "mgrns-benchwright-manager-x-7d9f8")), false, replicaSets},
		{"the tuner's account, another image", tuner("tuner-other", "debian:12", owner("DaemonSet", "p-tuner")), false, daemonSets},
		{"the tuner's account with a token", tokenTuner, false, daemonSets},
		{"the tuner's account from a Job", tuner("tuner-job", tunerImage, owner("Job", "j")), false, daemonSets},
	} {
		err := tc.by.Create(ctx, tc.pod)
		if err == nil {
			t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), tc.pod) })
		}
		switch {
		case tc.admit && err != nil:
			t.Errorf("%s: %v, want admitted", tc.name, err)
		case !tc.admit && (!apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal)):
			t.Errorf("%s: %v, want Forbidden saying %q", tc.name, err, refusal)
		}
	}
	// kubectl debug would add a container with the manager's token.
	admitted := &corev1.Pod{}
	if err := k8sClient.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mgrns-benchwright-manager-7d9f8-abcde"}, admitted); err != nil {
		t.Fatal(err)
	}
	admitted.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", Image: "debian:12", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}}
	err := k8sClient.SubResource("ephemeralcontainers").Update(ctx, admitted)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "no ephemeral containers in "+ns) {
		t.Errorf("adding an ephemeral container to the manager's pod: %v, want Forbidden", err)
	}
	// A pod's image is mutable: carol may label the manager's pod, not
	// give it another image.
	if err := carol.Patch(ctx, admitted, client.RawPatch(types.MergePatchType, []byte(`{"metadata": {"labels": {"team": "hpc"}}}`))); err != nil {
		t.Errorf("labelling the manager's pod: %v", err)
	}
	err = carol.Patch(ctx, admitted, client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec": {"containers": [{"name": "c", "image": "debian:12"}]}}`)))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "a pod's images here change only by its controller") {
		t.Errorf("changing the manager pod's image: %v, want Forbidden", err)
	}
	// Elsewhere, the policy says nothing.
	other := pod("anything", "default", "debian:12", nil)
	other.Namespace = campaigns
	if err := k8sClient.Create(ctx, other); err != nil {
		t.Errorf("a pod in the campaigns' namespace: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), other) })
}
