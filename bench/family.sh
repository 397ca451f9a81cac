#!/bin/sh
# The null and real sweeps of issue 32 through the binary, on the fake
# server (a measurement, not a test: bench/README.md, "Claims over a
# family").  SEEDS sweeps (default 10) of 20 skills x 3 models, 10 cases x
# 3 runs per skill; REAL skills (default 0) answer right with P_REAL
# (default 0.83) against the baseline's 0.5, the others 0.5 in both arms.
# Prints per sweep the leaderboard cells claimed (fdr, the default, and
# --family-control none from the same answers: a --resume of the batch).
# Usage: bench/family.sh [SEEDS] [REAL]   (from the top of the tree, after
# make build/upskill build/fake-llm)
set -eu
SEEDS=${1:-10}
REAL=${2:-0}
P_REAL=${P_REAL:-0.83}
TOP=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/upskill-family.XXXXXX")
trap 'kill "$PID" 2>/dev/null; rm -rf "$T"' EXIT
PID=
export UPSKILL_CONFIG="$T/none.yaml" XDG_CACHE_HOME="$T/cache"
rules=
for k in $(seq -w 1 20); do
    d="$T/reg/s$k"
    mkdir -p "$d"
    printf -- '---\nname: s%s\ndescription: Skill %s of the family bench. Use when asked about s%s.\n---\n\n# s%s\n\nSay S%s-MARK.\n' \
        "$k" "$k" "$k" "$k" "$k" >"$d/SKILL.md"
    c=
    for i in $(seq 1 10); do c="$c${c:+, }{\"input\": \"s$k q$i\", \"expected\": {\"contains\": [\"GOOD\"]}}"; done
    printf '{"tests": [%s]}\n' "$c" >"$d/skill_meta.json"
    p=0.5
    [ "${k#0}" -le "$REAL" ] && p=$P_REAL
    rules="$rules{\"match\": {\"user\": \"s$k \"}, \"student\": {\"marker\": \"S$k-MARK\", \"p_with\": $p, \"p_without\": 0.5, \"default\": {\"good\": \"GOOD\", \"bad\": \"meh\"}}}, "
done
for seed in $(seq 1 "$SEEDS"); do
    printf '{"seed": %s, "rules": [%s{"reply": {"text": "meh"}}]}\n' "$seed" "$rules" >"$T/s.json"
    rm -f "$T/port"
    "$TOP/build/fake-llm" --scenario "$T/s.json" --port-file "$T/port" >/dev/null 2>&1 &
    PID=$!
    while [ ! -s "$T/port" ]; do sleep 0.1; done
    url="http://127.0.0.1:$(cat "$T/port")/v1"
    "$TOP/build/upskill" eval "$T"/reg/*/ -m a -m b -m c --runs 3 --no-cache \
        --base-url "$url" --runs-dir "$T/runs" -j 16 --json >"$T/fdr.json" 2>/dev/null || true
    b=$(ls -t "$T/runs" | head -1)
    "$TOP/build/upskill" eval "$T"/reg/*/ -m a -m b -m c --runs 3 --no-cache \
        --base-url "$url" --runs-dir "$T/runs" --resume "$b" \
        --family-control none --json >"$T/none.json" 2>/dev/null || true
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    for f in fdr none; do
        jq -r --arg f "$f" --argjson real "$REAL" '[.leaderboard.rows | to_entries[] | .key as $i | .value.cells[]
            | select(.verdict != null and .verdict != "inconclusive")
            | if $i < $real then "real" else "null" end] as $c
            | "seed \(.leaderboard.family.control // $f): \($c | map(select(. == "null")) | length) null claims, \($c | map(select(. == "real")) | length) real found"' \
            "$T/$f.json" | sed "s/^seed /seed $seed /"
    done
done
