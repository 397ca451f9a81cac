#!/bin/sh
# Dead and failing endpoints: a closed port, a server that accepts and
# never answers (fake-llm's "hold" fault), a 401 on every request.  eval
# and generate end quickly with exit 4 and a message naming the model, the
# endpoint and the cause; the circuit breaker stops sending after one wave;
# no bars or verdict for a model that answered nothing; the run files
# record error_message and `upskill runs` shows them as errored, not 0%.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
G="$TOP/tests/fixtures/gen"
DEAD="http://127.0.0.1:1/v1"
export OPENAI_API_KEY=sk-e2e-1000 ANTHROPIC_API_KEY=sk-ant-e2e-1000
# Short request timeouts through the documented config key, so a held
# request costs one second, not ten minutes.  Only the sections that hold
# requests use them: elsewhere a loaded machine (the sanitizer build under
# prove -j2) may take over a second to answer, and a timeout there would
# replace the failure the section is about (a 401, a 404).
printf 'providers:\n  generic:\n    timeout: 1\n  anthropic:\n    timeout: 1\n' \
    > "$T/short.yaml"
printf 'providers:\n  generic:\n    timeout: 120\n' > "$T/normal.yaml"
export UPSKILL_CONFIG="$T/short.yaml"
cd "$T" || exit 1
nreq() { wc -l < "$1" | tr -d ' '; }

printf '%s\n' '[{"reply": {"fault": "hold"}}]' > "$T/hold.json"
printf '%s\n' '[{"reply": {"status": 401}}]' > "$T/401.json"
printf '%s\n' '[{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]' > "$T/good.json"

# --- fake-llm's hold fault: the request is read, no byte comes back --------
fake_start "$T/hold.json" --record "$T/rec-h0.jsonl"
curl -s -m 1 -o /dev/null -d '{"model":"x","messages":[]}' \
    "$FAKE_URL/v1/chat/completions"
is "$?" 28 "a held request gets no reply (curl times out)"
is "$(nreq "$T/rec-h0.jsonl")" 1 "and was received"

# --- eval, closed port -------------------------------------------------------
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$DEAD" -j 4 \
    --runs-dir "$T/runs"
is "$rc" 4 "eval against a closed port exits 4"
like "$err" "'generic.local': no conversation was answered (60 failed)" \
    "the message names the model"
like "$err" "'$DEAD/chat/completions': gave up on this endpoint after 4 failed requests in a row" \
    "the endpoint and the breaker"
like "$err" "Couldn't connect to server" "and the cause"
unlike "$out" "with skill" "no bars for a model that answered nothing"
unlike "$out" "no measurable effect" "and no verdict"
batch=$(ls "$T/runs")
res=$(cat "$T/runs/$batch/run_1/run_result.json")
like "$res" '"error_message": "30 of 30 conversation(s) failed; the first: ' \
    "run_result.json records error_message"
like "$res" '"cases_errored": 30' "next to cases_errored"
run "$UPSKILL" runs -d "$T/runs"
like "$out" "with skill errored: nothing was answered" \
    "upskill runs shows the run as errored"
unlike "$out" "0%" "not as 0%"
run "$UPSKILL" runs -d "$T/runs" --metric tokens
like "$out" "with skill errored" "--metric tokens too: no token bars from errors"
run "$UPSKILL" runs -d "$T/runs" --json
like "$out" '"with_skill_rate": null' "upskill runs --json: no rate for it"

# --- eval, a server that accepts and never answers ---------------------------
fake_start "$T/hold.json" --record "$T/rec-h.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    -j 4 --no-log-runs --json
is "$rc" 4 "eval against a server that never answers exits 4"
like "$err" "'$FAKE_URL/v1/chat/completions': gave up on this endpoint after 4 failed requests in a row: Operation timed out" \
    "the endpoint and the timeout are named"
n=$(nreq "$T/rec-h.jsonl")
[ "$n" -lt 12 ]
ok $? "one wave of requests, not 60 x 3 ($n sent)"
like "$out" '"errors": 30' "--json still shows the errors"

# --- the same, with only the first-byte timeout short: a streamed reply
# that never begins is given up on at first_byte_timeout, long before the
# whole-request and idle timeouts (600 s and 300 s by default) ------------
printf 'providers:\n  generic:\n    first_byte_timeout: 1\n' > "$T/fb.yaml"
UPSKILL_CONFIG="$T/fb.yaml" run "$UPSKILL" eval --no-cache "$SKILL" -m local \
    --base-url "$FAKE_URL/v1" -j 4 --no-log-runs
is "$rc" 4 "first_byte_timeout: a reply that never begins: exit 4"
like "$err" "gave up on this endpoint after 4 failed requests in a row: no reply began within 1 s (first_byte_timeout)" \
    "the first-byte timeout is named as the cause"

# --- eval, 401 on every request ------------------------------------------------
export UPSKILL_CONFIG="$T/normal.yaml"
fake_start "$T/401.json" --record "$T/rec-a.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    -j 4 --no-log-runs
is "$rc" 4 "eval with a refused key exits 4"
like "$err" "'generic.local': no conversation was answered" "names the model"
# The first conversation's message names the endpoint and the 401: its
# own reply's, or, when its reply was still on the way as the breaker
# tripped (a loaded machine), the breaker's, which names the same cause.
like "$err" "'$FAKE_URL/v1/chat/completions': " "the endpoint"
like "$err" ": http 401: " "and the 401"
unlike "$out" "no measurable effect" "no verdict from 401s"
n=$(nreq "$T/rec-a.jsonl")
[ "$n" -lt 12 ]
ok $? "the breaker stops a refused key too ($n sent)"

# --- eval, an unknown model ----------------------------------------------------
printf '%s\n' '[{"reply": {"status": 404, "error_message": "model nope not found"}}]' \
    > "$T/404.json"
fake_start "$T/404.json" --record "$T/rec-u.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -m nope --base-url "$FAKE_URL/v1" \
    -j 4 --no-log-runs
is "$rc" 4 "eval of an unknown model exits 4"
like "$err" "'generic.nope': no conversation was answered" "names the model"
like "$err" "http 404: model nope not found" "and the server's reason"
unlike "$out" "no measurable effect" "no verdict for it"
n=$(nreq "$T/rec-u.jsonl")
[ "$n" -lt 12 ]
ok $? "the breaker stops an unknown model too ($n sent)"

# --- eval, the server dies mid-run (fake-llm exits after 10 answers) ---------
fake_start "$T/good.json" --record "$T/rec-k.jsonl" --max-requests 10
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    -j 4 --runs 5 --no-log-runs
is "$rc" 4 "a server that dies mid-run: exit 4"
like "$err" "gave up on this endpoint after 4 failed requests in a row" \
    "the rest of its 300 conversations are given up at once"
n=$(nreq "$T/rec-k.jsonl")
[ "$n" -lt 30 ]
ok $? "not retried one by one ($n requests reached the server)"

# --- eval, one dead model among two: the other reports normally ----------------
fake_start "$T/good.json"
GENERIC_BASE_URL="$FAKE_URL/v1" ANTHROPIC_BASE_URL="http://127.0.0.1:1" \
    run "$UPSKILL" eval --no-cache "$SKILL" -m generic.local \
    -m anthropic.claude-haiku-4-5 --no-log-runs
is "$rc" 4 "one dead model of two: exit 4"
like "$out" "generic.local" "the live model is reported"
like "$out" "with skill" "with its bars"
like "$err" "'anthropic.claude-haiku-4-5': no conversation was answered" \
    "the dead one is named"
unlike "$err" "'generic.local': no conversation" "the live one is not"
unlike "$out" "no measurable effect" "the summary table has no row for the dead one"

# --- a long wait is not silent, even without a terminal ----------------------
# The first request is told to come back in 11 s; with -j 1 nothing else
# moves meanwhile, so the 10 s note must come (stderr is a file here).
printf '%s\n' '[{"match": {"nth": 1}, "reply": {"fault": "retry_after", "retry_after": "11"}},
 {"student": {"p_with": 1, "p_without": 0, "default": {"good": "GOOD ANSWER", "bad": "x"}}}]' \
    > "$T/wait.json"
fake_start "$T/wait.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    -j 1 --no-log-runs
is "$rc" 0 "a run that waited on a rate limit ends normally"
like "$err" "upskill: no answer for 10 s: 1 conversation(s) in flight, 0 failed so far; the last failure: '$FAKE_URL/v1/chat/completions': http 429" \
    "a plain line says what the run is waiting for"
like "$err" "(next try in 11 s)" "and for how long"

# --- -j far above what a server takes: at most 256 connections per host ------
printf '%s\n' '[{"student": {"p_with": 1, "p_without": 0, "default": {"good": "GOOD ANSWER", "bad": "x"}},
  "reply": {"delay_ms": 300}}]' > "$T/slow.json"
fake_start "$T/slow.json" --record "$T/rec-j.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --runs 7 -j 420 --no-log-runs
is "$rc" 0 "-j 420 runs all 420 conversations"
peak=$(grep -o '"conns":[0-9]*' "$T/rec-j.jsonl" | cut -d: -f2 | sort -n | tail -n 1)
[ "$peak" -le 256 ]
ok $? "over at most 256 connections at once (peak $peak)"

# --- generate: the student endpoint is dead ------------------------------------
# gen STUDENT-URL [ARGS...]: the teacher on a fresh plain.json server.
gen() {
    url=$1
    shift
    rm -f "$T/rec-g.jsonl"
    fake_start "$G/plain.json" --record "$T/rec-g.jsonl"
    GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
        "write commit messages" -m generic.teacher --eval-model student \
        --eval-base-url "$url" --max-refine 3 "$@"
}
gen "$DEAD" -o "$T/g1/commit-helper" --runs-dir "$T/runs-g" --json
is "$rc" 4 "generate with a dead student exits 4"
like "$err" "'generic.student': no conversation was answered (8 failed): '$DEAD/chat/completions'" \
    "naming the student and its endpoint"
like "$out" '"stop": "error"' "--json: stopped by an error, not plateaued"
like "$out" '"failed": true' "--json: the attempt is marked failed, not judged"
like "$out" '"error": "'"'"'generic.student'"'"': no conversation' \
    "--json: the error is given"
grep -q "A skill you wrote was tested" "$T/rec-g.jsonl"
ok $((1 - $?)) "the teacher is not asked to refine on connection errors"
batch=$(ls "$T/runs-g")
grep -q '"error_message": "4 of 4' "$T/runs-g/$batch"/run_*/run_result.json
ok $? "generate's run log records error_message"

printf '%s\n' '[{"match": {"model": "student"}, "reply": {"fault": "hold"}}]' \
    > "$T/hold-s.json"
fake_start "$T/hold-s.json"
held="$FAKE_URL/v1"
UPSKILL_CONFIG="$T/short.yaml"
gen "$held" -o "$T/g2/commit-helper" --no-log-runs
UPSKILL_CONFIG="$T/normal.yaml"
is "$rc" 4 "generate with a student that never answers exits 4"
like "$err" "'generic.student': no conversation was answered" "naming it"
like "$err" "Operation timed out" "and the timeout"
like "$out" "(no answer: every conversation failed)" \
    "the report's row for the dead student has no rates or verdict"
unlike "$out" "generic.student  (skill" "and no bars"
like "$out" "1. not judged: conversations failed  (kept)" \
    "the attempt is not judged"
unlike "$out" "teacher check" "and no teacher check is drawn from it"

fake_start "$T/401.json"
gen "$FAKE_URL/v1" -o "$T/g3/commit-helper" --no-log-runs
is "$rc" 4 "generate with a refused student key exits 4"
like "$err" "http 401" "saying why"

done_testing
