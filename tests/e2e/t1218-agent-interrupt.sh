#!/bin/sh
# Ctrl-C in agent mode (issue 23 item 14): the first one says how many
# conversations are finishing and how to stop now, and no conversation
# sends another request after it (each stops at its next turn boundary,
# not landed, so --resume runs it again); the eval exits 130.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [{"input": "look around", "expected": {"contains": ["done"]}}]}
JSON
# A student that lists its folder turn after turn, each answer slow: a
# conversation would go on until --max-turns.
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"match": {},
   "reply": {"tool_calls": [{"name": "list_files", "arguments": {}}],
     "delay_ms": 1500, "usage": {"input_tokens": 10, "output_tokens": 5}}}
]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
"$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --max-turns 8 -j 2 \
    --runs-dir "$T/runs" > "$T/e.out" 2> "$T/e.err" &
pid=$!
# Both conversations (baseline and with skill) have sent their first
# request, and their answers are 1.5 s away.
i=0
while [ "$i" -lt 100 ]; do
    n=$(wc -l < "$T/rec.jsonl" 2>/dev/null | tr -d ' ')
    [ "${n:-0}" -ge 2 ] && break
    i=$((i + 1)); sleep 0.1
done
kill -INT "$pid"; wait "$pid"; rc=$?
is "$rc" 130 "Ctrl-C exits 130"
like "$(cat "$T/e.err")" \
    "finishing 2 conversations; Ctrl-C again to stop now" \
    "the first Ctrl-C says what goes on and how to stop now"
is "$(wc -l < "$T/rec.jsonl" | tr -d ' ')" 2 \
    "no request was sent after the Ctrl-C"
like "$(cat "$T/e.err")" "--resume" "the message says how to resume"
done_testing
