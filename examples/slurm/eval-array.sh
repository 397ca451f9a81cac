#!/bin/sh
#SBATCH --job-name=upskill-eval
#SBATCH --array=1-8
#SBATCH --cpus-per-task=1
#SBATCH --output=upskill-%A_%a.out
# One array task per shard:
#   sbatch --array=1-N eval-array.sh RUNS EVAL-ARGS...
# RUNS is a folder every node sees; EVAL-ARGS are upskill eval's own
# arguments, whatever they are (the skill, -t, the -m list, --runs,
# --seed), the same for every task.  Task I runs shard I of N into
# RUNS/shard-I.
set -eu
runs=$1
shift
mkdir -p "$runs"
exec upskill eval "$@" --no-cache \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
    --runs-dir "$runs/shard-$SLURM_ARRAY_TASK_ID"
