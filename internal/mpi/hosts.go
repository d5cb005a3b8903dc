package mpi

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// hostfileVariables are where the MPI Operator names the hostfile, per MPI.
var hostfileVariables = []string{"OMPI_MCA_orte_default_hostfile", "HYDRA_HOST_FILE", "I_MPI_HYDRA_HOST_FILE"}

// HostfileHosts are the hosts of the hostfile the MPI Operator names in the
// environment: "host slots=N" (OpenMPI) or "host:N" (MPICH, Intel MPI).
// None when no variable names a file.
func HostfileHosts(getenv func(string) string) ([]string, error) {
	var path string
	for _, v := range hostfileVariables {
		if path = getenv(v); path != "" {
			break
		}
	}
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hosts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		host, _, _ := strings.Cut(fields[0], ":")
		if !slices.Contains(hosts, host) {
			hosts = append(hosts, host)
		}
	}
	return hosts, sc.Err()
}

// WaitForHosts looks every host up until all resolve, or timeout has
// passed, and returns how long it took. A pod's DNS name exists only once
// its endpoint is published, a moment after it started: mpirun started
// before that fails at once (MPICH's proxies dial the launcher by name:
// "unable to get host address"). The error names the hosts that never resolved.
func WaitForHosts(ctx context.Context, hosts []string, timeout time.Duration, lookup func(context.Context, string) error) (time.Duration, error) {
	began := time.Now()
	pending := slices.Clone(hosts)
	var last error
	for {
		pending = slices.DeleteFunc(pending, func(h string) bool {
			err := lookup(ctx, h)
			if err != nil {
				last = err
			}
			return err == nil
		})
		if len(pending) == 0 {
			return time.Since(began), nil
		}
		if time.Since(began) >= timeout {
			return time.Since(began), fmt.Errorf("%s did not resolve within %s: %w", strings.Join(pending, ", "), timeout, last)
		}
		select {
		case <-ctx.Done():
			return time.Since(began), ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// OwnRecord finds this pod's fully qualified name and address in its hosts
// file (the kubelet writes "IP host.subdomain.ns.svc.cluster.local host" when
// the pod has a subdomain, as the MPI Operator's launcher and workers do).
// It returns the headless Service's name (the FQDN without its first label),
// whose DNS answer holds the pod's address once its endpoint is published,
// and that address. ok is false when the file has no such line.
func OwnRecord(hostsFile, hostname string) (service, ip string, ok bool) {
	data, err := os.ReadFile(hostsFile)
	if err != nil {
		return "", "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, name := range fields[1:] {
			if rest, found := strings.CutPrefix(name, hostname+"."); found && strings.Contains(rest, ".") {
				return rest, fields[0], true
			}
		}
	}
	return "", "", false
}
