#!/bin/sh
# A reward forged by links (issue 37 item 2, docs/harbor.md "The
# student's own bytes"): tests/fixtures/harbor/forged/pred-links copies
# its ground truth next to the student's pred_answer.json, then compares
# the two.  A student scripted through the run tool (fake-llm) answers
# nothing right but leaves links: pred_answer.json a symlink to that
# name, a symlink to /tests/answer.json (which only the verifier sees),
# a hard link to an empty answer.json that cp then fills, or answer.json
# a symlink to a wrong pred file that cp writes through.  Before the
# verifier runs, the workspace is made the student's own bytes (no
# symlinks, no shared inodes): none passes.  An honest answer still does.
# A Claude Code stand-in (cli.claude-code) leaving a hard link fails too.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
F="$FIX/harbor/forged/pred-links"
mkdir "$T/tasks"
for v in rel-symlink tests-symlink hard-link truth-symlink honest; do
    cp -R "$F" "$T/tasks/$v"
    printf 'Variant %s.\n' "$v" >> "$T/tasks/$v/instruction.md"
done
cat > "$T/sc.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "user": "Variant rel-symlink."},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "ln -s answer.json pred_answer.json; ls -l pred_answer.json"}}]}},
  {"match": {"assistant_turns": 0, "user": "Variant tests-symlink."},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "ln -s /tests/answer.json pred_answer.json"}}]}},
  {"match": {"assistant_turns": 0, "user": "Variant hard-link."},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": ": > answer.json; ln answer.json pred_answer.json"}}]}},
  {"match": {"assistant_turns": 0, "user": "Variant truth-symlink."},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "echo '{\"answer\": 41}' > pred_answer.json; ln -s pred_answer.json answer.json"}}]}},
  {"match": {"assistant_turns": 0, "user": "Variant honest."},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "echo '{\"answer\": 42}' > pred_answer.json"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done."}}
]}
JSON
fake_start "$T/sc.json"
run "$UPSKILL" eval --no-cache --tasks "$T/tasks" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" --no-baseline -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    fake_skip_all "bubblewrap cannot run here: $err"
fi
is "$rc" 0 "the eval of the linking students completes"
like "$out" "checks passed: 1 of 5 with skill" \
    "only the honest answer passes: no link forges the reward"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$arts" "pred_answer.json -> answer.json" \
    "the student did leave a symlink through the run tool"
n=$(printf '%s\n' "$arts" | grep -c '"message":"reward 0, below the threshold 1')
is "$n" 4 "each of the four links is graded as the student's own bytes: reward 0"
like "$arts" "No such file or directory: '/root/pred_answer.json'" \
    "a symlinked pred file is gone for the verifier"

# --- through a CLI: a Claude Code stand-in leaves the hard link -----------
C="$T/fakeclis"
mkdir -p "$C/claude-code/bin" "$T/cli"
cat >"$C/claude-code/bin/claude" <<'SH'
#!/bin/sh
: > answer.json
ln answer.json pred_answer.json
ln -s answer.json other.json
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"linked","usage":{"input_tokens":1,"output_tokens":1}}\n'
SH
chmod +x "$C/claude-code/bin/claude"
cp -R "$F" "$T/cli/pred-links"
run env UPSKILL_CLIS="$C" "$UPSKILL" eval --no-cache --tasks "$T/cli" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs2" -v
like "$out" "checks passed: 0 of 1 baseline, 0 of 1 with skill" \
    "a CLI's hard link forges no reward either"
like "$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl)" \
    '"message":"reward 0, below the threshold 1' "the CLI's links are graded as its own bytes"
done_testing
