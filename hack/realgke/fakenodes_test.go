package main

import (
	"context"
	"errors"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// fakeNodes registers a started node as its kubelet would (a Node with the
// Spec's labels and taints) and reports it Ready once released; a node whose
// kubelet fails reports Ready=False with notReady. Stop records the slot and
// leaves the Node object, as the real Stop does.
type fakeNodes struct {
	kube kubernetes.Interface

	mu       sync.Mutex
	release  chan struct{} // closed: started nodes become Ready
	notReady string        // set: nodes stay NotReady with this message
	started  map[int]string
	stopped  []int
	// undrained are the nodes stopped while not cordoned or with pods.
	undrained []string
	// stopFailures: the next Stops that fail.
	stopFailures int
	// finishPods: the kubelet ends a deleted pod's containers at once and
	// removes the pod, as a real one does within its grace period.
	finishPods bool
}

func newFakeNodes(kube kubernetes.Interface) *fakeNodes {
	release := make(chan struct{})
	close(release)
	return &fakeNodes{kube: kube, release: release, started: map[int]string{}}
}

// hold keeps the nodes started from now on NotReady until the returned
// function is called.
func (f *fakeNodes) hold() (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{})
	f.release = ch
	return sync.OnceFunc(func() { close(ch) })
}

func (f *fakeNodes) failKubelet(message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notReady = message
}

func (f *fakeNodes) Start(ctx context.Context, slot int, s Spec) error {
	f.mu.Lock()
	f.started[slot] = s.Name
	release, notReady, finishPods := f.release, f.notReady, f.finishPods
	f.mu.Unlock()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: s.Labels},
		Spec:       corev1.NodeSpec{Taints: s.Taints},
	}
	if _, err := f.kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return err
	}
	if finishPods {
		go f.finish(s.Name)
	}
	go func() {
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"}
		if notReady != "" {
			ready = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady", Message: notReady}
		} else {
			<-release
		}
		n, err := f.kube.CoreV1().Nodes().Get(context.Background(), s.Name, metav1.GetOptions{})
		if err != nil {
			return // stopped and deleted before it was Ready
		}
		n.Status.Conditions = []corev1.NodeCondition{ready}
		_, _ = f.kube.CoreV1().Nodes().UpdateStatus(context.Background(), n, metav1.UpdateOptions{})
	}()
	return nil
}

func (f *fakeNodes) Stop(ctx context.Context, slot int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopFailures > 0 {
		f.stopFailures--
		return errors.New("umount /var/lib/kubelet: device or resource busy")
	}
	if name, ok := f.started[slot]; ok && !f.drained(ctx, name) {
		f.undrained = append(f.undrained, name)
	}
	f.stopped = append(f.stopped, slot)
	delete(f.started, slot)
	return nil
}

func (f *fakeNodes) running() map[int]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.started)
}

// drained tells whether a node is cordoned and without pods, or gone.
func (f *fakeNodes) drained(ctx context.Context, name string) bool {
	n, err := f.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return true
	}
	pods, err := f.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
	return n.Spec.Unschedulable && err == nil && len(pods.Items) == 0
}

// finish removes the node's deleted pods until the Node is gone.
func (f *fakeNodes) finish(node string) {
	ctx := context.Background()
	for {
		if _, err := f.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
			return
		}
		pods, _ := f.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil {
				_ = f.kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}
