#!/usr/bin/env bash
# The idle manager's memory, OLD against this tree: both built as the image
# builds them (CGO_ENABLED=0, -trimpath, -s -w), each run in turn against one
# envtest API server (benchwright's and the MPIJob CRDs, NODES Nodes), its
# binary first evicted from the page cache (read from disk, as by a fresh
# container), until its controllers' workers start, then SETTLE idle;
# alternated, PAIRS pairs. Prints
# VmRSS, VmHWM, anonymous and file-backed resident MiB (/proc), the Go
# runtime's HeapInuse, HeapSys, StackInuse and Sys MiB (/metrics) and the
# goroutines of each run, and the new/old ratios per pair and their medians.
#
#   hack/bench-idle-rss.sh                  # OLD=40b79a9 PAIRS=5 SETTLE=10s NODES=0
#   OLD=main PAIRS=7 NODES=100 hack/bench-idle-rss.sh
#   HEAP_PROFILE=heap.pb.gz hack/bench-idle-rss.sh   # also the new manager's heap profile
#   NEW_ENV=GOGC=50 hack/bench-idle-rss.sh           # the new manager with the chart's GOGC
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OLD=${OLD:-40b79a9}
work=$(mktemp -d -t bench-idle-rss.XXXXXX)
trap 'rm -rf "$work"' EXIT

build() { # DIR OUT
  (cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$2" ./cmd/manager)
}
mkdir -p "$work/old"
git -C "$root" archive "$OLD" | tar -x -C "$work/old"
echo "bench-idle-rss: building the manager at $OLD and in $root" >&2
build "$work/old" "$work/manager-old"
build "$root" "$work/manager-new"
for b in old new; do
  echo "bench-idle-rss: $b binary $(stat -c %s "$work/manager-$b") bytes" >&2
done

cd "$root"
go run ./hack/idlerss -pairs "${PAIRS:-5}" -settle "${SETTLE:-10s}" -nodes "${NODES:-0}" \
  ${HEAP_PROFILE:+-heap-profile "$HEAP_PROFILE"} ${NEW_ENV:+-new-env "$NEW_ENV"} "$work/manager-old" "$work/manager-new"
