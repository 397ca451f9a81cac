#!/bin/sh
# A Harbor verifier cannot be made "not gradable" by the student (issue
# 37 item 4): an output left as a FIFO is removed before the verifier
# runs (before, reading it blocked the verifier until its wall clock: not
# gradable, out of the rates), and a verifier stopped by its wall clock
# on the student's program is that student's failure, counted in the
# rates.  The oracle is the student here (its solve.sh makes them).
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor/student-fifo"

run "$UPSKILL" eval --tasks "$H" -m oracle --runs-dir "$T/runs" -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
is "$rc" 0 "the eval exits 0"
like "$out" "checks passed: 0 of 2 baseline, 0 of 2 with skill" \
    "both tasks are graded, failed, in both arms"
unlike "$out" "not gradable" "no trial is left out as not gradable"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
# under bubblewrap the solution's call runs in a bounded workspace whose
# copy back takes regular files, folders and links only: the FIFO never
# lands; elsewhere it is removed before the check, and said so
case "$arts" in
*"removed 1 FIFO(s), socket(s) or device(s) of the student's before the check ran, the first 'out.txt'"*) ok 0 "the FIFO is removed before the verifier reads it, and said so" ;;
*) is "$(find "$T/runs" -type p | wc -l | tr -d ' ')" 0 "the FIFO never reached the workspace the verifier reads" ;;
esac
like "$arts" "reward 0, below the threshold 1" "the verifier then fails the missing output"
like "$arts" "the verifier was stopped before it wrote a reward (stopped: wall clock (1 s)" \
    "a verifier stopped on the student's program: a failure"
like "$arts" "counted as the student's failure" "said so"
done_testing
