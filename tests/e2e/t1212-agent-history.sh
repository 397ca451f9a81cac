#!/bin/sh
# A conversation's history has a cap (issue 23 item 5): a hostile server
# that sends four calls of 100 KB turn after turn would have every turn
# send it all back, growing without end.  With config max_history_bytes
# set to 1,000,000 the conversation ends at its third turn, failed with
# the named limit, as --token-budget ends one; the eval finishes and the
# other case is answered.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
printf 'max_history_bytes: 1000000\n' > "$T/cfg.yaml"
export UPSKILL_CONFIG="$T/cfg.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [
  {"input": "grow", "expected": {"contains": ["done"]}},
  {"input": "honest", "expected": {"contains": ["done"]}}
]}
JSON
path=$(awk 'BEGIN { for (i = 0; i < 100000; i++) printf "a" }')
call="{\"name\": \"list_files\", \"arguments\": {\"path\": \"$path\"}}"
{
    printf '{"rules": [\n'
    printf '  {"match": {"user": "grow"}, "reply": {"stream": false, '
    printf '"tool_calls": [%s, %s, %s, %s]}},\n' "$call" "$call" "$call" "$call"
    printf '  {"match": {"last_role": "tool"}, "reply": {"text": "done"}},\n'
    printf '  {"reply": {"tool_calls": [{"name": "list_files", "arguments": {}}]}}\n'
    printf ']}\n'
} > "$T/s.json"
unset path call

fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-baseline --runs-dir "$T/runs" -v
is "$rc" 0 "the eval finishes"
like "$out" "history limit: 1200" "the conversation ends with the named limit"
like "$out" "over the 1000000-byte cap (max_history_bytes)" \
    "naming the cap and its config key"
like "$out" "honest                                   OK" \
    "the other case is answered"
grep_n=$(grep -c '"grow"' "$T/rec.jsonl")
is "$grep_n" 3 "three turns were asked, none after the cap"
res=$(cat "$T"/runs/*/run_1/run_result.json)
like "$res" '"cases_passed": 1' "the capped case fails"
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "every workspace is removed"

done_testing
