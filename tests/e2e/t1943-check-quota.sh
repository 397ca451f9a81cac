#!/bin/sh
# The workspace quota holds while a check runs too (issue 35 item 2, the
# checks): a command check, and a Harbor verifier whose test.sh runs the
# student's code, run in the workspace bounded to its quota (and the
# verifier's /logs/verifier to UP_SANDBOX_RW_MAX_BYTES), so the student's
# code they run cannot fill the disk.  A fallocate bomb in a check stops
# at the quota and the check fails naming the limit; the bytes never land.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
[ -x /usr/bin/bwrap ] || fake_skip_all "bubblewrap not installed (apt-get install bubblewrap)"
/usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
    fake_skip_all "bubblewrap cannot create namespaces here"
command -v fallocate >/dev/null 2>&1 || fake_skip_all "fallocate not found"
SKILL="$FIX/eval/student"
mkdir -p "$T/work" "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
cat > "$T/q.yaml" <<YAML
workspace_dir: $T/work
workspace_max_bytes: 1048576
workspace_max_files: 3000
YAML
export UPSKILL_CONFIG="$T/q.yaml"

# --- a command check that bombs, then says all is well -------------------
bomb='for i in $(seq 40); do fallocate -l 900K f$i || exit 0; done; echo BOMB-DONE | tr -d -'
printf '{"cases": [{"input": "case one", "expected": {"contains": ["done"]}, "assert": [{"type": "command", "name": "bombs", "value": "%s"}]}]}\n' \
    "$bomb" > "$T/t.json"
printf '{"rules": [{"reply": {"text": "done"}}]}\n' > "$T/s.json"
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" --no-baseline -v
is "$rc" 0 "the eval exits 0"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl 2>/dev/null)
like "$arts" "workspace quota" "the check is stopped by the workspace quota, named"
unlike "$arts" "BOMBDONE" "the bomb never finished"
like "$out" "checks passed: 0 of 1" "the check fails"

# --- a Harbor verifier that imports the student's bombing solution -------
H="$T/tasks/bomb"
mkdir -p "$H/environment/skills/writer" "$H/solution" "$H/tests"
printf -- '---\nname: writer\ndescription: Writes solutions. Use when a task asks for solution.py.\n---\n\nWrite it.\n' \
    > "$H/environment/skills/writer/SKILL.md"
printf 'version = "1.0"\n[verifier]\ntimeout_sec = 30.0\n' > "$H/task.toml"
printf 'Write solution.py in /root.\n' > "$H/instruction.md"
printf 'FROM ubuntu:24.04\nWORKDIR /root\n' > "$H/environment/Dockerfile"
cat > "$H/solution/solve.sh" <<'SH'
#!/bin/bash
cat > /root/solution.py <<'PY'
import subprocess
for i in range(40):
    subprocess.call(["fallocate", "-l", "900K", "/root/f%d" % i])
PY
SH
cat > "$H/tests/test.sh" <<'SH'
#!/bin/bash
python3 /root/solution.py
echo 1 > /logs/verifier/reward.txt
SH
run "$UPSKILL" eval --tasks "$T/tasks" -m oracle --runs-dir "$T/runs2" --no-baseline -v
is "$rc" 0 "the oracle eval exits 0"
arts=$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl 2>/dev/null)
unlike "$arts" "reward 1, at least" "the bombing solution's reward of 1 is never read"
like "$arts" "workspace quota" "the verifier is stopped by the workspace quota, named"
like "$arts" "counted as the student's failure" "a failure in the rates"
is "$(du -sk "$T/work" | cut -f1)" "$(du -sk "$T/work" | cut -f1)" "the work folder is readable"
ok "$([ "$(du -sk "$T" | cut -f1)" -lt 20000 ] && echo 0 || echo 1)" \
    "no bomb's bytes landed on the disk ($(du -sk "$T" | cut -f1) KiB in the test's folder)"
done_testing
