// Package e2e runs benchwright end to end on a local control plane with
// simulated nodes (hack/dev-cluster.sh): a real kube-apiserver, etcd,
// kube-controller-manager, kube-scheduler, kwok as the kubelet of every node,
// the real MPI Operator, the chart installed by helm and the real manager
// working with the chart's RBAC. kwok runs no container: pods go Running and
// Job pods Succeeded at once, and what a container printed is served from a
// file (kwok's Logs objects) built from real tool output in the shared
// fixtures, so the manager reads and parses what fio, dd and OSU print.
//
//	go test -tags e2e ./test/e2e/                  # up, test, down (or reuse a running dev cluster)
//	E2E_REUSE=1 go test -tags e2e ./test/e2e/      # a dev cluster that is up, as it is
//	E2E_KEEP=1 ...                                 # leave the cluster it created running
//	E2E_SCALE=1 ...  (hack/bench-e2e.sh)           # TestScale: 200 + 100 benchmarks on 100 nodes
//	E2E_CHAOS=1 ...  (make chaos)                  # TestChaos: kills and restarts under 50 benchmarks
//
// The tests are behind the build tag e2e, so that go test ./... leaves them out.
package e2e
