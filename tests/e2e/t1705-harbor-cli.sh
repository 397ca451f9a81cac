#!/bin/sh
# Harbor tasks with a coding-agent CLI as the student (issue 24,
# docs/harbor.md): stand-in CLIs (small scripts under UPSKILL_CLIS/NAME/bin)
# find the task's COPY'd files at its WORKDIR (/app), their working
# folder; in the skill arm every skill of the task in the CLI's own skill
# folder (.claude/skills); /tests out of reach; the verifier grades what
# they wrote.  The task's [agent] timeout_sec is the CLI's wall clock.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor"
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    echo "1..0 # SKIP bubblewrap cannot run here"
    exit 0
fi
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"

# A Claude Code stand-in: reports where it runs and what it sees, and
# runs the task's skill script when the skill is installed.
F=$T/fakeclis
mkdir -p "$F/claude-code/bin" "$F/codex/bin"
cat >"$F/claude-code/bin/claude" <<'SH'
#!/bin/sh
seen="PWD=$PWD BYTES=$(wc -c < data/blob.bin | tr -d ' ')"
for f in .claude/skills/*/SKILL.md; do
    [ -f "$f" ] && seen="$seen SKILL=${f#.claude/skills/}"
done
[ -e .agents ] && seen="$seen AGENTS-LEFT"
cat /tests/test.sh >/dev/null 2>&1 && seen="$seen TESTS-READ"
ls /tests >/dev/null 2>&1 && seen="$seen TESTS-LISTED"
s=.claude/skills/report-writer/scripts/report.sh
[ -f "$s" ] && sh "$s" /app/data/names.txt /app/data/blob.bin > /app/out/report.txt
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"%s","usage":{"input_tokens":1,"output_tokens":1}}\n' "$seen"
SH
printf '#!/bin/sh\nexec sleep 5\n' >"$F/codex/bin/codex"
chmod +x "$F/claude-code/bin/claude" "$F/codex/bin/codex"

run env UPSKILL_CLIS="$F" "$UPSKILL" eval --no-cache --tasks "$H/report-app" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs" -v
is "$rc" 0 "a Harbor task runs with a coding-agent CLI (no longer refused)"
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "the verifier passes what the CLI wrote with the skill, fails the baseline"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$arts" "PWD=/app BYTES=14" \
    "the CLI works at the task's WORKDIR, the binary COPY'd file intact"
like "$arts" "SKILL=byte-counter/SKILL.md SKILL=report-writer/SKILL.md" \
    "the skill arm: both skills of the task in the CLI's skill folder"
is "$(grep -c 'SKILL=' "$T"/runs/*/run_*/cases/transcripts.jsonl | awk -F: '{s+=$2} END {print s}')" 1 \
    "the baseline: no skill"
unlike "$arts" "AGENTS-LEFT" "no .agents folder is left beside the CLI's"
unlike "$arts" "TESTS-" "the CLI cannot read or list /tests"
like "$arts" "test_report (test_outputs.Outputs.test_report) ... ok" \
    "the verifier read the CLI's report"
unlike "$arts" '"path":".claude/skills/' "the installed skills are not in the snapshot"

# [agent] timeout_sec: the CLI's wall clock
mkdir -p "$T/slow"
cp -r "$H/report-app" "$T/slow/"
sed -i 's/^timeout_sec = 120.0/timeout_sec = 1/' "$T/slow/report-app/task.toml"
run env UPSKILL_CLIS="$F" "$UPSKILL" eval --no-cache --tasks "$T/slow" \
    -m cli.codex --base-url "$FAKE_URL" --runs-dir "$T/runs2" --no-baseline
like "$err" "the CLI ran over its wall clock (1 s) and was stopped" \
    "the task's agent timeout_sec is the CLI's wall clock"

# a WORKDIR on the CLI's own home cannot hold its workspace
mkdir -p "$T/home"
cp -r "$H/report-app" "$T/home/"
sed -i 's#/app#/home/student/app#g' "$T/home/report-app/environment/Dockerfile"
run env UPSKILL_CLIS="$F" "$UPSKILL" eval --no-cache --tasks "$T/home" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs3" --no-baseline
like "$err" "'/home/student/app' cannot hold a coding-agent CLI's workspace" \
    "a WORKDIR under the CLI's home is refused, saying why"
done_testing
