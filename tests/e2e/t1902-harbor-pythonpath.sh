#!/bin/sh
# A reward forged by one file (issue 37 item 3, docs/harbor.md "What
# test.sh exports"): the tasks of tests/fixtures/harbor/forged/*-pythonpath
# have a test.sh that runs `export PYTHONPATH="/root/src:$PYTHONPATH"`
# itself (as civ6-adjacency-optimizer does) and grades in python3.  A
# wrong answer with one more file in /root/src -- a sitecustomize.py
# (run by every python3 at its start), or a json.py shadowing the
# standard library's -- rewrites the reward after the grader wrote 0.
# The student's folders stay behind the system's (the offline rewrite,
# upskill's sitecustomize) and a student's sitecustomize is removed:
# neither passes.  An honest answer in /root/src is still imported.
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
F="$FIX/harbor/forged"
mkdir "$T/tasks"
for t in sitecustomize-pythonpath module-shadow-pythonpath; do
    ln -s "$F/$t" "$T/tasks/$t"
done
run "$UPSKILL" eval --tasks "$T/tasks" -m oracle --runs-dir "$T/runs" -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
is "$rc" 0 "the eval of the one-file students completes"
like "$out" "checks passed: 0 of 2 baseline, 0 of 2 with skill" \
    "neither a sitecustomize.py nor a json.py on test.sh's PYTHONPATH forges the reward"
n=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl |
    grep -c '"message":"reward 0, below the threshold 1')
is "$n" 4 "each is graded by the grader's own reward: 0"

# --- the same verifier imports an honest answer from /root/src ------------
mkdir "$T/honest"
cp -R "$F/module-shadow-pythonpath" "$T/honest/honest"
printf '#!/bin/bash\nmkdir -p /root/src\nprintf "def answer():\\n    return 42\\n" > /root/src/answer.py\n' \
    > "$T/honest/honest/solution/solve.sh"
run "$UPSKILL" eval --tasks "$T/honest" -m oracle --no-log-runs -v
like "$out" "checks passed: 1 of 1 baseline, 1 of 1 with skill" \
    "the student's folder test.sh exports is still on the path, behind the system's"

# --- a PYTHONPATH set for one command, and PATH: moved the same way ------
mkdir "$T/one"
cp -R "$F/module-shadow-pythonpath" "$T/one/one"
cat > "$T/one/one/tests/test.sh" <<'SH'
#!/bin/bash
mkdir -p /root/bin
printf '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n' > /root/bin/python3
chmod +x /root/bin/python3
export PATH="/root/bin:$PATH"
PYTHONPATH=/root/src python3 /tests/grade.py
echo "PATH=$PATH" >&2
SH
run "$UPSKILL" eval --tasks "$T/one" -m oracle --runs-dir "$T/runs2" -v
like "$out" "checks passed: 0 of 1 baseline, 0 of 1 with skill" \
    "a PYTHONPATH=... for one command and an exported PATH keep the system's first"
like "$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl)" \
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/root/bin' \
    "the student's folder goes to the end of PATH"
done_testing
