package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// artifactsPort is the name of the manager's plain artifact port, on its
// Service and its container.
const artifactsPort = "artifacts"

// managerForward is, once per command, a port-forward to the plain artifact
// port of a ready pod behind the manager's Service, as `kubectl port-forward
// svc/NAME 8082` makes it: through the API server with the caller's
// credentials (create pods/portforward in the manager's namespace), to the
// pod's loopback, where that port listens.
type managerForward struct {
	once sync.Once
	url  string
	err  error
}

// forwarded is the base URL of the forwarded port, opened on first use.
func (f clusterFlags) forwarded(ctx context.Context) (string, error) {
	if f.fwd == nil {
		return "", errors.New("no port-forward for this command")
	}
	f.fwd.once.Do(func() { f.fwd.url, f.fwd.err = f.openForward(ctx) })
	return f.fwd.url, f.fwd.err
}

// forwardWait bounds how long the forward takes to open.
const forwardWait = 30 * time.Second

func (f clusterFlags) openForward(ctx context.Context) (string, error) {
	ns, svcName, err := f.managerService()
	if err != nil {
		return "", err
	}
	cfg, err := f.restConfig()
	if err != nil {
		return "", err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	hint := fmt.Sprintf("or run `kubectl -n %s port-forward svc/%s 8082` and give --artifact-server=http://localhost:8082", ns, svcName)
	svc, err := cs.CoreV1().Services(ns).Get(ctx, svcName, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("finding the manager's Service %s/%s (--manager): %w; %s", ns, svcName, err, hint)
	}
	pod, port, err := readyManagerPod(ctx, cs, svc)
	if err != nil {
		return "", fmt.Errorf("%w; %s", err, hint)
	}
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return "", err
	}
	url := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	// The forward lives as long as the command: nothing closes stop.
	stop, ready := make(chan struct{}), make(chan struct{})
	var errOut strings.Builder
	pf, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, &errOut)
	if err != nil {
		return "", err
	}
	failed := make(chan error, 1)
	go func() { failed <- pf.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-failed:
		return "", fmt.Errorf("port-forward to pod %s/%s:%d: %w %s; %s", ns, pod, port, err, strings.TrimSpace(errOut.String()), hint)
	case <-time.After(forwardWait):
		return "", fmt.Errorf("port-forward to pod %s/%s:%d: not open after %s; %s", ns, pod, port, forwardWait, hint)
	}
	ports, err := pf.GetPorts()
	if err != nil || len(ports) != 1 {
		return "", fmt.Errorf("port-forward to pod %s/%s:%d: no local port (%w)", ns, pod, port, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", ports[0].Local), nil
}

// readyManagerPod is a ready pod the Service selects, and the container
// port its artifacts port targets there.
func readyManagerPod(ctx context.Context, cs kubernetes.Interface, svc *corev1.Service) (string, int32, error) {
	var target *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == artifactsPort {
			target = &svc.Spec.Ports[i]
		}
	}
	if target == nil || len(svc.Spec.Selector) == 0 {
		return "", 0, fmt.Errorf("the manager's Service %s/%s has no selector or no port %q", svc.Namespace, svc.Name, artifactsPort)
	}
	pods, err := cs.CoreV1().Pods(svc.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
	if err != nil {
		return "", 0, fmt.Errorf("listing the manager's pods in %s: %w", svc.Namespace, err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || !podReady(&p) {
			continue
		}
		if port, ok := containerPort(&p, target); ok {
			return p.Name, port, nil
		}
	}
	return "", 0, fmt.Errorf("no ready pod of the manager's Service %s/%s (of %d selected)", svc.Namespace, svc.Name, len(pods.Items))
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// containerPort resolves a Service port's target on pod p: a number, or a
// container port's name.
func containerPort(p *corev1.Pod, sp *corev1.ServicePort) (int32, bool) {
	if sp.TargetPort.StrVal == "" {
		if sp.TargetPort.IntVal != 0 {
			return sp.TargetPort.IntVal, true
		}
		return sp.Port, true
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == sp.TargetPort.StrVal {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}
