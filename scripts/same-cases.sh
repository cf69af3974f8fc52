#!/usr/bin/env bash
# Whether a change left behaviour as it was: builds two commits, runs the
# same four fixed campaigns with each, and compares their case.json files
# byte for byte (a server's random port in a crash message aside). For a
# refactor that must change nothing; BENCHMARKS.md ("The house") records
# its last result.
#
#   scripts/same-cases.sh BASE [REV]      # REV defaults to HEAD
#
# Needs the engines installed (scripts/setup-engines.sh grafeo falkordb
# kuzu@0.11.3); exit 1 names each case.json that differs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: scripts/same-cases.sh BASE [REV]" >&2; exit 2; }
work=$(mktemp -d)
trap 'git -C "$root" worktree prune; rm -rf "$work"' EXIT
export GRAPHLANCER_ENGINES_DIR=${GRAPHLANCER_ENGINES_DIR:-$root/.engines}
campaigns=(
  "a|--engine grafeo --seed 7"
  "b|--engine grafeo --engine reference --seed 7"
  "c|--engine falkordb --engine reference --seed 5"
  "d|--engine kuzu@0.11.3 --engine grafeo --seed 5"
)
for side in base rev; do
  commit=$([[ $side == base ]] && echo "$1" || echo "${2:-HEAD}")
  git -C "$root" worktree add --detach -f "$work/$side-src" "$commit" >/dev/null 2>&1
  echo "same-cases: building $side ($commit)" >&2
  (cd "$work/$side-src" && CARGO_TARGET_DIR="$work/target" cargo build --release -q -p graphlancer)
  cp "$work/target/release/graphlancer" "$work/$side-bin"
  for c in "${campaigns[@]}"; do
    name=${c%%|*}
    # shellcheck disable=SC2086 # the options are words
    "$work/$side-bin" run ${c#*|} --queries 300 --workers 1 --out "$work/$side/$name" >/dev/null 2>&1 || true
  done
  git -C "$root" worktree remove --force "$work/$side-src"
done
status=0
for c in "${campaigns[@]}"; do
  name=${c%%|*} same=0 total=0
  for f in "$work/base/$name"/findings/*/case.json; do
    [[ -e $f ]] || continue
    total=$((total + 1))
    g="$work/rev/$name/findings/$(basename "$(dirname "$f")")/case.json"
    if [[ -e $g ]] && cmp -s <(sed -E 's/127\.0\.0\.1:[0-9]+/PORT/g' "$f") <(sed -E 's/127\.0\.0\.1:[0-9]+/PORT/g' "$g"); then
      same=$((same + 1))
    else
      echo "same-cases: $name $(basename "$(dirname "$f")")/case.json differs"
      status=1
    fi
  done
  extra=$(( $(find "$work/rev/$name/findings" -name case.json 2>/dev/null | wc -l) - total ))
  (( extra == 0 )) || { echo "same-cases: $name has $extra more finding(s) after"; status=1; }
  echo "same-cases: ${c#*|}: $same of $total identical"
done
exit $status
