#!/usr/bin/env bash
# Builds the envtest assets (kube-apiserver, kubectl, etcd) from the Go module proxy
# and Debian, since no binary can be downloaded here. Prints the directory to use as
# KUBEBUILDER_ASSETS. Cached outside the repo: a warm run only checks the stamp.
#
#   hack/envtest-assets.sh            # build if needed, print the directory
#   KUBE_VERSION=1.34.1 hack/envtest-assets.sh   # another version than hack/versions.sh's
set -euo pipefail

# shellcheck source=hack/versions.sh
source "$(dirname "$0")/versions.sh"
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
DIR="$CACHE/k8s/$KUBE_VERSION-linux-$(go env GOARCH)"
STAMP="$DIR/.stamp"
want="kube=$KUBE_VERSION etcd=$ETCD_VERSION"

log() { echo "envtest-assets: $*" >&2; }

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" && -x "$DIR/kube-apiserver" && -x "$DIR/kubectl" && -x "$DIR/etcd" ]]; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$DIR"
work="$CACHE/build/kube-$KUBE_VERSION"
mkdir -p "$work"
export GOFLAGS=-mod=mod

# Version ldflags, so the server reports v$KUBE_VERSION and not v0.0.0-master.
major=${KUBE_VERSION%%.*}; rest=${KUBE_VERSION#*.}; minor=${rest%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=v$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

if [[ ! -x "$DIR/kube-apiserver" || ! -x "$DIR/kubectl" || "$(cat "$STAMP" 2>/dev/null)" != "$want" ]]; then
  log "building kube-apiserver and kubectl v$KUBE_VERSION from the module proxy (cold: ~10 min)"
  cd "$work"
  if [[ ! -f go.mod ]]; then
    go mod init benchwright.io/kubetools >/dev/null 2>&1
    # k8s.io/kubernetes points its staging modules at ./staging; pin each to v0.x.
    gomod=$(go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    staging=$(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod")
    [[ -n "$staging" ]] || { log "no staging modules found in $gomod"; exit 1; }
    for m in $staging; do
      go mod edit -replace "$m=$m@v0.${KUBE_VERSION#*.}"
    done
    go mod edit -require "k8s.io/kubernetes@v$KUBE_VERSION"
    mkdir -p kubectl
    cat > kubectl/main.go <<'GO'
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		panic(err)
	}
}
GO
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
    go mod tidy >/dev/null
  fi
  go build -trimpath -ldflags "$ldflags" -o "$DIR/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  go build -trimpath -ldflags "$ldflags" -o "$DIR/kubectl" ./kubectl
fi

if [[ ! -x "$DIR/etcd" || "$(cat "$STAMP" 2>/dev/null)" != "$want" ]]; then
  log "building etcd v$ETCD_VERSION from the module proxy"
  ew="$CACHE/build/etcd-$ETCD_VERSION"
  mkdir -p "$ew"
  cd "$ew"
  if [[ ! -f go.mod ]]; then
    go mod init benchwright.io/etcdtool >/dev/null 2>&1
    go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >/dev/null 2>&1
    printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
    go mod tidy >/dev/null 2>&1
  fi
  go build -trimpath -ldflags "-s -w" -o "$DIR/etcd" go.etcd.io/etcd/server/v3
fi

echo "$want" > "$STAMP"
echo "$DIR"
