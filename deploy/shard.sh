#!/usr/bin/env bash
# Runs shard INDEX of COUNT of one graphlancer campaign into $RESULTS/shard-INDEX.
# Usage: deploy/shard.sh INDEX COUNT
# Environment (all optional):
#   ENGINES   engine specs, space-separated (default: grafeo)
#   BUDGET    budget flags (default: --time 10m)
#   SEED      campaign seed, the same for every shard (default: 0)
#   RESULTS   the folder every shard and the merge share (default: ./results)
#   EXTRA     more flags for `graphlancer run`, e.g. "--oracle crash"
#   GRAPHLANCER  the binary (default: graphlancer on PATH)
# Exits 0 when the shard ran (with or without findings), 2 on a harness error.
set -euo pipefail
index=${1:?usage: shard.sh INDEX COUNT}
count=${2:?usage: shard.sh INDEX COUNT}
bin=${GRAPHLANCER:-graphlancer}
results=${RESULTS:-results}
engines=()
for e in ${ENGINES:-grafeo}; do engines+=(--engine "$e"); done
mkdir -p "$results"
set +e
# shellcheck disable=SC2086 # BUDGET and EXTRA are lists of flags
"$bin" run "${engines[@]}" --shard "$index/$count" --seed "${SEED:-0}" ${BUDGET:---time 10m} ${EXTRA:-} \
  --out "$results/shard-$index" --junit "$results/shard-$index.junit.xml"
status=$?
set -e
# 1 means findings were written: the shard did its job. 130 and 143 mean a
# SIGINT or SIGTERM stopped it after it wrote its summary: what it did merges,
# and a scheduler must not run it again into the same folder.
if [[ $status -le 1 ]]; then exit 0; fi
if [[ ($status -eq 130 || $status -eq 143) && -f "$results/shard-$index/summary.json" ]]; then exit 0; fi
exit "$status"
