#!/bin/sh
# A reply with bytes that are not UTF-8 (issue 36 item 1): the server's
# bytes are stored as U+FFFD and counted ("not_utf8_bytes") in the
# artifact and the journal, in chat mode (whole and streamed replies, an
# error body) and in agent mode (a reply and a command's output), and
# --resume rebuilds the same artifacts; never a crash, never "free some
# space".  The fake's "latin1" reply sends U+0080..U+00FF as single bytes.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
SKILL="$FIX/eval/student"
FFFD=$(printf '\357\277\275')

cat > "$T/t.json" <<'JSON'
[{"input": "case whole", "expected": {"contains": ["GOOD"]}},
 {"input": "case streamed", "expected": {"contains": ["GOOD"]}},
 {"input": "case error", "expected": {"contains": ["GOOD"]}}]
JSON
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"match": {"user": "case whole"},
   "reply": {"text": "GOOD caf\u00e9 \u00ff\u00fe end", "latin1": true, "stream": false}},
  {"match": {"user": "case streamed"},
   "reply": {"text": "GOOD streamed \u00ff\u00fe\u00fd", "latin1": true, "stream": true}},
  {"match": {"user": "case error"},
   "reply": {"status": 400, "body": "refused \u00ff here", "latin1": true}}]}
JSON
fake_start "$T/s.json"

# valid FILE: 0 when every line of FILE is JSON
valid() {
    python3 -c 'import json,sys
for l in open(sys.argv[1], encoding="utf-8"): json.loads(l)' "$1"
}

run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" -j 1 --runs-dir "$T/runs"
is "$rc" 4 "a chat eval with bytes that are not UTF-8 ends as a provider error (4), not a crash"
unlike "$err" "free some space" "and it is not reported as a full disk"
B="$T/runs/$(ls "$T/runs")"
art="$B/run_1/cases/transcripts.jsonl"
ok "$(valid "$art"; echo $?)" "every artifact line is JSON in UTF-8"
ok "$(valid "$B/journal.jsonl"; echo $?)" "every journal line is JSON in UTF-8"
like "$(sed -n 1p "$art")" "\"content\":\"GOOD caf$FFFD $FFFD$FFFD end\"" \
    "a whole reply's bad bytes are stored as U+FFFD"
like "$(sed -n 1p "$art")" '"not_utf8_bytes":3' "and counted in the artifact"
like "$(sed -n 2p "$art")" "\"content\":\"GOOD streamed $FFFD$FFFD$FFFD\"" \
    "a streamed reply's are too (not dropped with their event)"
like "$(sed -n 3p "$art")" "refused $FFFD here" "an error body's are, in the error"
like "$(grep '"case":0' "$B/journal.jsonl" | head -1)" '"not_utf8_bytes":3' \
    "the journal keeps the count"
cp "$art" "$T/chat-art.jsonl"

rm -rf "$B"/run_* "$B/batch_summary.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" -j 1 --runs-dir "$T/runs" --resume "$(basename "$B")"
is "$rc" 4 "--resume of that batch ends the same way"
is "$(head -2 "$art")" "$(head -2 "$T/chat-art.jsonl")" \
    "--resume rebuilds the answered conversations' artifacts, U+FFFD and counts"
like "$(sed -n 3p "$art")" "refused $FFFD here" "and the failed one is asked again"

# --- the Anthropic wire, streamed and whole ----------------------------
run env ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-ant-fake \
    "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" \
    -m anthropic.claude-haiku-4-5 -j 1 --runs-dir "$T/anth"
is "$rc" 4 "the Anthropic wire: the same outcome"
art=$(cat "$T"/anth/*/run_1/cases/transcripts.jsonl)
like "$art" "\"content\":\"GOOD caf$FFFD $FFFD$FFFD end\"" "a whole Anthropic reply's bytes are U+FFFD"
like "$art" "\"content\":\"GOOD streamed $FFFD$FFFD$FFFD\"" "and a streamed one's"

# --- agent mode: a command's output and the final reply ----------------
cat > "$T/a.json" <<'JSON'
{"cases": [{"input": "question one", "expected": {"contains": ["GOOD"]},
  "assert": [{"type": "command", "value": "printf 'out\\377\\n'"}]}]}
JSON
cat > "$T/s2.json" <<'JSON'
{"rules": [
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run",
     "arguments": {"command": "printf 'bad\\377\\376 bytes'; echo x > \"$(printf 'f\\377.txt')\""}}]}},
  {"match": {"assistant_turns": 1},
   "reply": {"text": "GOOD caf\u00e9 \u00ff", "latin1": true}}]}
JSON
fake_start "$T/s2.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/a.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --run-tool --sandbox none -j 1 \
    --runs-dir "$T/aruns"
is "$rc" 0 "an agent eval whose reply and check output are not UTF-8 exits 0"
B="$T/aruns/$(ls "$T/aruns")"
art="$B/run_2/cases/transcripts.jsonl"
ok "$(valid "$art"; echo $?)" "its artifacts are JSON in UTF-8"
like "$(cat "$art")" "\"content\":\"GOOD caf$FFFD $FFFD\"" \
    "the reply's bad bytes are U+FFFD"
like "$(cat "$art")" '"not_utf8_bytes":2' "and counted"
like "$(cat "$art")" "{\"path\":\"f$FFFD.txt\"" \
    "a file name a command made is listed with U+FFFD"
like "$(cat "$art")" "\"output\":\"--- stdout ---\\nout$FFFD\\n\"" \
    "the check's output is stored with U+FFFD"
cp "$art" "$T/agent-art.jsonl"
rm -rf "$B"/run_* "$B/batch_summary.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/a.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --run-tool --sandbox none -j 1 \
    --runs-dir "$T/aruns" --resume "$(basename "$B")"
is "$rc" 0 "--resume of the agent batch exits 0"
ok "$(cmp -s "$art" "$T/agent-art.jsonl"; echo $?)" \
    "and rebuilds the same artifacts"

# --- a coding-agent CLI whose output and stderr are not UTF-8 ----------
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    echo "ok $((_n + 1)) # SKIP the CLI stand-in: bubblewrap cannot run here"
    _n=$((_n + 1))
else
    F=$T/fakeclis
    mkdir -p "$F/claude-code/bin"
    cat >"$F/claude-code/bin/claude" <<'SH'
#!/bin/sh
printf 'warn \377\376\n' >&2
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"GOOD \377","usage":{"input_tokens":4,"output_tokens":1}}\n'
printf 'tail \377\n'
SH
    chmod +x "$F/claude-code/bin/claude"
    run env UPSKILL_CLIS="$F" "$UPSKILL" eval --no-cache "$SKILL" \
        -t "$T/a.json" -m cli.claude-code --base-url "$FAKE_URL" \
        --runs-dir "$T/cruns"
    ok "$([ "$rc" -lt 5 ]; echo $?)" "a CLI's bad bytes do not crash the eval (rc $rc)"
    B="$T/cruns/$(ls "$T/cruns")"
    ok "$(valid "$B/run_1/cases/transcripts.jsonl"; echo $?)" \
        "its artifacts are JSON in UTF-8"
    like "$(cat "$B/run_1/cases/transcripts.jsonl")" "warn $FFFD$FFFD" \
        "its stderr is stored with U+FFFD"
    like "$(cat "$B/run_1/cases/transcripts.jsonl")" '"passed":true' \
        "its result event is read, its bad byte as U+FFFD (not skipped)"
    like "$(cat "$B/run_1/cases/transcripts.jsonl")" '"not_utf8_bytes":1' \
        "and counted"
fi
done_testing
