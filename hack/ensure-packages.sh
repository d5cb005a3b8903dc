#!/usr/bin/env bash
# ensure-packages.sh PACKAGE...: installs the Debian packages that are missing,
# when running as root (or with passwordless sudo); otherwise prints the
# apt-get line to run and fails.
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
((${#missing[@]})) || exit 0
sudo=""
[[ $(id -u) -eq 0 ]] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && sudo="sudo -n"; }
if [[ $(id -u) -ne 0 && -z "$sudo" ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-packages: missing ${missing[*]}; install with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "ensure-packages: installing ${missing[*]}" >&2
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
  $sudo apt-get update -qq >/dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
