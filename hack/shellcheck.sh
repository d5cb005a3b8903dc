#!/usr/bin/env bash
# Runs shellcheck (Debian's, installed when missing) on every shell script of
# the repository: hack/ (with hack/lib/), images/ and .ci/, found by their .sh
# name or a sh/bash shebang, tracked or new. Sourced files are followed (-x),
# from the repository root, as the scripts' `# shellcheck source=` name them.
# make verify runs it.
#
#   hack/shellcheck.sh            # all of them
#   hack/shellcheck.sh FILE...    # only these
set -euo pipefail
cd "$(dirname "$0")/.."

"hack/ensure-packages.sh" shellcheck

scripts=("$@")
if ((${#scripts[@]} == 0)); then
  while IFS= read -r f; do
    [[ -f "$f" ]] || continue
    if [[ "$f" == *.sh ]] || head -n1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)'; then
      scripts+=("$f")
    fi
  done < <(git ls-files --cached --others --exclude-standard -- hack images .ci)
fi
((${#scripts[@]})) || { echo "shellcheck: no shell scripts found" >&2; exit 1; }
shellcheck --version | sed -n 's/^version: /shellcheck /p' >&2
shellcheck -x "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean" >&2
