#!/bin/sh
# docs/sharding.md's examples are checked, not only shown: the Slurm
# scripts it quotes are examples/slurm's files byte for byte (the ones
# tests/e2e/t1800-slurm.sh submits to a real Slurm), every sh block parses,
# and the Kubernetes Indexed Job and the GitHub Actions matrix parse as
# YAML with the keys that make them a sharded sweep; their commands, run
# with a stub `upskill` for every index, ask for shards 1/N..N/N, each
# into its own runs folder (tests/e2e/shard_docs.py).
. "$TOP/tests/e2e/lib.sh"

if ! python3 -c 'import yaml' 2>/dev/null; then
    echo "1..0 # SKIP python3 with yaml not found (Debian: python3-yaml, scripts/deps.sh)"
    exit 0
fi
python3 "$TOP/tests/e2e/shard_docs.py" "$TOP/docs/sharding.md" "$TOP" "$T" \
    >"$T/checks" 2>&1
ok $? "the checker runs"
while IFS= read -r line; do
    case $line in
    "PASS "*) ok 0 "${line#PASS }" ;;
    "FAIL "*) ok 1 "${line#FAIL }" ;;
    *) echo "# $line" ;;
    esac
done <"$T/checks"
done_testing
