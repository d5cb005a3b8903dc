#!/usr/bin/env bash
# A NetworkBenchmark step through `benchwright netbench` against the same
# fabtests server and client run bare (taskset, no benchwright), alternated
# PAIRS times on this machine: wall seconds and the peak bandwidth each got,
# per pair, and the ratios (benchwright / bare). Needs 2 CPUs, taskset and
# fabtests (hack/bench-tools.sh builds them).
#
#   hack/bench-netbench.sh              # PAIRS=5 TEST=fi_msg_bw PROVIDER=tcp SIZE=1048576 ITERS=2000
#   PAIRS=8 TEST=fi_rdm_tagged_bw PROVIDER=sockets SIZE=all ITERS=200 hack/bench-netbench.sh
#
# One message size by default: the peak of -S all is one short run per size,
# and on a shared 2-core machine it swings 3x from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
TEST=${TEST:-fi_msg_bw}
PROVIDER=${PROVIDER:-tcp}
ITERS=${ITERS:-2000}
SIZE=${SIZE:-1048576}
tools=$(hack/bench-tools.sh fabtests | sed -n 's/^BENCH_TOOLS_FABTESTS=//p')
export PATH="$tools:$PATH"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/benchwright" ./cmd/benchwright

common=("$TEST" -p "$PROVIDER" -S "$SIZE" -I "$ITERS" -w 20)
size=""
[[ $SIZE == all ]] || size=",\"messageSize\":$SIZE"
input=$(printf '{"nodes":1,"pairs":{"explicit":[{"server":{"cpu":0},"client":{"cpu":1}}]},"fabtests":{"tests":["%s"],"provider":"%s","iterations":%d,"warmupIterations":20%s}}' "$TEST" "$PROVIDER" "$ITERS" "$size")

# peak: the highest MB/sec of a fabtests table.
peak() { awk '$1 ~ /^[0-9]/ && NF >= 7 { if ($(NF-2) + 0 > m) m = $(NF-2) + 0 } END { print m + 0 }'; }

listening() { ss -ltnH "sport = :$1" | grep -q .; }

# bare runs the step as benchwright does (internal/netbench's argv): msg
# endpoints (fi_msg_*) without the out-of-band socket, ready once the server
# listens on its port; the others with -E, ready once that socket listens.
bare() {
  local port=29200 ready=29200 oob=()
  if [[ $TEST != fi_msg_* ]]; then
    ready=29201 oob=("-E=29201")
  fi
  taskset -c 0 "${common[@]}" "${oob[@]}" -s 127.0.0.1 -B "$port" >/dev/null 2>&1 &
  local server=$!
  until listening "$ready"; do sleep 0.01; done
  taskset -c 1 "${common[@]}" "${oob[@]}" -s 127.0.0.1 -P "$port" 127.0.0.1 >"$bin/bare.out" 2>&1
  wait "$server"
  peak <"$bin/bare.out"
}

operator() {
  "$bin/benchwright" netbench --input "$input" >"$bin/bench.out" 2>/dev/null
  tail -1 "$bin/bench.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"][0]["output"])' | peak
}

now() { date +%s.%N; }
printf '%-5s %12s %12s %12s %12s %9s %9s\n' pair bw_bench bw_bare s_bench s_bare bw_ratio s_ratio
for i in $(seq 1 "$PAIRS"); do
  t0=$(now); bw_a=$(operator); t1=$(now); bw_b=$(bare); t2=$(now)
  awk -v i="$i" -v a="$bw_a" -v b="$bw_b" -v ta="$(echo "$t1 - $t0" | bc)" -v tb="$(echo "$t2 - $t1" | bc)" \
    'BEGIN { printf "%-5d %12.1f %12.1f %12.2f %12.2f %9.3f %9.3f\n", i, a, b, ta, tb, a / b, ta / tb }'
done
