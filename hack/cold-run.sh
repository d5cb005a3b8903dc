#!/usr/bin/env bash
# CI's time on a cold machine, measured honestly: a fresh clone of HEAD run
# with HOME, GOPATH, GOMODCACHE, GOCACHE and benchwright's cache
# (BENCHWRIGHT_CACHE: tools, Kubernetes binaries, benchmark tools, images)
# pointed at empty directories, so that every module download and every build
# happens again. Debian packages already installed stay installed (apt's time
# is not counted), and the Go toolchain is this machine's.
#
#   hack/cold-run.sh                         # .ci/run, then a table of its phases
#   hack/cold-run.sh test                    # make test, a phase per target of it
#   hack/cold-run.sh test-tools test-unit    # these make targets, in order
#
# Settings (environment):
#   COLD_DIR   where the clone and the empty caches go (default: a new
#              directory under /tmp; not under /var, whose host paths the
#              real tests may not use); removed afterwards unless COLD_KEEP=1
#   SOURCES    the benchmark sources (default ../shared/src beside this clone)
# The real cluster must be down (make real-cluster-down): a cold .ci/run brings
# up its own, with the same network namespaces.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "cold-run: $*" >&2; }

if ip netns list 2>/dev/null | grep -qE '^bw-'; then
  log "a real cluster runs here (network namespaces bw-*): make real-cluster-down first"
  exit 1
fi
DIR=${COLD_DIR:-$(mktemp -d /tmp/benchwright-cold.XXXXXX)}
# The real tests give StorageBenchmarks host paths under the cache, and the
# API server refuses host paths under system directories (/var, /usr, /opt,
# /run, ...): a cold run there would fail those tests, not CI.
case $DIR in
  /var/* | /usr/* | /opt/* | /run/* | /etc/* | /home | /root | /srv/*)
    log "COLD_DIR=$DIR: the real tests' host paths may not lie there; choose a directory under /tmp or /mnt"
    exit 1 ;;
esac
mkdir -p "$DIR"
if [[ -z "${COLD_KEEP:-}" ]]; then
  # Module cache files are read-only: make them writable to remove them.
  trap 'chmod -R u+w "$DIR" 2>/dev/null; rm -rf "$DIR"' EXIT
fi
git clone -q "$ROOT" "$DIR/src"
# The clone sits beside ../shared as CI's does: the e2e and chaos runs read
# its fixtures there (without them they skip, and the time would be a lie).
if [[ -d "$ROOT/../shared" && ! -e "$DIR/shared" ]]; then
  ln -s "$(cd "$ROOT/../shared" && pwd)" "$DIR/shared"
fi
mkdir -p "$DIR/home" "$DIR/go" "$DIR/gocache" "$DIR/cache"
export HOME=$DIR/home GOPATH=$DIR/go GOMODCACHE=$DIR/go/pkg/mod GOCACHE=$DIR/gocache
export BENCHWRIGHT_CACHE=$DIR/cache XDG_CACHE_HOME=$DIR/home/.cache
export SOURCES=${SOURCES:-$ROOT/../shared/src}
export PATH="/usr/local/go/bin:$PATH"
cd "$DIR/src"
log "fresh clone of $(git rev-parse --short HEAD) in $DIR/src; caches empty under $DIR"

phases=()
began=$SECONDS
if (($# == 0)); then
  # .ci/run prints "ci: <phase> done after <N>s" (from its start) per phase.
  set +e
  .ci/run 2>&1 | tee "$DIR/ci.log"
  rc=${PIPESTATUS[0]}
  set -e
  prev=0
  while read -r phase secs; do
    phases+=("$phase $((secs - prev))")
    prev=$secs
  done < <(sed -nE 's/^ci: (.*) done after ([0-9]+)s$/\1 \2/p; s/^ci: done in ([0-9]+)s$/fuzz \1/p' "$DIR/ci.log" | tr ' ' '_' | sed -E 's/_([0-9]+)$/ \1/')
else
  targets=("$@")
  if [[ "$*" == test ]]; then
    read -r -a targets < <(sed -nE 's/^test: (.*) ##.*/\1/p' Makefile)
  fi
  rc=0
  for t in "${targets[@]}"; do
    s=$SECONDS
    make --no-print-directory "$t" || rc=$?
    phases+=("$t $((SECONDS - s))")
    ((rc == 0)) || break
  done
fi
total=$((SECONDS - began))
printf '\n%-28s %8s\n' "phase (cold)" "time"
for p in "${phases[@]}"; do
  printf '%-28s %5dm%02ds\n' "${p% *}" $((${p##* } / 60)) $((${p##* } % 60))
done
printf '%-28s %5dm%02ds  (exit %d)\n' "total" $((total / 60)) $((total % 60)) "$rc"
exit "$rc"
