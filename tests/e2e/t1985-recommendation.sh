#!/bin/sh
# Upstream's "Recommendation:" line and our verdict (issue 34 item 7):
# when they disagree ("verdict: inconclusive" then "Recommendation: keep
# skill", as `make demo-agent` printed), a second line says both plainly;
# upstream's line stays as it was for scripts; when they agree, nothing
# is added.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json"
# two cases: +100 points, but two cases cannot show it
printf '[{"input": "q1", "expected": {"contains": ["GOOD"]}}, {"input": "q2", "expected": {"contains": ["GOOD"]}}]\n' > "$T/t2.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t2.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs
is "$rc" 0 "eval exits 0"
like "$out" "verdict: inconclusive" "(our verdict: inconclusive)"
like "$out" "Recommendation: keep skill" "upstream's line is kept as it was"
like "$out" "(that is upstream's rule: a lift above 5 points, or no loss and fewer tokens; the verdict above, inconclusive, says the evidence does not show that the skill helps: run more cases or --runs before keeping it on this result)" \
    "and the disagreement is said plainly"

# 30 cases: both agree, nothing is added
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs
like "$out" "verdict: beneficial" "(our verdict: beneficial)"
like "$out" "Recommendation: keep skill" "upstream agrees"
unlike "$out" "that is upstream's rule" "no second line when they agree"

done_testing
