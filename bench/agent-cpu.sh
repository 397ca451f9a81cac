#!/bin/sh
# Agent-mode CPU, this build beside an older one (issue 31, item 5):
# upskill eval --agent of 1,000 cases x 2 arms, three requests a
# conversation (list_files, write_file, the answer; each answered after
# 50 ms by build/fake-llm), at -j 64, with the run log on (journal, run
# records and case artifacts written), as a user runs it.  The two builds
# run in turn, RUNS times each, each against a fresh fake server; prints
# each run and the medians of CPU (user + system), wall and peak RSS,
# and the ratio of the CPU medians.
#
# Both builds put their workspaces in the same place, WS (TMPDIR, which
# both honour; /dev/shm/upskill-agent-cpu by default, 7769f25's own
# default, else bench/out/agent-cpu/ws): this build's default, the user's
# cache folder on disk, costs wall and system time the old one's tmpfs
# did not, which is no part of the CPU compared here.  WS=default sets
# no TMPDIR: each build then takes its own default (this one the cache
# folder, bench/out/agent-cpu/cache, on disk; 7769f25 /dev/shm).
#
#   sh bench/agent-cpu.sh [OLD_UPSKILL]      RUNS=5 by default
#
# Without OLD_UPSKILL only this build runs.  Output in bench/out/agent-cpu/.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B="$TOP/bench/out/agent-cpu"
RUNS=${RUNS:-5}
N=${N:-1000}
OLD=${1:-}
rm -rf "$B"
mkdir -p "$B"
if [ -z "${WS:-}" ]; then
    WS=/dev/shm/upskill-agent-cpu
    mkdir -p "$WS" 2>/dev/null || WS="$B/ws"
fi
[ "$WS" = default ] || mkdir -p "$WS"

cat >"$B/s.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0}, "reply": {"delay_ms": 50,
   "tool_calls": [{"name": "list_files", "arguments": {}}],
   "usage": {"input_tokens": 40, "output_tokens": 10}}},
  {"match": {"assistant_turns": 1}, "reply": {"delay_ms": 50,
   "tool_calls": [{"name": "write_file", "arguments": {"path": "answer.txt", "content": "GOOD ANSWER"}}],
   "usage": {"input_tokens": 60, "output_tokens": 20}}},
  {"reply": {"delay_ms": 50, "text": "GOOD ANSWER",
   "usage": {"input_tokens": 80, "output_tokens": 5}}}]}
JSON
awk -v n="$N" 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= n; i++)
    printf "%s{\"input\": \"question number %d\", \"expected\": {\"contains\": [\"good\"]}, \"assert\": [{\"type\": \"file-contains\", \"file\": \"answer.txt\", \"value\": \"GOOD\"}]}", (i > 1 ? "," : ""), i;
    print "]}" }' >"$B/tests.json"

one() { # one NAME BINARY RUN
    rm -f "$B/port"
    "$TOP/build/fake-llm" --scenario "$B/s.json" --port-file "$B/port" \
        --max-seconds 600 >/dev/null 2>&1 &
    fake=$!
    i=0
    while [ ! -s "$B/port" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    rm -rf "$B/runs" "$B/cache"
    if [ "$WS" = default ]; then unset TMPDIR; else export TMPDIR="$WS"; fi
    XDG_CACHE_HOME="$B/cache" UPSKILL_CONFIG="$B/none.yaml" \
        /usr/bin/time -f '%e %U %S %M' -o "$B/time" "$2" eval \
        "$TOP/tests/fixtures/eval/student" -t "$B/tests.json" -m local \
        --base-url "http://127.0.0.1:$(cat "$B/port")/v1" -j 64 --no-cache \
        --agent --runs-dir "$B/runs" --json >"$B/$1.$3.out" 2>"$B/$1.$3.err" ||
        { echo "agent-cpu: $1 run $3 failed: $(tail -n 2 "$B/$1.$3.err")" >&2; exit 1; }
    kill "$fake" 2>/dev/null || true
    wait "$fake" 2>/dev/null || true
    echo "$1 $3 $(tail -n 1 "$B/time")" | tee -a "$B/results.txt" |
        awk '{ printf "%-5s run %s: wall %6.2f s  CPU %5.2f s  peak RSS %6.1f MiB\n", $1, $2, $3, $4 + $5, $6 / 1024 }'
}

r=1
while [ $r -le "$RUNS" ]; do
    one this "$TOP/build/upskill" $r
    [ -z "$OLD" ] || one old "$OLD" $r
    r=$((r + 1))
done

median() {
    sort -n | awk '{ v[NR] = $1 } END {
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
for t in this old; do
    grep -q "^$t " "$B/results.txt" || continue
    c=$(awk -v t=$t '$1 == t { print $4 + $5 }' "$B/results.txt" | median)
    w=$(awk -v t=$t '$1 == t { print $3 }' "$B/results.txt" | median)
    m=$(awk -v t=$t '$1 == t { print $6 / 1024 }' "$B/results.txt" | median)
    echo "$t $c $w $m" >>"$B/medians.txt"
    printf '%-5s median of %s: CPU %5.2f s  wall %6.2f s  peak RSS %6.1f MiB\n' \
        "$t" "$RUNS" "$c" "$w" "$m"
done
if [ -n "$OLD" ]; then
    awk '$1 == "this" { t = $2 } $1 == "old" { o = $2 }
        END { printf "CPU this / old: %.2fx\n", t / o }' "$B/medians.txt"
fi
