package gke

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
)

// Cluster names the GKE cluster a node pool belongs to.
type Cluster struct {
	Project, Location, Name string
}

// ClusterFor is the cluster of a spec: the manager's own cluster, each
// coordinate overridden by the spec's project, location or cluster when set.
// A cluster other than own must be in allowed (the chart's
// gke.allowedClusters), else the error is of kind NotAllowed: a spec does not
// point the manager's identity at clusters an admin did not allow.
func ClusterFor(own Cluster, allowed []Cluster, spec *benchv1.GKEPoolSpec) (Cluster, error) {
	c := own
	if spec != nil {
		if spec.Project != "" {
			c.Project = spec.Project
		}
		if spec.Location != "" {
			c.Location = spec.Location
		}
		if spec.Cluster != "" {
			c.Name = spec.Cluster
		}
	}
	if err := c.Validate(); err != nil {
		return Cluster{}, err
	}
	if c != own && !slices.Contains(allowed, c) {
		return Cluster{}, &Error{Kind: NotAllowed, Message: fmt.Sprintf(
			"GKE cluster %s is neither the manager's own cluster nor allowed: an admin may add it to the chart value gke.allowedClusters (manager flag --gke-allowed-clusters)",
			c.Parent())}
	}
	return c, nil
}

// ParseCluster reads a cluster's resource name, projects/P/locations/L/clusters/C.
func ParseCluster(name string) (Cluster, error) {
	f := strings.Split(name, "/")
	if len(f) != 6 || f[0] != "projects" || f[2] != "locations" || f[4] != "clusters" {
		return Cluster{}, fmt.Errorf("GKE cluster %q is not projects/PROJECT/locations/LOCATION/clusters/NAME", name)
	}
	c := Cluster{Project: f[1], Location: f[3], Name: f[5]}
	if err := c.Validate(); err != nil {
		return Cluster{}, err
	}
	return c, nil
}

// Validate checks that every coordinate is set and is a single path element.
func (c Cluster) Validate() error {
	var missing []string
	for _, f := range []struct{ field, value string }{
		{"project", c.Project}, {"location", c.Location}, {"cluster", c.Name},
	} {
		if f.value == "" || strings.ContainsAny(f.value, "/ ") {
			missing = append(missing, f.field)
		}
	}
	if len(missing) > 0 {
		return invalidf("GKE cluster %s: %s missing or invalid: set spec.gke.%s or the manager's GKE defaults",
			c.Parent(), strings.Join(missing, ", "), missing[0])
	}
	return nil
}

// Parent is the cluster's resource name, projects/P/locations/L/clusters/C.
func (c Cluster) Parent() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Name)
}

// NodePoolPath is the resource name of the node pool name in the cluster.
func (c Cluster) NodePoolPath(name string) string {
	return c.Parent() + "/nodePools/" + name
}

// OperationPath is the resource name of an operation in the cluster's location;
// a name that is already a resource name is returned as it is.
func (c Cluster) OperationPath(op string) string {
	if strings.HasPrefix(op, "projects/") {
		return op
	}
	return fmt.Sprintf("projects/%s/locations/%s/operations/%s", c.Project, c.Location, op)
}

// zonePattern matches a zone (us-central1-a); a region has no letter suffix.
var zonePattern = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]$`)
