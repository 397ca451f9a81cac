#!/bin/sh
# Mixed API + CLI eval: one loop (issue 21; see bench/README.md).  Run by
# bench/run.sh (`make bench`) or alone after `make all build/fake-llm`:
#
#   sh bench/mixed.sh [OLD_UPSKILL]
#
# One suite of 8 cases (--no-baseline, --no-cache, runs logged into a
# scratch folder) through three sets of students, interleaved, RUNS
# times (default 3):
#
#   A    the API model only: build/fake-llm answers each request after
#        1.5 s, 8 conversations at once (one wave)
#   B    the CLIs only, cli.claude-code and cli.command: stand-ins that
#        sleep 0.4 s and answer (a Claude Code stream-json result line,
#        plain stdout); 16 conversations, at most 4 at once (the CLI cap)
#   C    all three -m at once
#
# at -j 12 (the 8 API conversations plus the 4 CLI ones fit together),
# and C once more at -j 8 (the API conversations alone fill -j).  The
# old two-loop design ran the CLIs after all API conversations, so its C
# is A + B; the one loop's C should be about max(A, B) wherever -j has
# room for both.  OLD_UPSKILL (or BENCH_MIXED_OLD), an upskill built from
# 7769f25 (before the one loop), is measured the same way in the same
# run.  Needs bubblewrap (the CLI runs are sandboxed): skipped with a
# message where `bwrap --unshare-user` cannot run.
#
# Raw numbers: bench/out/mixed/results.txt ("bin set jobs run wall");
# summary on stdout.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
W="$TOP/bench/out/mixed"
RUNS=${RUNS:-3}
OLD=${1:-${BENCH_MIXED_OLD:-}}
N=8
DELAY=1500
NAP=0.4
API=qwen2.5-coder-7b-instruct

die() {
    echo "bench: $*" >&2
    exit 2
}

for f in upskill fake-llm; do
    [ -x "$TOP/build/$f" ] || die "build/$f missing: run 'make all build/fake-llm'"
done
[ -z "$OLD" ] || [ -x "$OLD" ] || die "'$OLD': not an executable"
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    echo "bench: mixed skipped: bubblewrap cannot run here" \
        "(bwrap --unshare-user --ro-bind / / true failed)"
    exit 0
fi
rm -rf "$W" && mkdir -p "$W/clis/claude-code/bin" "$W/agent/bin"

# The students.  A Claude Code stand-in prints the stream-json result
# line the real one ends with (the shape t1410's stand-in prints); the
# cli.command one prints its answer on stdout.
cat >"$W/clis/claude-code/bin/claude" <<EOF
#!/bin/sh
sleep $NAP
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"duration_ms":400,"num_turns":1,"result":"GOOD ANSWER","total_cost_usd":0,"usage":{"input_tokens":40,"output_tokens":4,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}'
EOF
printf '#!/bin/sh\nsleep %s\necho GOOD ANSWER\n' "$NAP" >"$W/agent/bin/myagent"
chmod +x "$W/clis/claude-code/bin/claude" "$W/agent/bin/myagent"
export UPSKILL_CLIS="$W/clis"
export UPSKILL_CLI_COMMAND="$W/agent/bin/myagent {prompt} {workspace}"

cat >"$W/s.json" <<JSON
{"rules": [{"reply": {"delay_ms": $DELAY, "text": "GOOD ANSWER",
  "usage": {"input_tokens": 40, "output_tokens": 4}}}]}
JSON
awk -v n=$N 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= n; i++)
    printf "%s{\"input\": \"question number %d\", \"expected\": {\"contains\": [\"good\", \"answer\"]}}", (i > 1 ? "," : ""), i;
    print "]}" }' >"$W/tests.json"

fake=
trap '[ -n "$fake" ] && kill $fake 2>/dev/null' EXIT
"$TOP/build/fake-llm" --scenario "$W/s.json" --port-file "$W/port" \
    --max-seconds 600 >/dev/null 2>&1 &
fake=$!
i=0
while [ ! -s "$W/port" ] && [ $i -lt 100 ]; do
    sleep 0.05
    i=$((i + 1))
done
[ -s "$W/port" ] || die "fake-llm did not start"
url="http://127.0.0.1:$(cat "$W/port")/v1"

# one BIN NAME SET JOBS RUN: one timed eval into results.txt; every
# conversation must be answered.
one() {
    bin=$1 name=$2 set=$3 jobs=$4 run=$5
    case $set in
    A) m="-m $API" want=$N ;;
    B) m="-m cli.claude-code -m cli.command" want=$((2 * N)) ;;
    C) m="-m $API -m cli.claude-code -m cli.command" want=$((3 * N)) ;;
    esac
    rm -rf "$W/runs"
    t0=$(date +%s.%N)
    # $m unquoted on purpose: split into one word per option
    "$bin" eval "$TOP/tests/fixtures/eval/student" -t "$W/tests.json" $m \
        --base-url "$url" --no-baseline -j "$jobs" --no-cache \
        --runs-dir "$W/runs" --json >"$W/out.json" 2>"$W/err.txt" ||
        die "$name $set -j $jobs run $run failed: $(tail -n 3 "$W/err.txt")"
    t1=$(date +%s.%N)
    got=$(sed -n 's/^ *"answered": \([0-9]*\),*$/\1/p' "$W/out.json" |
        awk '{ s += $1 } END { print s + 0 }')
    [ "$got" = "$want" ] ||
        die "$name $set -j $jobs run $run: $got of $want conversations answered"
    echo "$name $set $jobs $run $t0 $t1" |
        awk '{ printf "%s %s %s %s %.3f\n", $1, $2, $3, $4, $6 - $5 }' |
        tee -a "$W/results.txt" |
        awk '{ printf "mixed %-3s %s -j %-2s run %s: wall %5.2f s\n", $1, $2, $3, $4, $5 }'
}

echo "bench: mixed API + CLI eval, $RUNS runs, $N cases (--no-baseline):" \
    "API replies after $DELAY ms, CLIs sleep $NAP s; $(nproc) cores," \
    "load $(cut -d' ' -f1 /proc/loadavg)"
r=1
while [ "$r" -le "$RUNS" ]; do
    for b in new old; do
        bin="$TOP/build/upskill"
        if [ $b = old ]; then
            [ -n "$OLD" ] || continue
            bin=$OLD
        fi
        for s in A B C; do one "$bin" $b $s 12 $r; done
        one "$bin" $b C 8 $r
    done
    r=$((r + 1))
done
rm -rf "$W/runs"

# Medians per binary, set and -j; the ratios.
echo
echo "medians of $RUNS runs (A: API only, B: CLIs only, C: both; -j 12 unless said):"
awk '{ k = $1 " " $2 " " $3; v[k, ++n[k]] = $5 }
    END { for (k in n) { m = n[k]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
            if (v[k, j] < v[k, i]) { t = v[k, i]; v[k, i] = v[k, j]; v[k, j] = t }
        print k, (m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2) } }' \
    "$W/results.txt" | sort >"$W/medians.txt"
for b in new old; do
    grep -q "^$b " "$W/medians.txt" || continue
    awk -v b=$b '$1 == b { w[$2 " " $3] = $4 }
        END { a = w["A 12"]; bb = w["B 12"]; c = w["C 12"]; c8 = w["C 8"]
            mx = a > bb ? a : bb
            printf "%-3s A %.2f s  B %.2f s  C %.2f s  C/max(A,B) %.2f  (A+B)/max(A,B) %.2f  C at -j 8: %.2f s\n",
                b, a, bb, c, c / mx, (a + bb) / mx, c8 }' "$W/medians.txt"
done | tee "$W/summary.txt"
