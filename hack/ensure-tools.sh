#!/usr/bin/env bash
# Installs the benchmark tools the local executor runs (fio, and for MPI runs
# OpenMPI), from the distribution, when they are missing and this user can.
# Otherwise it says exactly what to run.
set -euo pipefail
missing=()
for tool in "$@"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
((${#missing[@]})) || exit 0

declare -A debian=([fio]=fio [mpirun]=openmpi-bin [fi_pingpong]=libfabric-bin [chromium]=chromium [iperf3]=iperf3 [taskset]=util-linux)
pkgs=()
for tool in "${missing[@]}"; do pkgs+=("${debian[$tool]:-$tool}"); done

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo="sudo -n"; }
  if [[ $(id -u) -eq 0 || -n "$sudo" ]]; then
    echo "ensure-tools: installing ${pkgs[*]} with apt-get" >&2
    if $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null 2>&1 ||
       { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null; }; then
      exit 0
    fi
  fi
  echo "ensure-tools: ${missing[*]} missing; install with: sudo apt-get install ${pkgs[*]}" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "ensure-tools: ${missing[*]} missing; install with: sudo dnf install ${pkgs[*]}" >&2
elif command -v brew >/dev/null 2>&1; then
  echo "ensure-tools: ${missing[*]} missing; install with: brew install ${pkgs[*]}" >&2
else
  echo "ensure-tools: ${missing[*]} missing; install ${pkgs[*]} with your package manager" >&2
fi
exit 1
