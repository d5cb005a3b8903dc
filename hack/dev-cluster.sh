#!/usr/bin/env bash
# A local benchwright cluster with simulated nodes, everything built from the Go
# module proxy (hack/cluster-tools.sh) and run as local processes, no download:
#
#   kwokctl --runtime binary: etcd, kube-apiserver, kube-controller-manager,
#     kube-scheduler and the kwok controller, which plays the kubelet of NODES
#     fake nodes labelled like GKE nodes of MACHINE_TYPES, marks pods running
#     and Job pods complete, and serves container logs from files (Logs,
#     ClusterLogs objects);
#   the MPI Operator's MPIJob CRD and its real controller (mpi-operator);
#   benchwright's chart (helm install, replicas 0: kwok cannot run images) and
#   the real manager (go build ./cmd/manager) run here, impersonating the
#   chart's ServiceAccount, so it works with the chart's RBAC and nothing more.
#
#   hack/dev-cluster.sh up      # create or resume; rebuild/restart the manager if its code changed
#   hack/dev-cluster.sh env     # export KUBECONFIG=... and the other facts, for eval
#   hack/dev-cluster.sh down    # stop the processes, delete the cluster
#   hack/dev-cluster.sh restart-manager    # (re)start the manager as up last did, with this
#                               # environment (the chaos test's BENCHWRIGHT_TEST_CRASHPOINT_DIR)
#   hack/dev-cluster.sh restart-apiserver  # stop kube-apiserver and start it again (etcd keeps the data)
#   eval "$(hack/dev-cluster.sh env)"; "$KUBECTL" get nodes
#
# Settings (environment):
#   CLUSTER_NAME        benchwright
#   NODES               4; a running cluster keeps the NODES and MACHINE_TYPES
#                       it was last brought up with unless they are set
#   MACHINE_TYPES       "c2-standard-60 c3-standard-88" (nodes take them in turn)
#   KWOK_WORKDIR        ~/.cache/benchwright/kwok (kwokctl's clusters/<name>; the
#                       manager's and mpi-operator's logs, pids, binary and
#                       artifact store in dev/<name>, kept by down)
#   MANAGER_METRICS_PORT, MANAGER_PROBE_PORT, MANAGER_ARTIFACT_PORT
#                       the first free from 18080, 18081, 18082
#   MANAGER_ARGS        more manager flags (after the chart's)
#   DISABLE_QPS_LIMITS  set: lift kube-controller-manager's and kube-scheduler's
#                       client rate limits (20 and 50 requests/s); on create only
#   UP_TIMEOUT          seconds each component may take to come up (120)
#   AUDIT               set: kube-apiserver writes an audit log of the creates of
#                       Jobs, MPIJobs, Pods and ConfigMaps (Metadata level) to
#                       AUDIT_LOG in the env; on create only
# The MPI Operator's health endpoint is :8080, fixed: one dev cluster per machine.
set -euo pipefail

LOG_NAME=dev-cluster
# shellcheck source=hack/lib/cluster.sh
source "$(dirname "$0")/lib/cluster.sh"
CLUSTER_NAME=${CLUSTER_NAME:-benchwright}
NODES_SET=${NODES:-}${MACHINE_TYPES:-}
NODES=${NODES:-4}
MACHINE_TYPES=${MACHINE_TYPES:-"c2-standard-60 c3-standard-88"}
ZONE=${ZONE:-us-central1-a}
UP_TIMEOUT=${UP_TIMEOUT:-120}
export KWOK_WORKDIR=${KWOK_WORKDIR:-$CACHE/kwok}
CLUSTER_DIR="$KWOK_WORKDIR/clusters/$CLUSTER_NAME"
KUBECONFIG_FILE="$CLUSTER_DIR/kubeconfig.yaml"
# Our own processes' files live beside kwokctl's (which `down` deletes), so
# their logs survive the cluster.
DEV="$KWOK_WORKDIR/dev/$CLUSTER_NAME"
PROC_DIR=$DEV
LOG_DIR=$DEV
# The tools' paths, set by dev_tools.
KUBE_CONTROLLER_MANAGER="" KUBE_SCHEDULER="" KWOK="" KWOKCTL="" HELM="" MPI_OPERATOR=""

dev_tools() {
  tools kube-controller-manager kube-scheduler kwok kwokctl helm mpi-operator
  # kwokctl runs the kubectl it finds on PATH, or downloads one.
  export PATH="$KUBE_DIR:$PATH"
  # Feature gates and runtime config follow the Kubernetes version.
  export KWOK_KUBE_VERSION=v$KUBE_VERSION
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port BASE: BASE, or the first free port above it.
free_port() {
  local p=$1
  while port_in_use "$p"; do p=$((p + 1)); done
  echo "$p"
}

cluster_up() {
  if [[ -f "$CLUSTER_DIR/kwok.yaml" ]]; then
    if k get --raw /readyz >/dev/null 2>&1; then
      log "cluster $CLUSTER_NAME is running"
      return
    fi
    log "starting the stopped cluster $CLUSTER_NAME"
    "$KWOKCTL" start cluster --name "$CLUSTER_NAME" >"$DEV/kwokctl.log" 2>&1 8>&- || {
      tail_log "$DEV/kwokctl.log"
      die "kwokctl start cluster failed (kwokctl delete cluster --name $CLUSTER_NAME, or $0 down, starts afresh)"
    }
  else
    log "creating cluster $CLUSTER_NAME in $CLUSTER_DIR"
    local qps=() audit=() f
    [[ -n "${DISABLE_QPS_LIMITS:-}" ]] && qps=(--disable-qps-limits)
    if [[ -n "${AUDIT:-}" ]]; then
      audit_policy >"$DEV/audit-policy.yaml"
      audit=(--kube-audit-policy "$DEV/audit-policy.yaml")
    fi
    "$KWOKCTL" create cluster --name "$CLUSTER_NAME" --runtime binary \
      --etcd-binary "$KUBE_DIR/etcd" \
      --kube-apiserver-binary "$KUBE_DIR/kube-apiserver" \
      --kube-controller-manager-binary "$KUBE_CONTROLLER_MANAGER" \
      --kube-scheduler-binary "$KUBE_SCHEDULER" \
      --kwok-controller-binary "$KWOK" \
      --enable-crds Logs,ClusterLogs \
      --extra-args kube-controller-manager=leader-elect=false \
      --extra-args kube-scheduler=leader-elect=false \
      "${qps[@]}" "${audit[@]}" \
      --kubeconfig "" \
      --timeout "${UP_TIMEOUT}s" --wait "${UP_TIMEOUT}s" >"$DEV/kwokctl.log" 2>&1 8>&- || {
      tail_log "$DEV/kwokctl.log"
      for f in "$CLUSTER_DIR"/logs/*.log; do [[ -f "$f" ]] && tail_log "$f" 15; done
      die "kwokctl create cluster failed"
    }
  fi
  wait_ready "kube-apiserver" "$CLUSTER_DIR/logs/kube-apiserver.log" readyz
  # kube-controller-manager creates the default ServiceAccounts.
  wait_ready "kube-controller-manager (no default ServiceAccount)" \
    "$CLUSTER_DIR/logs/kube-controller-manager.log" serviceaccount default/default
}

# audit_policy: what AUDIT logs, the creates the chaos test counts.
audit_policy() {
  cat <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  verbs: [create]
  resources:
  - group: batch
    resources: [jobs]
  - group: kubeflow.org
    resources: [mpijobs]
  - group: ""
    resources: [pods, configmaps]
- level: None
EOF
}

# restart_apiserver stops kube-apiserver and starts it again with the same
# command line, environment and directory as kwokctl ran it (its pid file
# and log stay where kwokctl keeps them); etcd keeps the data. The
# controller manager and scheduler run without leader election (see
# cluster_up), so they ride it out; the MPI Operator cannot be told so and
# exits when it cannot renew its lease: it is restarted too.
restart_apiserver() {
  local pidfile="$CLUSTER_DIR/pids/kube-apiserver.pid" saved="$DEV/kube-apiserver" pid cwd i
  local -a argv envs
  CLUSTERKIT="$DEV/clusterkit"
  [[ -f "$pidfile" ]] || die "no $pidfile: is cluster $CLUSTER_NAME up?"
  pid=$(<"$pidfile")
  # Its command line is kept beside ours, so that one that died can be started.
  if [[ -r "/proc/$pid/cmdline" ]]; then
    cp "/proc/$pid/cmdline" "$saved.cmd"
    cp "/proc/$pid/environ" "$saved.environ"
    readlink "/proc/$pid/cwd" >"$saved.cwd"
  fi
  [[ -f "$saved.cmd" ]] || die "kube-apiserver (pid $pid) is not running"
  mapfile -d '' argv <"$saved.cmd"
  mapfile -d '' envs <"$saved.environ"
  cwd=$(<"$saved.cwd")
  if [[ -d "/proc/$pid" ]]; then
    log "stopping kube-apiserver (pid $pid)"
    kill "$pid"
    for ((i = 0; i < 100; i++)); do
      [[ -d "/proc/$pid" ]] || break
      sleep 0.1
    done
    if [[ -d "/proc/$pid" ]]; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  (cd "$cwd" && exec env -i "${envs[@]}" setsid nohup "${argv[@]}" >>"$CLUSTER_DIR/logs/kube-apiserver.log" 2>&1 </dev/null 8>&- 9>&-) &
  # No newline: kwokctl reads the pid with strconv.Atoi (else down leaves it running).
  printf %s "$!" >"$pidfile"
  wait_ready "kube-apiserver" "$CLUSTER_DIR/logs/kube-apiserver.log" readyz
  log "kube-apiserver restarted (pid $(<"$pidfile"))"
  dev_tools
  stop mpi-operator
  mpi_operator_up
}

# machine_shape TYPE: "CPUS MEMORY" of a GCE machine type, roughly: standard
# shapes have 4 GB per vCPU, highmem 8, highcpu 2 (c2d, c3, c3d, c4) or 1.
machine_shape() {
  local t=$1 series family cpus mem
  series=${t%%-*}
  family=${t#*-}
  family=${family%-*}
  cpus=${t##*-}
  [[ "$cpus" =~ ^[0-9]+$ ]] || die "machine type $t: expected <series>-<standard|highcpu|highmem>-<vCPUs>"
  case $family in
    highmem) mem=$((cpus * 8)) ;;
    highcpu)
      case $series in
        c2d | c3 | c3d | c4) mem=$((cpus * 2)) ;;
        *) mem=$cpus ;;
      esac
      ;;
    *) mem=$((cpus * 4)) ;;
  esac
  echo "$cpus ${mem}G"
}

# nodes_yaml: NODES nodes, named kwok-<machine-type>-<i>, taking the machine types in turn.
nodes_yaml() {
  local types i t name cpus mem
  read -ra types <<<"$MACHINE_TYPES"
  for ((i = 0; i < NODES; i++)); do
    t=${types[i % ${#types[@]}]}
    read -r cpus mem < <(machine_shape "$t")
    name="kwok-$t-$((i / ${#types[@]}))"
    cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/hostname: $name
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    beta.kubernetes.io/os: linux
    beta.kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: $t
    beta.kubernetes.io/instance-type: $t
    topology.kubernetes.io/zone: $ZONE
    topology.kubernetes.io/region: ${ZONE%-*}
    cloud.google.com/gke-nodepool: pool-$t
    cloud.google.com/machine-family: ${t%%-*}
    cloud.google.com/gke-os-distribution: cos
    type: kwok
    # The admin's opt-in for existing BenchmarkPools.
    benchwright.io/benchmark-node: "true"
spec:
  providerID: gce://benchwright-dev/$ZONE/$name
status:
  allocatable:
    cpu: "$((cpus - 1))"
    memory: $mem
    pods: "110"
    ephemeral-storage: 95Gi
  capacity:
    cpu: "$cpus"
    memory: $mem
    pods: "110"
    ephemeral-storage: 100Gi
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    osImage: Container-Optimized OS from Google
    kernelVersion: 6.1.100+
EOF
  done
}

nodes_up() {
  local yaml want n sum have
  if [[ -z "$NODES_SET" && -f "$DEV/nodes" ]]; then
    # NODES and MACHINE_TYPES of the last up (written below).
    # shellcheck source=/dev/null
    source "$DEV/nodes"
  fi
  yaml=$(nodes_yaml)
  want=$(sed -n 's/^  name: //p' <<<"$yaml" | sort)
  # Applying 100 nodes takes seconds: only when they changed or are missing.
  sum=$(sha256sum <<<"$yaml" | cut -d' ' -f1)
  have=$(k get nodes -l type=kwok -o name | wc -l)
  if [[ "$sum" != "$(cat "$DEV/nodes.sha256" 2>/dev/null)" || "$have" != "$NODES" ]]; then
    k apply -f - <<<"$yaml" >/dev/null
    echo "$sum" >"$DEV/nodes.sha256"
  fi
  # kwok nodes of an earlier NODES or MACHINE_TYPES go away.
  for n in $(k get nodes -l type=kwok -o jsonpath='{.items[*].metadata.name}'); do
    grep -qx "$n" <<<"$want" || { k delete node "$n" --wait=false >/dev/null && log "deleted node $n"; }
  done
  wait_ready "the kwok nodes (Ready)" "$CLUSTER_DIR/logs/kwok-controller.log" ready-nodes "$NODES" type=kwok
  printf 'NODES=%q\nMACHINE_TYPES=%q\n' "$NODES" "$MACHINE_TYPES" >"$DEV/nodes"
  log "$NODES kwok nodes Ready ($MACHINE_TYPES)"
}

# mpi_operator_leading: the MPI Operator took its leader lease (it starts its
# controller then), or it has exited (which alive reports with its log).
mpi_operator_leading() {
  grep -q 'Leading started' "$DEV/mpi-operator.log" || [[ ! -d "/proc/$(pid_of mpi-operator)" ]]
}

mpi_operator_up() {
  mpijob_crd
  if running mpi-operator; then
    log "mpi-operator is running (pid $(pid_of mpi-operator))"
    return
  fi
  # Its health endpoint is :8080, fixed (cmd/mpi-operator/app/server.go).
  port_in_use 8080 && die "port 8080 is taken: the mpi-operator binds its health check there and cannot be told otherwise ($(ss -ltnp 'sport = :8080' 2>/dev/null | tail -n +2))"
  # As deploy/v2beta1/mpi-operator.yaml runs it, with the cluster's admin credentials.
  start mpi-operator "" "$MPI_OPERATOR" -alsologtostderr --lock-namespace="$MPI_LOCK_NS" \
    --kubeConfig "$KUBECONFIG_FILE" --threadiness 4 --kube-api-qps 50 --kube-api-burst 100
  wait_until "$UP_TIMEOUT" "mpi-operator (leader election)" "$DEV/mpi-operator.log" mpi_operator_leading
  alive mpi-operator
  log "mpi-operator is running (pid $(pid_of mpi-operator), log $DEV/mpi-operator.log)"
}

chart_up() {
  local chart="$ROOT/charts/benchwright"
  [[ -f "$chart/Chart.yaml" ]] || die "no chart at $chart (charts/benchwright/Chart.yaml)"
  log "helm upgrade --install benchwright $chart (replicas 0: the manager runs here)"
  "$HELM" upgrade --install benchwright "$chart" --kubeconfig "$KUBECONFIG_FILE" \
    -n "$SYSTEM_NS" --create-namespace \
    --set replicas=0 >"$DEV/helm.log" 2>&1 || {
    tail_log "$DEV/helm.log"
    die "helm upgrade --install failed"
  }
  chart_crds
}

# manager_facts reads from the chart's manager Deployment its ServiceAccount,
# its container's args and the values of its environment (the Go runtime's
# GOMEMLIMIT, GOGC; not what the pod's fields give), which the local manager
# takes as its own.
manager_facts() {
  local deploy
  deploy=$(k get deployments -n "$SYSTEM_NS" -o name | grep -m1 -e manager -e benchwright) ||
    die "the chart made no manager Deployment in $SYSTEM_NS"
  SERVICE_ACCOUNT=$(k get -n "$SYSTEM_NS" "$deploy" -o jsonpath='{.spec.template.spec.serviceAccountName}')
  [[ -n "$SERVICE_ACCOUNT" ]] || die "$deploy names no serviceAccountName"
  k get serviceaccount -n "$SYSTEM_NS" "$SERVICE_ACCOUNT" >/dev/null || die "$deploy runs as ServiceAccount $SERVICE_ACCOUNT, which the chart does not create"
  mapfile -t CHART_ARGS < <(k get -n "$SYSTEM_NS" "$deploy" -o jsonpath='{range .spec.template.spec.containers[0].args[*]}{@}{"\n"}{end}')
  mapfile -t CHART_ENV < <(k get -n "$SYSTEM_NS" "$deploy" -o jsonpath='{range .spec.template.spec.containers[0].env[?(@.value)]}{.name}={.value}{"\n"}{end}')
  DEPLOYMENT=$deploy
}

# manager_tls writes the chart's artifact-server certificate (its Secret, which
# the pod mounts) where the local manager reads it.
manager_tls() {
  local secret key
  secret=$(k get -n "$SYSTEM_NS" "$DEPLOYMENT" -o jsonpath='{.spec.template.spec.volumes[?(@.name=="artifact-server-tls")].secret.secretName}')
  [[ -n "$secret" ]] || die "$DEPLOYMENT mounts no artifact-server-tls Secret"
  mkdir -p "$DEV/artifact-server-tls"
  for key in tls.crt tls.key ca.crt; do
    k get secret -n "$SYSTEM_NS" "$secret" -o jsonpath="{.data.${key//./\\.}}" | base64 -d >"$DEV/artifact-server-tls/$key" ||
      die "could not read $key of Secret $SYSTEM_NS/$secret"
  done
}

# manager_kubeconfig: the admin kubeconfig, impersonating the ServiceAccount.
manager_kubeconfig() {
  local user="system:serviceaccount:$SYSTEM_NS:$SERVICE_ACCOUNT" who
  "$CLUSTERKIT" impersonate "$KUBECONFIG_FILE" "$DEV/manager.kubeconfig" "$user" ||
    die "could not write the impersonating kubeconfig"
  who=$("$KUBECTL" --kubeconfig "$DEV/manager.kubeconfig" auth whoami -o jsonpath='{.status.userInfo.username}' 2>&1) ||
    die "the manager's kubeconfig does not work: $who"
  [[ "$who" == "$user" ]] || die "the manager's kubeconfig acts as $who, not $user"
}

manager_up() {
  manager_facts
  manager_kubeconfig
  manager_tls
  log "building the manager"
  (cd "$ROOT" && go build -o "$DEV/manager.new" ./cmd/manager) || die "go build ./cmd/manager failed"
  local sum_new sum_old="" args_new args_old="" manager_args
  # MANAGER_ARGS: more flags, split on blanks.
  read -ra manager_args <<<"${MANAGER_ARGS:-}"
  sum_new=$(sha256sum "$DEV/manager.new" | cut -d' ' -f1)
  [[ -f "$DEV/manager.sha256" ]] && sum_old=$(<"$DEV/manager.sha256")
  args_new=$(printf '%s\n' "${CHART_ARGS[@]}" "${manager_args[@]}" "$SERVICE_ACCOUNT" "${CHART_ENV[@]}")
  [[ -f "$DEV/manager.args" ]] && args_old=$(<"$DEV/manager.args")
  if running manager && [[ "$sum_new" == "$sum_old" && "$args_new" == "$args_old" ]]; then
    rm -f "$DEV/manager.new"
    log "manager is running and up to date (pid $(pid_of manager))"
    return
  fi
  stop manager
  mv -f "$DEV/manager.new" "$DEV/manager"
  echo "$sum_new" >"$DEV/manager.sha256"
  echo "$args_new" >"$DEV/manager.args"
  MANAGER_METRICS_PORT=${MANAGER_METRICS_PORT:-$(free_port 18080)}
  MANAGER_PROBE_PORT=${MANAGER_PROBE_PORT:-$(free_port $((MANAGER_METRICS_PORT + 1)))}
  MANAGER_ARTIFACT_PORT=${MANAGER_ARTIFACT_PORT:-$(free_port $((MANAGER_PROBE_PORT + 1)))}
  MANAGER_ARTIFACT_TLS_PORT=${MANAGER_ARTIFACT_TLS_PORT:-$(free_port $((MANAGER_ARTIFACT_PORT + 1)))}
  mkdir -p "$DEV/artifacts"
  # The chart's args first; later flags win: local addresses, the local store,
  # a single replica. Kept in manager.cmd for restart-manager.
  printf '%s\0' "$DEV/manager" \
    "${CHART_ARGS[@]}" \
    --kubeconfig "$DEV/manager.kubeconfig" \
    --leader-elect=false \
    --metrics-bind-address "127.0.0.1:$MANAGER_METRICS_PORT" \
    --health-probe-bind-address "127.0.0.1:$MANAGER_PROBE_PORT" \
    --artifact-server-bind-address "127.0.0.1:$MANAGER_ARTIFACT_PORT" \
    --artifact-server-tls-bind-address "127.0.0.1:$MANAGER_ARTIFACT_TLS_PORT" \
    --artifact-server-cert-dir "$DEV/artifact-server-tls" \
    --artifact-store "file://$DEV/artifacts" \
    "${manager_args[@]}" >"$DEV/manager.cmd"
  : >"$DEV/manager.env"
  ((${#CHART_ENV[@]} == 0)) || printf '%s\0' "${CHART_ENV[@]}" >"$DEV/manager.env"
  manager_start
  {
    echo "MANAGER_METRICS_PORT=$MANAGER_METRICS_PORT"
    echo "MANAGER_PROBE_PORT=$MANAGER_PROBE_PORT"
    echo "MANAGER_ARTIFACT_PORT=$MANAGER_ARTIFACT_PORT"
    echo "MANAGER_ARTIFACT_TLS_PORT=$MANAGER_ARTIFACT_TLS_PORT"
  } >"$DEV/manager.ports"
  manager_ready
  # Ready means started; a controller whose cache cannot sync (RBAC missing a
  # list or watch) would still fail within the cache sync timeout: look for it.
  sleep 1
  if grep -E 'is forbidden|failed to list|Timeout: failed waiting for' "$DEV/manager.log" >/dev/null; then
    log "the manager reports errors with the chart's RBAC:"
    grep -E 'is forbidden|failed to list|Timeout: failed waiting for' "$DEV/manager.log" | tail -n 10 >&2
  fi
  log "manager is running as $SERVICE_ACCOUNT (pid $(pid_of manager), log $DEV/manager.log)"
}

# manager_start runs the command line manager_up chose (manager.cmd), with the
# chart's environment (manager.env).
manager_start() {
  local -a cmd chart_env=()
  mapfile -d '' cmd <"$DEV/manager.cmd"
  [[ -f "$DEV/manager.env" ]] && mapfile -d '' chart_env <"$DEV/manager.env"
  (
    for kv in "${chart_env[@]}"; do export "${kv?}"; done
    POD_NAMESPACE=$SYSTEM_NS KUBECONFIG="$DEV/manager.kubeconfig" start manager "" "${cmd[@]}"
  )
}

manager_ready() {
  # shellcheck source=/dev/null
  source "$DEV/manager.ports"
  wait_ready "the manager (/readyz)" "$DEV/manager.log" \
    --pid "$(pid_of manager)" http "http://127.0.0.1:$MANAGER_PROBE_PORT/readyz"
  alive manager
}

# restart_manager stops the manager if it runs and starts it as up last did,
# with this script's environment; its log goes on in the same file.
restart_manager() {
  [[ -f "$DEV/manager.cmd" && -f "$DEV/env" ]] || die "cluster $CLUSTER_NAME is not up: $0 up"
  CLUSTERKIT="$DEV/clusterkit"
  stop manager
  LOG_APPEND=1 manager_start
  manager_ready
  sed -i "s/^MANAGER_PID=.*/MANAGER_PID=$(pid_of manager)/" "$DEV/env"
  log "manager restarted (pid $(pid_of manager))"
}

write_env() {
  # The ports manager_up chose, this time or when it started the manager.
  # shellcheck source=/dev/null
  source "$DEV/manager.ports"
  cat >"$DEV/env" <<EOF
CLUSTER_NAME=$CLUSTER_NAME
KWOK_WORKDIR=$KWOK_WORKDIR
KUBECONFIG=$KUBECONFIG_FILE
KUBECTL=$KUBECTL
KWOKCTL=$KWOKCTL
HELM=$HELM
DEV_CLUSTER_DIR=$DEV
CLUSTER_LOGS=$CLUSTER_DIR/logs
CLUSTER_PIDS=$CLUSTER_DIR/pids
MANAGER_KUBECONFIG=$DEV/manager.kubeconfig
MANAGER_SERVICE_ACCOUNT=system:serviceaccount:$SYSTEM_NS:$SERVICE_ACCOUNT
MANAGER_PID=$(pid_of manager)
MANAGER_LOG=$DEV/manager.log
MANAGER_METRICS=https://127.0.0.1:$MANAGER_METRICS_PORT/metrics
MANAGER_HEALTH=http://127.0.0.1:$MANAGER_PROBE_PORT/healthz
MANAGER_ARTIFACTS_URL=http://127.0.0.1:$MANAGER_ARTIFACT_PORT/
ARTIFACT_STORE=file://$DEV/artifacts
MPI_OPERATOR_PID=$(pid_of mpi-operator)
MPI_OPERATOR_LOG=$DEV/mpi-operator.log
EOF
  if [[ -f "$DEV/audit-policy.yaml" ]]; then
    echo "AUDIT_LOG=$CLUSTER_DIR/logs/audit.log" >>"$DEV/env"
  fi
}

up() {
  local began=$SECONDS fresh="" stamp
  lock "$DEV"
  dev_tools
  build_clusterkit "$DEV"
  cluster_up
  nodes_up
  new_crds && fresh=1
  mpi_operator_up
  chart_up
  stamp=$(klog_now)
  manager_up
  if [[ -n "$fresh" ]]; then
    log "waiting for the garbage collector to watch the new CRDs (it looks every 30 s)"
    gc_synced "$stamp" "$CLUSTER_DIR/logs/kube-controller-manager.log"
  fi
  write_env
  log "up in $((SECONDS - began))s: eval \"\$($0 env)\""
}

down() {
  lock "$DEV"
  stop manager
  stop mpi-operator
  if [[ -d "$CLUSTER_DIR" ]]; then
    local kwokctl
    kwokctl=$("$HACK/cluster-tools.sh" kwokctl | sed -n 's/^KWOKCTL=//p')
    log "deleting cluster $CLUSTER_NAME"
    "$kwokctl" delete cluster --name "$CLUSTER_NAME" --kubeconfig "$DEV/kwokctl.kubeconfig" >"$DEV/kwokctl.log" 2>&1 || {
      tail_log "$DEV/kwokctl.log"
      die "kwokctl delete cluster failed"
    }
  else
    log "no cluster $CLUSTER_NAME"
  fi
  rm -f "$DEV/env" "$DEV/manager.cmd" "$DEV"/kube-apiserver.* "$DEV/audit-policy.yaml" "$DEV/manager.sha256" "$DEV/manager.args" "$DEV/nodes" "$DEV/nodes.sha256"
  rm -rf "$DEV/artifact-server-tls"
}

env_() {
  [[ -f "$DEV/env" ]] || die "cluster $CLUSTER_NAME is not up: $0 up"
  running manager || die "the manager of cluster $CLUSTER_NAME is not running: $0 up (log: $DEV/manager.log)"
  print_env "$DEV/env"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  env) env_ ;;
  restart-manager)
    lock "$DEV"
    restart_manager
    ;;
  restart-apiserver)
    lock "$DEV"
    restart_apiserver
    ;;
  *) usage ;;
esac
