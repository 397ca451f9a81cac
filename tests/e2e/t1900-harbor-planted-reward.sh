#!/bin/sh
# A Harbor verifier's reward cannot be planted by the student (issue 35
# item 1, docs/harbor.md "The reward is the verifier's").  Each task of
# tests/fixtures/harbor/forged/reward-* has a wrong solution (41, not
# 42) that test.sh imports, as many SkillsBench verifiers do; on import
# it plants a reward one way: reward.txt made a folder with a reward.json
# of 1 beside it; a daemon left running that renames "1" onto
# reward.txt again and again; a reward.txt of 1 beside the reward.json
# test.sh writes.  The oracle plays that student (its solve.sh writes
# the solution): no trial may pass, in either arm; each is a grading
# error naming the plant.  A fourth plants a read-only CTRF report of
# all tests passed where pytest --ctrf writes its own, for a test.sh
# grading by the report: upskill's plugin replaces it (reward 0).
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
F="$FIX/harbor/forged"
mkdir "$T/tasks"
for t in reward-folder-json reward-daemon reward-txt-beside-json; do
    ln -s "$F/$t" "$T/tasks/$t"
done

run "$UPSKILL" eval --tasks "$T/tasks" -m oracle --runs 2 \
    --runs-dir "$T/runs" -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
is "$rc" 0 "the eval of the planting solutions completes"
like "$out" "checks passed: 0 of 6 baseline, 0 of 6 with skill" \
    "every trial is graded and failed, in both arms (in the rates: the student planted it)"
unlike "$out" "not gradable" "no planted reward leaves the rates as not gradable"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$arts" "no reward test.sh alone decided: /logs/verifier/reward.txt is a folder, not a reward test.sh wrote" \
    "reward.txt made a folder is a plant: its reward.json is not read"
like "$arts" "no reward test.sh alone decided: a process test.sh started (the student's code) was still running when it ended, and could rewrite the reward" \
    "a daemon the solution left running is caught"
like "$arts" "upskill: a process of the verifier (pid " "and named by its pid"
like "$arts" "no reward test.sh alone decided: reward.txt and reward.json disagree" \
    "a reward.txt planted beside test.sh's reward.json is a conflict"
unlike "$arts" "reward 1, at least" "no reward of 1 is ever read"

# --- a CTRF report planted read-only is replaced by pytest's own ----------
if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
    mkdir "$T/ctrf" && ln -s "$F/ctrf-read-only" "$T/ctrf/ctrf-read-only"
    run "$UPSKILL" eval --tasks "$T/ctrf" -m oracle --runs-dir "$T/runs2" -v
    like "$out" "checks passed: 0 of 1 baseline, 0 of 1 with skill" \
        "the planted report is not what test.sh grades by"
    like "$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl)" \
        "reward 0, below the threshold 1" "pytest's own report: 0 of 1 passed"
else
    ok 0 "# SKIP python3-pytest is not installed"
    ok 0 "# SKIP python3-pytest is not installed"
fi

# --- the same verifiers pass an honest solution ------------------------------
mkdir "$T/honest"
for t in reward-folder-json reward-daemon; do
    cp -R "$F/$t" "$T/honest/$t"
    printf '#!/bin/bash\nprintf "def answer():\\n    return 42\\n" > /root/solution.py\n' \
        > "$T/honest/$t/solution/solve.sh"
done
run "$UPSKILL" eval --tasks "$T/honest" -m oracle --no-log-runs -v
like "$out" "checks passed: 2 of 2 baseline, 2 of 2 with skill" \
    "the guard lets an honest verifier's reward through"
# --- the daemon is gone once the verifier is graded --------------------------
unlike "$(ps -eo args)" "from solution import answer; sys.exit" \
    "no daemon survives its verifier"
done_testing
