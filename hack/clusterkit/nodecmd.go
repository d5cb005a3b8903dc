package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/benchwright/benchwright/hack/clusterkit/node"
)

const nodeUsage = "node HOST.json up SLOT NAME [LABEL=VALUE|--taint KEY=VALUE:EFFECT]... | stop|remove|kubelet-stop|kubelet-start|leftovers SLOT"

// nodeCommand starts and stops the real cluster's nodes (package node).
func nodeCommand(args []string) error {
	if len(args) < 3 {
		return usageError(nodeUsage)
	}
	host, err := node.LoadHost(args[0])
	if err != nil {
		return err
	}
	verb := args[1]
	slot, err := strconv.Atoi(args[2])
	if err != nil {
		return usageError(nodeUsage + " (slot " + args[2] + " is not a number)")
	}
	ctx := context.Background()
	switch verb {
	case "up":
		if len(args) < 4 {
			return usageError(nodeUsage)
		}
		spec, err := parseNodeSpec(args[3], args[4:])
		if err != nil {
			return err
		}
		return host.Start(ctx, slot, spec)
	case "stop":
		return host.Stop(ctx, slot)
	case "remove":
		return host.Remove(ctx, slot)
	case "kubelet-stop":
		host.StopKubelet(slot)
		return nil
	case "kubelet-start":
		return host.StartKubelet(slot)
	case "leftovers":
		if left := host.Leftovers(slot); len(left) > 0 {
			return fmt.Errorf("slot %d left behind: %s", slot, strings.Join(left, "; "))
		}
		return nil
	}
	return usageError(nodeUsage + " (not " + verb + ")")
}

// parseNodeSpec reads a node's name, labels and taints from the command line.
func parseNodeSpec(name string, args []string) (node.Spec, error) {
	spec := node.Spec{Name: name, Labels: map[string]string{}}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return spec, fmt.Errorf("node name %q: %s", name, strings.Join(errs, "; "))
	}
	for i := 0; i < len(args); i++ {
		if args[i] == "--taint" && i+1 < len(args) {
			i++
			key, rest, _ := strings.Cut(args[i], "=")
			value, effect, ok := strings.Cut(rest, ":")
			if !ok || key == "" {
				return spec, fmt.Errorf("taint %q: KEY=VALUE:EFFECT", args[i])
			}
			spec.Taints = append(spec.Taints, corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffect(effect)})
			continue
		}
		k, v, ok := strings.Cut(args[i], "=")
		if !ok || k == "" {
			return spec, fmt.Errorf("label %q: LABEL=VALUE", args[i])
		}
		spec.Labels[k] = v
	}
	return spec, nil
}
