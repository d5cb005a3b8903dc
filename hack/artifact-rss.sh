#!/usr/bin/env bash
# artifact-rss.sh: the artifact server's peak RSS (VmHWM) under 20 concurrent
# slow readers of the store's largest objects (64 MiB campaign reports),
# the server of BASE (default: main's merge base, the whole-object reads)
# against this tree's (streamed), alternated PAIRS times (default 5).
#
#   hack/artifact-rss.sh            # BASE=$(git merge-base HEAD main) PAIRS=5
#   BASE=<rev> PAIRS=7 hack/artifact-rss.sh -readers 20 -rate 8388608
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BASE:-$(git merge-base HEAD main)}
pairs=${PAIRS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The old tree, with this tree's little server main (the handler's API,
# New(store, log), is the same in both).
mkdir -p "$work/old"
git archive "$base" | tar -x -C "$work/old"
mkdir -p "$work/old/hack/artifact-rss/server"
cp hack/artifact-rss/server/main.go "$work/old/hack/artifact-rss/server/"
(cd "$work/old" && go build -o "$work/server-old" ./hack/artifact-rss/server)
go build -o "$work/server-new" ./hack/artifact-rss/server
go build -o "$work/artifact-rss" ./hack/artifact-rss
echo "old: $(git rev-parse --short "$base"), new: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- internal || echo '+changes')"
"$work/artifact-rss" -old "$work/server-old" -new "$work/server-new" -pairs "$pairs" "$@"
