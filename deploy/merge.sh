#!/usr/bin/env bash
# Joins every shard folder under $RESULTS into $RESULTS/merged and writes its
# HTML report. Usage: deploy/merge.sh   (RESULTS and GRAPHLANCER as for shard.sh)
set -euo pipefail
bin=${GRAPHLANCER:-graphlancer}
results=${RESULTS:-results}
shopt -s nullglob
shards=("$results"/shard-*/)
if [[ ${#shards[@]} -eq 0 ]]; then
  echo "merge.sh: no shard folders in $results" >&2
  exit 2
fi
"$bin" merge --out "$results/merged" "${shards[@]}"
"$bin" report "$results/merged"
