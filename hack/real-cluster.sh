#!/usr/bin/env bash
# A real Kubernetes cluster on this machine, for what must truly run (make
# test-real): real kubelets running real containers, no kwok, no registry.
#
#   network namespace bw-net: the bridge bwbr0 (10.99.0.1/24) that joins the
#     nodes, and the control plane on it: etcd, kube-apiserver (:6443),
#     kube-controller-manager, kube-scheduler, the cluster DNS (CoreDNS on
#     10.99.0.1:53, behind the Service kube-system/kube-dns 10.96.0.10), and
#     the MPI Operator's controller (a process, with the admin's credentials,
#     as dev-cluster runs it);
#   NODES nodes (1 or 2), each in its own network namespace bw-node-N
#     (10.99.0.1N on the bridge): its own containerd (runc, overlayfs, the CNI
#     bridge cni0 with pod subnet 10.244.N.0/24), kubelet (KUBE_VERSION of
#     hack/versions.sh; its own root dir and cgroupRoot /benchwright-node-N)
#     and kube-proxy (iptables);
#     labelled like GKE nodes of MACHINE_TYPE in node pool NODE_POOL;
#   this host reaches the bridge through the veth bw-host (10.99.0.254): the
#     kubeconfig points at https://10.99.0.1:6443;
#   images from hack/real-images.sh imported into every node's containerd, a
#     default StorageClass of static local volumes, and benchwright's chart
#     installed by helm: the manager runs as a pod from its image;
#   with ARGO=1, Argo Workflows for real (campaigns): its CRDs, and its
#     workflow-controller as a process beside the control plane (like the MPI
#     Operator's), watching every namespace, its pods run the argoexec image
#     (ARGO_VERSION of hack/versions.sh); the chart gets argo.enabled=true.
#
#   hack/real-cluster.sh up      # create or resume (idempotent); a changed manager is rolled out
#   hack/real-cluster.sh env     # export KUBECONFIG=... and the other facts, for eval
#   hack/real-cluster.sh down    # stop everything; leaves no process, mount, netns or cgroup
#   hack/real-cluster.sh kubelet-stop N   # node N lost: its kubelet stops, its containers run on
#   hack/real-cluster.sh kubelet-start N  # and back: the kubelet starts, the node is Ready
#   eval "$(hack/real-cluster.sh env)"; kubectl get nodes
#
# Settings (environment):
#   NODES             2 (or 1)
#   GKE_NODES         2: how many nodes GKE node pools may have at once (1 to 8)
#   MACHINE_TYPE      n2-standard-2 (the instance-type label; this machine has 2 cores)
#   NODE_POOL         real-pool
#   REAL_CLUSTER_DIR  ~/.cache/benchwright/real-cluster (state, logs, volumes)
#   UP_TIMEOUT        seconds each component may take to come up (120)
#   ARGO              1: Argo Workflows too (above); otherwise its controller,
#                     if an earlier up started it, is stopped
# Needs root, and Debian's containerd, runc, containernetworking-plugins,
# iptables, debootstrap and buildah (installed when missing).
set -euo pipefail

LOG_NAME=real-cluster
# shellcheck source=hack/lib/cluster.sh
source "$(dirname "$0")/lib/cluster.sh"
DIR=${REAL_CLUSTER_DIR:-$CACHE/real-cluster}
PROC_DIR=$DIR/run
LOG_DIR=$DIR/logs
KUBECONFIG_FILE=$DIR/admin.kubeconfig
RUN=/run/benchwright-real
NODES=${NODES:-2}
# Slots for the nodes of GKE node pools (hack/realgke), after the NODES
# always-present ones: 3..2+GKE_NODES. Every node routes to every slot up
# to MAX_SLOT, so GKE_NODES may change from one up to the next.
GKE_NODES=${GKE_NODES:-2}
MAX_SLOT=10
MACHINE_TYPE=${MACHINE_TYPE:-n2-standard-2}
NODE_POOL=${NODE_POOL:-real-pool}
ZONE=${ZONE:-us-central1-a}
UP_TIMEOUT=${UP_TIMEOUT:-120}
WITH_ARGO=${ARGO:-}
# The workflow-controller's own namespace (its ConfigMap); it watches all.
ARGO_NS=argo

NET_NS=bw-net
BRIDGE=bwbr0
CP_IP=10.99.0.1
# The GKE endpoint (hack/realgke) and the cluster it serves.
GKE_ENDPOINT=$CP_IP:8443
GKE_PROJECT=benchwright-real
GKE_CLUSTER=real
HOST_IP=10.99.0.254
SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SVC_IP=10.96.0.1
DNS_IP=10.96.0.10
CLUSTER_CIDR=10.244.0.0/16
STORAGE_CLASS=local-static
# The kernel settings a kubelet changes on its machine (protectKernelDefaults
# false): recorded by up, restored by down.
KUBELET_SYSCTLS=(vm.overcommit_memory kernel.panic kernel.panic_on_oops)
# The tools' paths, set by real_tools.
KUBE_CONTROLLER_MANAGER="" KUBE_SCHEDULER="" KUBELET="" KUBE_PROXY="" HELM="" MPI_OPERATOR="" COREDNS=""
WORKFLOW_CONTROLLER="" ARGO=""

node_name() { echo "real-node-$1"; }
node_ns() { echo "bw-node-$1"; }
node_ip() { echo "10.99.0.$((10 + $1))"; }
pod_cidr() { echo "10.244.$1.0/24"; }

in_ns() {
  local ns=$1
  shift
  nsenter --net="/run/netns/$ns" "$@"
}

real_tools() {
  "$HACK/ensure-packages.sh" containerd runc containernetworking-plugins iptables conntrack iproute2 util-linux debootstrap buildah
  local extra=()
  [[ "$WITH_ARGO" == 1 ]] && extra=(workflow-controller argo)
  tools kube-controller-manager kube-scheduler kubelet kube-proxy helm mpi-operator coredns ${extra[@]+"${extra[@]}"}
}

# --- certificates and kubeconfigs -------------------------------------------

# pki: the cluster's CA, the service account key, a certificate per component
# (its subject names the user and groups the API server sees) and a kubeconfig
# for each client, by hack/clusterkit; what exists is kept.
pki() {
  local p="$DIR/pki" name
  mkdir -p "$p"
  "$CLUSTERKIT" ca "$p" benchwright-real-ca
  "$CLUSTERKIT" sa-key "$p"
  "$CLUSTERKIT" cert "$p" apiserver "/CN=kube-apiserver" \
    "IP:$CP_IP,IP:$KUBERNETES_SVC_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  "$CLUSTERKIT" cert "$p" apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  "$CLUSTERKIT" cert "$p" admin "/O=system:masters/CN=admin"
  "$CLUSTERKIT" cert "$p" controller-manager "/CN=system:kube-controller-manager"
  "$CLUSTERKIT" cert "$p" scheduler "/CN=system:kube-scheduler"
  "$CLUSTERKIT" cert "$p" kube-proxy "/CN=system:kube-proxy"
  "$CLUSTERKIT" cert "$p" coredns "/CN=system:coredns"
  # Each node's own certificate is made as it starts (clusterkit node).
  # The context is named real: the Corefile names it.
  for name in admin controller-manager scheduler kube-proxy coredns; do
    "$CLUSTERKIT" kubeconfig "$DIR/$name.kubeconfig" real "https://$CP_IP:6443" "$p/ca.crt" "$name"
  done
}

# --- network ------------------------------------------------------------------

ns_exists() { [[ -e "/run/netns/$1" ]]; }

network() {
  if ! ns_exists "$NET_NS"; then
    ip netns add "$NET_NS"
  fi
  in_ns "$NET_NS" ip link set lo up
  if ! in_ns "$NET_NS" ip link show "$BRIDGE" >/dev/null 2>&1; then
    in_ns "$NET_NS" ip link add "$BRIDGE" type bridge
    in_ns "$NET_NS" ip addr add "$CP_IP/24" dev "$BRIDGE"
  fi
  in_ns "$NET_NS" ip link set "$BRIDGE" up
  # This host's way onto the bridge (kubectl, helm, the tests).
  if ! ip link show bw-host >/dev/null 2>&1; then
    ip link add bw-host type veth peer name bwh netns "$NET_NS"
    ip addr add "$HOST_IP/24" dev bw-host
  fi
  ip link set bw-host up
  in_ns "$NET_NS" ip link set bwh master "$BRIDGE" up
  # This host's routes to every slot's pods, those of nodes to come too
  # (the nodes make their own namespaces and routes: clusterkit node).
  local i
  for ((i = 1; i <= MAX_SLOT; i++)); do
    ip route replace "$(pod_cidr "$i")" via "$(node_ip "$i")"
  done
}

# --- control plane --------------------------------------------------------------

control_plane() {
  mkdir -p "$DIR/etcd"
  ensure etcd "$NET_NS" "$KUBE_DIR/etcd" --name real --data-dir "$DIR/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster real=http://127.0.0.1:2380 --log-level warn
  local p="$DIR/pki"
  ensure kube-apiserver "$NET_NS" "$KUBE_DIR/kube-apiserver" \
    --etcd-servers http://127.0.0.1:2379 \
    --bind-address 0.0.0.0 --secure-port 6443 --advertise-address "$CP_IP" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --client-ca-file "$p/ca.crt" --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --kubelet-client-certificate "$p/apiserver-kubelet-client.crt" --kubelet-client-key "$p/apiserver-kubelet-client.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --kubelet-preferred-address-types InternalIP \
    --allow-privileged=true --profiling=false --v 1
  wait_ready "kube-apiserver (/readyz)" "$DIR/logs/kube-apiserver.log" readyz
  ensure kube-controller-manager "$NET_NS" "$KUBE_CONTROLLER_MANAGER" \
    --kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --use-service-account-credentials=true \
    --cluster-signing-cert-file "$p/ca.crt" --cluster-signing-key-file "$p/ca.key" \
    --leader-elect=false --bind-address 127.0.0.1 --profiling=false --v 1
  ensure kube-scheduler "$NET_NS" "$KUBE_SCHEDULER" \
    --kubeconfig "$DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig "$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1 --profiling=false --v 1
  wait_ready "kube-controller-manager (the default ServiceAccount)" \
    "$DIR/logs/kube-controller-manager.log" serviceaccount default/default
  alive kube-scheduler
}

# --- nodes ----------------------------------------------------------------------

# host_json: the cluster as its nodes see it, for clusterkit node (package
# hack/clusterkit/node, which starts and stops a node in a slot).
host_json() {
  cat >"$DIR/host.json" <<EOF
{"dir": "$DIR", "run": "$RUN", "controlPlaneNetns": "$NET_NS", "bridge": "$BRIDGE",
 "apiServer": "https://$CP_IP:6443", "dns": "$DNS_IP", "serviceCIDR": "$SERVICE_CIDR",
 "clusterCIDR": "$CLUSTER_CIDR", "slots": $MAX_SLOT,
 "kubelet": "$KUBELET", "kubeProxy": "$KUBE_PROXY", "containerd": "/usr/bin/containerd", "ctr": "/usr/bin/ctr",
 "pauseImage": "$PAUSE_REF", "images": "$DIR/images"}
EOF
}

# fds 8 and 9 are the scripts' locks: the nodes' processes must not hold them.
node() { "$CLUSTERKIT" node "$DIR/host.json" "$@" 8>&- 9>&-; }

# kubelet_stop N / kubelet_start N: a node lost and back, as the tests' fault:
# its kubelet stops (its containers go on running, as on a node that stopped
# answering), then starts again and reports Ready.
kubelet_stop() {
  [[ -f "$DIR/env" ]] || die "the real cluster is not up: $0 up"
  build_clusterkit "$DIR/run"
  node kubelet-stop "$1"
}

kubelet_start() {
  [[ -f "$DIR/env" ]] || die "the real cluster is not up: $0 up"
  real_tools
  build_clusterkit "$DIR/run"
  node kubelet-start "$1" || die "node $(node_name "$1"): its kubelet did not start"
  wait_ready "node $(node_name "$1") (Ready)" "$DIR/logs/kubelet-$1.log" nodes "$(node_name "$1")"
}

# nodes: the always-present nodes, in slots 1..NODES, labelled like GKE nodes
# of MACHINE_TYPE in node pool NODE_POOL (their kubelets register the labels).
nodes() {
  local i name
  for ((i = 1; i <= NODES; i++)); do
    name=$(node_name "$i")
    node up "$i" "$name" \
      "node.kubernetes.io/instance-type=$MACHINE_TYPE" "beta.kubernetes.io/instance-type=$MACHINE_TYPE" \
      "topology.kubernetes.io/zone=$ZONE" "topology.kubernetes.io/region=${ZONE%-*}" \
      "cloud.google.com/gke-nodepool=$NODE_POOL" "cloud.google.com/machine-family=${MACHINE_TYPE%%-*}" \
      "cloud.google.com/gke-os-distribution=debian" \
      "benchwright.io/real-node=true" "benchwright.io/benchmark-node=true" ||
      die "node $name did not start (logs: $LOG_DIR/containerd-$i.log, kubelet-$i.log)"
  done
  for ((i = 1; i <= NODES; i++)); do
    name=$(node_name "$i")
    wait_ready "node $name (Ready)" "$DIR/logs/kubelet-$i.log" nodes "$name"
    alive "kube-proxy-$i"
  done
}

# gke_endpoint: the cluster's GKE endpoint (hack/realgke): the fake
# ClusterManager over TLS on the bridge (its certificate from the cluster's
# CA), whose node-pool operations start nodes in slots 3..2+GKE_NODES and
# stop them (clusterkit node). The chart's hack/real-cluster-gke-values.yaml
# points the manager at it; GKE_PROJECT, GKE_CLUSTER and ZONE name the cluster.
gke_endpoint() {
  local slots
  "$CLUSTERKIT" cert "$DIR/pki" gke-endpoint "/CN=gke-endpoint" "IP:$CP_IP"
  # A new build replaces the binary only when it differs, and only once the
  # old process is stopped: a replaced binary's process no longer reads as
  # running (its /proc exe is "(deleted)"), so stop would miss it.
  (cd "$ROOT" && go build -o "$DIR/run/realgke.new" ./hack/realgke) || die "go build ./hack/realgke failed"
  if cmp -s "$DIR/run/realgke.new" "$DIR/run/realgke"; then
    rm -f "$DIR/run/realgke.new"
  else
    stop realgke
    mv -f "$DIR/run/realgke.new" "$DIR/run/realgke"
  fi
  slots=$(seq -s, 3 $((2 + GKE_NODES)))
  ensure realgke "$NET_NS" "$DIR/run/realgke" --listen "$GKE_ENDPOINT" \
    --tls-cert "$DIR/pki/gke-endpoint.crt" --tls-key "$DIR/pki/gke-endpoint.key" \
    --cluster "projects/$GKE_PROJECT/locations/$ZONE/clusters/$GKE_CLUSTER" \
    --kubeconfig "$DIR/admin.kubeconfig" --slots "$slots" --host-config "$DIR/host.json"
  wait_ready --netns "$NET_NS" "the GKE endpoint ($GKE_ENDPOINT)" "$DIR/logs/realgke.log" tcp "$GKE_ENDPOINT"
}

# --- what runs on the cluster ----------------------------------------------------

# dns: CoreDNS as a process beside the control plane, reading the cluster as
# system:coredns (the RBAC of CoreDNS's own manifests), answering for
# cluster.local only (nothing is forwarded: no query leaves the namespaces),
# and the kube-dns Service whose cluster IP the kubelets give pods.
dns() {
  k apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}
---
apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  labels: {k8s-app: kube-dns}
spec:
  clusterIP: $DNS_IP
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kube-dns-control-plane
  namespace: kube-system
  labels: {kubernetes.io/service-name: kube-dns, endpointslice.kubernetes.io/managed-by: benchwright-real-cluster}
addressType: IPv4
endpoints:
- addresses: [$CP_IP]
  conditions: {ready: true}
ports:
- {name: dns, port: 53, protocol: UDP}
- {name: dns-tcp, port: 53, protocol: TCP}
EOF
  cat >"$DIR/Corefile" <<EOF
.:53 {
    bind $CP_IP
    errors
    health 127.0.0.1:8091
    ready 127.0.0.1:8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $DIR/coredns.kubeconfig real
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
    loop
}
EOF
  ensure coredns "$NET_NS" "$COREDNS" -conf "$DIR/Corefile"
  # Its ready plugin answers 200 once the kubernetes plugin has synced with
  # the API server; it listens in the control plane's namespace.
  wait_ready --netns "$NET_NS" "CoreDNS (/ready)" "$DIR/logs/coredns.log" http http://127.0.0.1:8181/ready
}

storage() {
  k apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: $STORAGE_CLASS
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain
EOF
  # The manager's artifact store: a local volume on the first node.
  local path="$DIR/volumes/manager-store"
  mkdir -p "$path"
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolume
metadata:
  name: benchwright-manager-store
  labels: {benchwright.io/real-cluster: "true"}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $STORAGE_CLASS
  local: {path: $path}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [$(node_name 1)]}
EOF
}

mpi_operator() {
  mpijob_crd
  ensure mpi-operator "$NET_NS" "$MPI_OPERATOR" -alsologtostderr --lock-namespace="$MPI_LOCK_NS" \
    --kubeConfig "$DIR/admin.kubeconfig" --threadiness 2
}

# argo_controller: Argo Workflows' CRDs (the files of the module's
# manifests/base/crds/minimal, not its kustomization), the controller's
# ConfigMap and the controller, as a process with the admin's credentials.
# Settings for short cells (each default is in Argo's docs/environment-variables.md):
#   RESOURCE_STATE_CHECK_INTERVAL 1s (5s): how often a resource step (pool
#     Ready, benchmark finished) reads its object's state; set on argoexec
#     through the ConfigMap's executor.env;
#   WAIT_CONTAINER_STATUS_CHECK_INTERVAL 1s (5s): the wait container's look at
#     the main container (the report step);
#   DEFAULT_REQUEUE_TIME 1s (10s): how soon the controller looks at a Workflow
#     again after its pods changed; the ~10 s between steps. Argo's own e2e
#     tests run with 1s.
argo_controller() {
  local dir f names=()
  dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/argoproj/argo-workflows/v3@$ARGO_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [[ -d "$dir/manifests/base/crds/minimal" ]] || die "no Argo CRDs in the module github.com/argoproj/argo-workflows/v3@$ARGO_VERSION"
  for f in "$dir"/manifests/base/crds/minimal/argoproj.io_*.yaml; do
    k apply --server-side --force-conflicts -f "$f" >/dev/null
    f=$(basename "$f" .yaml)
    names+=("${f#*_}.argoproj.io")
  done
  wait_ready "Argo's CRDs (Established)" "" crds "${names[@]}"
  k create namespace "$ARGO_NS" --dry-run=client -o yaml | k apply -f - >/dev/null
  k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: workflow-controller-configmap
  namespace: $ARGO_NS
data:
  config: |
    executor:
      env:
      - {name: RESOURCE_STATE_CHECK_INTERVAL, value: 1s}
      - {name: WAIT_CONTAINER_STATUS_CHECK_INTERVAL, value: 1s}
EOF
  DEFAULT_REQUEUE_TIME=1s LEADER_ELECTION_DISABLE=true \
    ensure workflow-controller "$NET_NS" "$WORKFLOW_CONTROLLER" \
    --kubeconfig "$DIR/admin.kubeconfig" --namespace "$ARGO_NS" \
    --configmap workflow-controller-configmap \
    --executor-image "$(image_ref argoexec)" --executor-image-pull-policy Never \
    --workflow-workers 4 --pod-cleanup-workers 2 --cron-workflow-workers 1 --workflow-archive-workers 1 \
    --loglevel info
  wait_ready --netns "$NET_NS" "the workflow-controller (/healthz)" "$DIR/logs/workflow-controller.log" http http://127.0.0.1:6060/healthz
}

# image_ref NAME: the reference real-images.sh gave image NAME.
image_ref() { awk -v n="$1" '$1 == n { print $2 }' "$DIR/images"; }

# chart: benchwright as users install it. The admin's choices: hostPath
# volumes under the volumes directory, benchmarks on the nodes' network (the
# seed 002 tests use it), and a manager that tolerates BenchmarkPools' taint,
# since an existing pool here is made of this cluster's two nodes, and a
# manager that is rolled out then must still find a node.
chart() {
  local gke_values=()
  ((GKE_NODES > 0)) && gke_values=(-f "$ROOT/hack/real-cluster-gke-values.yaml")
  log "helm upgrade --install benchwright (the manager from $(image_ref manager))"
  "$HELM" upgrade --install benchwright "$ROOT/charts/benchwright" --kubeconfig "$DIR/admin.kubeconfig" \
    -n "$SYSTEM_NS" --create-namespace --wait=false \
    --set "images.manager=$(image_ref manager)" \
    --set "images.fio=$(image_ref fio)" \
    --set "images.tuner=$(image_ref tuner)" \
    --set "images.mpi.openmpi=$(image_ref mpi-openmpi)" \
    --set "images.mpi.mpich=$(image_ref mpi-mpich)" \
    --set-json "storage.hostPathPrefixes=[\"$DIR/volumes/\"]" \
    --set allowHostNetwork=true \
    --set "argo.enabled=$([[ "$WITH_ARGO" == 1 ]] && echo true || echo false)" \
    "${gke_values[@]}" \
    --set-json 'tolerations=[{"key":"benchwright.io/pool","operator":"Exists","effect":"NoSchedule"}]' \
    >"$DIR/logs/helm.log" 2>&1 || {
    tail_log "$DIR/logs/helm.log"
    die "helm upgrade --install failed"
  }
  # The node tuner is privileged: the namespace allows it (README).
  k label namespace "$SYSTEM_NS" --overwrite pod-security.kubernetes.io/enforce=privileged >/dev/null
  chart_crds
  local deploy
  deploy=$(k get deployments -n "$SYSTEM_NS" -o name | grep -m1 manager) || die "the chart made no manager Deployment"
  if ! k rollout status -n "$SYSTEM_NS" "$deploy" --timeout "${UP_TIMEOUT}s" >/dev/null 2>&1; then
    log "the manager did not become ready:"
    k get pods -n "$SYSTEM_NS" -o wide >&2 || true
    k describe pods -n "$SYSTEM_NS" 2>/dev/null | sed -n '/^Events:/,$p' | tail -n 15 >&2 || true
    k logs -n "$SYSTEM_NS" "$deploy" --tail 30 >&2 2>/dev/null || true
    exit 1
  fi
}

write_env() {
  local i names=()
  for ((i = 1; i <= NODES; i++)); do names+=("$(node_name "$i")"); done
  cat >"$DIR/env" <<EOF
KUBECONFIG=$DIR/admin.kubeconfig
KUBECTL=$KUBECTL
HELM=$HELM
REAL_CLUSTER_DIR=$DIR
REAL_NODES=$(IFS=,; echo "${names[*]}")
REAL_NODE_NETNS=$(for ((i = 1; i <= NODES; i++)); do printf '%s,' "$(node_ns "$i")"; done | sed 's/,$//')
REAL_STORAGE_CLASS=$STORAGE_CLASS
REAL_VOLUMES=$DIR/volumes
REAL_LOGS=$DIR/logs
SYSTEM_NAMESPACE=$SYSTEM_NS
MPI_OPERATOR_LOG=$DIR/logs/mpi-operator.log
ARGO_ENABLED=$WITH_ARGO
REAL_GKE_SLOTS=$GKE_NODES
REAL_GKE_ENDPOINT=$GKE_ENDPOINT
ARGO=$ARGO
WORKFLOW_CONTROLLER_LOG=$DIR/logs/workflow-controller.log
EOF
  local name ref
  while read -r name ref _; do
    name=${name^^}
    echo "IMAGE_${name//-/_}=$ref"
  done <"$DIR/images" >>"$DIR/env"
}

record_sysctls() {
  [[ -f "$DIR/host-sysctls" ]] && return 0
  local s
  for s in "${KUBELET_SYSCTLS[@]}"; do echo "$s=$(sysctl -n "$s")"; done >"$DIR/host-sysctls"
}

up() {
  local began=$SECONDS images built fresh="" stamp
  [[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, containerd, kubelet)"
  ((NODES == 1 || NODES == 2)) || die "NODES=$NODES: 1 or 2"
  ((GKE_NODES >= 0 && GKE_NODES <= MAX_SLOT - 2)) || die "GKE_NODES=$GKE_NODES: 0 to $((MAX_SLOT - 2))"
  mkdir -p "$DIR/run" "$DIR/logs" "$DIR/volumes" "$RUN"
  lock "$DIR"
  if [[ -f "$DIR/nodes" && "$(<"$DIR/nodes")" != "$NODES" ]]; then
    die "the cluster runs with NODES=$(<"$DIR/nodes"): $0 down first"
  fi
  if [[ -f "$DIR/env" ]] && ! running kube-apiserver; then
    log "a cluster stopped without down is here (its processes gone): it starts again with its objects; $0 down first for an empty one"
  fi
  echo "$NODES" >"$DIR/nodes"
  real_tools
  build_clusterkit "$DIR/run"
  # The MPI images need the benchmark sources; without them the rest still runs.
  images=(pause manager fio tuner)
  [[ "$WITH_ARGO" == 1 ]] && images+=(argoexec)
  if [[ -d "${SOURCES:-$ROOT/../shared/src}" ]]; then
    images+=(mpi-openmpi mpi-mpich)
  else
    log "no benchmark sources at ${SOURCES:-$ROOT/../shared/src} (set SOURCES): the MPI images are left out"
  fi
  built=$("$HACK/real-images.sh" "${images[@]}") || die "building the images failed"
  echo "$built" >"$DIR/images"
  PAUSE_REF=$(image_ref pause)
  record_sysctls
  pki
  network
  control_plane
  new_crds && fresh=1
  stamp=$(klog_now)
  host_json
  nodes
  dns
  storage
  mpi_operator
  if [[ "$WITH_ARGO" == 1 ]]; then argo_controller; else stop workflow-controller; fi
  if ((GKE_NODES > 0)); then gke_endpoint; else stop realgke; fi
  chart
  if [[ -n "$fresh" ]]; then
    log "waiting for the garbage collector to watch the new CRDs (it looks every 30 s)"
    gc_synced "$stamp" "$DIR/logs/kube-controller-manager.log"
  fi
  write_env
  log "up in $((SECONDS - began))s: eval \"\$($0 env)\""
}

down() {
  mkdir -p "$DIR/run"
  lock "$DIR"
  local n i
  n=$(cat "$DIR/nodes" 2>/dev/null || echo 2)
  stop realgke
  stop workflow-controller
  stop mpi-operator
  stop coredns
  # Every slot's node, the GKE nodes' too: nothing of them left.
  if [[ -f "$DIR/host.json" ]]; then
    build_clusterkit "$DIR/run"
    for ((i = 1; i <= MAX_SLOT; i++)); do
      node remove "$i" || log "node in slot $i: not all removed"
    done
  fi
  stop kube-scheduler
  stop kube-controller-manager
  stop kube-apiserver
  stop etcd
  for ((i = 1; i <= MAX_SLOT; i++)); do
    ip route del "$(pod_cidr "$i")" 2>/dev/null || true
  done
  ip link delete bw-host 2>/dev/null || true
  # The node tuner's originals (a hostPath per node name), empty once restored.
  for ((i = 1; i <= n; i++)); do
    rmdir "/var/lib/benchwright/tuning/$(node_name "$i")" 2>/dev/null || true
  done
  ip netns delete "$NET_NS" 2>/dev/null || true
  if [[ -f "$DIR/host-sysctls" ]]; then
    local line
    while read -r line; do sysctl -qw "$line" || true; done <"$DIR/host-sysctls"
  fi
  rm -rf "$RUN"
  # Keep the logs of the last run; the rest goes.
  find "$DIR" -mindepth 1 -maxdepth 1 -not -name logs -exec rm -rf {} + 2>/dev/null || true
  leftovers
}

# leftovers: fails naming any process, mount, netns or cgroup of ours still there.
leftovers() {
  local found=()
  pgrep -f "$RUN/|$DIR/(node-|admin|controller|scheduler|etcd)" >/dev/null && found+=("processes: $(pgrep -af "$RUN/|$DIR/(node-|admin|controller|scheduler|etcd)" | head -3 | tr '\n' ';')")
  grep -qE " ($DIR|$RUN)[/ ]" /proc/self/mountinfo && found+=("mounts under $DIR or $RUN")
  ip netns list 2>/dev/null | grep -qE '^bw-(net|node-)' && found+=("network namespaces: $(ip netns list | grep -E '^bw-' | tr '\n' ' ')")
  compgen -G "/sys/fs/cgroup/*/benchwright-node-*" >/dev/null && found+=("cgroups: $(echo /sys/fs/cgroup/*/benchwright-node-* | head -c 200)")
  if ((${#found[@]})); then
    log "left behind: ${found[*]}"
    exit 1
  fi
  log "down: no process, mount, network namespace or cgroup left"
}

env_() {
  [[ -f "$DIR/env" ]] || die "the real cluster is not up: $0 up"
  running kube-apiserver || die "the real cluster's kube-apiserver is not running: $0 up (log: $DIR/logs/kube-apiserver.log)"
  print_env "$DIR/env"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  env) env_ ;;
  kubelet-stop) kubelet_stop "${2:?node number}" ;;
  kubelet-start) kubelet_start "${2:?node number}" ;;
  *) usage ;;
esac
