#!/usr/bin/env bash
# Measures `benchwright report` over 100,000 samples (20 runs x 5 repetitions
# x 50 tests x 20 message sizes, one NDJSON file): wall time and peak RSS
# under /usr/bin/time, RUNS times (targets: < 2 s, < 200 MiB).
#
#   hack/bench-report.sh [RUNS] [WORKDIR]
set -euo pipefail
runs=${1:-3}
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/benchwright
(cd "$root" && go build -o "$bin" ./cmd/benchwright && go run ./internal/report/synth/gen -o "$work/100k.ndjson")
echo "input: $(wc -l < "$work/100k.ndjson") samples, $(du -h "$work/100k.ndjson" | cut -f1)"
for i in $(seq "$runs"); do
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" report "$work/100k.ndjson" -o "$work/report.html" 2>/dev/null
  read -r secs kib < "$work/time"
  printf 'run %d: %.2f s wall, %.1f MiB max RSS, report %s\n' "$i" "$secs" "$(echo "$kib / 1024" | bc -l)" "$(du -h "$work/report.html" | cut -f1)"
done
