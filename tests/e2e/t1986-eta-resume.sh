#!/bin/sh
# The progress line after --resume (issue 34 item 9): jobs restored from
# the journal are counted as done but not as done by this run, so they do
# not make the ETA ("112/200 done ... ETA 2s" with 22 s left).  The line
# that reports the restored jobs says how many, and has no ETA until a
# job of this run has finished.
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
EVAL="$UPSKILL eval --no-cache $SKILL -m local --base-url $FAKE_URL/v1 --runs 4 -j 2 --runs-dir $T/runs"
# A journal capped at 24 KiB: about a third of the 240 jobs land.
bash -c 'trap "" XFSZ; ulimit -f 24 && exec "$@"' limited $EVAL \
    > /dev/null 2> "$T/a.err"
is "$?" 5 "the first run stops on a full journal"
batch=$(ls "$T/runs")
n=$(wc -l < "$T/runs/$batch/journal.jsonl" | tr -d ' ')
ok "$([ "$n" -ge 60 ] && [ "$n" -lt 240 ] && echo 0 || echo 1)" \
    "(a quarter or more landed: $n)"

run $EVAL --resume "$batch"
is "$rc" 0 "the resume finishes"
first=$(printf '%s\n' "$err" | grep ' done, ' | head -n 1)
like "$first" "  $n/240 done, " "the first line counts the restored jobs as done"
like "$first" "ETA -, $n answered before this run" \
    "with no ETA yet, and how many were answered before this run"
unlike "$first" "ETA 0s" "not an ETA from restored jobs"
like "$err" "240/240 done, 240 passing" "the totals count them"

done_testing
