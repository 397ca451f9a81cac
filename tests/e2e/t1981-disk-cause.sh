#!/bin/sh
# A full disk names its cause (issue 34 item 3): when the journal fits but
# the case artifacts do not, the message was "upskill: error: ; no more
# requests were sent ..." (the scratch file's error lost on the way).
# Now it names the file and the system's reason, and says "no more
# requests were sent" only when some were left; --resume writes the rest.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v bash > /dev/null 2>&1 || fake_skip_all "bash not found"
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 1,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json"
# limited KIB CMD...: files capped at KIB KiB (bash counts ulimit -f in
# KiB), SIGXFSZ ignored: a full disk, writes fail.
limited() {
    bash -c 'trap "" XFSZ; ulimit -f "$1" && shift && exec "$@"' limited "$@"
}
EVAL="$UPSKILL eval --no-cache $SKILL -m local --base-url $FAKE_URL/v1 --runs 4 -j 2"

# 240 conversations: the journal (~66 KiB) fits in 120 KiB, the case
# artifacts (~200 KiB) do not.
limited 120 $EVAL --runs-dir "$T/runs" > "$T/a.out" 2> "$T/a.err"
rc=$?
err=$(cat "$T/a.err")
is "$rc" 5 "a full disk exits 5"
unlike "$err" "error: ;" "the cause is not empty"
like "$err" "case artifacts' scratch file in the batch folder: cannot write: File too large" \
    "it names the file and the system's reason"
unlike "$err" "no more requests were sent" "every request had been sent: not said"
like "$err" "every request was answered (shown above) but the run files are not all written" \
    "it says what happened instead"
batch=$(ls "$T/runs")
like "$err" "--resume $batch" "and how to finish"
run $EVAL --runs-dir "$T/runs" --resume "$batch"
is "$rc" 0 "--resume after freeing space finishes"
is "$(ls "$T/runs/$batch" | grep -c "^run_")" 8 "the run files are written (4 repeats x 2 arms)"

# The journal itself full: requests were left, and that is said, with how many.
limited 24 $EVAL --runs-dir "$T/runs2" > "$T/b.out" 2> "$T/b.err"
rc=$?
err=$(cat "$T/b.err")
is "$rc" 5 "a journal that cannot grow exits 5"
like "$err" "journal.jsonl': cannot append: File too large; no more requests were sent (" \
    "some were left: said so"
like "$err" " left) and what was answered is shown above" "with how many"

done_testing
