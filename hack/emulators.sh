#!/usr/bin/env bash
# Builds the storage emulators used by the internal/artifacts tests from the Go
# module proxy, since no binary can be downloaded here: fake-gcs-server (gs://)
# and MinIO (s3://). Prints KEY=path lines. Cached outside the repo under
# versioned names: a warm run only checks that the binaries exist.
#
#   hack/emulators.sh                 # build if needed, print FAKE_GCS_SERVER=... MINIO=...
#   MINIO_VERSION=v0.0.0-... hack/emulators.sh   # another version than hack/versions.sh's
set -euo pipefail

# FAKE_GCS_VERSION, MINIO_VERSION
# shellcheck source=hack/versions.sh
source "$(dirname "$0")/versions.sh"
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
BIN="$CACHE/bin"
FAKE_GCS="$BIN/fake-gcs-server-$FAKE_GCS_VERSION"
MINIO="$BIN/minio-$MINIO_VERSION"

log() { echo "emulators: $*" >&2; }

print() {
  echo "FAKE_GCS_SERVER=$FAKE_GCS"
  echo "MINIO=$MINIO"
}

if [[ -x "$FAKE_GCS" && -x "$MINIO" ]]; then
  print
  exit 0
fi

# build NAME PKG VERSION OUT: builds PKG@VERSION in a wrapper module, so that the
# tool's own replace directives and go.mod never get in the way.
build() {
  local name=$1 pkg=$2 version=$3 out=$4
  [[ -x "$out" ]] && return 0
  log "building $name $version from the module proxy"
  local work="$CACHE/build/$name-$version"
  mkdir -p "$work"
  (
    cd "$work"
    if [[ ! -f go.mod ]]; then
      go mod init benchwright.io/"$name" >/dev/null 2>&1
    fi
    go get "$pkg@$version" >get.log 2>&1 || { cat get.log >&2; exit 1; }
    go build -trimpath -ldflags "-s -w" -o "$out.tmp.$$" "$pkg"
    mv "$out.tmp.$$" "$out"
  )
}

command -v go >/dev/null || { log "go not found in PATH"; exit 1; }
mkdir -p "$BIN" "$CACHE/build"
export GOFLAGS="-mod=mod -buildvcs=false"
# Tests of several packages may run this at once: one builds, the others wait.
exec 9>"$CACHE/build/emulators.lock"
flock 9

build fake-gcs-server github.com/fsouza/fake-gcs-server "$FAKE_GCS_VERSION" "$FAKE_GCS"
build minio github.com/minio/minio "$MINIO_VERSION" "$MINIO"
print
