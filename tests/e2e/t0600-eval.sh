#!/bin/sh
# upskill eval / benchmark against the fake server in student mode: the
# configured pass probabilities are recovered within their intervals, for
# both providers; faults lose nothing; Ctrl-C then --resume; gates; keys.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-ant-PLANTED-e2e-0600
export ANTHROPIC_API_KEY="$KEY" OPENAI_API_KEY="$KEY" UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

student() { # student P_WITH P_WITHOUT SEED [EXTRA-RULE-KEYS]
    cat > "$T/s.json" <<JSON
{"seed": $3, "rules": [{"student": {"p_with": $1, "p_without": $2,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}$4}]}
JSON
}

# json_num KEY TEXT N: the Nth number after "KEY": in pretty JSON text.
json_num() {
    printf '%s\n' "$2" | grep "\"$1\":" | sed -n "${3:-1}p" |
        sed 's/.*: *\([-0-9.eE+]*\).*/\1/'
}

within() { # within LO X HI
    awk -v lo="$1" -v x="$2" -v hi="$3" 'BEGIN { exit !(lo <= x && x <= hi) }'
}

# --- OpenAI-compatible endpoint (--base-url), 30 cases x 3 runs ----------
student 0.9 0.2 11
fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --runs 3 \
    -j 8 --json --runs-dir "$T/runs"
is "$rc" 0 "eval against a compatible endpoint exits 0"
lo=$(json_num ci_low "$out" 1); hi=$(json_num ci_high "$out" 1)
within "$lo" 0.9 "$hi"; ok $? "with-skill interval [$lo, $hi] holds p_with 0.9"
lo=$(json_num ci_low "$out" 2); hi=$(json_num ci_high "$out" 2)
within "$lo" 0.2 "$hi"; ok $? "baseline interval [$lo, $hi] holds p_without 0.2"
like "$out" '"verdict": "beneficial"' "a strong skill is called beneficial"
like "$out" '"is_beneficial": true' "upstream's is_beneficial is kept"
is "$(wc -l < "$T/rec.jsonl" | tr -d ' ')" 180 "one request per case, arm and run"
batch=$(ls "$T/runs")
is "$(ls "$T/runs/$batch" | grep -c '^run_')" 6 "a run folder per arm and repeat"
like "$(cat "$T/runs/$batch/run_2/run_result.json")" '"run_type": "with_skill"' \
    "run_result.json has upstream's run_type"
like "$(cat "$T/runs/$batch/run_1/run_metadata.json")" '"model": "generic.local"' \
    "the resolved model id is recorded"
run "$UPSKILL" runs -d "$T/runs"
like "$out" "generic.local" "upskill runs reads what eval wrote"

# --- Anthropic, same statistics -------------------------------------------
student 0.8 0.3 12
fake_start "$T/s.json" --record "$T/rec-a.jsonl"
ANTHROPIC_BASE_URL="$FAKE_URL" run "$UPSKILL" eval --no-cache "$SKILL" \
    -m anthropic.claude-haiku-4-5 --runs 3 -j 8 --json --runs-dir "$T/runs"
is "$rc" 0 "eval against the Anthropic API exits 0"
lo=$(json_num ci_low "$out" 1); hi=$(json_num ci_high "$out" 1)
within "$lo" 0.8 "$hi"; ok $? "anthropic with-skill interval [$lo, $hi] holds 0.8"
lo=$(json_num ci_low "$out" 2); hi=$(json_num ci_high "$out" 2)
within "$lo" 0.3 "$hi"; ok $? "anthropic baseline interval [$lo, $hi] holds 0.3"
rec=$(head -n 1 "$T/rec-a.jsonl")
like "$rec" '"anthropic-version"' "anthropic-version header sent"
like "$rec" '"x-api-key"' "key sent in its header"
like "$rec" '"system"' "system prompt sent as Anthropic's top-level system"
# The key may appear only in the recorded request headers, never in bodies.
grep -o '"body":.*' "$T/rec-a.jsonl" | grep -q "$KEY"
ok $((1 - $?)) "no key in any request body"
grep -rq "$KEY" "$T/runs"
ok $((1 - $?)) "no key in any file the program wrote"
unlike "$out$err" "$KEY" "no key in the output"

# --- a noise skill is not called beneficial -------------------------------
fp=0
for seed in 21 22 23 24 25 26 27 28; do
    student 0.5 0.5 $seed
    fake_start "$T/s.json"
    run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --json \
        --no-log-runs -j 8 --seed $seed
    case "$out" in *'"verdict": "beneficial"'*) fp=$((fp + 1)) ;; esac
done
ok $([ "$fp" -le 1 ] && echo 0 || echo 1) "noise skill called beneficial in $fp of 8 seeded runs"

# --- 30% transient faults: every result present ---------------------------
student 1 1 31 ', "fail_rate": 0.3, "fail_with": ["error_500", "overloaded", "reset"]'
fake_start "$T/s.json"
run "$UPSKILL" benchmark --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --runs 2 \
    -j 8 --json -o "$T/runs-f"
is "$rc" 0 "benchmark under 30% transient faults exits 0"
is "$(json_num errors "$out" 1)" 0 "no with-skill conversation lost to faults"
is "$(json_num passed "$out" 1)" 60 "every with-skill result present and passing"

# --- without a TTY: a plain progress line per quarter, none with --json ----
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --runs 4 -j 8 --no-log-runs
is "$rc" 0 "a 240-conversation eval exits 0"
is "$(printf '%s\n' "$err" | grep -c '/240 done, ')" 4 \
    "not a TTY: four plain progress lines"
like "$err" "  240/240 done, " "the last says all are done"
ok $(printf '%s' "$err" | grep -q "$(printf '\r')" && echo 1 || echo 0) \
    "no carriage returns in a log"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --runs 4 -j 8 --no-log-runs --json
is "$(printf '%s\n' "$err" | grep -c ' done, ')" 0 "--json: no progress lines"

# --- Ctrl-C, then --resume: nothing lost, nothing counted twice -----------
student 1 0 41 ', "reply": {"delay_ms": 150, "usage": {"input_tokens": 40, "output_tokens": 10}}'
sed -i 's/"reply": {"usage": {"input_tokens": 40, "output_tokens": 10}},//' "$T/s.json"
fake_start "$T/s.json" --record "$T/rec-r.jsonl"
"$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" -j 2 \
    --runs-dir "$T/runs-r" > "$T/r.out" 2> "$T/r.err" &
pid=$!
i=0
while [ "$i" -lt 100 ]; do
    j=$(cat "$T"/runs-r/*/journal.jsonl 2>/dev/null | wc -l)
    [ "$j" -ge 6 ] && break
    i=$((i + 1)); sleep 0.1
done
kill -INT "$pid"; wait "$pid"; rc=$?
is "$rc" 130 "Ctrl-C exits 130"
like "$(cat "$T/r.err")" "--resume" "the message says how to resume"
batch=$(ls "$T/runs-r")
first=$(wc -l < "$T/rec-r.jsonl" | tr -d ' ')
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" -j 8 --json \
    --runs-dir "$T/runs-r" --resume "$batch"
is "$rc" 0 "--resume finishes the batch"
total=$(wc -l < "$T/rec-r.jsonl" | tr -d ' ')
ok $([ "$total" -lt $((first + 60)) ] && echo 0 || echo 1) \
    "resume re-ran only unfinished work ($first then $total requests)"
is "$(json_num cases "$out" 2)" 30 "with-skill arm counts each case once"
is "$(json_num passed "$out" 1)" 30 "every with-skill case present after resume"

# --- gates and errors -----------------------------------------------------
student 0.5 0.5 51
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --no-log-runs \
    --fail-under 0.99
is "$rc" 1 "--fail-under fails the run with exit 1"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --no-log-runs \
    --require-lift
is "$rc" 1 "--require-lift fails when the skill is not beneficial"
mkdir -p "$T/bare/bare"
printf -- '---\nname: bare\ndescription: no tests here\n---\nbody\n' > "$T/bare/bare/SKILL.md"
run "$UPSKILL" eval "$T/bare/bare" -m local --base-url "$FAKE_URL/v1"
is "$rc" 3 "a skill without tests has them generated; an unusable reply exits 3"
like "$err" "generating tests with generic.local:" "and says why"
run "$UPSKILL" benchmark --no-cache "$SKILL"
is "$rc" 2 "benchmark without -m is a usage error"
run "$UPSKILL" eval --no-cache "$SKILL" -m nosuchprovider.x
is "$rc" 3 "an unknown provider is bad input"

# --- several models: a summary table ---------------------------------------
student 0.9 0.2 61
fake_start "$T/s.json"
run "$UPSKILL" benchmark --no-cache "$SKILL" -m local -m other \
    --base-url "$FAKE_URL/v1" --runs 1 -o "$T/runs-t"
is "$rc" 0 "benchmark of two models exits 0"
like "$out" "verdict" "the summary table has a verdict column"
like "$out" "generic.other" "and a row per model"

# --- a missing key or a dead endpoint: exit 4 with the reason -------------
env -u ANTHROPIC_API_KEY "$UPSKILL" eval --no-cache "$SKILL" \
    -m anthropic.claude-haiku-4-5 --no-log-runs > "$T/k.out" 2> "$T/k.err"
is "$?" 4 "a missing API key exits 4"
like "$(cat "$T/k.err")" "no API key for 'anthropic.claude-haiku-4-5': set ANTHROPIC_API_KEY" \
    "and names the variable to set"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "http://127.0.0.1:1/v1" \
    --no-log-runs --json
is "$rc" 4 "an unreachable endpoint exits 4"
like "$err" "no conversation was answered (60 failed)" "and says how many failed"
is "$(printf '%s\n' "$err" | grep -c 'failed')" 1 "once (issue 34: not twice)"
like "$out" '"errors": 30' "the results still show the errors"

# --- -v shows each retried attempt, without secrets ------------------------
printf '%s\n' '[{"match": {"nth": 1}, "reply": {"fault": "retry_after", "retry_after": 1}},
 {"student": {"p_with": 1, "p_without": 0, "default": {"good": "GOOD ANSWER", "bad": "x"}}}]' > "$T/v.json"
fake_start "$T/v.json"
MY_KEY=$KEY run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --api-key-env MY_KEY --no-log-runs -v -j 1
is "$rc" 0 "eval with a retried attempt exits 0"
like "$err" "attempt 1/3" "-v shows the retried attempt"
like "$err" "retry in 1000 ms by retry-after" "-v shows the wait and why"
unlike "$out$err" "$KEY" "-v output carries no key"

done_testing
