#!/bin/sh
# Verdicts against the fake server (docs/statistics.md): errored
# conversations are no evidence (issue 9), the verdicts follow one
# procedure with intervals that agree with the test and never collapse to
# a point, the margin is configurable, the cost line says whether the
# skill pays for itself, and `eval --plan` sends nothing (issue 10).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# scenario P_WITH P_WITHOUT SKILL_OUT_TOKENS [FIRST-RULE]: the student
# fixture's server; the skill arm answers with SKILL_OUT_TOKENS output
# tokens, the baseline with 100.
scenario() {
    cat > "$T/s.json" <<JSON
{"seed": 5, "rules": [$4
 {"match": {"system": "## Skill:"},
  "student": {"p_with": $1, "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": $3}}},
 {"student": {"p_without": $2, "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 100}}}]}
JSON
}

ev() { # ev ARGS...: eval the student fixture on the fake server
    run "$UPSKILL" eval --no-cache "$SKILL" -m local \
        --base-url "$FAKE_URL/v1" --no-log-runs -j 8 "$@"
}

# --- issue 9: a skill arm that always errors gets no verdict ---------------
# A baseline that never passes: errors counted as zero-token failures used
# to make this a "token saver" with upstream's is_beneficial true.
scenario 1 0 100 '{"match": {"system": "## Skill:"}, "reply": {"status": 400,
  "error_message": "Unsupported parameter: reasoning_effort"}},'
fake_start "$T/s.json"
ev --json
is "$rc" 4 "every skill conversation errored: exit 4"
like "$out" '"verdict": null' "no verdict for an arm with no answer"
like "$out" '"is_beneficial": false' "upstream's rule is not fooled either"
like "$out" '"errors": 30' "the errors are counted"
like "$out" '"answered": 0' "and nothing is answered"
like "$out" '"token_savings": 0.0' "errors save no tokens"
unlike "$out" '"token_saver"' "errors are no token saver"
ev
like "$out" "with skill: 30 of 30 conversations errored, excluded" \
    "the text says how many errored and that they are left out"
like "$out" "verdict: not measured" "the text gives no verdict"
unlike "$out" "tokens per case" "no token comparison built on errors"

# --- issue 9: errors on some cases: only cases answered in both arms ------
scenario 1 0 100 '{"match": {"system": "## Skill:", "user": "number 1"},
  "reply": {"status": 400}},'
fake_start "$T/s.json"
ev --json
like "$out" '"paired_cases": 19' "cases 1 and 10-19 minus errors: 19 paired"
like "$out" '"errors": 11' "11 skill conversations errored"
like "$out" '"verdict": "beneficial"' "the answered cases still prove a strong skill"
like "$out" '"lift": 1.0' "the lift is over the answered pairs"

# --- issue 9: generate, a student whose skill arm always errors ------------
sed 's/^ "rules": \[$/ "rules": [{"match": {"model": "student", "system": "SKILL-V1"}, "reply": {"status": 400}},/' \
    "$FIX/gen/plain.json" > "$T/gen.json"
fake_start "$T/gen.json"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write commit messages" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    -o "$T/g/commit-helper" --no-log-runs --max-refine 1 --json
unlike "$out" '"verdict": "token_saver"' "generate: errors are no token saver"
like "$out" '"generic.student"' "generate --json printed its document, the student in it"
printf '%s\n' "$out" | tr -d ' \n' |
    grep -q '"model":"generic.student"[^}]*"errors":[1-9][^]]*"verdict":null,'
ok $? "generate --json: the student with no answer has verdict null"

# --- issue 10: a strong skill on 8 cases: an interval, not a point --------
scenario 1 0 100
fake_start "$T/s.json"
i=0
printf '[' > "$T/eight.json"
while [ $i -lt 8 ]; do
    i=$((i + 1))
    printf '%s{"input": "question number %d", "expected": {"contains": ["good", "answer"]}}' \
        "$([ $i -gt 1 ] && echo ,)" $i >> "$T/eight.json"
done
printf ']\n' >> "$T/eight.json"
ev -t "$T/eight.json"
like "$out" "lift +100 points, 95% CI [+35, +100]" \
    "8 of 8 better: Tango's interval [+35, +100], not [+100, +100]"
like "$out" "verdict: beneficial: a lift of +35 to +100 points" "and beneficial"
ev -t "$T/eight.json" --runs 3 --json
lo=$(printf '%s\n' "$out" | grep -A1 '"lift_ci": \[' | sed -n '2s/[ ,]//gp')
awk -v lo="$lo" 'BEGIN { exit !(lo > 0.5 && lo < 0.95) }'
ok $? "with 3 runs the t interval starts at $lo, below +100"
like "$out" '"verdict": "beneficial"' "and still beneficial"

# --- issue 10: fewer tokens at a lower pass rate is a trade-off -----------
# 8 cases: the baseline passes cases 1-5, the skill only case 1, in 90
# instead of 140 tokens (was: "lift -50 points ... p = 0.125: token saver").
good='"reply": {"text": "GOOD ANSWER", "usage": {"input_tokens": 40, "output_tokens":'
bad='"reply": {"text": "no idea", "usage": {"input_tokens": 40, "output_tokens":'
cat > "$T/trade.json" <<JSON
[{"match": {"system": "## Skill:", "user": "number 1"}, $good 50}}},
 {"match": {"system": "## Skill:"}, $bad 50}}},
 {"match": {"user": "number 1"}, $good 100}}}, {"match": {"user": "number 2"}, $good 100}}},
 {"match": {"user": "number 3"}, $good 100}}}, {"match": {"user": "number 4"}, $good 100}}},
 {"match": {"user": "number 5"}, $good 100}}}, {$bad 100}}}]
JSON
fake_start "$T/trade.json"
ev -t "$T/eight.json"
unlike "$out" "token saver" "62% -> 12% at fewer tokens: no token saver"
like "$out" "verdict: trade-off: 36% fewer tokens, but the pass rate drops by" \
    "it is a trade-off naming both sides"

# --- no meaningful effect within a margin, and --margin --------------------
scenario 0.5 0.5 100
fake_start "$T/s.json"
ev
like "$out" "verdict: inconclusive: the lift could be anywhere from" \
    "a coin-flip skill on 30 cases: inconclusive, with the interval in words"
like "$out" "This suite (30 cases x 1 run) detects a true lift of +" \
    "the note gives the suite's detectable lift"
ev --runs 3 --margin 40 --json
like "$out" '"verdict": "no_effect"' "inside a 40-point margin: no meaningful effect"
like "$out" '"margin": 0.4' "the margin is reported"
ev --margin 99
is "$rc" 2 "--margin above 50 points is a usage error"
printf 'margin_points: 40\n' > "$T/margin.yaml"
UPSKILL_CONFIG="$T/margin.yaml" ev --runs 3 --json
like "$out" '"margin": 0.4' "the config key margin_points sets the margin"
UPSKILL_CONFIG="$T/margin.yaml" ev --runs 3 --json --margin 5
like "$out" '"margin": 0.05' "and --margin overrides it"

# --- the cost line -----------------------------------------------------------
cat > "$T/priced.yaml" <<'YAML'
prices:
  generic.local: {input: 1, output: 10}
YAML
scenario 1 0.9 400
fake_start "$T/s.json"
UPSKILL_CONFIG="$T/priced.yaml" ev --json
like "$out" '"pays_for_itself": false' "a small lift at 4x the tokens does not pay"
UPSKILL_CONFIG="$T/priced.yaml" ev
like "$out" "does not pay for itself: a passed case costs" \
    "the text says so with the cost per passed case of both arms"

# --- eval --plan sends nothing ------------------------------------------------
run "$UPSKILL" eval --plan "$SKILL" -m local --base-url "http://127.0.0.1:9/v1"
is "$rc" 0 "--plan exits 0 without reaching the endpoint"
like "$out" "30 cases x 1 run per arm at a 50% baseline: the smallest lift" \
    "it gives the smallest detectable lift"
like "$out" "a true lift of +20 points is detected with" "and the power at the target"
like "$out" "cheaper lever here" "and names the cheaper lever"
run "$UPSKILL" eval --plan "$SKILL" --runs 3 --baseline-rate 0.3 \
    --target-lift 30 --json
like "$out" '"runs": 3' "--plan --json echoes the runs"
like "$out" '"mde": ' "and has the minimum detectable effect"
run "$UPSKILL" eval --plan "$SKILL" --baseline-rate 2
is "$rc" 2 "a baseline rate above 1 is a usage error"

done_testing
