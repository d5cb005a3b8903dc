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

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/test/util"
)

// The chart's benchmark-pods policy on the real API server: a co-tenant who
// may create pods cannot make one that names a benchmark's Job (or MPIJob)
// as its controller, which the manager would read figures from, nor turn
// a pod of hers into one; the Job controller and the MPI Operator can.
func TestChartPolicyBenchmarkPodsComeFromTheirControllers(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, "bpods-")
	createAll(t, renderChart(t, "bpods", ns, "bpods-campaigns", "templates/benchmark-pods.yaml"))
	author := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-author", Namespace: ns}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "get", "update", "patch"},
	}}}
	authors := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pod-author", Namespace: ns},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: author.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "dana"},
			{Kind: "ServiceAccount", Namespace: "mpi-operator", Name: "mpi-operator"}}}
	for _, o := range []client.Object{author, authors} {
		if err := k8sClient.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	as := func(user string) client.Client {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		cl, err := client.New(c, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	dana, jobs, mpi := as("dana"), as("system:serviceaccount:kube-system:job-controller"), as("system:serviceaccount:mpi-operator:mpi-operator")
	controlled := func(name, kind string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{benchv1.BenchmarkLabel: "fio"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: kind, Name: "fio-0-0",
					UID: types.UID("0e7c6b1e-0000-4000-8000-000000000002"), Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "debian:12"}}},
		}
	}
	const refusal = "a benchmark's pod (label benchwright.io/benchmark) with a controller comes from its Job or MPIJob"
	util.WaitFor(t, 30*time.Second, "dana's pod with the Job's UID refused", func() (bool, string) {
		p := controlled("dana-fake", "Job")
		err := dana.Create(ctx, p)
		if err == nil {
			_ = k8sClient.Delete(ctx, p)
			return false, "admitted"
		}
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), refusal), err.Error()
	})
	// The manager compares UIDs only: another kind with the Job's UID too.
	if err := dana.Create(ctx, controlled("dana-other-kind", "Foo")); !apierrors.IsForbidden(err) {
		t.Errorf("dana's pod naming the Job's UID as a Foo: %v, want Forbidden", err)
	}
	for _, c := range []struct {
		name string
		by   client.Client
	}{{"fio-0-0-x7k2p", jobs}, {"osu-worker-0", mpi}} {
		p := controlled(c.name, "Job")
		if err := c.by.Create(ctx, p); err != nil {
			t.Errorf("%s from its controller: %v", c.name, err)
		}
	}
	// dana's own pod, unlabelled, then claiming the Job: refused; her other
	// labels are hers.
	own := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dana-own", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "debian:12"}}}}
	if err := dana.Create(ctx, own); err != nil {
		t.Fatal(err)
	}
	claim := controlled("dana-own", "Job")
	patch := `{"metadata": {"labels": {"benchwright.io/benchmark": "fio"}, "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "fio-0-0", "uid": "` +
		string(claim.OwnerReferences[0].UID) + `", "controller": true}]}}`
	if err := dana.Patch(ctx, own, client.RawPatch(types.MergePatchType, []byte(patch))); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), refusal) {
		t.Errorf("dana's pod claiming the Job: %v, want Forbidden", err)
	}
	if err := dana.Patch(ctx, own, client.RawPatch(types.MergePatchType, []byte(`{"metadata": {"labels": {"team": "hpc"}}}`))); err != nil {
		t.Errorf("dana labelling her pod: %v", err)
	}
}
