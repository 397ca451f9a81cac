#!/bin/sh
# The evaluation session that eval, benchmark and generate share: generate's
# evaluations now get the response cache (and --no-cache) and the
# llm-rubric judge, as eval's always did.  Scenarios: tests/fixtures/gen/.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
G="$TOP/tests/fixtures/gen"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# gen [ARGS...]: generate with the teacher and one student on the server.
gen() {
    GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
        "write commit messages" -m generic.teacher "$@" \
        --eval-model student --eval-base-url "$FAKE_URL/v1"
}
nreq() { wc -l < "$T/rec.jsonl" | tr -d ' '; }

# --- the response cache (keyed on the endpoint: one server throughout) -------
fake_start "$G/plain.json" --record "$T/rec.jsonl"
gen -o "$T/c1/commit-helper" --no-log-runs
is "$rc" 0 "generate exits 0"
is "$(nreq)" 18 "the first run sends every evaluation"
gen -o "$T/c2/commit-helper" --no-log-runs
is "$rc" 0 "generate again exits 0"
is "$(nreq)" 20 "the second sends only the teacher and the test writer"
like "$out" "lift +50 points" "with the same statistics from the cache"
gen -o "$T/c3/commit-helper" --no-log-runs --no-cache
is "$rc" 0 "generate --no-cache exits 0"
is "$(nreq)" 38 "--no-cache sends every evaluation again"

# --- the judge ------------------------------------------------------------------
cp -R "$G/improve/commit-helper" "$T/src"
cat > "$T/src/skill_meta.json" <<'JSON'
{"metadata": {"version": "1.2", "source_task": "write commit messages"},
 "tests": [
  {"input": "easy case 1: kept test", "expected": {"contains": ["GOOD"]}},
  {"input": "hard case 2: kept test", "expected": {"contains": []},
   "assert": [{"type": "llm-rubric", "value": "a confident, good answer"}]}]}
JSON
sed 's/"rules": \[/"rules": [{"name": "judge", "match": {"user": "<rubric>"}, "reply": {"text": "{\\"pass\\": true, \\"reason\\": \\"fine\\"}"}},/' \
    "$G/improve.json" > "$T/judge.json"
rm -f "$T/rec.jsonl"
fake_start "$T/judge.json" --record "$T/rec.jsonl"
gen -f "$T/src" -o "$T/j/commit-helper" --no-log-runs \
    --no-cache --json
is "$rc" 0 "generate with an llm-rubric test exits 0"
is "$(grep -c '<rubric>' "$T/rec.jsonl")" 4 \
    "the judge settles the rubric of each model and arm"

done_testing
