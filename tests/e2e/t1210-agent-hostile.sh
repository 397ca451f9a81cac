#!/bin/sh
# Agent mode against bad and hostile tool calls (issue 11 item 9): an
# unknown tool, malformed JSON arguments, paths outside the workspace, a
# 50 MB write, 10,000 calls in one turn and a student that never stops.
# Each gets a tool error the model reads or ends its conversation with a
# reason; nothing outside the workspace is touched; the run goes on.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
echo "precious" > "$T/outside.txt"

# case NAME: a case whose first turn is the hostile call NAME
cat > "$T/t.json" <<'JSON'
{"cases": [
  {"input": "unknown", "expected": {"contains": ["done"]}},
  {"input": "malformed", "expected": {"contains": ["done"]}},
  {"input": "escape", "expected": {"contains": ["done"]}},
  {"input": "huge", "expected": {"contains": ["done"]}},
  {"input": "flood", "expected": {"contains": ["done"]}},
  {"input": "forever", "expected": {"contains": ["done"]}},
  {"input": "honest", "expected": {"contains": ["done"]}}
]}
JSON

# big N: 100 x 2^N bytes of "a"
big() {
    awk -v n="$1" 'BEGIN { s = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        s = s s; for (i = 0; i < n; i++) s = s s; printf "%s", s }'
}
flood=$(awk 'BEGIN { for (i = 0; i < 10000; i++)
    printf "%s{\"name\": \"list_files\", \"arguments\": {}}", (i ? "," : "") }')
{
cat <<'JSON'
{"seed": 1, "rules": [
  {"match": {"user": "unknown", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "rm_rf", "arguments": {"path": "/"}}]}},
  {"match": {"user": "malformed", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "write_file", "arguments": "{\"path\": \"a.txt\", \"content\": "}]}},
  {"match": {"user": "escape", "assistant_turns": 0},
   "reply": {"tool_calls": [
     {"name": "write_file", "arguments": {"path": "../../outside.txt", "content": "pwned"}},
     {"name": "write_file", "arguments": {"path": "/tmp/upskill-e2e-abs.txt", "content": "pwned"}},
     {"name": "read_file", "arguments": {"path": "../../outside.txt"}},
     {"name": "list_files", "arguments": {"path": ".."}}]}},
JSON
printf '  {"match": {"user": "huge", "assistant_turns": 0}, "reply": {"stream": false, "tool_calls": [{"name": "write_file", "arguments": {"path": "big.txt", "content": "%s"}}]}},\n' "$(big 15)"
printf '  {"match": {"user": "flood", "assistant_turns": 0}, "reply": {"stream": false, "tool_calls": [%s]}},\n' "$flood"
cat <<'JSON'
  {"match": {"user": "forever"},
   "reply": {"tool_calls": [{"name": "list_files", "arguments": {}}]}},
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "write_file", "arguments": {"path": "ok.txt", "content": "fine"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON
} > "$T/s.json"
unset flood

fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-baseline --runs-dir "$T/runs" -v
is "$rc" 0 "the run goes on through hostile calls"
like "$out" "turn limit: 20 model turns without a final answer" \
    "a student that never stops ends at --max-turns (20)"
like "$out" "tool-call limit: 200 tool calls without a final answer" \
    "10,000 calls in one turn end at the per-conversation cap"
like "$out" "over the 2097152-byte cap" "a 3 MB write ends its conversation"
is "$(cat "$T/outside.txt")" "precious" "nothing outside the workspace is written"
[ ! -e /tmp/upskill-e2e-abs.txt ]; ok $? "an absolute path is never followed"
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "every workspace is removed"
rec=$(cat "$T/rec.jsonl")
like "$rec" "unknown tool" "an unknown tool is a tool error the model reads"
like "$rec" "rm_rf" "naming the tool"
res=$(cat "$T"/runs/*/run_1/run_result.json)
like "$res" '"unknown": 1' "tool_error_map counts the unknown tool"
like "$res" '"cases_passed": 4' "the unknown, malformed, escape and honest cases still answer"
like "$(printf '%s\n' "$out" | grep -c OK)" 4 "four cases pass, three ended by limits"

# A 50 MB write does not even arrive: the reply is over the transport's
# 32 MiB cap, so that conversation fails (a provider error); the rest of
# the run goes on.
{
    printf '{"rules": [{"match": {"user": "huge"}, "reply": {"stream": false, '
    printf '"tool_calls": [{"name": "write_file", "arguments": {"path": '
    printf '"big.txt", "content": "%s"}}]}},\n' "$(big 19)"
    printf '{"match": {"last_role": "tool"}, "reply": {"text": "done"}},\n'
    printf '{"reply": {"tool_calls": [{"name": "list_files"}]}}]}\n'
} > "$T/s50.json"
printf '{"cases": [{"input": "huge", "expected": {"contains": ["done"]}},
 {"input": "honest", "expected": {"contains": ["done"]}}]}\n' > "$T/t50.json"
fake_start "$T/s50.json"
ok $? "fake-llm starts on the 50 MB scenario"
rm -f "$T/s50.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t50.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-baseline --no-log-runs -v
is "$rc" 4 "a 50 MB reply is a provider error"
like "$err" "response over 33554432 bytes" "naming the transport's cap"
like "$out" "honest                                   OK" "the other case is answered"
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "its workspace is removed too"

done_testing
