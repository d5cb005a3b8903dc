#!/usr/bin/env bash
# Builds benchwright's images without a registry, for the real cluster
# (hack/real-cluster.sh) and for anyone without Docker:
#
#   1. a Debian bookworm base made with debootstrap from the mirror apt already
#      uses, tagged as every FROM the Dockerfiles name (debian:bookworm,
#      debian:bookworm-slim), plus golang:1.26 (that base with this machine's
#      Go) and gcr.io/distroless/static (its passwd, group, CA certificates and
#      time zones only);
#   2. the real Dockerfiles of images/ with `buildah bud --pull=never`: manager,
#      fio, tuner, and mpi-debian twice (MPI=openmpi, MPI=mpich), the benchmark
#      sources (OSU, IMB, IOR, fabtests) taken from SOURCES (no download) and
#      compiled in an image of their own (its bench stage, mpi-*-bench), which
#      a change to the Go code leaves alone;
#   3. the pod sandbox image (hack/pause), which a kubelet otherwise pulls;
#   4. argoexec, Argo Workflows' executor (only when asked for: make
#      real-cluster with ARGO=1): the distroless base with the static argoexec
#      that hack/cluster-tools.sh builds at /bin/argoexec, user 8737 as Argo's
#      own image, tagged as Argo tags it (quay.io/argoproj/argoexec:ARGO_VERSION).
#
# Each image is cached under $CACHE/images as an OCI archive named by a digest
# of everything it is built from (Dockerfile, build arguments, sources, base),
# so a warm run builds nothing. buildah's own storage (layers) is kept in
# $CACHE/images/storage. Prints one line per image: NAME REF ARCHIVE.
#
#   hack/real-images.sh                 # all images
#   hack/real-images.sh pause fio       # only these
#
# Settings (environment):
#   SOURCES   the benchmark source archives (default ../shared/src beside the
#             repository; see its SOURCES.md)
#   MIRROR    the Debian mirror (default: the first URIs/deb line of apt's sources)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# The benchmark sources' versions, archive names and checksums.
# shellcheck source=hack/versions.sh
source "$HERE/versions.sh"
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
IMAGES="$CACHE/images"
SOURCES=${SOURCES:-$ROOT/../shared/src}
SUITE=bookworm
REPO=ghcr.io/benchwright
ALL=(pause manager fio tuner mpi-openmpi mpi-mpich argoexec)

log() { echo "real-images [${SECONDS}s]: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, buildah): run it as root or with sudo"
"$HERE/ensure-packages.sh" debootstrap buildah containerd

mkdir -p "$IMAGES/tmp"
exec 9>"$IMAGES/.lock"
flock 9

B=(buildah --root "$IMAGES/storage" --runroot /run/benchwright-buildah)
# buildah run as buildah bud below: chroot isolation. Its default (an OCI
# runtime, crun) refuses this machine's cgroups ("cgroups in hybrid mode not
# supported, drop all controllers from cgroupv2").
export BUILDAH_ISOLATION=chroot

# The storage is ours alone: no working container or mount outlives a run,
# whether it built or failed.
cleanup() {
  "${B[@]}" rm --all >/dev/null 2>&1 || true
  umount "$IMAGES/storage/overlay" 2>/dev/null || true
}
trap cleanup EXIT

# digest ARGS...: a short digest of strings and the contents of files/directories.
digest() {
  local a
  for a in "$@"; do
    if [[ -d "$a" ]]; then
      (cd "$a" && find . -type f -not -name '*_test.go' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    elif [[ -f "$a" ]]; then
      sha256sum <"$a"
    else
      echo "$a"
    fi
  done | sha256sum | cut -c1-12
}

# present REF: buildah's storage holds REF.
present() { "${B[@]}" inspect --type image "$1" >/dev/null 2>&1; }

# archived NAME REF: the cached archive NAME.oci.tar holds REF.
archived() {
  tar -xOf "$IMAGES/$1.oci.tar" index.json 2>/dev/null | grep -qF "\"org.opencontainers.image.ref.name\":\"$2\""
}

# load NAME REF: REF is in buildah's storage, from the cached archive if need be.
load() {
  if present "$2"; then
    # The archive, which real-cluster.sh imports, may hold another checkout's
    # build since REF was saved.
    archived "$1" "$2" || save "$1" "$2"
    return 0
  fi
  [[ -f "$IMAGES/$1.oci.tar" ]] || return 1
  local id
  # An archive of another key (an older build) holds another reference: rebuild.
  id=$("${B[@]}" pull -q "oci-archive:$IMAGES/$1.oci.tar:$2" 2>/dev/null) || return 1
  "${B[@]}" tag "$id" "$2"
}

# save NAME REF: writes REF to the cached archive NAME.oci.tar.
save() {
  local tmp="$IMAGES/tmp/$1.oci.tar"
  rm -f "$tmp"
  "${B[@]}" push -q "$2" "oci-archive:$tmp:$2" >/dev/null
  mv -f "$tmp" "$IMAGES/$1.oci.tar"
}

mirror() {
  [[ -n "${MIRROR:-}" ]] && { echo "$MIRROR"; return; }
  local m
  m=$(grep -hs -m1 '^URIs:' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | awk '{print $2; exit}')
  [[ -n "$m" ]] || m=$(grep -hs -m1 '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2; exit}')
  echo "${m:-http://deb.debian.org/debian}"
}

# base: the debootstrapped bookworm (minbase, as debian:bookworm-slim), tagged
# debian:bookworm and debian:bookworm-slim.
base() {
  local m key name ref rootfs
  m=$(mirror)
  key=$(digest "$SUITE" "$m" minbase-v1 "$(grep -hs 'Acquire::' /etc/apt/apt.conf.d/* || true)")
  name="base-$SUITE-$key"
  ref="localhost/benchwright/debian:$SUITE-$key"
  if ! load "$name" "$ref"; then
    rootfs="$IMAGES/tmp/rootfs-$key"
    rm -rf "$rootfs"
    log "debootstrap $SUITE from $m (cold: ~4 min)"
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$m" >"$IMAGES/tmp/debootstrap.log" 2>&1 || {
      tail -n 20 "$IMAGES/tmp/debootstrap.log" >&2
      die "debootstrap failed (log: $IMAGES/tmp/debootstrap.log)"
    }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    # The Dockerfiles' apt-get reaches the same mirror, with apt's settings for it.
    printf 'deb %s %s main\ndeb %s %s-updates main\n' "$m" "$SUITE" "$m" "$SUITE" >"$rootfs/etc/apt/sources.list"
    grep -hs 'Acquire::' /etc/apt/apt.conf.d/* >"$rootfs/etc/apt/apt.conf.d/99benchwright-mirror" || true
    local c
    c=$("${B[@]}" from scratch)
    "${B[@]}" copy "$c" "$rootfs" / >/dev/null
    "${B[@]}" config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
    "${B[@]}" commit -q --rm "$c" "$ref" >/dev/null
    rm -rf "$rootfs"
    save "$name" "$ref"
  fi
  "${B[@]}" tag "$ref" docker.io/library/debian:bookworm docker.io/library/debian:bookworm-slim
  BASE_REF=$ref BASE_KEY=$key
}

# golang: the base with this machine's Go, tagged golang:1.26 (GO_IMAGE).
golang() {
  local goroot ver key name ref c
  goroot=$(go env GOROOT)
  ver=$(go env GOVERSION)
  key=$(digest "$BASE_KEY" "$ver" "$(go env GOPROXY GOSUMDB)" /etc/ssl/certs/ca-certificates.crt go-v1)
  name="golang-$key"
  ref="localhost/benchwright/golang:$key"
  if ! load "$name" "$ref"; then
    log "golang image: the base with $ver from $goroot"
    c=$("${B[@]}" from --pull=never "$BASE_REF")
    "${B[@]}" copy "$c" "$goroot" /usr/local/go >/dev/null
    "${B[@]}" run "$c" -- sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates gcc libc6-dev git >/dev/null && rm -rf /var/lib/apt/lists/*'
    # The module proxy is reached as this machine reaches it: with its CAs.
    "${B[@]}" copy "$c" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt >/dev/null
    "${B[@]}" config --env GOPATH=/go --env GOTOOLCHAIN=local \
      --env "GOPROXY=$(go env GOPROXY)" --env "GOSUMDB=$(go env GOSUMDB)" \
      --env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      --workingdir /go "$c"
    "${B[@]}" commit -q --rm "$c" "$ref" >/dev/null
    save "$name" "$ref"
  fi
  "${B[@]}" tag "$ref" docker.io/library/golang:1.26
}

# distroless: what gcr.io/distroless/static holds that the manager and tuner
# use: passwd/group with nonroot (65532), CA certificates, time zones, /tmp.
distroless() {
  local key name ref c rootfs
  key=$(digest "$BASE_KEY" distroless-v1)
  name="distroless-$key"
  ref="localhost/benchwright/distroless-static:$key"
  if ! load "$name" "$ref"; then
    log "distroless/static from the base"
    rootfs="$IMAGES/tmp/distroless-$key"
    rm -rf "$rootfs"
    mkdir -p "$rootfs"/{etc/ssl/certs,usr/share,tmp,home/nonroot,root}
    chmod 1777 "$rootfs/tmp"
    c=$("${B[@]}" from --pull=never "$BASE_REF")
    "${B[@]}" run "$c" -- sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates tzdata >/dev/null'
    local mnt
    mnt=$("${B[@]}" mount "$c")
    cp "$mnt/etc/ssl/certs/ca-certificates.crt" "$rootfs/etc/ssl/certs/"
    cp -a "$mnt/usr/share/zoneinfo" "$rootfs/usr/share/"
    "${B[@]}" umount "$c" >/dev/null
    "${B[@]}" rm "$c" >/dev/null
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$rootfs/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$rootfs/etc/group"
    chown 65532:65532 "$rootfs/home/nonroot"
    c=$("${B[@]}" from scratch)
    "${B[@]}" copy "$c" "$rootfs" / >/dev/null
    "${B[@]}" config --env PATH=/usr/local/bin:/usr/bin:/bin --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt "$c"
    "${B[@]}" commit -q --rm "$c" "$ref" >/dev/null
    rm -rf "$rootfs"
    save "$name" "$ref"
  fi
  "${B[@]}" tag "$ref" gcr.io/distroless/static:nonroot gcr.io/distroless/static:latest
}

# pause: the pod sandbox, hack/pause built static.
pause() {
  local key ref
  key=$(digest "$HERE/pause/main.go" "$(go env GOVERSION)")
  ref="$REPO/pause:$key"
  if ! load "pause" "$ref"; then
    log "pause image"
    local out="$IMAGES/tmp/pause" c
    (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out" ./hack/pause)
    c=$("${B[@]}" from scratch)
    "${B[@]}" copy "$c" "$out" /pause >/dev/null
    "${B[@]}" config --entrypoint '["/pause"]' --user 65535:65535 "$c"
    "${B[@]}" commit -q --rm "$c" "$ref" >/dev/null
    save "pause" "$ref"
  fi
  BUILT+=("$ref")
  echo "pause $ref $IMAGES/pause.oci.tar"
}

# argoexec: Argo's executor image. Its reference is Argo's own, so the archive
# is named by the binary's digest instead: a rebuilt argoexec makes a new one.
argoexec() {
  local bin key ref archive c
  bin=$("$HERE/cluster-tools.sh" argoexec | sed -n 's/^ARGOEXEC=//p')
  [[ -x "$bin" ]] || die "hack/cluster-tools.sh built no argoexec"
  key=$(digest "$bin" "$BASE_KEY" argoexec-v1)
  ref="quay.io/argoproj/argoexec:$ARGO_VERSION"
  archive="$IMAGES/argoexec-$key.oci.tar"
  if [[ ! -f "$archive" ]]; then
    log "argoexec image $ref"
    c=$("${B[@]}" from --pull=never gcr.io/distroless/static:nonroot)
    "${B[@]}" copy "$c" "$bin" /bin/argoexec >/dev/null
    "${B[@]}" config --user 8737 --entrypoint '["argoexec"]' --env PATH=/usr/local/bin:/usr/bin:/bin "$c"
    "${B[@]}" commit -q --rm "$c" "$ref" >/dev/null
    "${B[@]}" push -q "$ref" "oci-archive:$IMAGES/tmp/argoexec.oci.tar:$ref" >/dev/null
    rm -f "$IMAGES"/argoexec-*.oci.tar
    mv -f "$IMAGES/tmp/argoexec.oci.tar" "$archive"
  fi
  BUILT+=("$ref")
  echo "argoexec $ref $archive"
}

GO_TREES=("$ROOT/go.mod" "$ROOT/go.sum" "$ROOT/api" "$ROOT/cmd" "$ROOT/controllers" "$ROOT/internal")

# dockerfile NAME DOCKERFILE [--build-arg ...]: builds the Dockerfile from the
# repository root as REPO/NAME (LAST_REF), with the host's Go caches mounted
# so the Go stages download and compile only what changed.
dockerfile() {
  local name=$1 file=$2; shift 2
  local key ref extra=() trees=()
  # Images that build the Go code change with it and with Go (not a
  # --target stage without it: the benchmarks' own).
  if grep -q '^COPY go.mod' "$ROOT/$file" && [[ " $* " != *" --target "* ]]; then
    trees=("$GO_KEY" "${GO_TREES[@]}")
  fi
  key=$(digest "$ROOT/$file" "$BASE_KEY" "$*" ${trees[@]+"${trees[@]}"} ${SRC_FILES[@]+"${SRC_FILES[@]}"})
  ref="$REPO/$name:dev-$key"
  if ! load "$name" "$ref"; then
    log "buildah bud $file $* -> $ref"
    [[ -n "${SRC_FILES[*]:-}" ]] && extra+=(-v "$SOURCES:/sources:ro" --build-arg SOURCE_DIR=/sources)
    local blog="$IMAGES/tmp/$name.build.log"
    # Docker's image format, as docker build makes: the Dockerfiles' SHELL needs it.
    "${B[@]}" bud --pull=never --layers --format=docker --isolation=chroot --network=host \
      -v "$(go env GOMODCACHE):/go/pkg/mod" -v "$(go env GOCACHE):/root/.cache/go-build" \
      ${extra[@]+"${extra[@]}"} "$@" -f "$ROOT/$file" -t "$ref" "$ROOT" >"$blog" 2>&1 || {
      grep -iE -m5 'error|fail' "$blog" >&2 || true
      tail -n 30 "$blog" >&2
      die "building $name failed (log: $blog)"
    }
    save "$name" "$ref"
  fi
  BUILT+=("$ref")
  LAST_REF=$ref
  echo "$name $ref $IMAGES/$name.oci.tar"
}

# prune: buildah's storage keeps, of the images asked for, only the ones this
# run built or loaded, and no untagged image (a build's intermediate stages):
# each manager build left 3.8 GB of them behind. The archives stay the cache;
# the Go stages rebuild from the mounted Go caches, and the MPI images' from
# their benchmarks' image (NAME-bench, kept like the image itself).
prune() {
  local ref names
  names=$(IFS='|'; echo "${wanted[*]}")
  while read -r ref; do
    [[ " ${BUILT[*]} " == *" $ref "* ]] && continue
    "${B[@]}" rmi -f "$ref" >/dev/null 2>&1 || true
  done < <("${B[@]}" images --format '{{.Name}}:{{.Tag}}' | grep -E "^$REPO/($names)(-bench)?:dev-" || true)
  "${B[@]}" rmi --prune >/dev/null 2>&1 || true
}

wanted=("$@")
((${#wanted[@]})) || wanted=("${ALL[@]}")
for n in "${wanted[@]}"; do
  [[ " ${ALL[*]} " == *" $n "* ]] || die "unknown image $n (one of: ${ALL[*]})"
done

base
golang
distroless
GO_KEY=$(digest "$(go env GOVERSION)")
SRC_FILES=()
BUILT=()
for n in "${wanted[@]}"; do
  case $n in
    pause) pause ;;
    argoexec) argoexec ;;
    manager) dockerfile manager images/manager/Dockerfile ;;
    fio) dockerfile fio images/fio/Dockerfile ;;
    tuner) dockerfile tuner images/tuner/Dockerfile ;;
    mpi-openmpi | mpi-mpich)
      [[ -d "$SOURCES" ]] || die "no benchmark sources at $SOURCES (set SOURCES to the directory with $OSU_ARCHIVE, $IMB_ARCHIVE, $IOR_ARCHIVE, $FABTESTS_ARCHIVE)"
      SRC_FILES=("$SOURCES/$OSU_ARCHIVE" "$SOURCES/$IMB_ARCHIVE" "$SOURCES/$IOR_ARCHIVE" "$SOURCES/$FABTESTS_ARCHIVE")
      args=(--build-arg "MPI=${n#mpi-}"
        --build-arg "OSU_VERSION=$OSU_VERSION" --build-arg "OSU_SHA256=$OSU_SHA256"
        --build-arg "IMB_VERSION=$IMB_VERSION" --build-arg "IMB_SHA256=$IMB_SHA256"
        --build-arg "IOR_VERSION=$IOR_VERSION" --build-arg "IOR_SHA256=$IOR_SHA256"
        --build-arg "FABTESTS_VERSION=$FABTESTS_VERSION" --build-arg "FABTESTS_ARCHIVE=$FABTESTS_ARCHIVE"
        --build-arg "FABTESTS_SHA256=$FABTESTS_SHA256")
      # The benchmarks first, as an image of their own, which the Go code
      # does not key: a Go change rebuilds only the CLI's stage and the last.
      # (Not an image of the cluster: its line is not printed.)
      dockerfile "$n-bench" images/mpi-debian/Dockerfile "${args[@]}" --target bench >/dev/null
      SRC_FILES=()
      dockerfile "$n" images/mpi-debian/Dockerfile "${args[@]}" --build-arg "BENCH_IMAGE=$LAST_REF"
      ;;
  esac
done
prune
