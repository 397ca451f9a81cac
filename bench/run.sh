#!/bin/sh
# Benchmarks (not tests): run by `make bench`; see bench/README.md.
#
#   transport  build/bench-transport: 2,000 bare requests through
#              up_sched_run at -j 64 (issue 3)
#   transport-3  reference for agent: 1,000 chains of 3 requests (each
#              sent when the one before is answered, system prompt padded
#              to 2,400 bytes) through up_sched_run at -j 64: agent mode's
#              traffic without its tools, workspaces and grading
#   upskill    upskill eval: 1,000 cases x 2 arms at -j 64
#   agent      upskill eval --agent: 500 cases x 2 arms x 3 turns at -j 64
#              (issue 11): physical limit ceil(1000 / 64) x 3 x 50 ms =
#              2.40 s
#   promptfoo  the same 2,000 conversations through promptfoo 0.121.20
#              (issue 4), skipped with a message when npm is missing
#   sandbox    bench/sandbox.sh: start-up of one sandboxed `true` per
#              call (bwrap and none modes) against a bare fork/exec
#   mixed      bench/mixed.sh: wall time of an eval of an API model
#              and two stand-in CLIs together against each alone, in
#              the one scheduler loop (issue 21); skipped without bwrap
#   big        (BENCH_BIG=1 only) peak RSS of chat-mode evals of 10,000
#              and 100,000 cases and an agent-mode eval of 10,000 cases,
#              fake server answering at once (issue 15, item 6);
#              BENCH_ONLY_BIG=1 runs these rows and nothing else (memory
#              is not disturbed by other load: no timing rows, no npm)
#   curl-Z     reference: the same 2,000 bare requests as transport sent by
#              `curl -Z --parallel-immediate --parallel-max 64` (libcurl's
#              own multi client; without --parallel-immediate curl holds
#              every transfer until the first connection is up), to
#              show what this server and machine allow any client
#
# Every run talks to its own build/fake-llm answering after 50 ms, so the
# physical limit is ceil(2000 / 64) x 50 ms = 1.60 s.  Each is timed by
# /usr/bin/time (wall, user and sys CPU, peak RSS of the client only; the
# fake server is not counted), RUNS times (default 3), interleaved, with
# the 1-minute load average noted beside each.  `upskill --version` is
# timed by hyperfine when present, else by a loop of 1,000 runs.
#
# promptfoo is installed on first use into bench/node_modules (git-ignored,
# about 270 MB: --omit=optional plus libsql's native binary, which eval
# needs).  BENCH_PROMPTFOO=0 skips it.  When `unshare -n` works (root),
# the measurements run in a private network namespace with only loopback,
# so promptfoo's "telemetry disabled" DNS lookup cannot leave the box.
# With taskset and two CPUs the fake server runs on CPU 1 and the
# single-threaded clients on CPU 0 (BENCH_PIN=0: unpinned, as before).
#
# Raw numbers: bench/out/results.txt; summary on stdout.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B="$TOP/bench/out"
RUNS=${RUNS:-3}
ONLY_BIG=${BENCH_ONLY_BIG:-0}
[ "$ONLY_BIG" = 1 ] && RUNS=0 BENCH_BIG=1
PF_VERSION=0.121.20
PF_DIR="$TOP/bench/node_modules"
PF="$PF_DIR/.bin/promptfoo"
N=1000
JOBS=64
DELAY=50

die() {
    echo "bench: $*" >&2
    exit 2
}

# --- stage 1: set-up (network allowed: npm) ------------------------------

pf_version() {
    node -p "require('$PF_DIR/promptfoo/package.json').version" 2>/dev/null
}

# libsql's native binary is an optional dependency that eval needs.
pf_install_native() {
    v=$(node -p "require('$PF_DIR/libsql/package.json').version")
    plat=$(node -p "process.platform + '-' + process.arch")
    [ "${plat%%-*}" = linux ] && plat="$plat-gnu"
    npm install --no-save --omit=optional --no-package-lock --no-audit \
        --no-fund "@libsql/$plat@$v"
}

# 0 when promptfoo $PF_VERSION is usable, else prints why and returns 1.
pf_ready() {
    if [ "${BENCH_PROMPTFOO:-1}" = 0 ]; then
        echo "bench: promptfoo skipped (BENCH_PROMPTFOO=0)"
        return 1
    fi
    if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null; then
        echo "bench: promptfoo skipped: npm/node not found"
        return 1
    fi
    [ "$(pf_version)" = "$PF_VERSION" ] && return 0
    echo "bench: installing promptfoo $PF_VERSION into bench/node_modules" \
        "(about 270 MB, a minute or two; log: bench/out/npm.log)"
    if ! (cd "$TOP/bench" && npm install --omit=optional --no-package-lock \
        --no-audit --no-fund && pf_install_native) >"$B/npm.log" 2>&1; then
        echo "bench: promptfoo skipped: npm install failed (bench/out/npm.log)"
        return 1
    fi
    [ "$(pf_version)" = "$PF_VERSION" ] && return 0
    echo "bench: promptfoo skipped: got version '$(pf_version)'"
    return 1
}

if [ -z "${BENCH_STAGE:-}" ]; then
    [ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
    for f in upskill fake-llm bench-transport; do
        [ -x "$TOP/build/$f" ] || die "build/$f missing: run 'make bench'"
    done
    rm -rf "$B" && mkdir -p "$B"
    BENCH_PF=0
    if [ "$ONLY_BIG" != 1 ] && pf_ready; then
        BENCH_PF=1
    fi
    export BENCH_PF BENCH_STAGE=measure
    if [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 &&
        unshare -n true 2>/dev/null; then
        BENCH_NETNS=1 exec unshare -n sh -c \
            'ip link set lo up && exec sh "$0"' "$0"
    fi
    echo "bench: no private network namespace (needs root, unshare, ip):" \
        "promptfoo may send one DNS query for its telemetry host"
    BENCH_NETNS=0 exec sh "$0"
fi

# --- stage 2: measurements (loopback only when BENCH_NETNS=1) ------------

cat >"$B/s.json" <<'JSON'
{"seed": 1, "rules": [{"student": {"p_with": 0.9, "p_without": 0.4,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"delay_ms": 50, "usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
awk -v n=$N 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= n; i++)
    printf "%s{\"input\": \"question number %d\", \"expected\": {\"contains\": [\"good\", \"answer\"]}}", (i > 1 ? "," : ""), i;
    print "]}" }' >"$B/tests.json"

# Agent mode: three turns per conversation (list, write, answer), each
# answered after 50 ms, over a workspace made and removed per case.
cat >"$B/s-agent.json" <<'JSON'
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
awk -v n=$((N / 2)) 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= n; i++)
    printf "%s{\"input\": \"question number %d\", \"expected\": {\"contains\": [\"good\"]}, \"assert\": [{\"type\": \"file-contains\", \"file\": \"answer.txt\", \"value\": \"GOOD\"}]}", (i > 1 ? "," : ""), i;
    print "]}" }' >"$B/tests-agent.json"

# promptfoo gets the very messages upskill sends (checked with fake-llm
# --record): the neutral system prompt, plus the skill in the skill arm.
SYS="You are a capable assistant. Answer the user's request directly and completely."
SKILL='\n\n## Skill: student\n\n# Student\n\nAnswer with the words GOOD ANSWER.'
printf '[{"role": "system", "content": "%s"},\n {"role": "user", "content": "{{input}}"}]\n' \
    "$SYS" >"$B/pf-baseline.json"
printf '[{"role": "system", "content": "%s%s"},\n {"role": "user", "content": "{{input}}"}]\n' \
    "$SYS" "$SKILL" >"$B/pf-skill.json"

# The body bench-transport sends, for curl -Z.
printf '%s' '{"model":"local","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"question number 1"}],"max_tokens":4096}' \
    >"$B/body.json"
curl_config() {
    awk -v n=$((2 * N)) -v port="$1" -v body="$B/body.json" 'BEGIN {
    for (i = 1; i <= n; i++) {
        print "url = \"http://127.0.0.1:" port "/v1/chat/completions\""
        print "data = \"@" body "\""
        print "header = \"Content-Type: application/json\""
        print "output = \"/dev/null\""
        print "write-out = \"%{http_code}\\n\""
        if (i < n) print "next"
    } }' >"$B/curl.cfg"
}

pf_config() {
    awk -v n=$N -v port="$1" -v j=$JOBS -v dir="$B" 'BEGIN {
    print "description: upskill bench (1,000 cases x 2 arms)"
    print "prompts:"
    print "  - id: file://" dir "/pf-baseline.json\n    label: baseline"
    print "  - id: file://" dir "/pf-skill.json\n    label: with-skill"
    print "providers:\n  - id: openai:chat:local\n    config:"
    print "      apiBaseUrl: http://127.0.0.1:" port "/v1"
    print "      apiKey: fake\n      max_tokens: 4096"
    print "evaluateOptions:\n  maxConcurrency: " j
    print "tests:"
    for (i = 1; i <= n; i++)
        printf "  - vars: {input: question number %d}\n    assert:\n      - {type: icontains, value: good}\n      - {type: icontains, value: answer}\n", i
    }' >"$B/pf.yaml"
}

export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 \
    PROMPTFOO_DISABLE_SHARING=1 PROMPTFOO_DISABLE_REMOTE_GENERATION=1 \
    PROMPTFOO_CONFIG_DIR="$B/pf-home" PROMPTFOO_CACHE_PATH="$B/pf-cache" \
    NO_COLOR=1

fake=
trap '[ -n "$fake" ] && kill $fake 2>/dev/null' EXIT

# Pinning (BENCH_PIN=1, the default where taskset and two CPUs are): the
# fake server on CPU 1 and the single-threaded clients on CPU 0, so the
# yardstick does not take turns with the client on one core, as a remote
# server would not.  promptfoo (Node: an event loop and worker threads)
# runs unpinned.  BENCH_PIN=0 measures as before.
PIN=${BENCH_PIN:-1}
if [ "$PIN" = 1 ] && command -v taskset >/dev/null 2>&1 &&
    [ "$(nproc)" -ge 2 ]; then
    SRV_PIN="taskset -c 1" CLI_PIN="taskset -c 0"
else
    PIN=0 SRV_PIN= CLI_PIN=
fi

fake_up() {
    rm -f "$B/port"
    $SRV_PIN "$TOP/build/fake-llm" --scenario "${1:-$B/s.json}" --port-file "$B/port" \
        --max-seconds "${FAKE_MAX_S:-300}" >/dev/null 2>&1 &
    fake=$!
    i=0
    while [ ! -s "$B/port" ] && [ $i -lt 100 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    [ -s "$B/port" ] || die "fake-llm did not start"
    port=$(cat "$B/port")
    url="http://127.0.0.1:$port/v1"
}

fake_down() {
    kill "$fake" 2>/dev/null || true
    wait "$fake" 2>/dev/null || true
    fake=
}

# measure NAME RUN OKCODES CMD...: one timed run into results.txt as
# "name run wall user sys rss_kib load status"; status is ok or exit:N.
# Only promptfoo may fail and go on (it sometimes crashes on exit, after
# writing its results: winston "write after end"); such runs are listed
# but left out of the medians.
measure() {
    name=$1 run=$2 ok=$3
    shift 3
    load=$(cut -d' ' -f1 /proc/loadavg)
    set +e
    /usr/bin/time -f '%e %U %S %M' -o "$B/time" "$@" \
        >"$B/$name.$run.out" 2>"$B/$name.$run.err"
    rc=$?
    set -e
    status=ok
    case " $ok " in *" $rc "*) ;; *) status=exit:$rc ;; esac
    echo "$name $run $(tail -n 1 "$B/time") $load $status" >>"$B/results.txt"
    tail -n 1 "$B/results.txt" | awk '{ printf "%-11s run %s: wall %5.2f s  CPU %5.2f s  peak RSS %7.1f MiB  (load %s)%s\n", $1, $2, $3, $4 + $5, $6 / 1024, $7, $8 == "ok" ? "" : "  " $8 }'
    [ $status = ok ] && return 0
    grep -v '^ *at ' "$B/$name.$run.err" | tail -n 3 >&2
    case $name in promptfoo | pf-version) return 1 ;; esac
    die "$name run $run failed"
}

# What each tool reported, to show the runs did the work.
check_upskill() {
    grep '"passed"' "$B/upskill.$1.out" | sed 's/[^0-9]//g' | tr '\n' ' ' |
        awk -v r="$1" '{ printf "          upskill %s: passed with-skill %s, baseline %s of '$N'\n", r, $1, $2 }'
}

check_promptfoo() {
    node -e 'const r = require(process.argv[1]).results;
        const p = r.prompts.map(x => x.label + " " + x.metrics.testPassCount);
        console.log("          promptfoo " + process.argv[2] + ": passed " +
            p.join(", ") + " of '$N'; errors " + r.stats.errors +
            ", requests " + r.stats.tokenUsage.numRequests)' \
        "$B/pf-out.$1.json" "$1"
}

echo "bench: $RUNS runs, $N cases x 2 arms, -j $JOBS, fake server ${DELAY} ms," \
    "netns=$BENCH_NETNS, $(nproc) cores, pinned=$PIN"
r=1
while [ $r -le "$RUNS" ]; do
    fake_up
    measure transport $r 0 $CLI_PIN "$TOP/build/bench-transport" "$url" \
        -n $((2 * N)) -j $JOBS -d $DELAY
    fake_down
    fake_up
    measure upskill $r 0 $CLI_PIN "$TOP/build/upskill" eval \
        "$TOP/tests/fixtures/eval/student" -t "$B/tests.json" -m local \
        --base-url "$url" -j $JOBS --no-log-runs --no-cache --json
    check_upskill $r
    fake_down
    fake_up
    measure transport-3 $r 0 $CLI_PIN "$TOP/build/bench-transport" "$url" \
        -n "$N" -j $JOBS -d $DELAY -t 3 -s 2400
    fake_down
    fake_up "$B/s-agent.json"
    measure agent $r 0 $CLI_PIN "$TOP/build/upskill" eval \
        "$TOP/tests/fixtures/eval/student" -t "$B/tests-agent.json" -m local \
        --base-url "$url" -j $JOBS --no-log-runs --no-cache --json --agent
    fake_down
    if command -v curl >/dev/null 2>&1; then
        fake_up
        curl_config "$port"
        measure curl-Z $r 0 $CLI_PIN curl -s -Z --parallel-immediate \
            --parallel-max $JOBS -K "$B/curl.cfg"
        echo "          curl-Z $r: $(grep -c '^200$' "$B/curl-Z.$r.out") of $((2 * N)) answered 200"
        fake_down
    fi
    if [ "$BENCH_PF" = 1 ]; then
        fake_up
        pf_config "$port"
        # exit 100: some test cases failed, as the baseline arm must.
        measure promptfoo $r "0 100" "$PF" eval -c "$B/pf.yaml" --no-cache \
            --no-write --no-table --no-progress-bar -j $JOBS \
            -o "$B/pf-out.$r.json" || true
        check_promptfoo $r || true
        fake_down
    fi
    r=$((r + 1))
done

if [ "$ONLY_BIG" != 1 ]; then
    # Start-up time.
    if command -v hyperfine >/dev/null 2>&1; then
        hyperfine -N --warmup 50 --runs 1000 --export-csv "$B/version.csv" \
            "$TOP/build/upskill --version" >/dev/null 2>&1
        awk -F, 'NR == 2 { printf "upskill --version: mean %.2f ms, median %.2f ms (hyperfine, 1,000 runs)\n", $2 * 1000, $4 * 1000 }' "$B/version.csv" |
            tee "$B/version.txt"
    else
        t0=$(date +%s%N)
        i=0
        while [ $i -lt 1000 ]; do
            "$TOP/build/upskill" --version >/dev/null
            i=$((i + 1))
        done
        t1=$(date +%s%N)
        awk -v d=$((t1 - t0)) 'BEGIN { printf "upskill --version: mean %.2f ms (loop of 1,000 runs, fork included)\n", d / 1e9 }' |
            tee "$B/version.txt"
    fi
    if [ "$BENCH_PF" = 1 ]; then
        measure pf-version 1 0 "$PF" --version || true
    fi

    # Sandbox start-up per call (issue 12): bench/sandbox.sh.
    sh "$TOP/bench/sandbox.sh" -n 200 | tee "$B/sandbox.txt"

    # Mixed API + CLI eval in one loop (issue 21): bench/mixed.sh, about
    # 8 s a run; BENCH_MIXED_OLD=PATH adds an older upskill beside it.
    RUNS=$RUNS sh "$TOP/bench/mixed.sh" | tee "$B/mixed.txt"
fi

# Memory of large runs (issue 15, item 6), optional: BENCH_BIG=1.  Peak
# RSS of chat-mode evals of 10,000 and 100,000 cases x 2 arms and of an
# agent-mode eval of 10,000 cases x 2 arms x 3 turns, against a fake
# server answering at once, with the run log on (journal and case
# artifacts written, into a scratch folder removed after).  Once each;
# rows big-10k, big-100k and big-agent in results.txt.
big_suite() { # N FILE CHECKS: N cases, each with the members CHECKS
    awk -v n="$1" -v x="$3" 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= n; i++)
        printf "%s{\"input\": \"question number %d\", %s}", (i > 1 ? "," : ""), i, x;
        print "]}" }' >"$2"
}
if [ "${BENCH_BIG:-0}" = 1 ]; then
    FAKE_MAX_S=1800 # big-agent takes over 300 s on a loaded 2-core machine
    sed 's/"delay_ms": 50, //' "$B/s.json" >"$B/s-big.json"
    sed 's/"delay_ms": 50,//' "$B/s-agent.json" >"$B/s-big-agent.json"
    chat='"expected": {"contains": ["good", "answer"]}'
    big_suite 10000 "$B/big-10k.json" "$chat"
    big_suite 100000 "$B/big-100k.json" "$chat"
    big_suite 10000 "$B/big-agent.json" '"expected": {"contains": ["good"]},
        "assert": [{"type": "file-contains", "file": "answer.txt", "value": "GOOD"}]'
    for t in 10k 100k agent; do
        rm -rf "$B/big"
        mkdir -p "$B/big"
        case $t in agent) s="$B/s-big-agent.json" a=--agent ;; *) s="$B/s-big.json" a= ;; esac
        fake_up "$s"
        (cd "$B/big" && measure big-$t 1 0 "$TOP/build/upskill" eval \
            "$TOP/tests/fixtures/eval/student" -t "$B/big-$t.json" -m local \
            --base-url "$url" -j $JOBS --no-cache --json $a)
        fake_down
    done
    rm -rf "$B/big"
fi
if [ "$ONLY_BIG" = 1 ]; then
    awk '$1 ~ /^big-/ { printf "%-9s peak RSS %7.1f MiB  wall %6.2f s  %s\n",
        $1, $6 / 1024, $3, $8 }' "$B/results.txt"
    exit 0
fi

# Summary: medians per tool and the ratios.
median() {
    sort -n | awk '{ v[NR] = $1 } END {
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
limit=$(((2 * N + JOBS - 1) / JOBS * DELAY))
for t in transport transport-3 curl-Z upskill agent promptfoo; do
    grep -q "^$t .* ok$" "$B/results.txt" || continue
    w=$(awk -v t=$t '$1 == t && $8 == "ok" { print $3 }' "$B/results.txt" | median)
    c=$(awk -v t=$t '$1 == t && $8 == "ok" { print $4 + $5 }' "$B/results.txt" | median)
    m=$(awk -v t=$t '$1 == t && $8 == "ok" { print $6 }' "$B/results.txt" | median)
    echo "$t $w $c $m" >>"$B/medians.txt"
done
echo
echo "medians of $RUNS runs (physical limit $limit ms):"
awk '$8 != "ok" { printf "(left out: %s run %s, %s)\n", $1, $2, $8 }' "$B/results.txt"
# agent mode's limit: ceil(N / JOBS) waves of 3 turns
alimit=$(((N + JOBS - 1) / JOBS * 3 * DELAY))
awk -v lim="$limit" -v alim="$alimit" '{ w[$1] = $2; c[$1] = $3; m[$1] = $4
    l = $1 == "agent" || $1 == "transport-3" ? alim : lim
    printf "%-11s wall %5.2f s (%.2fx limit)  CPU %5.2f s  peak RSS %7.1f MiB\n",
        $1, $2, $2 * 1000 / l, $3, $4 / 1024 }
    END { if (("promptfoo" in w) && ("upskill" in w))
        printf "promptfoo / upskill: wall %.1fx, CPU %.1fx, peak RSS %.1fx\n",
            w["promptfoo"] / w["upskill"], c["promptfoo"] / c["upskill"],
            m["promptfoo"] / m["upskill"] }' "$B/medians.txt"
