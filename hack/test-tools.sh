#!/usr/bin/env bash
# Builds every tool make test runs, the four builds at once: envtest's
# kube-apiserver, kubectl and etcd (hack/envtest-assets.sh), the object-storage
# emulators (hack/emulators.sh), helm and argo (hack/cluster-tools.sh helm
# argo), and the real OSU, IMB, IOR and fabtests (hack/bench-tools.sh). On a
# cold machine this is most of make test's time, and the builds overlap: one
# downloads modules or runs a configure script while another compiles. Each
# says what it builds on stderr; warm, each is a no-op. The dev- and
# real-cluster tools are built by the targets that run those clusters.
set -euo pipefail
HACK=$(cd "$(dirname "$0")" && pwd)
began=$SECONDS
pids=() names=()
start() {
  local name=$1
  shift
  "$@" >/dev/null &
  pids+=($!)
  names+=("$name")
}
start "envtest (kube-apiserver, kubectl, etcd)" "$HACK/envtest-assets.sh"
start "object-storage emulators" "$HACK/emulators.sh"
start "helm and argo" "$HACK/cluster-tools.sh" helm argo
start "benchmark tools" "$HACK/bench-tools.sh"
rc=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "test-tools: building the ${names[$i]} failed (its messages are above)" >&2
    rc=1
  fi
done
((SECONDS - began < 5)) || echo "test-tools: built in $((SECONDS - began))s" >&2
exit "$rc"
