#!/usr/bin/env bash
# The review of a spec change, as the GitHub Action (action.yml) runs it on a pull request, and as
# anyone can run it on two revisions of a checkout:
#   1. `ptxspec validate` of the spec at HEAD (the checked-out tree), its problems as annotations;
#   2. `ptxspec diff BASE HEAD --format github`: one annotation per change, on the line that made it;
#   3. the same diff as markdown, appended to the job summary ($GITHUB_STEP_SUMMARY, if set);
#   4. exit 1 when a change of severity PTXSPEC_FAIL_ON (breaking, warning; '' for none) or worse
#      remains, or the spec does not validate; 2 when the trees cannot be compared.
# Environment: PTXSPEC_BASE (required: a revision, e.g. the pull request's base sha), PTXSPEC_HEAD
# (default HEAD), PTXSPEC_SPEC (the spec directory in the checkout, default spec), PTXSPEC_FAIL_ON
# (default breaking), PTXSPEC (the command, default `ptxspec`).
set -uo pipefail
base="${PTXSPEC_BASE:?PTXSPEC_BASE: the revision to compare against}"
head="${PTXSPEC_HEAD:-HEAD}"
spec="${PTXSPEC_SPEC:-spec}"
fail_on="${PTXSPEC_FAIL_ON-breaking}"
read -r -a ptxspec <<< "${PTXSPEC:-ptxspec}"

status=0
# validate: `path:line:col: error: message` lines become error annotations
if ! "${ptxspec[@]}" --spec "$spec" validate --quiet 2>"${TMPDIR:-/tmp}/ptxspec-validate.$$"; then
    status=1
    sed -E 's/^([^:]+):([0-9]+):([0-9]+): error: (.*)$/::error file=\1,line=\2,col=\3::\4/' \
        "${TMPDIR:-/tmp}/ptxspec-validate.$$"
fi
rm -f "${TMPDIR:-/tmp}/ptxspec-validate.$$"

fail_args=()
[ -n "$fail_on" ] && fail_args=(--fail-on "$fail_on")
"${ptxspec[@]}" --spec "$spec" diff "$base" "$head" --format github "${fail_args[@]}"
rc=$?
if [ "$rc" -ge 2 ]; then
    exit "$rc"
fi
[ "$rc" -eq 1 ] && status=1
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    "${ptxspec[@]}" --spec "$spec" diff "$base" "$head" --format markdown >> "$GITHUB_STEP_SUMMARY" || true
fi
exit "$status"
