package tuningprofile

import (
	"os"
	"strings"
)

// fallbackNamespace is config/manager's namespace.
const fallbackNamespace = "benchwright-system"

// ManagerNamespace is the namespace the manager runs in, where the tuner
// DaemonSets go: $POD_NAMESPACE, else the pod's service account namespace,
// else benchwright-system (a manager run outside the cluster).
func ManagerNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns
		}
	}
	return fallbackNamespace
}
