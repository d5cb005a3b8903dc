package benchrun

import (
	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/outcome"
)

// CheckHostNetwork fails a benchmark that asks for the nodes' network
// namespace (field, e.g. "spec.layout.hostNetwork") on a manager whose admin
// has not allowed it: such a pod is outside NetworkPolicies, reaches what
// listens on the node's loopback and can take the node's ports.
func CheckHostNetwork(field string, asked, allowed bool) error {
	if !asked || allowed {
		return nil
	}
	return outcome.Fail(benchv1.ReasonInvalidSpec, field+": true needs the cluster admin to allow benchmarks on the nodes' network, "+
		"which this cluster's admin has not done (chart value allowHostNetwork, manager flag --allow-host-network): "+
		"remove "+field+", or ask the admin to enable it")
}
