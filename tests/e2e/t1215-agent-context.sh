#!/bin/sh
# A request the server refuses for outgrowing the model's context (a 400
# "maximum context length", llama.cpp's "exceeds the available context
# size", a 413) is a failure of the arm that sent it: graded failed,
# counted in its pass rate and named, never retried, not an error that is
# left out.  The judge overflowing is not the student's failure.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [
  {"input": "question one", "expected": {"contains": ["good"]}},
  {"input": "question two", "expected": {"contains": ["good"]}}
]}
JSON

# The skill arm reads SKILL.md, lists its files, and at its third turn on
# question two the server says the request outgrew the context.  The
# baseline answers question two, and on question one its first request
# outgrows llama.cpp's context.
cat > "$T/s.json" <<'JSON'
{"seed": 3, "rules": [
  {"match": {"tools": false}, "reply": {"text": "chat reply, no tools"}},
  {"name": "skill-overflow",
   "match": {"assistant_turns": 2, "user": "question two",
             "system": "<location>.agents/skills/student/SKILL.md</location>"},
   "reply": {"status": 400, "error_type": "invalid_request_error",
             "error_message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages."}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/student/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "read_file", "arguments": {"path": ".agents/skills/student/SKILL.md"}}]}},
  {"match": {"assistant_turns": 1, "system": "<location>.agents/skills/student/SKILL.md</location>"},
   "reply": {"tool_calls": [{"name": "list_files", "arguments": {}}]}},
  {"name": "base-overflow", "match": {"assistant_turns": 0, "user": "question one"},
   "reply": {"status": 400, "error_type": "exceed_context_size_error",
             "error_message": "the request exceeds the available context size, try increasing it"}},
  {"reply": {"text": "GOOD ANSWER"}}
]}
JSON

fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-log-runs --json
is "$rc" 0 "the eval exits 0"
sk=$(printf '%s' "$out" | sed -n '/"with_skill"/,/}/p')
bs=$(printf '%s' "$out" | sed -n '/"baseline": {/,/}/p')
like "$sk" '"answered": 2,' "with skill: both conversations count as answered"
like "$sk" '"passed": 1,' "with skill: one passed"
like "$sk" '"errors": 0,' "with skill: the overflow is no provider error"
like "$sk" '"pass_rate": 0.5,' "with skill: 50%, not 100%"
like "$out" '"outgrew_context": 1' "--json counts the overflow per arm"
like "$bs" '"pass_rate": 0.5,' "baseline: its own overflow is its failure too"
like "$bs" '"errors": 0,' "baseline: no provider error"
is "$(grep -c '"rule":"skill-overflow"' "$T/rec.jsonl")" 1 \
    "the refused request is not retried"

run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --runs-dir "$T/runs"
like "$out" "with skill: 1 of 2 conversations failed: the request outgrew the context (counted as failures)" \
    "the report names the failures of the skill arm"
like "$out" "baseline: 1 of 2 conversations failed: the request outgrew the context" \
    "and of the baseline"
unlike "$out" "errored, excluded" "nothing is excluded as an error"
cases=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$cases" '"outgrew_context":true' "the case artifact says it outgrew"
like "$cases" "maximum context length is 8192" "with the server's words"
run "$UPSKILL" report "$T/runs" -o "$T/r.html"
html=$(cat "$T/r.html")
like "$html" '50% <span class="mut">' "the HTML report counts them too"
unlike "$html" '100% <span class="mut">' "no arm reads 100%"
unlike "$html" '>error</span>' "and shows them as failures, not errors"
kill "$FAKE_PID" 2>/dev/null

# A 413 is the same failure; the judge overflowing is not the student's.
cat > "$T/j.json" <<'JSON'
{"cases": [
  {"input": "question one", "expected": {"contains": []},
   "assert": [{"type": "llm-rubric", "value": "Is a good answer."}]},
  {"input": "question two", "expected": {"contains": ["good"]}}
]}
JSON
cat > "$T/s2.json" <<'JSON'
{"seed": 3, "rules": [
  {"name": "judge", "match": {"user": "<rubric>"},
   "reply": {"status": 400, "error_message": "prompt is too long: 250000 tokens > 200000 maximum"}},
  {"name": "too-large", "match": {"user": "question two", "system": "## Skill:"},
   "reply": {"status": 413, "error_message": "request entity too large"}},
  {"reply": {"text": "GOOD ANSWER"}}
]}
JSON
fake_start "$T/s2.json" --record "$T/rec2.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/j.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --json
sk=$(printf '%s' "$out" | sed -n '/"with_skill"/,/}/p')
bs=$(printf '%s' "$out" | sed -n '/"baseline": {/,/}/p')
like "$sk" '"outgrew_context": 1' "a 413 is the skill arm's failure"
like "$sk" '"answered": 2,' "and counted as answered"
like "$bs" '"outgrew_context": 0' "the judge's overflow is no baseline failure"
like "$sk" '"passed": 0,' "the rubric the judge could not read is not met"

# Never cached: the next run with the cache on sends it again.
for i in 1 2; do
    run "$UPSKILL" eval "$SKILL" -t "$T/j.json" -m local \
        --base-url "$FAKE_URL/v1" --no-log-runs --json
done
like "$out" '"outgrew_context": 1' "a cached run still counts the overflow"
is "$(grep -c '"rule":"too-large"' "$T/rec2.jsonl")" 3 \
    "the refused request is never served from the cache"

# A model whose every request outgrows its context answered every case,
# and failed each: 0%, reported, exit 0, not "no conversation answered".
kill "$FAKE_PID" 2>/dev/null
cat > "$T/s3.json" <<'JSON'
[{"reply": {"status": 400, "error_message": "prompt is too long: 9 tokens > 8 maximum"}}]
JSON
fake_start "$T/s3.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs
is "$rc" 0 "every conversation outgrown: exit 0"
unlike "$err" "no conversation was answered" "the model is not called dead"
like "$out" "with skill: 2 of 2 conversations failed: the request outgrew" \
    "its failures are named"

# A skill arm that always outgrows the context against a baseline that
# passes: harmful, never a token saver or trade-off on tokens it could
# not spend.
kill "$FAKE_PID" 2>/dev/null
cat > "$T/s4.json" <<'JSON'
[{"match": {"system": "## Skill:"},
  "reply": {"status": 400, "error_message": "This model's maximum context length is 4096 tokens"}},
 {"reply": {"text": "GOOD ANSWER", "usage": {"input_tokens": 40, "output_tokens": 100}}}]
JSON
fake_start "$T/s4.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs -j 8 --json
is "$rc" 0 "a skill that always outgrows the context: exit 0"
like "$out" '"outgrew_context": 30' "its 30 conversations are counted"
like "$out" '"verdict": "harmful"' "the verdict is harmful"
like "$out" '"token_savings": 0.0' "failures that spent no known tokens save none"

done_testing
