#!/usr/bin/env bash
# What the sampler costs the tools it watches, on this machine without
# Kubernetes: PAIRS alternated pairs (the order flips each pair) of
#   - osu_latency -m 8:8 (Open MPI, two ranks bound to cores), and
#   - fio 4k random reads, iodepth 16, direct, on this disk,
# each with `benchwright sample --procs` (1 s) running beside it and without.
# Prints every pair, then per tool the median ratio with/without and its 95 %
# bootstrap interval (targets: OSU 8 B latency <= 1.01, fio IOPS >= 0.99).
# A 2-core machine is the worst case: the sampler's reads must preempt a
# busy-polling rank.
#
#   hack/bench-sampler-local.sh [PAIRS] [WORKDIR]
set -euo pipefail
pairs=${1:-30}
work=${2:-$(mktemp -d -p /var/tmp)}
root=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$root/hack/bench-tools.sh" | grep '^BENCH_TOOLS_OPENMPI=')"
osu=$BENCH_TOOLS_OPENMPI/osu_latency
[[ -x $osu ]] || { echo "no osu_latency at $osu (make test-tools)" >&2; exit 1; }
command -v fio >/dev/null || { echo "no fio (make test-deps)" >&2; exit 1; }
bin=$work/benchwright
(cd "$root" && go build -o "$bin" ./cmd/benchwright)

osu_run() { # -> 8 B latency, µs
  mpirun --allow-run-as-root -np 2 --bind-to core --map-by core "$osu" -m 8:8 -i 400000 -x 20000 2>/dev/null |
    awk '$1 == 8 { print $2 }'
}
fio_run() { # -> read IOPS
  fio --name=randread --filename="$work/fio.dat" --size=512M --rw=randread --bs=4k --iodepth=16 \
    --ioengine=libaio --direct=1 --runtime=5 --ramp_time=1 --time_based --output-format=terse --terse-version=3 |
    awk -F';' '{ print $8 }'
}
# with CMD: CMD's figure with the sampler running beside it.
with() {
  "$bin" sample --interval 1s --procs >"$work/sampler.log" 2>&1 &
  local pid=$! v
  sleep 0.3
  v=$("$@")
  kill -TERM "$pid"
  wait "$pid" || true # ends on SIGTERM
  echo "$v"
}

# median and a 95 % bootstrap interval of the median, of the numbers on stdin.
summarize() {
  awk 'BEGIN { srand(1) }
    { v[NR] = $1 }
    function med(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      n = NR; for (i = 1; i <= n; i++) c[i] = v[i]; m = med(c, n)
      for (b = 1; b <= 2000; b++) { for (i = 1; i <= n; i++) r[i] = v[int(rand() * n) + 1]; s[b] = med(r, n) }
      med(s, 2000); printf "%.4f (95%% interval %.4f-%.4f, %d pairs)", m, s[50], s[1950], n
    }'
}

fio_run >/dev/null # lay the file out
: >"$work/osu.ratios"
: >"$work/fio.ratios"
for i in $(seq 1 "$pairs"); do
  if ((i % 2)); then
    lon=$(with osu_run); loff=$(osu_run); ion=$(with fio_run); ioff=$(fio_run)
  else
    loff=$(osu_run); lon=$(with osu_run); ioff=$(fio_run); ion=$(with fio_run)
  fi
  lr=$(awk -v a="$lon" -v b="$loff" 'BEGIN { printf "%.4f", a / b }')
  ir=$(awk -v a="$ion" -v b="$ioff" 'BEGIN { printf "%.4f", a / b }')
  echo "$lr" >>"$work/osu.ratios"
  echo "$ir" >>"$work/fio.ratios"
  printf 'pair %2d (%s first): osu 8 B %s / %s us = %s; fio %s / %s IOPS = %s\n' "$i" \
    "$( ((i % 2)) && echo on || echo off)" "$lon" "$loff" "$lr" "$ion" "$ioff" "$ir"
done
echo "osu_latency 8 B, with / without the sampler: $(summarize <"$work/osu.ratios") (target <= 1.01)"
echo "fio read IOPS, with / without the sampler:  $(summarize <"$work/fio.ratios") (target >= 0.99)"
