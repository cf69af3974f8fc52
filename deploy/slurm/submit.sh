#!/usr/bin/env bash
# Submits a sharded campaign to Slurm and its merge, which runs once every
# shard has ended. Usage: deploy/slurm/submit.sh [SHARDS]   (default 8)
# ENGINES, BUDGET, SEED, RESULTS, GRAPHLANCER as for deploy/shard.sh; RESULTS
# must be on a file system every node sees.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=${1:-8}
export DEPLOY="$here/.." RESULTS="${RESULTS:-$PWD/results}"
array=$(sbatch --parsable --export=ALL --array="0-$((shards - 1))" "$here/campaign.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency="afterany:$array" "$here/merge.sbatch")
echo "campaign $array ($shards shards) and its merge $merge are queued; results in $RESULTS/merged"
