# shellcheck shell=bash
# What hack/dev-cluster.sh and hack/real-cluster.sh share: logging, processes
# run in the background (optionally in a network namespace) and found again by
# their pid files, waiting with a timeout, the tools, the MPIJob CRD, the
# chart's CRDs, the garbage collector's resync, the env file. Sourced after the
# script sets:
#
#   LOG_NAME        the prefix of its log lines (dev-cluster, real-cluster)
#   PROC_DIR        where NAME.pid, NAME.exe and NAME.args of its processes live
#   LOG_DIR         where their NAME.log live
#   KUBECONFIG_FILE the cluster admin's kubeconfig (k, wait_ready)
#   UP_TIMEOUT      seconds each component may take to come up
#
# Waiting on the API server, CRDs, nodes and HTTP endpoints is done by
# hack/clusterkit (Go, built by build_clusterkit), which says on a timeout what
# was still missing; wait_until polls anything else (a log line, a socket).

HACK=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$HACK/.." && pwd)
# shellcheck source=hack/versions.sh
source "$HACK/versions.sh"
# Read by the scripts: their state lives under CACHE.
# shellcheck disable=SC2034
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
# Read by the scripts: the chart's namespace.
# shellcheck disable=SC2034
SYSTEM_NS=benchwright-system
MPI_LOCK_NS=mpi-operator

log() { echo "$LOG_NAME [${SECONDS}s]: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# usage prints the script's header comment (up to `set -euo`) and exits 2.
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# lock DIR: holds DIR/.lock (fd 8) until the script exits, so that two ups or
# downs of one cluster never run at once. The processes it starts close fd 8.
lock() {
  mkdir -p "$1"
  exec 8>"$1/.lock"
  flock 8
}

# tail_log FILE [N]: the first error lines and the last N (40) lines of a
# component's log, for a failure message.
tail_log() {
  local errors='^E[0-9]{4} |level=error|(^|[^a-z])(error|fatal|panic|flag provided)'
  [[ -f "$1" ]] || {
    echo "(no log at $1)" >&2
    return
  }
  if grep -qiE "$errors" "$1"; then
    echo "----- first errors in $1 -----" >&2
    grep -m 5 -iE "$errors" "$1" | cut -c1-400 >&2
  fi
  echo "----- last lines of $1 -----" >&2
  tail -n "${2:-40}" "$1" | cut -c1-400 >&2
  echo "-----" >&2
}

# wait_until TIMEOUT WHAT LOG CMD...: runs CMD every half second until it
# succeeds; after TIMEOUT seconds fails naming WHAT, with the tail of LOG.
wait_until() {
  local timeout=$1 what=$2 logfile=$3
  shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "$what: not ready within ${timeout}s"
      [[ -n "$logfile" ]] && tail_log "$logfile"
      exit 1
    fi
    sleep 0.5
  done
}

# build_clusterkit: builds hack/clusterkit into DIR (go build's cache makes a
# warm build a link at most) and sets CLUSTERKIT.
build_clusterkit() {
  CLUSTERKIT="$1/clusterkit"
  (cd "$ROOT" && go build -o "$CLUSTERKIT" ./hack/clusterkit) || die "go build ./hack/clusterkit failed"
}

# wait_ready [--netns NS] WHAT LOG [--pid PID] CHECK ARGS...: clusterkit wait
# (see hack/clusterkit/wait.go) with the admin's kubeconfig and UP_TIMEOUT, in
# network namespace NS if given; fails naming WHAT, with what was still
# missing and the tail of LOG.
wait_ready() {
  local netns=()
  if [[ "$1" == --netns ]]; then
    netns=(nsenter --net="/run/netns/$2")
    shift 2
  fi
  local what=$1 logfile=$2 out
  shift 2
  out=$("${netns[@]}" "$CLUSTERKIT" wait --kubeconfig "$KUBECONFIG_FILE" --timeout "${UP_TIMEOUT}s" "$@" 2>&1) || {
    log "$what: ${out#clusterkit: }"
    [[ -n "$logfile" ]] && tail_log "$logfile"
    exit 1
  }
}

# --- processes ----------------------------------------------------------------

# running NAME: the pid in PROC_DIR/NAME.pid runs the binary recorded beside
# it, so a recycled pid is never taken for ours.
running() {
  local pid exe
  [[ -f "$PROC_DIR/$1.pid" ]] || return 1
  pid=$(<"$PROC_DIR/$1.pid")
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [[ "$exe" == "$(cat "$PROC_DIR/$1.exe" 2>/dev/null)" ]]
}

pid_of() { cat "$PROC_DIR/$1.pid"; }

# start NAME NETNS BINARY ARGS...: runs BINARY in the background, detached from
# this shell, in network namespace NETNS ("" for this one), logging to
# LOG_DIR/NAME.log (the previous log kept as NAME.log.1); returns once the pid
# runs BINARY, or fails with the log.
start() {
  local name=$1 ns=$2 bin=$3
  shift 3
  local cmd=("$bin" "$@") i
  [[ -n "$ns" ]] && cmd=(nsenter --net="/run/netns/$ns" "${cmd[@]}")
  # LOG_APPEND set: a restart, whose log goes on in the same file.
  if [[ -z "${LOG_APPEND:-}" && -f "$LOG_DIR/$name.log" ]]; then
    mv -f "$LOG_DIR/$name.log" "$LOG_DIR/$name.log.1"
    : >"$LOG_DIR/$name.log"
  fi
  echo "# $(date -u +%FT%TZ)${ns:+ netns $ns:} $bin $*" >>"$LOG_DIR/$name.log"
  # fds 8 and 9 are the scripts' locks: the process must not hold them.
  setsid nohup "${cmd[@]}" >>"$LOG_DIR/$name.log" 2>&1 </dev/null 8>&- 9>&- &
  echo $! >"$PROC_DIR/$name.pid"
  readlink -f "$bin" >"$PROC_DIR/$name.exe"
  # setsid, nohup and nsenter exec the binary: wait until the pid shows it.
  for ((i = 0; i < 50; i++)); do
    running "$name" && return 0
    [[ -d /proc/$! ]] || break
    sleep 0.1
  done
  log "$name did not start"
  tail_log "$LOG_DIR/$name.log"
  exit 1
}

# ensure NAME NETNS BINARY ARGS...: start, unless NAME runs with the same
# binary (by content) and arguments; then it is kept, else restarted.
ensure() {
  local name=$1 ns=$2 bin=$3 args
  args=$(printf '%s\n' "$ns" "$(sha256sum <"$bin")" "${@:4}")
  if running "$name"; then
    [[ "$args" == "$(cat "$PROC_DIR/$name.args" 2>/dev/null)" ]] && return 0
    log "restarting $name (its binary or arguments changed)"
    stop "$name"
  fi
  echo "$args" >"$PROC_DIR/$name.args"
  start "$@"
}

# alive NAME: fails with the log's tail when NAME has exited.
alive() {
  running "$1" && return 0
  log "$1 exited"
  tail_log "$LOG_DIR/$1.log"
  exit 1
}

# stop NAME: ends our process NAME: SIGTERM, then SIGKILL after 10 s.
stop() {
  local name=$1 pid i
  if running "$name"; then
    pid=$(pid_of "$name")
    log "stopping $name (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      [[ -d "/proc/$pid" ]] || break
      sleep 0.1
    done
    if [[ -d "/proc/$pid" ]]; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$PROC_DIR/$name.pid"
}

# --- the cluster ----------------------------------------------------------------

# tools NAME...: sets KUBE_DIR, KUBECTL (envtest-assets.sh: kube-apiserver,
# etcd, kubectl) and, for each NAME of hack/cluster-tools.sh, its variable
# (KUBE_SCHEDULER, HELM, ...), building what is missing.
tools() {
  local line
  while IFS= read -r line; do
    [[ "$line" == *=* ]] && declare -g "${line%%=*}=${line#*=}"
  done < <("$HACK/cluster-tools.sh" "$@")
  KUBE_DIR=$("$HACK/envtest-assets.sh")
  KUBECTL="$KUBE_DIR/kubectl"
}

k() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

# mpijob_crd: the MPI Operator's MPIJob CRD, from the module go.mod pins,
# Established, and the namespace of its controller's leader election lock.
mpijob_crd() {
  local dir
  dir=$(cd "$ROOT" && go list -m -f '{{.Dir}}' github.com/kubeflow/mpi-operator) ||
    die "cannot locate the mpi-operator module (go mod download in $ROOT)"
  k apply --server-side --force-conflicts -f "$dir/manifests/base/kubeflow.org_mpijobs.yaml" >/dev/null
  wait_ready "the MPIJob CRD (Established)" "" crds mpijobs.kubeflow.org
  k create namespace "$MPI_LOCK_NS" --dry-run=client -o yaml | k apply -f - >/dev/null
}

# chart_crds: every CRD of benchwright's chart (templates/crds) exists and is
# Established.
chart_crds() {
  local f name names=() missing=()
  for f in "$ROOT"/charts/benchwright/templates/crds/*.yaml; do
    name=$(basename "$f" .yaml)
    # benchwright.io_storagebenchmarks -> storagebenchmarks.benchwright.io
    name="${name#*_}.${name%%_*}"
    names+=("$name")
    k get crd "$name" >/dev/null 2>&1 || missing+=("$name")
  done
  ((${#missing[@]} == 0)) || die "the chart installed no CRD ${missing[*]}"
  wait_ready "the chart's CRDs (Established)" "" crds "${names[@]}"
}

# new_crds: the cluster has no MPIJob or benchwright CRD yet (a fresh cluster).
new_crds() { ! k get crd mpijobs.kubeflow.org storagebenchmarks.benchwright.io >/dev/null 2>&1; }

# klog_now: the time as klog writes it ("MMDD HH:MM:SS.uuuuuu"), for gc_synced.
klog_now() { date +'%m%d %H:%M:%S.%6N'; }

# gc_synced STAMP LOG: kube-controller-manager's garbage collector synced its
# caches after STAMP (klog_now), as it does on its 30 s resync after CRDs
# appeared; until then deleting an object of a new kind leaves its children
# (an MPIJob's launcher, pods, Secret). On a fresh cluster up waits for it, so
# that up means ready.
gc_synced() {
  wait_until 90 "kube-controller-manager's garbage collector (resync after the new CRDs)" "$2" gc_synced_since "$@"
}

gc_synced_since() {
  awk -v since="$1" '/"Caches are synced" controller="garbage collector"/ && substr($1, 2) " " $2 > since { found = 1 } END { exit !found }' "$2"
}

# print_env FILE: FILE's NAME=VALUE lines as export lines, for eval.
print_env() {
  local line
  while IFS= read -r line; do
    printf 'export %s=%q\n' "${line%%=*}" "${line#*=}"
  done <"$1"
}
