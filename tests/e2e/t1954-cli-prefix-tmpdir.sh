#!/bin/sh
# A coding-agent CLI's install folder is bound into every conversation's
# sandbox; one that holds TMPDIR (where upskill keeps each conversation's
# folders, side by side) would let the baseline read the skill arm's
# folder (issue 36 item 7).  Such a conversation is refused, saying why;
# the same CLI with TMPDIR elsewhere runs.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
    echo "1..0 # SKIP needs a bubblewrap that can unshare the network"
    exit 0
fi
SKILL=$TOP/examples/skills/incident-report
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
F=$T/clis
mkdir -p "$F/claude-code/bin" "$F/claude-code/tmp" "$T/tmp"
cat >"$F/claude-code/bin/claude" <<'EOF'
#!/bin/sh
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"num_turns":1,"result":"SAW %s","usage":{"input_tokens":1,"output_tokens":1}}\n' "$(ls /tmp 2>/dev/null | head -3 | tr '\n' ' ')"
EOF
chmod +x "$F/claude-code/bin/claude"
printf '{"cases": [{"input": "hi", "expected": {"contains": ["SAW"]}}]}\n' >"$T/tests.json"

run env UPSKILL_CLIS="$F" TMPDIR="$F/claude-code/tmp" "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.claude-code --base-url "$FAKE_URL" \
    --no-log-runs
like "$err" "the CLI's install folder '$F/claude-code' holds" \
    "a CLI installed around TMPDIR is refused"
like "$err" "set TMPDIR outside it or install the CLI elsewhere" "saying what to do"

run env UPSKILL_CLIS="$F" TMPDIR="$T/tmp" "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.claude-code --base-url "$FAKE_URL" \
    --no-log-runs
is "$rc" 0 "with TMPDIR apart it runs"
unlike "$err" "install folder" "and nothing is refused"
done_testing
