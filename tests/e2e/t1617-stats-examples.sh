#!/bin/sh
# docs/statistics.md's worked examples, run (issue 26, item 11): each
# scenario of the page's "Scenarios of the examples" against the fake
# server, and each line the page shows for it must be in the page and in
# eval's output, so the page cannot drift from what the tool prints.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
DOC="$TOP/docs/statistics.md"
export UPSKILL_CONFIG="$T/none.yaml" NO_COLOR=1
cd "$T" || exit 1

# example NAME P_WITH P_WITHOUT SKILL_TOKENS SEED FIRST_RULE ARGS...: run
# the page's scenario; the lines to find follow on stdin
example() {
    ex_name=$1
    cat >"$T/s.json" <<JSON
{"seed": $5, "rules": [$6
 {"match": {"system": "## Skill:"},
  "student": {"p_with": $2, "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": $4}}},
 {"student": {"p_without": $3, "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 100}}}]}
JSON
    shift 6
    fake_start "$T/s.json"
    "$UPSKILL" eval --no-cache "$FIX/eval/student" -m local \
        --base-url "$FAKE_URL/v1" --no-log-runs -j 8 "$@" >"$T/out" 2>&1
    while IFS= read -r want; do
        grep -qF -- "$want" "$DOC"
        ok $? "$ex_name: the page shows '$want'"
        grep -qF -- "$want" "$T/out"
        ok $? "$ex_name: eval prints it"
    done
    kill "$FAKE_PID" 2>/dev/null
}

example beneficial 0.9 0.3 100 1 '' <<'EOF2'
  with skill █████████████████░░░    87%  [70-95%]  (+67%)
  lift +67 points, 95% CI [+48, +81], p = 7.74e-06 over 30 cases
  verdict: beneficial: a lift of +48 to +81 points
  tokens per case: 140 -> 140 (+0%)
EOF2
example harmful 0.2 0.8 100 1 '' <<'EOF2'
  lift -50 points, 95% CI [-67, -33], p = 0.000108 over 30 cases
  verdict: harmful: a drop of 33 to 67 points
EOF2
# the page gives the scenario's parameters the examples were run with
grep -qF 'The token saver and the trade-off used `SKILL_TOKENS` 50' "$DOC"
ok $? "the page says the token saver and trade-off used SKILL_TOKENS 50"
example "token saver" 1 1 50 1 '' --runs 3 <<'EOF2'
  verdict: token saver: 36% fewer tokens, and the pass rate drops by no more than 3 points
  tokens per case: 140 -> 90 (-36%)
EOF2
example trade-off 0.2 0.6 50 5 '' <<'EOF2'
  with skill █████░░░░░░░░░░░░░░░    23%  [12-41%]  (-50%)
  lift -50 points, 95% CI [-70, -22], p = 0.00106 over 30 cases
  verdict: trade-off: 36% fewer tokens, but the pass rate drops by 22 to 70 points
  tokens per case: 140 -> 90 (-36%)
EOF2
example "no effect" 1 1 100 1 '' --runs 3 <<'EOF2'
  verdict: no meaningful effect: the lift lies within -3 to +3 points, inside the margin of 5 points
  The baseline passes every case: there is no room for a lift, only for a drop.
EOF2
example inconclusive 0.6 0.5 100 2 '' <<'EOF2'
  lift +20 points, 95% CI [-8, +45], p = 0.157 over 30 cases
  verdict: inconclusive: the lift could be anywhere from -8 to +45 points
EOF2
example "not measured" 1 0.3 100 1 \
    '{"match": {"system": "## Skill:"}, "reply": {"status": 400}},' <<'EOF2'
  verdict: not measured: no case was answered in both arms
  with skill: 30 of 30 conversations errored, excluded from the rates and the verdict
EOF2
printf 'prices:\n  generic.local: {input: 1, output: 10}\n' >"$T/cost.yaml"
UPSKILL_CONFIG="$T/cost.yaml" example cost 1 0.9 400 1 '' <<'EOF2'
  lift +17 points, 95% CI [+3, +34], p = 0.0253 over 30 cases
  tokens per case: 140 -> 440 (+214%)
EOF2
done_testing
