#!/bin/sh
#SBATCH --job-name=upskill-merge
#SBATCH --output=upskill-merge-%j.out
# Merges the shards of eval-array.sh and finishes the batch in
# RUNS/merged, once the array is done:
#   sbatch --dependency=afterok:ARRAY-JOB-ID merge.sh RUNS EVAL-ARGS...
# with the array's RUNS and EVAL-ARGS.  The finishing eval sends nothing:
# every job is in the merged journal.
set -eu
runs=$1
shift
id=$(upskill merge "$runs"/shard-*/* -o "$runs/merged")
exec upskill eval "$@" --no-cache --runs-dir "$runs/merged" --resume "$id"
