#!/usr/bin/env bash
# Lints the chart's Argo WorkflowTemplate and the example campaigns with the
# real `argo lint --offline` (the argo CLI and helm built by
# hack/cluster-tools.sh, or $ARGO and $HELM). The examples' workflowTemplateRef
# is resolved against the rendered template, so a wrong parameter or template
# name fails here. test/argo checks the same files against the API server.
#
#   hack/argo-lint.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${HELM:-}" || -z "${ARGO:-}" ]]; then
  eval "$("$ROOT/hack/cluster-tools.sh" helm argo)"
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$HELM" template benchwright "$ROOT/charts/benchwright" --namespace benchwright-system \
  --set argo.enabled=true --show-only templates/argo/workflowtemplate.yaml >"$out/workflowtemplate.yaml"
# Offline, argo lint looks a workflowTemplateRef up in the namespace written in
# the files; the examples name none (they run where they are submitted), so the
# rendered template must not either.
sed -i '/^  namespace: /d' "$out/workflowtemplate.yaml"

"$ARGO" lint --offline --no-color "$out/workflowtemplate.yaml" "$ROOT"/examples/campaigns/*.yaml "$ROOT"/examples/cron/*.yaml
