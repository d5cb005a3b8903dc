#!/usr/bin/env bash
# The growth curve of hack/bench-e2e.sh: for each total in SIZES (100 300
# 1000), two StorageBenchmarks to one MPIBenchmark on NODES (100) kwok nodes,
# once with the control plane's default client rate limits and once with them
# lifted (DISABLE_QPS_LIMITS), each on a fresh cluster; then one table.
# Each run holds the cluster lock (/tmp/benchwright-cluster.lock; -o: the
# cluster's daemons do not inherit it) only for
# itself, so others may use the cluster between runs.
#
#   hack/bench-growth.sh
#   SIZES="100 300" MODES="lifted" hack/bench-growth.sh
#   OUT=dir hack/bench-growth.sh     # keep each run's report in dir
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"100 300 1000"}
MODES=${MODES:-"default lifted"}
export NODES=${NODES:-100}
OUT=${OUT:-$(mktemp -d -t bench-growth.XXXXXX)}
mkdir -p "$OUT"

for n in $SIZES; do
  for mode in $MODES; do
    mpi=$((n / 3))
    report="$OUT/$n-$mode.txt"
    qps=()
    [[ "$mode" == lifted ]] && qps=(DISABLE_QPS_LIMITS=1)
    echo "bench-growth: $n benchmarks ($((n - mpi)) storage, $mpi MPI), $mode client limits" >&2
    if ! flock -o /tmp/benchwright-cluster.lock env "${qps[@]}" STORAGE=$((n - mpi)) MPI=$mpi REPORT="$report" \
      E2E_SCALE_TIMEOUT="${E2E_SCALE_TIMEOUT:-3600}" hack/bench-e2e.sh >/dev/null; then
      echo "bench-growth: the run of $n ($mode) failed; its report, if any: $report" >&2
    fi
  done
done

# One row per run, from the report's growth: line.
printf '%-6s %-8s %9s %11s %11s %11s %11s %11s %11s %8s %8s %8s\n' \
  n limits total storage-p50 storage-p99 mpi-p50 mpi-p99 oper-p50 oper-p99 rss-MiB req/b err/b
for n in $SIZES; do
  for mode in $MODES; do
    line=$(grep -h '^growth:' "$OUT/$n-$mode.txt" 2>/dev/null || true)
    if [[ -z "$line" ]]; then
      printf '%-6s %-8s %9s\n' "$n" "$mode" "(no report)"
      continue
    fi
    v() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
    printf '%-6s %-8s %9s %11s %11s %11s %11s %11s %11s %8s %8s %8s\n' "$n" "$mode" "$(v total)" \
      "$(v storage_p50)" "$(v storage_p99)" "$(v mpi_p50)" "$(v mpi_p99)" "$(v operator_p50)" "$(v operator_p99)" \
      "$(v rss_mib)" "$(v req)" "$(v errors)"
  done
done
echo "reports: $OUT" >&2
