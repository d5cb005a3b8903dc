package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// writeKubeconfig writes a kubeconfig of a system:masters user to dir.
func writeKubeconfig(env *envtest.Environment, dir string) (string, error) {
	user, err := env.AddUser(envtest.User{Name: "idlerss", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// createNodes creates n Ready Nodes labelled like the dev cluster's GKE-like
// kwok nodes, each listing a few images.
func createNodes(ctx context.Context, cfg *rest.Config, n int) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("idle-node-%03d", i)
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname":           name,
				"kubernetes.io/os":                 "linux",
				"node.kubernetes.io/instance-type": "c2-standard-60",
				"topology.kubernetes.io/zone":      "us-central1-a",
				"cloud.google.com/gke-nodepool":    "default-pool",
			},
		}}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating node %s: %w", name, err)
		}
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("60"),
			corev1.ResourceMemory: resource.MustParse("240Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}
		node.Status = corev1.NodeStatus{
			Capacity: capacity, Allocatable: capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)}},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.33.4", OperatingSystem: "linux", Architecture: "amd64"},
		}
		for j := range 20 {
			node.Status.Images = append(node.Status.Images, corev1.ContainerImage{
				Names:     []string{fmt.Sprintf("registry.example/image-%02d@sha256:%064d", j, j), fmt.Sprintf("registry.example/image-%02d:v1", j)},
				SizeBytes: 100 << 20,
			})
		}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("node %s status: %w", name, err)
		}
	}
	return nil
}
