package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const waitUsage = `wait [--kubeconfig FILE] [--timeout 120s] [--pid PID] CHECK [ARGS]
  readyz                      the API server's /readyz answers ok
  serviceaccount NS/NAME      the ServiceAccount exists
  crds NAME...                each CRD is Established
  nodes NAME...               each node is Ready
  ready-nodes N SELECTOR      at least N nodes with the labels SELECTOR are Ready
  http URL                    GET URL answers 200 (no kubeconfig)
  tcp HOST:PORT               something listens at HOST:PORT (no kubeconfig)
--pid: fail at once when process PID has exited (it will not become ready).`

// listening: a TCP connection to addr is accepted.
func listening(addr string) check {
	return func(ctx context.Context) (bool, string) {
		conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return false, err.Error()
		}
		_ = conn.Close()
		return true, ""
	}
}

// check tells whether what is awaited holds, else what is still missing.
type check func(ctx context.Context) (ok bool, missing string)

// wait polls a check twice a second until it holds, the timeout passes or
// the process given by --pid exits; the last two fail saying what was missing.
func wait(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kubeconfig := fs.String("kubeconfig", "", "")
	timeout := fs.Duration("timeout", 120*time.Second, "")
	pid := fs.Int("pid", 0, "")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		return usageError(waitUsage)
	}
	c, err := newCheck(*kubeconfig, fs.Arg(0), fs.Args()[1:])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var missing string
	for {
		ok, said := c(ctx)
		if ok {
			return nil
		}
		// A check the deadline cut short says only that: keep the last
		// real answer (a loaded machine made the final request time out).
		if ctx.Err() == nil || missing == "" {
			missing = said
		}
		if *pid > 0 && !processAlive(*pid) {
			return fmt.Errorf("process %d exited (%s)", *pid, missing)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s: %s", *timeout, missing)
		case <-tick.C:
		}
	}
}

func newCheck(kubeconfig, name string, args []string) (check, error) {
	if name == "http" {
		if len(args) != 1 {
			return nil, usageError(waitUsage)
		}
		return httpGet(&http.Client{Timeout: 5 * time.Second}, args[0]), nil
	}
	if name == "tcp" {
		if len(args) != 1 {
			return nil, usageError(waitUsage)
		}
		return listening(args[0]), nil
	}
	if kubeconfig == "" {
		return nil, fmt.Errorf("wait %s needs --kubeconfig", name)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	// One request at a time, each short: the poll is the retry.
	cfg.Timeout = 5 * time.Second
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	switch {
	case name == "readyz" && len(args) == 0:
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return nil, err
		}
		return httpGet(client, strings.TrimSuffix(cfg.Host, "/")+"/readyz"), nil
	case name == "serviceaccount" && len(args) == 1 && strings.Contains(args[0], "/"):
		ns, sa, _ := strings.Cut(args[0], "/")
		return exist(dyn.Resource(serviceAccounts).Namespace(ns), "ServiceAccount "+args[0], sa), nil
	case name == "crds" && len(args) > 0:
		return conditionTrue(dyn.Resource(crds), "CRD", "Established", args), nil
	case name == "nodes" && len(args) > 0:
		return conditionTrue(dyn.Resource(nodes), "node", "Ready", args), nil
	case name == "ready-nodes" && len(args) == 2:
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return nil, usageError(waitUsage)
		}
		return readyNodes(dyn.Resource(nodes), n, args[1]), nil
	}
	return nil, usageError(waitUsage)
}

var (
	serviceAccounts = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	nodes           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	crds            = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

func exist(res dynamic.ResourceInterface, what, name string) check {
	return func(ctx context.Context) (bool, string) {
		if _, err := res.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, fmt.Sprintf("%s: %v", what, err)
		}
		return true, ""
	}
}

// conditionTrue checks that each object NAMES of RES has its condition TYPE True.
func conditionTrue(res dynamic.ResourceInterface, kind, typ string, names []string) check {
	return func(ctx context.Context) (bool, string) {
		var missing []string
		for _, name := range names {
			obj, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s %s: %v", kind, name, err))
				continue
			}
			if ok, why := conditionOf(obj, typ); !ok {
				missing = append(missing, fmt.Sprintf("%s %s: %s", kind, name, why))
			}
		}
		return len(missing) == 0, strings.Join(missing, "; ")
	}
}

func readyNodes(res dynamic.ResourceInterface, want int, selector string) check {
	return func(ctx context.Context) (bool, string) {
		list, err := res.List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, fmt.Sprintf("nodes %s: %v", selector, err)
		}
		ready := 0
		for i := range list.Items {
			if ok, _ := conditionOf(&list.Items[i], "Ready"); ok {
				ready++
			}
		}
		return ready >= want, fmt.Sprintf("%d of %d nodes %s Ready (%d there)", ready, want, selector, len(list.Items))
	}
}

// conditionOf tells whether OBJ's condition TYP is True, else what it says.
func conditionOf(obj *unstructured.Unstructured, typ string) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			status, _ := m["status"].(string)
			return status == "True", fmt.Sprintf("%s=%s %v %v", typ, status, m["reason"], m["message"])
		}
	}
	return false, "no " + typ + " condition yet"
}

// httpGet checks that GET URL answers 200.
func httpGet(client *http.Client, url string) check {
	return func(ctx context.Context) (bool, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
		if err != nil {
			return false, err.Error()
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
		return resp.StatusCode == http.StatusOK, fmt.Sprintf("GET %s: %s %s", url, resp.Status, bytes.TrimSpace(body))
	}
}

// processAlive tells whether process PID runs: it exists and is not a
// zombie (exited, not yet reaped by its parent, the script that started it).
func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
