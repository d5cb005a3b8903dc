#!/usr/bin/env bash
# Scale measurement on the local dev cluster (hack/dev-cluster.sh): STORAGE
# (200) quickstart StorageBenchmarks and MPI (100) quickstart MPIBenchmarks,
# one repetition each, created at once on NODES (100) kwok nodes. Prints the
# time until all Succeeded, creation-to-child (Job / MPIJob) p50/p99, the
# manager's peak RSS (VmHWM) and its API requests per benchmark
# (rest_client_requests_total). The run is test/e2e's TestScale.
#
#   hack/bench-e2e.sh                   # a fresh cluster (fresh manager), deleted afterwards
#   KEEP_CLUSTER=1 hack/bench-e2e.sh    # leave it running
#   STORAGE=50 MPI=20 NODES=20 hack/bench-e2e.sh
#   REPORT=out.txt DISABLE_QPS_LIMITS=1 hack/bench-e2e.sh   # keep the table; lift the control plane's client rate limits
set -euo pipefail
cd "$(dirname "$0")/.."

export NODES=${NODES:-100}
export E2E_SCALE=1
export E2E_SCALE_STORAGE=${STORAGE:-200}
export E2E_SCALE_MPI=${MPI:-100}
export E2E_SCALE_REPORT=${REPORT:-$(mktemp -t bench-e2e.XXXXXX)}

cleanup() {
  [[ -n "${REPORT:-}" ]] || rm -f "$E2E_SCALE_REPORT"
  [[ -n "${KEEP_CLUSTER:-}" ]] || hack/dev-cluster.sh down
}
# A fresh manager, so that its peak RSS is this run's.
hack/dev-cluster.sh down
trap cleanup EXIT
hack/dev-cluster.sh up

E2E_REUSE=1 go test -tags e2e -count=1 -timeout 60m -run '^TestScale$' ./test/e2e/ >&2
cat "$E2E_SCALE_REPORT"
