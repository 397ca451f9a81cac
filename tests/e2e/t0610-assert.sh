#!/bin/sh
# Assertions in eval: the "assert" extension list, llm-rubric settled by a
# judge model whose tokens are counted apart, and parse errors before any
# request is sent.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
A="$FIX/eval/asserts"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 3, "rules": [
  {"name": "judge", "match": {"user": "<rubric>"},
   "reply": {"text": "{\"pass\": true, \"reason\": \"confident\"}",
             "usage": {"input_tokens": 100, "output_tokens": 7}}},
  {"student": {"p_with": 1, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
   "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

run "$UPSKILL" eval --no-cache "$SKILL" -t "$A/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --json
is "$rc" 0 "eval with assertion lists exits 0"
like "$out" '"passed": 3,' "every with-skill case passes its assertions"
like "$out" '"calls": 2' "the judge is called once per llm-rubric answer (both arms)"
like "$out" '"input_tokens": 200' "judge tokens are counted apart"
judged=$(grep -c '<rubric>' "$T/rec.jsonl")
is "$judged" 2 "two judge requests reached the server"

run "$UPSKILL" eval --no-cache "$SKILL" -t "$A/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs -v
like "$out" "FAIL" "verbose output shows failing baseline cases"

before=$(wc -l < "$T/rec.jsonl")
run "$UPSKILL" eval --no-cache "$SKILL" -t "$A/bad.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs
is "$rc" 3 "a bad regex is bad input"
like "$err" "cases[0].assert[0]" "the message names the assertion's place"
is "$(wc -l < "$T/rec.jsonl")" "$before" "no request is sent before the tests parse"

done_testing
