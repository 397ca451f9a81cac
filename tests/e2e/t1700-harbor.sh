#!/bin/sh
# Harbor task folders (issue 24, docs/harbor.md): `eval --tasks DIR
# --check` classifies each task (runnable; a missing Debian package,
# named; a pip step, offline), and `eval --tasks DIR` runs the runnable
# ones end to end with an agent student: the workspace seeded with the
# Dockerfile's COPY'd files (a binary one intact) at the task's WORKDIR
# (/app), tests/ hidden at /tests until the verifier runs, its reward
# read from /logs/verifier (reward.txt; a fractional reward.json with
# the task's threshold; none at all = not gradable), the task's own
# skill installed in the skill arm.  The scripted student shows the
# lift; its `cat /tests/test.sh` finds nothing.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor"

# --- --check: each task, runnable or not and why; nothing sent -------------
run "$UPSKILL" eval --tasks "$H" --check
is "$rc" 0 "--check exits 0"
like "$out" "report-app: runnable (workdir /app, 2 skills, agent 120 s, verifier 60 s)" \
    "a runnable task with its workdir, skills and time limits"
like "$out" "half-credit: runnable (workdir /root, 1 skill, verifier 30 s)" \
    "the second runnable task"
like "$out" "needs-apt: not runnable: Debian packages not installed: upskill-no-such-package-1700 another-missing-pkg-1700=1.2" \
    "a task needing missing apt packages names them (python3 is installed)"
like "$out" "needs-pip: not runnable: line 3: pip install needs the network (a requirements file, a path or a URL)" \
    "a task with a pip step is not runnable offline"
like "$out" "4 tasks: 2 runnable here, 2 not" "the count"
run "$UPSKILL" eval --tasks "$H/needs-pip" --check
like "$out" "1 task: 0 runnable here, 1 not" "one task folder is read as one task"
run "$UPSKILL" eval --tasks "$T" --check
is "$rc" 3 "a folder without tasks is an input error (exit 3)"
like "$err" "no Harbor task here" "it says so"
run "$UPSKILL" eval --check
is "$rc" 2 "--check without --tasks is a usage error"
run "$UPSKILL" eval --tasks "$H" -t "$T/x.json"
is "$rc" 2 "-t beside --tasks is a usage error"

# --- a task.toml that cannot be read: that task only, file:line -------------
cp -R "$H" "$T/tasks"
printf '[verifier]\ntimeout_sec = \n' > "$T/tasks/needs-pip/task.toml"
cp -R "$H/half-credit" "$T/tasks/bad-skill"
printf 'no front matter here\n' \
    > "$T/tasks/bad-skill/environment/skills/answer-finder/SKILL.md"
cp -R "$H/half-credit" "$T/tasks/linked"
mkdir "$T/outside" && echo OUTSIDE > "$T/outside/key.txt"
ln -s "$T/outside" "$T/tasks/linked/environment/data"
echo 'COPY data/key.txt /root/' >> "$T/tasks/linked/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/tasks" --check
is "$rc" 0 "one unreadable task.toml does not stop the others"
like "$out" "needs-pip: not runnable: '$T/tasks/needs-pip/task.toml':2: expected a value after '='" \
    "it names file:line and what was expected"
like "$out" "bad-skill: not runnable: " "a skill that does not load: not runnable"
like "$out" "answer-finder/SKILL.md" "naming the skill's file"
like "$out" "linked: not runnable: COPY of 'data/key.txt': it leads outside environment/" \
    "a COPY through a folder symlinked out of the task is refused"

# --- the eval: the skill arm's student solves, the baseline does nothing ----
cat > "$T/sc.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/report-writer/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "run", "arguments": {"command": "pwd; od -An -tx1 data/blob.bin; ls .agents/skills; cat /tests/test.sh; echo PROBED"}},
      {"name": "write_file", "arguments": {"path": "out/report.txt", "content": "lines=3 bytes=14\n"}}]}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/answer-finder/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "42\n"}}]}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/slow-runner/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "run", "arguments": {"command": "sleep 5; echo LATE"}}]}},
  {"match": {"assistant_turns": 0}, "reply": {"text": "I will not do it."}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done."}}
]}
JSON
fake_start "$T/sc.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache --tasks "$H" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    fake_skip_all "bubblewrap cannot run here: $err"
fi
is "$rc" 0 "the eval of the Harbor tasks exits 0"
like "$err" "2 cases from the Harbor tasks" "the runnable tasks with skills are the cases"
like "$out" "checks passed: 0 of 2 baseline, 2 of 2 with skill" \
    "the verifiers pass the skill arm and fail the baseline"
like "$out" "lift +100 points" "the lift shows"
unlike "$out" "not gradable" \
    "a verifier that writes no reward fails, in the rates (issue 37 item 4)"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$arts" "reward 0.5, at least the threshold 0.5" \
    "a fractional reward.json passes at the task's threshold"
like "$arts" "reward 0, below the threshold 1" "reward.txt 0 fails"
like "$arts" "test_seeded_binary_is_intact (test_outputs.Outputs.test_seeded_binary_is_intact) ... ok" \
    "the binary data file was seeded byte for byte at /app/data"
like "$arts" "no reward test.sh alone decided: the verifier wrote no reward" \
    "the failed trial says why"
unlike "$arts" '"path":".agents/skills/' \
    "no installed skill's files are listed in the workspace snapshot"
like "$arts" '"path":"data/blob.bin","size":14' "the seeded files are"
rec=$(cat "$T/rec.jsonl")
like "$rec" '/app\n 00 01 ff fe 50 4e 47 00 0d 0a 1a 0a 80 81' \
    "the run tool works in /app, and sees the binary seed intact"
like "$rec" '80 81\nbyte-counter\nreport-writer\nPROBED' \
    "both of the task's skills are installed in the skill arm"
like "$rec" '<name>byte-counter</name>' "the catalogue names the first skill"
like "$rec" '<name>report-writer</name>' "and the second"
like "$rec" "cat: /tests/test.sh: No such file or directory" \
    "the student never sees /tests"
unlike "$rec" "test_seeded_binary_is_intact" "the verifier's code is never in a request"
is "$(find "$T/tmp" -name 'upskill-logs-*' | wc -l | tr -d ' ')" 0 \
    "the verifiers' log folders are removed"
# --- a reward file that is a symlink is not followed: not gradable ---------
mkdir -p "$T/evil"
cp -R "$H/half-credit" "$T/evil/"
echo 1 > "$T/one.txt"
printf '#!/bin/bash\nln -s %s /logs/verifier/reward.txt\n' "$T/one.txt" \
    > "$T/evil/half-credit/tests/test.sh"
# an empty reward.txt is no reward either; a file COPY'd onto the WORKDIR
# itself lands in it, under its own name
cp -R "$H/half-credit" "$T/evil/empty-reward"
echo hint > "$T/evil/empty-reward/environment/hint.txt"
mkdir "$T/secret" && echo SECRET-1700 > "$T/secret/key.txt"
ln -s "$T/secret" "$T/evil/empty-reward/environment/linked"
printf 'COPY hint.txt /root\nCOPY . /root/ctx/\n' \
    >> "$T/evil/empty-reward/environment/Dockerfile"
printf '#!/bin/bash\ncat /root/hint.txt >&2\nls -A /root/ctx >&2\n: > /logs/verifier/reward.txt\n' \
    > "$T/evil/empty-reward/tests/test.sh"
run "$UPSKILL" eval --no-cache --tasks "$T/evil" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs2" --no-baseline -v
like "$out" "checks passed: 0 of 2 with skill" "neither reward is read: both fail"
unlike "$out" "checks passed: 1" "and neither passes"
arts=$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl)
like "$arts" "reward.txt is a symlink, not a reward test.sh wrote" \
    "a reward.txt symlinked to a host file holding 1 is not read"
like "$arts" "reward.txt does not hold a number" "an empty reward.txt is none"
like "$arts" '"--- stderr ---\nhint\nDockerfile\nhint.txt\n' \
    "hint.txt was seeded at /root/hint.txt; COPY . seeds the context, without the skills or a symlinked folder"
unlike "$arts" "SECRET-1700" "a folder symlinked out of the task is never read"
# --- task.toml's time limits: the run tool's and the verifier's wall clock -
mkdir -p "$T/slow/slow/environment/skills/slow-runner" "$T/slow/slow/tests"
printf '[agent]\ntimeout_sec = 1\n[verifier]\ntimeout_sec = 1\n' \
    > "$T/slow/slow/task.toml"
echo "Run the slow job." > "$T/slow/slow/instruction.md"
printf 'FROM debian:12\nWORKDIR /root\n' > "$T/slow/slow/environment/Dockerfile"
printf -- '---\nname: slow-runner\ndescription: Runs the slow job. Use when asked to run it.\n---\n\nRun it.\n' \
    > "$T/slow/slow/environment/skills/slow-runner/SKILL.md"
printf '#!/bin/bash\nsleep 5\necho 1 > /logs/verifier/reward.txt\n' \
    > "$T/slow/slow/tests/test.sh"
run "$UPSKILL" eval --no-cache --tasks "$T/slow" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs3" --no-baseline -v
arts=$(cat "$T"/runs3/*/run_*/cases/transcripts.jsonl)
like "$arts" "wall clock (1 s)" "[agent] timeout_sec is the run tool's wall clock"
unlike "$arts" "stdout ---\\nLATE" "the slow command was stopped"
like "$arts" "stopped: wall clock (1 s)" \
    "[verifier] timeout_sec is the verifier's wall clock (no reward: the student's failure)"
done_testing
