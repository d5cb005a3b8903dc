#!/usr/bin/env bash
# Builds what the local control plane (make dev-cluster, make test-e2e) and the
# chart/workflow checks need, from the Go module proxy, since no binary can be
# downloaded here:
#   kube-controller-manager, kube-scheduler  (next to the envtest assets)
#   kubelet, kube-proxy                      (the same; only for make real-cluster)
#   coredns                                  (the cluster DNS of make real-cluster: a
#                                             build with the plugins it uses only)
#   kwok, kwokctl, helm, mpi-operator, argo  (versioned names under $CACHE/bin)
#   workflow-controller, argoexec            (the same; only for make real-cluster
#                                             with ARGO=1: Argo Workflows for real)
# Prints KEY=path lines. Cached outside the repo: a warm run only checks files.
#
#   hack/cluster-tools.sh             # build what is missing, print the paths
#   hack/cluster-tools.sh helm argo   # only these (names as printed, lower case)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/versions.sh
source "$HERE/versions.sh"
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
BIN="$CACHE/bin"

log() { echo "cluster-tools: $*" >&2; }
command -v go >/dev/null || { log "go not found in PATH"; exit 1; }
# The MPI Operator whose CRD and types go.mod brings (hack/versions.sh).
MPI_OPERATOR_VERSION=${MPI_OPERATOR_VERSION:-$(cd "$HERE/.." && go list -m -f '{{.Version}}' github.com/kubeflow/mpi-operator)}
[[ -n "$MPI_OPERATOR_VERSION" ]] || { log "go.mod names no github.com/kubeflow/mpi-operator"; exit 1; }
mkdir -p "$BIN" "$CACHE/build"
export GOFLAGS="-mod=mod -buildvcs=false"

wanted=("$@")
# kube-apiserver, etcd and kubectl come from the envtest assets script; the
# other Kubernetes binaries are built beside them, in its module.
KUBE_DIR=$CACHE/k8s/$KUBE_VERSION-linux-$(go env GOARCH)
for name in "${wanted[@]:-kube-scheduler}"; do
  [[ $name == kube-* || $name == kubelet ]] && { KUBE_DIR=$("$HERE/envtest-assets.sh"); break; }
done

declare -A path=(
  [kube-controller-manager]="$KUBE_DIR/kube-controller-manager"
  [kube-scheduler]="$KUBE_DIR/kube-scheduler"
  [kubelet]="$KUBE_DIR/kubelet"
  [kube-proxy]="$KUBE_DIR/kube-proxy"
  [kwok]="$BIN/kwok-$KWOK_VERSION"
  [kwokctl]="$BIN/kwokctl-$KWOK_VERSION"
  [helm]="$BIN/helm-$HELM_VERSION"
  [mpi-operator]="$BIN/mpi-operator-$MPI_OPERATOR_VERSION"
  [argo]="$BIN/argo-$ARGO_VERSION"
  [workflow-controller]="$BIN/workflow-controller-$ARGO_VERSION"
  [argoexec]="$BIN/argoexec-$ARGO_VERSION"
  [coredns]="$BIN/coredns-$COREDNS_VERSION-k8s"
)
order=(kube-controller-manager kube-scheduler kwok kwokctl helm mpi-operator argo)
# kubelet, kube-proxy, coredns, workflow-controller and argoexec are built only
# when asked for (hack/real-cluster.sh).
((${#wanted[@]})) || wanted=("${order[@]}")

# Several test packages may call this at once: one builds, the others wait.
# When every wanted binary exists there is nothing to build: no lock, so a
# warm caller never waits behind another's cold build.
missing=0
for name in "${wanted[@]}"; do
  [[ -n "${path[$name]:-}" && -x "${path[$name]}" ]] || missing=1
done
if ((missing)); then
  exec 9>"$CACHE/build/cluster-tools.lock"
  flock 9
fi

# wrapped NAME VERSION PKG...: builds each PKG@VERSION in a wrapper module of its
# own, so the tool's replace directives and go.mod never get in the way. The
# binary of the first PKG is written to path[NAME].
wrapped() {
  local name=$1 version=$2; shift 2
  local out=${path[$name]} work="$CACHE/build/$name-$version"
  [[ -x "$out" ]] && return 0
  log "building $name $version from the module proxy"
  mkdir -p "$work"
  (
    cd "$work"
    [[ -f go.mod ]] || go mod init "benchwright.io/$name" >/dev/null 2>&1
    go get "$1@$version" >get.log 2>&1 || { cat get.log >&2; exit 1; }
    go build -trimpath -ldflags "-s -w $LDFLAGS_EXTRA" -o "$out.tmp.$$" "$1"
    mv "$out.tmp.$$" "$out"
  )
}

# kube NAME: builds k8s.io/kubernetes/cmd/NAME in the module envtest-assets.sh
# set up (staging modules pinned), with the same version ldflags.
kube() {
  local name=$1 out=${path[$1]}
  [[ -x "$out" ]] && return 0
  log "building $name v$KUBE_VERSION from the module proxy (cold: ~8 min)"
  local major=${KUBE_VERSION%%.*} rest=${KUBE_VERSION#*.} ldflags="-s -w" pkg
  local minor=${rest%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=v$KUBE_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (
    cd "$CACHE/build/kube-$KUBE_VERSION"
    go build -trimpath -ldflags "$ldflags" -o "$out.tmp.$$" "k8s.io/kubernetes/cmd/$name"
    mv "$out.tmp.$$" "$out"
  )
}

# argoexec: Argo's executor, in a wrapper module like the other Argo binaries but
# against a local copy of the module when its zip lacks
# workflow/executor/os-specific/signal_linux.go (v3.6.10 and v3.6.18 do: upstream
# keeps it as a symbolic link to signal_darwin.go, and module zips leave symbolic
# links out, so the package fails with "undefined: Setpgid" on Linux). The copy
# restores the link's target as a file; nothing else in it differs. A -overlay
# cannot do this: it does not apply to files under GOMODCACHE.
argoexec() {
  local out=${path[argoexec]} work="$CACHE/build/argoexec-$ARGO_VERSION" dir pkgdir
  local mod=github.com/argoproj/argo-workflows/v3
  [[ -x "$out" ]] && return 0
  log "building argoexec $ARGO_VERSION from the module proxy"
  mkdir -p "$work"
  (
    cd "$work"
    [[ -f go.mod ]] || go mod init benchwright.io/argoexec >/dev/null 2>&1
    go mod edit -dropreplace "$mod"
    go get "$mod/cmd/argoexec@$ARGO_VERSION" >get.log 2>&1 || { cat get.log >&2; exit 1; }
    dir=$(go mod download -json "$mod@$ARGO_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    [[ -d "$dir" ]] || { log "no module directory for $mod@$ARGO_VERSION"; exit 1; }
    pkgdir=workflow/executor/os-specific
    if [[ ! -f "$dir/$pkgdir/signal_linux.go" ]]; then
      log "argoexec: $mod@$ARGO_VERSION has no $pkgdir/signal_linux.go; restoring it from signal_darwin.go in a local copy"
      rm -rf src
      cp -r "$dir" src
      chmod -R u+w src
      cp src/$pkgdir/signal_darwin.go src/$pkgdir/signal_linux.go
      go mod edit -replace "$mod=./src"
    fi
    go build -trimpath -ldflags "-s -w $LDFLAGS_EXTRA" -o "$out.tmp.$$" "$mod/cmd/argoexec"
    mv "$out.tmp.$$" "$out"
  )
}

# coredns: CoreDNS with the plugins a cluster's DNS needs (bind, kubernetes,
# cache, errors, health, ready, log, loop), as CoreDNS documents for slim builds:
# its own main registers them, no plugin.cfg code generation.
coredns() {
  local out=${path[coredns]} work="$CACHE/build/coredns-$COREDNS_VERSION"
  [[ -x "$out" ]] && return 0
  log "building coredns $COREDNS_VERSION (bind, kubernetes, cache, errors, health, ready, log, loop) from the module proxy"
  mkdir -p "$work"
  (
    cd "$work"
    [[ -f go.mod ]] || go mod init benchwright.io/coredns >/dev/null 2>&1
    cat >main.go <<'GO'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	// In the order of CoreDNS's plugin.cfg: the order a query passes them.
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes", "loop"}
}

func main() { coremain.Run() }
GO
    go get "github.com/coredns/coredns@$COREDNS_VERSION" >get.log 2>&1 || { cat get.log >&2; exit 1; }
    go mod tidy >>get.log 2>&1 || { cat get.log >&2; exit 1; }
    go build -trimpath -ldflags "-s -w" -o "$out.tmp.$$" .
    mv "$out.tmp.$$" "$out"
  )
}

LDFLAGS_EXTRA=""
for name in "${wanted[@]}"; do
  case $name in
    kube-controller-manager | kube-scheduler | kubelet | kube-proxy) kube "$name" ;;
    kwok) wrapped kwok "$KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwok ;;
    kwokctl) wrapped kwokctl "$KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwokctl ;;
    helm)
      LDFLAGS_EXTRA="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
      wrapped helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm
      LDFLAGS_EXTRA=""
      ;;
    mpi-operator) wrapped mpi-operator "$MPI_OPERATOR_VERSION" github.com/kubeflow/mpi-operator/cmd/mpi-operator ;;
    argo | workflow-controller | argoexec)
      # Static binaries (argoexec runs in a distroless image), stamped with the
      # version that names them.
      LDFLAGS_EXTRA="-X github.com/argoproj/argo-workflows/v3.version=$ARGO_VERSION"
      case $name in
        argoexec) CGO_ENABLED=0 argoexec ;;
        *) CGO_ENABLED=0 wrapped "$name" "$ARGO_VERSION" "github.com/argoproj/argo-workflows/v3/cmd/$name" ;;
      esac
      LDFLAGS_EXTRA=""
      ;;
    coredns) coredns ;;
    *) log "unknown tool $name (one of: ${order[*]} kubelet kube-proxy coredns workflow-controller argoexec)"; exit 2 ;;
  esac
done

for name in "${wanted[@]}"; do
  key=${name^^}
  echo "${key//-/_}=${path[$name]}"
done
