#!/bin/sh
# opencode as a student (issue 22, item 6): a tool call on a path outside
# the workspace is a denied tool call the model sees, and the conversation
# goes on to its final answer, as under the other CLIs; it used to be
# rejected as an unanswerable permission prompt that ended the run mid-turn
# (exit 0, no answer, the case excluded as an error).  Runs the real
# opencode (make clis) against fake-llm, in a network namespace with only
# loopback up where `unshare -n` works.
if [ -z "${T1415_NETNS:-}" ] && unshare -n true 2>/dev/null; then
    T1415_NETNS=1 exec unshare -n sh "$0" "$@"
fi
[ -z "${T1415_NETNS:-}" ] || ip link set lo up 2>/dev/null || true
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl

CLIS=${CLIS:-$TOP/build-clis}
[ -x "$CLIS/opencode/bin/opencode" ] ||
    fake_skip_all "opencode not installed in $CLIS (make clis)"
bwrap --unshare-user --ro-bind / / true 2>/dev/null ||
    fake_skip_all "bubblewrap cannot run here"

SKILL=$FIX/eval/student
cat >"$T/tests.json" <<'EOF2'
{"cases": [{"input": "What is this machine called?",
 "expected": {"contains": ["FINAL ANSWER"]}},
 {"input": "Which settings does this project use?",
  "context": {"files": {".env": "MODE=test"}},
  "expected": {"contains": ["FINAL ANSWER"]}}]}
EOF2
# read /etc/hostname (outside the workspace), or the workspace's .env
# (a read opencode asks about, and so rejects, by default), then, once a
# tool result came back, the final answer
cat >"$T/s.json" <<'EOF2'
{"rules": [
  {"name": "side", "match": {"tools": false}, "reply": {"text": "ok"}},
  {"name": "outside", "match": {"tools": true, "assistant_turns": 0, "user": "machine"},
   "reply": {"tool_calls": [{"name": "read", "arguments": {"filePath": "/etc/hostname"}}],
             "usage": {"input_tokens": 100, "output_tokens": 10}}},
  {"name": "dotenv", "match": {"tools": true, "assistant_turns": 0, "user": "settings"},
   "reply": {"tool_calls": [{"name": "read", "arguments": {"filePath": ".env"}}],
             "usage": {"input_tokens": 100, "output_tokens": 10}}},
  {"name": "final", "match": {"tools": true, "last_role": "tool"},
   "reply": {"text": "FINAL ANSWER", "usage": {"input_tokens": 120, "output_tokens": 5}}}
]}
EOF2
fake_start "$T/s.json" --record "$T/rec.jsonl" || fake_skip_all "fake-llm did not start"
run env UPSKILL_CLIS="$CLIS" OPENAI_API_KEY=sk-fake-1415 "$UPSKILL" eval \
    "$SKILL" --tests "$T/tests.json" -m cli.opencode --time-limit 120 \
    --base-url "$FAKE_URL" --runs-dir "$T/runs" --json
is "$rc" 0 "the eval exits 0: no conversation failed"
[ "$rc" = 0 ] || printf '# %s\n' "$err" | head -20
like "$out" '"errors": 0,' "no conversation is excluded as an error"
like "$out" '"pass_rate": 1.0' "both arms reach the final answer"
is "$(grep -c '"rule":"final"' "$T/rec.jsonl")" 4 \
    "every conversation went on after its refused call, in both arms"
res=$(grep '"rule":"final"' "$T/rec.jsonl" | grep 'What is this machine called' | head -1)
unlike "$res" "$(cat /etc/hostname)" "the model did not get the file"
like "$res" "prevents you from using this specific tool call" \
    "the model got the denial as the call's result"
res=$(grep '"rule":"final"' "$T/rec.jsonl" | grep 'Which settings does' | head -1)
like "$res" "rejected permission to use this specific tool call" \
    "a prompt opencode rejects is a tool error too, not the end of the run"
cases=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$cases" "FINAL ANSWER" "the final answer is the case's answer"
done_testing
