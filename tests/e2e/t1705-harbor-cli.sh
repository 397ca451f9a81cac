#!/bin/sh
# Harbor tasks with a coding-agent CLI as the student (issue 24,
# docs/harbor.md): stand-in CLIs (small scripts under UPSKILL_CLIS/NAME/bin)
# find the task's COPY'd files at its WORKDIR (/app), their working
# folder; in the skill arm every skill of the task in the CLI's own skill
# folder (.claude/skills); /tests out of reach; the verifier grades what
# they wrote.  The task's [agent] timeout_sec is the CLI's wall clock.
# A task's ENV (PATH too) and places (/data, /output) reach the CLI's
# shell, and a script it COPYs executable runs by name.  Then, when
# `make clis` installed it (CLIS, as in t1410), the real Claude Code
# scripted by fake-llm does the same: its Bash tool keeps them.
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

# ---- a place outside the WORKDIR and ENV reach the CLI too ----
# (report-app's data also copied to /srv/data, and an ENV; the stand-in
# reports what it sees and writes its report from /srv)
cp -R "$H/report-app" "$T/placed"
printf 'COPY data/ /srv/data/\nENV GREETING=hi PATH="/opt/tools:$PATH"\n' \
    >>"$T/placed/environment/Dockerfile"
G=$T/placedclis
mkdir -p "$G/claude-code/bin"
cat >"$G/claude-code/bin/claude" <<'SH'
#!/bin/sh
seen="SRV=$(wc -c < /srv/data/blob.bin | tr -d ' ') GREETING=$GREETING PATH=$PATH"
seen="$seen PLACES=$(ls -A /app/.upskill-places | wc -l)"
s=.claude/skills/report-writer/scripts/report.sh
[ -f "$s" ] && sh "$s" /srv/data/names.txt /srv/data/blob.bin > /app/out/report.txt
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"%s","usage":{"input_tokens":1,"output_tokens":1}}\n' "$seen"
SH
chmod +x "$G/claude-code/bin/claude"
run env UPSKILL_CLIS="$G" "$UPSKILL" eval --no-cache --tasks "$T/placed" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs5" -v
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "a CLI reads the task's place /srv/data"
arts=$(cat "$T"/runs5/*/run_*/cases/transcripts.jsonl)
like "$arts" "SRV=14 GREETING=hi PATH=$G/claude-code/bin:/opt/tools:/usr/local/sbin" \
    "the CLI sees the place and the ENV, its own bin first on PATH"
like "$arts" "PLACES=0" "the workspace's folder of places is empty for it"

# ---- a script COPY'd executable to a place on the ENV's PATH ----
# a task with ENV GREETING and a PATH naming /opt/tools, where it COPYs
# an executable script, a place /data (COPY) and one /output (mkdir):
# the CLI's shell reads /data/input.txt, writes /data and /output,
# test-needs: not greet (the task's own script, COPY'd onto its PATH)
# echoes $GREETING and runs the script by name; the verifier checks them
E=$T/envtask/env-place
mkdir -p "$E/environment/data" "$E/environment/tools" "$E/tests" \
    "$E/environment/skills/greeter"
printf -- '---\nname: greeter\ndescription: Greets. Use when a task greets.\n---\n\nRun greet.\n' \
    >"$E/environment/skills/greeter/SKILL.md"
printf 'version = "1.0"\n[agent]\ntimeout_sec = 120.0\n' >"$E/task.toml"
printf 'Write /data/result.txt, /output/greeting.txt and /output/tool.txt.\n' \
    >"$E/instruction.md"
printf 'abc\n' >"$E/environment/data/input.txt"
printf '#!/bin/sh\necho "greet says $GREETING"\n' >"$E/environment/tools/greet"
chmod +x "$E/environment/tools/greet"
cat >"$E/environment/Dockerfile" <<'EOF'
FROM ubuntu:24.04
WORKDIR /app
COPY data /data
COPY tools/greet /opt/tools/greet
RUN mkdir -p /output
ENV GREETING=hello PATH="/opt/tools:$PATH"
EOF
cat >"$E/tests/test.sh" <<'EOF'
#!/bin/bash
mkdir -p /logs/verifier
ok=1
for f in /data/result.txt:ABC /output/greeting.txt:hello \
    "/output/tool.txt:greet says hello"; do
    got=$(cat "${f%%:*}")
    [ "$got" = "${f#*:}" ] || { echo "${f%%:*} holds '$got'"; ok=0; }
done
echo "verifier GREETING=$GREETING"
echo $ok >/logs/verifier/reward.txt
EOF
K=$T/envclis
mkdir -p "$K/claude-code/bin"
cat >"$K/claude-code/bin/claude" <<'SH'
#!/bin/sh
tr a-z A-Z </data/input.txt >/data/result.txt
echo "$GREETING" >/output/greeting.txt
greet >/output/tool.txt 2>&1
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"%s","usage":{"input_tokens":1,"output_tokens":1}}\n' "$(cat /output/tool.txt)"
SH
chmod +x "$K/claude-code/bin/claude"
run env UPSKILL_CLIS="$K" "$UPSKILL" eval --no-cache --tasks "$T/envtask" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs7" -v \
    --no-baseline
like "$out" "checks passed: 1 of 1 with skill" \
    "a CLI runs the task's script by name on the ENV's PATH, run bit kept"

# ---- the real Claude Code (make clis), scripted by fake-llm ----
CLIS=${CLIS:-$TOP/build-clis}
if [ ! -x "$CLIS/claude-code/bin/claude" ]; then
    echo "ok $((_n + 1)) # SKIP real Claude Code not installed in $CLIS (make clis)"
    _n=$((_n + 1))
    done_testing
    exit $?
fi
# in the skill arm (report-writer's description in the request) run its
# script from .claude/skills and look around; in the baseline do nothing
cat >"$T/sc.json" <<'JSON'
{"rules": [
 {"name": "side", "match": {"tools": false}, "reply": {"text": "ok", "usage": {"input_tokens": 5, "output_tokens": 1}}},
 {"name": "run", "match": {"path": "/v1/messages", "tools": true, "assistant_turns": 0, "body": "Writes the one-line data reports"},
  "reply": {"tool_calls": [{"name": "Bash", "arguments": {"command": "{ pwd; ls .claude/skills; ls /tests; } > where.txt 2>&1; sh .claude/skills/report-writer/scripts/report.sh /app/data/names.txt /app/data/blob.bin > /app/out/report.txt", "description": "write"}}],
            "usage": {"input_tokens": 1000, "output_tokens": 10}}},
 {"name": "good", "match": {"path": "/v1/messages", "tools": true, "assistant_turns": 1}, "reply": {"text": "Done.", "usage": {"input_tokens": 1100, "output_tokens": 5}}},
 {"name": "bad", "match": {"path": "/v1/messages", "tools": true, "assistant_turns": 0}, "reply": {"text": "I will not.", "usage": {"input_tokens": 900, "output_tokens": 5}}}
]}
JSON
fake_start "$T/sc.json" || fake_skip_all "fake-llm did not start"
run env UPSKILL_CLIS="$CLIS" "$UPSKILL" eval --no-cache --tasks "$H/report-app" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs4" -v
is "$rc" 0 "the real Claude Code runs a Harbor task"
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "real Claude Code: the verifier passes the skill arm's report"
arts=$(cat "$T"/runs4/*/run_*/cases/transcripts.jsonl)
like "$arts" '"content":"/app\nbyte-counter\nreport-writer\nls: cannot access '"'/tests'" \
    "real Claude Code: at /app, both skills in .claude/skills, no /tests"

# the same task (above) with the real Claude Code: its Bash tool keeps
# the task's ENV and PATH, and reaches its places
cat >"$T/sc2.json" <<'JSON'
{"rules": [
 {"name": "side", "match": {"tools": false}, "reply": {"text": "ok", "usage": {"input_tokens": 5, "output_tokens": 1}}},
 {"name": "run", "match": {"path": "/v1/messages", "tools": true, "assistant_turns": 0},
  "reply": {"tool_calls": [{"name": "Bash", "arguments": {"command": "tr a-z A-Z < /data/input.txt > /data/result.txt; echo \"$GREETING\" > /output/greeting.txt; greet > /output/tool.txt; echo \"SHELL-SAW GREETING=$GREETING PATH=$PATH\"", "description": "write"}}],
            "usage": {"input_tokens": 1000, "output_tokens": 10}}},
 {"name": "done", "match": {"path": "/v1/messages", "tools": true, "assistant_turns": 1}, "reply": {"text": "Done.", "usage": {"input_tokens": 1100, "output_tokens": 5}}}
]}
JSON
fake_start "$T/sc2.json" || fake_skip_all "fake-llm did not start"
run env UPSKILL_CLIS="$CLIS" "$UPSKILL" eval --no-cache --tasks "$T/envtask" \
    -m cli.claude-code --base-url "$FAKE_URL" --runs-dir "$T/runs6" -v \
    --no-baseline
is "$rc" 0 "the real Claude Code runs a task with ENV and places"
like "$out" "checks passed: 1 of 1 with skill" \
    "real Claude Code: the verifier passes what its shell wrote"
arts=$(cat "$T"/runs6/*/run_*/cases/transcripts.jsonl)
like "$arts" "SHELL-SAW GREETING=hello PATH=$CLIS/claude-code/bin:/opt/tools:/usr/local/sbin:" \
    "real Claude Code: its Bash tool has the task's ENV, PATH and all"
unlike "$arts" "Permission denied" \
    "real Claude Code: the script COPY'd executable runs by name"
like "$arts" '"path":".upskill-places/output/tool.txt","size":17,"content":"greet says hello\n"' \
    "real Claude Code: the script, run by name, saw the ENV too"
like "$arts" '"path":".upskill-places/data/result.txt","size":4,"content":"ABC\n"' \
    "real Claude Code: it read /data/input.txt and wrote /data/result.txt"
like "$arts" "verifier GREETING=hello" "the verifier has the task's ENV too"
done_testing
