#!/usr/bin/env bash
# Builds the real benchmark programs on this machine from their release sources
# (SOURCES, default ../shared/src; never downloaded), for the local executor's
# tests and for making real outputs:
#   openmpi, mpich   OSU micro-benchmarks, IMB-MPI1, IOR (ior, mdtest), built
#                    with that MPI's compiler wrappers (mpicc.openmpi, mpicc.mpich)
#   fabtests         libfabric's fabtests (fi_msg_bw, fi_rma_bw, fi_rdm_tagged_bw,
#                    fi_msg_pingpong, ...) against Debian's libfabric
# Each set lands in $CACHE/bench-tools/NAME-DIGEST/bin, the digest taken from the
# source archives and this script, so a warm run only checks files. Prints
# KEY=directory lines (BENCH_TOOLS_OPENMPI, BENCH_TOOLS_MPICH, BENCH_TOOLS_FABTESTS)
# for what was asked and could be built; without the sources it prints nothing
# and says why on stderr.
#
#   hack/bench-tools.sh                   # all three
#   hack/bench-tools.sh openmpi fabtests  # only these
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=hack/versions.sh
source "$HERE/versions.sh"
CACHE=${BENCHWRIGHT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/benchwright}
SOURCES=${SOURCES:-$ROOT/../shared/src}
OSU=$OSU_ARCHIVE
IMB=$IMB_ARCHIVE
IOR=$IOR_ARCHIVE
FABTESTS=$FABTESTS_ARCHIVE

log() { echo "bench-tools [${SECONDS}s]: $*" >&2; }
die() { log "$*"; exit 1; }

wanted=("$@")
((${#wanted[@]})) || wanted=(openmpi mpich fabtests)
if [[ ! -d $SOURCES ]]; then
  log "no benchmark sources at $SOURCES (set SOURCES to the directory holding $OSU, $IMB, $IOR, $FABTESTS): nothing built"
  exit 0
fi

digest() { cat "$0" "$@" | sha256sum | cut -c1-12; }

# unpack ARCHIVE DIR: the archive's single top directory as DIR.
unpack() { mkdir -p "$2" && tar -xzf "$SOURCES/$1" -C "$2" --strip-components=1; }

# build_mpi MPI OUT: OSU, IMB and IOR with MPI's wrappers, into OUT/bin.
build_mpi() {
  local mpi=$1 out=$2 cc=mpicc.$1 cxx=mpicxx.$1
  command -v "$cc" >/dev/null || die "$cc not found: install lib$mpi-dev (hack/ensure-packages.sh)"
  mkdir -p "$out/bin"
  unpack "$OSU" "$out/src/osu"
  (cd "$out/src/osu" && ./configure -q CC="$cc" CXX="$cxx" >/dev/null && make -s -j"$(nproc)" >/dev/null 2>&1) ||
    die "OSU failed to build with $cc (rerun in $out/src/osu for the log)"
  # OSU 7.x keeps the programs under c/mpi/<kind>/<variant>/: flatten onto one bin.
  find "$out/src/osu/c/mpi" -type f -name 'osu_*' -perm -u+x -exec cp {} "$out/bin/" \;
  unpack "$IMB" "$out/src/imb"
  # IMB adds -Werror; the MPI C++ headers warn with gcc 12 (SOURCES.md).
  sed -i 's/ -Werror\b//g' "$out/src/imb/src_cpp/Makefile"
  make -s -C "$out/src/imb" IMB-MPI1 CC="$cc" CXX="$cxx" CPPFLAGS="-DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX" >/dev/null 2>&1 ||
    die "IMB failed to build with $cc"
  install -m 0755 "$out/src/imb/IMB-MPI1" "$out/bin/"
  unpack "$IOR" "$out/src/ior"
  (cd "$out/src/ior" && { test -x configure || ./bootstrap >/dev/null 2>&1; } &&
    ./configure -q CC="$cc" MPICC="$cc" >/dev/null && make -s -j"$(nproc)" >/dev/null 2>&1) ||
    die "IOR failed to build with $cc"
  install -m 0755 "$out/src/ior/src/ior" "$out/src/ior/src/mdtest" "$out/bin/"
  local b
  for b in osu_latency osu_bw osu_allreduce IMB-MPI1 ior; do
    [[ -x $out/bin/$b ]] || die "$mpi: built no $b"
  done
  rm -rf "$out/src"
}

# build_fabtests OUT: fabtests against the system libfabric, into OUT/bin.
build_fabtests() {
  local out=$1
  [[ -f /usr/include/rdma/fabric.h ]] || die "libfabric's headers are missing: install libfabric-dev"
  # The archive is libfabric's tree cut down to fabtests/ and COPYING.
  unpack "$FABTESTS" "$out/src"
  (cd "$out/src/fabtests" && { test -x configure || ./autogen.sh >/dev/null 2>&1; } &&
    ./configure -q --prefix="$out" >/dev/null && make -s -j"$(nproc)" >/dev/null 2>&1 && make -s install >/dev/null 2>&1) ||
    die "fabtests failed to build (rerun in $out/src for the log)"
  [[ -x $out/bin/fi_msg_bw && -x $out/bin/fi_rdm_tagged_bw ]] || die "fabtests built no fi_msg_bw"
  rm -rf "$out/src" "$out/share" "$out/include"
}

mkdir -p "$CACHE/bench-tools"
exec 9>"$CACHE/bench-tools/.lock"
flock 9
for name in "${wanted[@]}"; do
  case $name in
    openmpi | mpich) sources=("$SOURCES/$OSU" "$SOURCES/$IMB" "$SOURCES/$IOR") ;;
    fabtests) sources=("$SOURCES/$FABTESTS") ;;
    *) die "unknown set $name: want openmpi, mpich or fabtests" ;;
  esac
  dir="$CACHE/bench-tools/$name-$(digest "${sources[@]}")"
  if [[ ! -x $dir/bin/.complete ]]; then
    log "building $name into $dir"
    rm -rf "$dir" "$dir.tmp"
    case $name in
      fabtests) build_fabtests "$dir.tmp" ;;
      *) build_mpi "$name" "$dir.tmp" ;;
    esac
    install -m 0755 /dev/null "$dir.tmp/bin/.complete"
    mv "$dir.tmp" "$dir"
    log "built $name"
  fi
  echo "BENCH_TOOLS_${name^^}=$dir/bin"
done
