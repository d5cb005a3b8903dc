#!/usr/bin/env bash
# Measures what running fio through `benchwright run` costs against bare fio: the
# same job file, alternated, PAIRS pairs; prints each pair's read IOPS and the
# median ratio benchwright/bare (target >= 0.97).
#
#   hack/bench-fio-overhead.sh [PAIRS] [WORKDIR]
set -euo pipefail
pairs=${1:-5}
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$work/benchwright
(cd "$root" && go build -o "$bin" ./cmd/benchwright)
mkdir -p "$work/io"

cat > "$work/spec.yaml" <<YAML
apiVersion: benchwright.io/v1alpha1
kind: StorageBenchmark
metadata: {name: overhead}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  volumes: {emptyDir: {}}
  fio:
    size: 128M
    runtime: 5s
    rampTime: 1s
    jobs:
    - {name: randread-4k-qd16, rw: randread, blockSize: 4k, ioDepth: 16}
YAML

iops_of() { # NDJSON on stdin -> the read_iops value
  grep '"metric":"read_iops"' | sed 's/.*"value":\([0-9.e+]*\).*/\1/' | head -1
}

ratios=()
for i in $(seq 1 "$pairs"); do
  rm -rf "$work/results"
  "$bin" run -f "$work/spec.yaml" --dir "$work/io" --results "$work/results" >/dev/null 2>&1
  bw=$(iops_of < "$work/results/overhead/samples.ndjson")
  # Bare fio on the job file benchwright wrote, in a directory of the same disk.
  job=$work/results/overhead/raw/0/job.fio
  mkdir -p "$work/io/bare" && sed "s#^filename=.*#filename=$work/io/bare/bare.fio#" "$job" > "$work/bare.fio"
  fio --output-format=json --output="$work/bare.json" "$work/bare.fio" >/dev/null
  bare=$("$bin" parse --tool fio "$work/bare.json" | iops_of)
  ratio=$(awk -v a="$bw" -v b="$bare" 'BEGIN { printf "%.4f", a / b }')
  ratios+=("$ratio")
  printf 'pair %d: benchwright %.0f IOPS, bare fio %.0f IOPS, ratio %s\n' "$i" "$bw" "$bare" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median ratio benchwright/bare over $pairs pairs: $median (target >= 0.97)"
