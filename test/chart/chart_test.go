// Package chart_test renders charts/benchwright with the real helm binary
// (HELM, or built by hack/cluster-tools.sh) and checks what it produces.
package chart_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/benchwright/benchwright/test/util"
)

// gkeValues are the values of a GKE install with Workload Identity.
const gkeValues = `
gke: {project: my-project, location: us-central1, cluster: hpc}
serviceAccount:
  annotations: {iam.gke.io/gcp-service-account: benchwright@my-project.iam.gserviceaccount.com}
artifactStore: {url: gs://my-bucket/benchwright}
`

func TestLint(t *testing.T) {
	for _, values := range []string{"", gkeValues} {
		if out, err := helm(t, "lint", "--strict", chartDir, "-f", valuesFile(t, values)); err != nil {
			t.Errorf("%v\n%s", err, out)
		}
	}
}

func TestDefaults(t *testing.T) {
	objs := render(t, "")

	var got []string
	for _, o := range objs {
		got = append(got, o.String())
	}
	slices.Sort(got)
	want := []string{
		"ClusterRole/benchwright-manager-role",
		"ClusterRole/benchwright-metrics-reader",
		"ClusterRoleBinding/benchwright-manager",
		"CustomResourceDefinition/benchmarkpools.benchwright.io",
		"CustomResourceDefinition/mpibenchmarks.benchwright.io",
		"CustomResourceDefinition/networkbenchmarks.benchwright.io",
		"CustomResourceDefinition/storagebenchmarks.benchwright.io",
		"CustomResourceDefinition/tuningprofiles.benchwright.io",
		"Deployment/benchwright-manager",
		"NetworkPolicy/benchwright-manager",
		"PersistentVolumeClaim/benchwright-artifacts",
		"Role/benchwright-leader-election",
		"Role/benchwright-manager-role",
		"RoleBinding/benchwright-leader-election",
		"RoleBinding/benchwright-manager",
		"Secret/benchwright-artifact-server-tls",
		"Service/benchwright-manager",
		"ServiceAccount/benchwright-manager",
		"ServiceAccount/benchwright-tuner",
		"ValidatingAdmissionPolicy/benchwright-allow-unlisted-sysctls",
		"ValidatingAdmissionPolicy/benchwright-benchmark-pods",
		"ValidatingAdmissionPolicy/benchwright-campaign-labels",
		"ValidatingAdmissionPolicy/benchwright-manager-namespace-pods",
		"ValidatingAdmissionPolicyBinding/benchwright-allow-unlisted-sysctls",
		"ValidatingAdmissionPolicyBinding/benchwright-benchmark-pods",
		"ValidatingAdmissionPolicyBinding/benchwright-campaign-labels",
		"ValidatingAdmissionPolicyBinding/benchwright-manager-namespace-pods",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered objects (-want +got):\n%s", diff)
	}
	for _, o := range objs {
		clusterScoped := o.Kind == "CustomResourceDefinition" || strings.HasPrefix(o.Kind, "Cluster") || strings.HasPrefix(o.Kind, "ValidatingAdmissionPolicy")
		if !clusterScoped && o.Namespace != namespace {
			t.Errorf("%s is in namespace %q, want the release's %q", o, o.Namespace, namespace)
		}
	}

	var d appsv1.Deployment
	find(t, objs, "Deployment", "benchwright-manager").into(t, &d)
	pod := d.Spec.Template.Spec
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %d, strategy %q; want 1, Recreate", *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	if pod.ServiceAccountName != "benchwright-manager" {
		t.Errorf("serviceAccountName %q", pod.ServiceAccountName)
	}
	c := pod.Containers[0]
	wantArgs := []string{
		"--leader-elect",
		"--metrics-bind-address=:8080",
		"--health-probe-bind-address=:8081",
		"--artifact-server-bind-address=127.0.0.1:8082",
		"--artifact-server-tls-bind-address=:8443",
		"--artifact-server-cert-dir=/var/run/secrets/benchwright/artifact-server-tls",
		"--max-concurrent-reconciles=4",
		"--artifact-store=file:///var/lib/benchwright/artifacts",
		"--fio-image=ghcr.io/benchwright/fio:v0.1.0",
		"--tuner-image=ghcr.io/benchwright/tuner:v0.1.0",
		"--nodefacts-image=ghcr.io/benchwright/manager:v0.1.0",
		"--mpi-openmpi-image=ghcr.io/benchwright/mpi-openmpi:v0.1.0",
		"--mpi-intel-image=ghcr.io/benchwright/mpi-intel:v0.1.0",
		"--mpi-mpich-image=ghcr.io/benchwright/mpi-mpich:v0.1.0",
		"--host-path-prefixes=/mnt/disks/,/scratch/",
		"--results-db=sqlite:///var/lib/benchwright/results.db",
	}
	if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
		t.Errorf("manager args (-want +got):\n%s", diff)
	}
	if c.Image != "ghcr.io/benchwright/manager:v0.1.0" {
		t.Errorf("manager image %q", c.Image)
	}
	// The manager puts the tuner DaemonSets in its own namespace; its Go
	// runtime has a soft memory limit and a GOGC (TestVariants).
	if len(c.Env) != 3 || c.Env[0].Name != "POD_NAMESPACE" || c.Env[0].ValueFrom == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("env %+v, want POD_NAMESPACE from metadata.namespace", c.Env)
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes %+v %+v", c.LivenessProbe.HTTPGet, c.ReadinessProbe.HTTPGet)
	}
	sc := c.SecurityContext
	if *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("security contexts %+v %+v", sc, pod.SecurityContext)
	}
	if len(pod.Volumes) != 3 || pod.Volumes[2].PersistentVolumeClaim.ClaimName != "benchwright-artifacts" ||
		c.VolumeMounts[2].MountPath != "/var/lib/benchwright" {
		t.Errorf("volumes %+v, mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	// The manager's token: no pod of its account gets one by default; the
	// manager container mounts it where client-go looks, and nothing else.
	var sa corev1.ServiceAccount
	find(t, objs, "ServiceAccount", "benchwright-manager").into(t, &sa)
	if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken ||
		pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken: account %v, pod %v; want false for both", sa.AutomountServiceAccountToken, pod.AutomountServiceAccountToken)
	}
	token := pod.Volumes[0]
	if token.Projected == nil || len(token.Projected.Sources) != 3 || token.Projected.Sources[0].ServiceAccountToken == nil ||
		token.Projected.Sources[0].ServiceAccountToken.Audience != "" ||
		c.VolumeMounts[0] != (corev1.VolumeMount{Name: token.Name, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}) {
		t.Errorf("token volume %+v mounted as %+v, want the API token, ca.crt and namespace at client-go's path", token, c.VolumeMounts[0])
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Errorf("the manager's pod has %d containers and %d init containers: the policy of its namespace admits the manager alone", len(pod.Containers), len(pod.InitContainers))
	}

	var pvc corev1.PersistentVolumeClaim
	find(t, objs, "PersistentVolumeClaim", "benchwright-artifacts").into(t, &pvc)
	if got := pvc.Spec.Resources.Requests.Storage().String(); got != "10Gi" || pvc.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("artifact PVC: %s, annotations %v", got, pvc.Annotations)
	}

	var svc corev1.Service
	find(t, objs, "Service", "benchwright-manager").into(t, &svc)
	var ports []int32
	for _, p := range svc.Spec.Ports {
		ports = append(ports, p.Port)
	}
	if !slices.Equal(ports, []int32{8080, 8082, 8443}) || !selects(svc.Spec.Selector, d.Spec.Template.Labels) {
		t.Errorf("service ports %v, selector %v, pod labels %v", ports, svc.Spec.Selector, d.Spec.Template.Labels)
	}

	// Without campaigns the TLS artifact port is open to no peer (a
	// port-forward still reaches it); the plain one (loopback) to nobody;
	// metrics and probes to anyone.
	byPort := networkPolicyPeers(t, objs)
	if len(byPort) != 2 || len(byPort["https-metrics"]) != 0 || len(byPort["probes"]) != 0 {
		t.Errorf("network policy peers by port %+v", byPort)
	}
}

// networkPolicyPeers are the peers of the manager's NetworkPolicy by port.
func networkPolicyPeers(t *testing.T, objs []object) map[string][]networkingv1.NetworkPolicyPeer {
	t.Helper()
	var np networkingv1.NetworkPolicy
	find(t, objs, "NetworkPolicy", "benchwright-manager").into(t, &np)
	if np.Spec.PodSelector.MatchLabels["app.kubernetes.io/component"] != "manager" {
		t.Errorf("network policy selects %v, want the manager's pods", np.Spec.PodSelector.MatchLabels)
	}
	byPort := map[string][]networkingv1.NetworkPolicyPeer{}
	for _, rule := range np.Spec.Ingress {
		for _, p := range rule.Ports {
			byPort[p.Port.String()] = rule.From
		}
	}
	return byPort
}

// selects reports whether a non-empty selector matches labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

// TestCRDsMatchConfig: the chart's CRDs are config/crd/bases, plus the keep
// annotation.
func TestCRDsMatchConfig(t *testing.T) {
	rendered := map[string]map[string]any{}
	for _, o := range ofKind(render(t, ""), "CustomResourceDefinition") {
		rendered[o.Name] = o.fields
	}
	files, err := filepath.Glob(filepath.Join(util.CRDDir(), "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", util.CRDDir(), err)
	}
	if len(rendered) != len(files) {
		t.Errorf("rendered %d CRDs, config/crd/bases has %d", len(rendered), len(files))
	}
	for _, f := range files {
		var want map[string]any
		readYAML(t, filepath.Join("config", "crd", "bases", filepath.Base(f)), &want)
		name := want["metadata"].(map[string]any)["name"].(string)
		got, ok := rendered[name]
		if !ok {
			t.Errorf("CRD %s of %s not rendered", name, f)
			continue
		}
		annotations := got["metadata"].(map[string]any)["annotations"].(map[string]any)
		if annotations["helm.sh/resource-policy"] != "keep" {
			t.Errorf("CRD %s: annotations %v, want helm.sh/resource-policy: keep", name, annotations)
		}
		delete(annotations, "helm.sh/resource-policy")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CRD %s differs from %s (run hack/sync-chart.sh) (-config +chart):\n%s", name, f, diff)
		}
	}
}

// TestRulesMatchConfig: the chart's roles hold controller-gen's rules.
func TestRulesMatchConfig(t *testing.T) {
	objs := render(t, "")
	for _, tc := range []struct{ kind, name, config string }{
		{"ClusterRole", "benchwright-manager-role", "config/rbac/role.yaml"},
		{"Role", "benchwright-manager-role", "config/rbac/role.yaml"},
		{"Role", "benchwright-leader-election", "config/rbac/leader_election_role.yaml"},
	} {
		var want, got rbacv1.ClusterRole
		b, err := os.ReadFile(filepath.Join(util.RepoRoot(), tc.config))
		if err != nil {
			t.Fatal(err)
		}
		config, err := decode(string(b))
		if err != nil || len(ofKind(config, tc.kind)) != 1 {
			t.Fatalf("%s: %d %s(s), %v", tc.config, len(ofKind(config, tc.kind)), tc.kind, err)
		}
		ofKind(config, tc.kind)[0].into(t, &want)
		find(t, objs, tc.kind, tc.name).into(t, &got)
		if len(want.Rules) == 0 {
			t.Fatalf("%s has no rules", tc.config)
		}
		if diff := cmp.Diff(want.Rules, got.Rules); diff != "" {
			t.Errorf("%s/%s rules differ from %s (run hack/sync-chart.sh) (-config +chart):\n%s", tc.kind, tc.name, tc.config, diff)
		}
	}
}

// TestVariants renders non-default values and checks least privilege in each.
func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		name, values string
		check        func(t *testing.T, objs []object, d *appsv1.Deployment)
	}{
		{"defaults", "", nil},
		{"argo campaigns", "argo: {enabled: true}", func(t *testing.T, objs []object, _ *appsv1.Deployment) {
			if len(ofKind(objs, "WorkflowTemplate")) != 1 || len(ofKind(objs, "ServiceAccount")) != 3 {
				t.Errorf("argo.enabled=true rendered %d WorkflowTemplate(s), %d ServiceAccount(s); want the template and the campaign's account",
					len(ofKind(objs, "WorkflowTemplate")), len(ofKind(objs, "ServiceAccount")))
			}
			// Campaigns run in a namespace of their own, not privileged.
			const campaigns = "benchwright-campaigns"
			var ns corev1.Namespace
			find(t, objs, "Namespace", campaigns).into(t, &ns)
			if ns.Labels["pod-security.kubernetes.io/enforce"] != "baseline" || ns.Annotations["helm.sh/resource-policy"] != "keep" {
				t.Errorf("namespace %s: labels %v, annotations %v; want baseline enforced and kept", campaigns, ns.Labels, ns.Annotations)
			}
			for _, o := range objs {
				campaignObject := o.Kind == "WorkflowTemplate" || o.Kind == "ConfigMap" ||
					(o.Name == "benchwright-campaign" && (o.Kind == "ServiceAccount" || o.Kind == "Role" || o.Kind == "RoleBinding"))
				if campaignObject && o.Namespace != campaigns {
					t.Errorf("%s is in %q, want %q", o, o.Namespace, campaigns)
				}
			}
			// The TLS artifact port: the campaigns' workflow pods only.
			peers := networkPolicyPeers(t, objs)["artifacts-tls"]
			if len(peers) != 1 || peers[0].NamespaceSelector == nil || peers[0].PodSelector == nil ||
				peers[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != campaigns ||
				len(peers[0].PodSelector.MatchExpressions) != 1 || peers[0].PodSelector.MatchExpressions[0].Key != "workflows.argoproj.io/workflow" {
				t.Errorf("network policy peers of :8443 %+v, want the workflow pods of %s", peers, campaigns)
			}
			// The campaigns' namespace has the artifact server's CA, not its key.
			var ca corev1.ConfigMap
			find(t, objs, "ConfigMap", "benchwright-artifact-server-ca").into(t, &ca)
			if !strings.HasPrefix(ca.Data["ca.crt"], "-----BEGIN CERTIFICATE-----") || len(ca.Data) != 1 {
				t.Errorf("CA ConfigMap %v, want ca.crt alone", ca.Data)
			}
		}},
		{"argo campaigns, own namespace", "argo: {enabled: true, namespace: hpc-campaigns, createNamespace: false}", func(t *testing.T, objs []object, _ *appsv1.Deployment) {
			if len(ofKind(objs, "Namespace")) != 0 {
				t.Errorf("createNamespace: false rendered %v", ofKind(objs, "Namespace"))
			}
			if wt := ofKind(objs, "WorkflowTemplate"); len(wt) != 1 || wt[0].Namespace != "hpc-campaigns" {
				t.Errorf("WorkflowTemplate %v, want it in hpc-campaigns", wt)
			}
		}},
		{"no CRDs", "crds: {enabled: false}", func(t *testing.T, objs []object, _ *appsv1.Deployment) {
			if crds := ofKind(objs, "CustomResourceDefinition"); len(crds) != 0 {
				t.Errorf("crds.enabled=false rendered %v", crds)
			}
		}},
		{"host network allowed", "allowHostNetwork: true", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantArg(t, d, "--allow-host-network")
		}},
		{"bucket store", "artifactStore: {url: gs://bucket/bw}", func(t *testing.T, objs []object, d *appsv1.Deployment) {
			if pvcs := ofKind(objs, "PersistentVolumeClaim"); len(pvcs) != 0 {
				t.Errorf("a gs:// store rendered %v", pvcs)
			}
			var names []string
			for _, v := range d.Spec.Template.Spec.Volumes {
				names = append(names, v.Name)
				if v.Name == "results-db" && (v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil) {
					t.Errorf("the results database's volume %+v, want a bounded emptyDir", v)
				}
			}
			if !slices.Equal(names, []string{"api-token", "artifact-server-tls", "results-db"}) {
				t.Errorf("a gs:// store mounts %v, want the API token, the TLS Secret and the results database's emptyDir", names)
			}
			wantArg(t, d, "--artifact-store=gs://bucket/bw")
			wantArg(t, d, "--results-db=sqlite:///var/lib/benchwright-db/results.db")
		}},
		{"PostgreSQL results database", "resultsDB: {url: 'postgres://bench@db.internal:5432/results?sslmode=require', passwordSecret: {name: results-db}}", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantArg(t, d, "--results-db=postgres://bench@db.internal:5432/results?sslmode=require")
			env := d.Spec.Template.Spec.Containers[0].Env
			i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == "PGPASSWORD" })
			if i < 0 || env[i].ValueFrom == nil || env[i].ValueFrom.SecretKeyRef == nil || env[i].ValueFrom.SecretKeyRef.Name != "results-db" || env[i].ValueFrom.SecretKeyRef.Key != "password" {
				t.Errorf("PGPASSWORD: %+v, want it from the Secret results-db, key password", env)
			}
		}},
		{"no results database", "resultsDB: {enabled: false}", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			for _, a := range d.Spec.Template.Spec.Containers[0].Args {
				if strings.HasPrefix(a, "--results-db") {
					t.Errorf("resultsDB.enabled=false passes %s", a)
				}
			}
		}},
		{"GKE with Workload Identity", gkeValues, func(t *testing.T, objs []object, d *appsv1.Deployment) {
			for _, a := range []string{"--gke-project=my-project", "--gke-location=us-central1", "--gke-cluster=hpc"} {
				wantArg(t, d, a)
			}
			var sa corev1.ServiceAccount
			find(t, objs, "ServiceAccount", "benchwright-manager").into(t, &sa)
			if got := sa.Annotations["iam.gke.io/gcp-service-account"]; got != "benchwright@my-project.iam.gserviceaccount.com" {
				t.Errorf("Workload Identity annotation %q", got)
			}
		}},
		{"GKE clusters allowed", `gke: {project: my-project, location: us-central1, cluster: hpc, allowedClusters: [projects/p-2/locations/europe-west4/clusters/hpc2, projects/p-3/locations/us-east1-b/clusters/c]}`,
			func(t *testing.T, _ []object, d *appsv1.Deployment) {
				wantArg(t, d, "--gke-allowed-clusters=projects/p-2/locations/europe-west4/clusters/hpc2,projects/p-3/locations/us-east1-b/clusters/c")
			}},
		{"images", "images: {registry: r.example/bw, tag: v9, pullPolicy: Always, tuner: t.example/tuner@sha256:abc, mpi: {intel: my/intel:1}}",
			func(t *testing.T, _ []object, d *appsv1.Deployment) {
				c := d.Spec.Template.Spec.Containers[0]
				if c.Image != "r.example/bw/manager:v9" || c.ImagePullPolicy != corev1.PullAlways {
					t.Errorf("manager image %q, pull policy %q", c.Image, c.ImagePullPolicy)
				}
				for _, a := range []string{"--fio-image=r.example/bw/fio:v9", "--tuner-image=t.example/tuner@sha256:abc", "--nodefacts-image=r.example/bw/manager:v9",
					"--mpi-intel-image=my/intel:1", "--mpi-mpich-image=r.example/bw/mpi-mpich:v9"} {
					wantArg(t, d, a)
				}
			}},
		{"GOMEMLIMIT at 80% of the default 512Mi, GOGC 50", "", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOMEMLIMIT", "429496729")
			wantEnv(t, d, "GOGC", "50")
		}},
		{"the runtime's GOGC", "goGC: 0", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOGC", "")
		}},
		{"GOMEMLIMIT of another limit and percent", "resources: {limits: {memory: 1Gi}}\ngoMemoryLimitPercent: 90", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOMEMLIMIT", "966367641")
		}},
		{"GOMEMLIMIT of a limit in bytes", "resources: {limits: {memory: 1000000000}}", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOMEMLIMIT", "800000000")
		}},
		{"no GOMEMLIMIT without a memory limit", "resources: {limits: null}", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOMEMLIMIT", "")
		}},
		{"no GOMEMLIMIT at 0%", "goMemoryLimitPercent: 0", func(t *testing.T, _ []object, d *appsv1.Deployment) {
			wantEnv(t, d, "GOMEMLIMIT", "")
		}},
		{"shared store, placement, extra args", `
replicas: 3
artifactStore: {url: "file:///var/lib/benchwright/runs", persistence: {existingClaim: shared, accessMode: ReadWriteMany}}
resultsDB: {url: "postgres://bench@db:5432/results"}
nodeSelector: {pool: system}
tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]
extraArgs: [--zap-log-level=debug]
fullnameOverride: bw
`, func(t *testing.T, objs []object, d *appsv1.Deployment) {
			pod := d.Spec.Template.Spec
			if *d.Spec.Replicas != 3 || pod.NodeSelector["pool"] != "system" || len(pod.Tolerations) != 1 {
				t.Errorf("replicas %d, nodeSelector %v, tolerations %v", *d.Spec.Replicas, pod.NodeSelector, pod.Tolerations)
			}
			if pvcs := ofKind(objs, "PersistentVolumeClaim"); len(pvcs) != 0 || pod.Volumes[2].PersistentVolumeClaim == nil || pod.Volumes[2].PersistentVolumeClaim.ClaimName != "shared" {
				t.Errorf("existingClaim: rendered %v, volumes %+v", pvcs, pod.Volumes)
			}
			if args := pod.Containers[0].Args; args[len(args)-1] != "--zap-log-level=debug" {
				t.Errorf("extraArgs not last: %q", args)
			}
			if d.Name != "bw-manager" {
				t.Errorf("fullnameOverride: Deployment %s", d.Name)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, tc.values)
			if v := rbacViolations(objs); len(v) != 0 {
				t.Errorf("least privilege:\n%s", strings.Join(v, "\n"))
			}
			deployments := ofKind(objs, "Deployment")
			if len(deployments) != 1 {
				t.Fatalf("rendered Deployments %v", deployments)
			}
			var d appsv1.Deployment
			deployments[0].into(t, &d)
			if tc.check != nil {
				tc.check(t, objs, &d)
			}
		})
	}
}

// wantEnv: the manager's environment sets name to value ("": not at all).
func wantEnv(t *testing.T, d *appsv1.Deployment, name, value string) {
	t.Helper()
	env := d.Spec.Template.Spec.Containers[0].Env
	i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == name })
	switch {
	case value == "" && i >= 0:
		t.Errorf("manager env sets %s=%q, want it unset", name, env[i].Value)
	case value != "" && i < 0:
		t.Errorf("manager env %v lacks %s=%s", env, name, value)
	case value != "" && env[i].Value != value:
		t.Errorf("manager env %s=%q, want %q", name, env[i].Value, value)
	}
}

func wantArg(t *testing.T, d *appsv1.Deployment, arg string) {
	t.Helper()
	if args := d.Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, arg) {
		t.Errorf("manager args %q lack %q", args, arg)
	}
}

// TestRejected: the schema and the templates refuse bad values, saying why.
func TestRejected(t *testing.T) {
	for _, tc := range []struct{ values, want string }{
		{`replicas: "x"`, "at '/replicas': got string, want integer"},
		{`replica: 2`, "additional properties 'replica' not allowed"},
		{`images: {pullPolicy: Sometimes}`, "at '/images/pullPolicy': value must be one of"},
		{`artifactStore: {url: "http://example.com/x"}`, "at '/artifactStore/url'"},
		{`argo: {reportServer: "http://example.com"}`, "at '/argo/reportServer'"},
		{`argo: {enabled: true, namespace: benchwright-system}`, "argo.namespace benchwright-system is the release's namespace"},
		{`argo: {namespace: "Campaigns"}`, "at '/argo/namespace'"},
		{`artifactServer: {tls: {secret: x}}`, "additional properties 'secret' not allowed"},
		{`allowHostNetwork: "yes"`, "at '/allowHostNetwork': got string, want boolean"},
		{`goMemoryLimitPercent: 101`, "at '/goMemoryLimitPercent'"},
		{`goGC: -1`, "at '/goGC'"},
		{`resources: {limits: {memory: 1.5Gi}}`, `resources.limits.memory "1.5Gi": goMemoryLimitPercent needs a whole number of bytes`},
		{`gke: {proejct: p}`, "additional properties 'proejct' not allowed"},
		{`gke: {project: p}`, "gke: set project, location and cluster together"},
		{`gke: {allowedClusters: [hpc2]}`, "at '/gke/allowedClusters/0'"},
		{`gke: {endpoint: "10.99.0.1:8443"}`, "gke.endpoint, gke.caConfigMap and gke.withoutAuthentication need a GKE cluster to call"},
		{`gke: {caConfigMap: {name: kube-root-ca.crt}}`, "need a GKE cluster to call"},
		{`gke: {project: p, location: l, cluster: c, withoutAuthentication: true}`, "gke.withoutAuthentication needs gke.endpoint"},
		{`gke: {project: p, location: l, cluster: c, endpoint: "10.99.0.1"}`, "at '/gke/endpoint'"},
		{`gke: {project: p, location: l, cluster: c, endpoint: "https://10.99.0.1:8443"}`, "at '/gke/endpoint'"},
		{`gke: {project: p, location: l, cluster: c, caConfigMap: {name: CA}}`, "at '/gke/caConfigMap/name'"},
		{`gke: {project: p, location: l, cluster: c, withoutAuthentication: "yes"}`, "at '/gke/withoutAuthentication'"},
		{`artifactStore: {url: "file:///tmp/x"}`, "a file:// store must be under /var/lib/benchwright"},
		{`replicas: 2`, "replicas > 1 with a file:// store needs artifactStore.persistence.accessMode ReadWriteMany"},
		{`{replicas: 2, leaderElection: {enabled: false}, artifactStore: {url: "s3://b"}}`, "replicas > 1 needs leaderElection.enabled"},
		{`{replicas: 2, artifactStore: {url: "s3://b"}}`, "replicas > 1 needs resultsDB.url postgres://"},
		{`resultsDB: {url: "postgres://bench:secret@db/results"}`, "at '/resultsDB/url'"},
		// A password in the query would land in the Deployment's args too.
		{`resultsDB: {url: "postgres://bench@db/results?sslmode=require&password=secret"}`, "at '/resultsDB/url'"},
		{`resultsDB: {url: "postgres://bench@db/results?sslpassword=secret"}`, "at '/resultsDB/url'"},
		{`resultsDB: {url: "sqlite:///tmp/results.db"}`, "at '/resultsDB/url'"},
	} {
		_, err := template(t, chartDir, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("values %s: got error %v, want one with %q", tc.values, err, tc.want)
		}
	}
}

// TestSyncEscapesTemplateText: hack/sync-chart.sh keeps "{{" in a CRD literal
// (a description may show a Go template).
func TestSyncEscapesTemplateText(t *testing.T) {
	root := t.TempDir()
	copyFile(t, "hack/sync-chart.sh", root)
	copyFile(t, "config/rbac/role.yaml", root)
	copyFile(t, "config/rbac/leader_election_role.yaml", root)
	copyFile(t, "config/rbac/metrics_reader_role.yaml", root)
	for _, f := range []string{"Chart.yaml", "values.yaml", "values.schema.json", "templates/_helpers.tpl"} {
		copyFile(t, filepath.Join("charts/benchwright", f), root)
	}
	crd := `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: 'Templated as {{ .Values.name }}, {{{x}}} or {{- "q" }}.'
        type: object
`
	writeFile(t, filepath.Join(root, "config/crd/bases/example.com_things.yaml"), crd)
	if out, err := exec.Command(filepath.Join(root, "hack/sync-chart.sh")).CombinedOutput(); err != nil {
		t.Fatalf("sync-chart.sh: %v\n%s", err, out)
	}
	objs, err := template(t, filepath.Join(root, "charts/benchwright"), "")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := yaml.Unmarshal([]byte(crd), &want); err != nil {
		t.Fatal(err)
	}
	got := find(t, objs, "CustomResourceDefinition", "things.example.com").fields
	delete(got["metadata"].(map[string]any), "annotations")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CRD after sync-chart.sh and helm template (-want +got):\n%s", diff)
	}
}

func copyFile(t *testing.T, rel, root string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(util.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, rel), string(b))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}
