#!/bin/sh
# eval --aa (docs/statistics.md, "A/A runs"): the skill arm runs without
# the skill, on fresh repeats (no cache), so both arms are the same
# model on the same prompts and every claim is false.  A skill that
# helps a lot (0.3 -> 1) is beneficial in a normal eval; under --aa no
# request carries it, the skill arm sends exactly the baseline's prompts,
# and the report says the lift is the suite's noise.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1
cat >"$T/s.json" <<'JSON'
{"seed": 4, "rules": [
 {"student": {"p_with": 1, "p_without": 0.3, "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
ev() {
    run "$UPSKILL" eval "$FIX/eval/student" -m local --base-url "$FAKE_URL/v1" \
        --no-log-runs -j 4 "$@"
}

ev --json
is "$(printf '%s' "$out" | jq -r '.models[0].verdict')" beneficial \
    "the skill is beneficial in a normal eval"
: >"$T/rec.jsonl"
ev --aa
is "$rc" 0 "eval --aa exits 0"
like "$out" "A/A run: both arms ran without the skill, so" "the report says it is an A/A run"
unlike "$out" "verdict: beneficial" "the skill that helps is not called beneficial"
unlike "$out" "Recommendation:" "no recommendation to keep a skill that did not run"
is "$(grep -c '## Skill:' "$T/rec.jsonl")" 0 "no request carries the skill"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 60 "both arms ran: 30 cases x 2"
is "$(jq -r '.body.messages[0].content' "$T/rec.jsonl" | sort -u | wc -l | tr -d ' ')" 1 \
    "both arms send the same system prompt"
ev --aa --json
is "$(printf '%s' "$out" | jq -r '.aa')" true "--json says aa"
is "$(printf '%s' "$out" | jq -r '.models[0].skill_tokens')" 0 "the skill arm carries no skill"
ev --aa --agent
is "$rc" 2 "--aa is chat mode only"
like "$err" "--aa runs chat mode with its baseline" "... saying so"

done_testing
