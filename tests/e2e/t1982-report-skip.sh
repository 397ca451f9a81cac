#!/bin/sh
# `upskill report` over a runs folder skips a batch that has no results
# yet (an interrupted eval) with a warning saying how to finish or delete
# it, instead of exiting 3 with no report (issue 34 item 4).  A batch
# named on the command line stays an error.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v bash > /dev/null 2>&1 || fake_skip_all "bash not found"
SKILL="$FIX/eval/student"
printf 'runs_dir: %s\n' "$T/runs" > "$T/cfg.yaml"
export UPSKILL_CONFIG="$T/cfg.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json"
EVAL="$UPSKILL eval --no-cache $SKILL -m local --base-url $FAKE_URL/v1 -j 2"
run $EVAL
is "$rc" 0 "a finished batch"
# A second one stopped early: its journal cannot grow (a 3 KiB file cap).
bash -c 'trap "" XFSZ; ulimit -f 3 && exec "$@"' limited $EVAL --runs 4 \
    > /dev/null 2>&1
is "$?" 5 "and one stopped before it finished"
stopped=$(ls "$T/runs" | tail -n 1)
ok "$([ -e "$T/runs/$stopped/run_1" ] && echo 1 || echo 0)" "(it has no run files)"

run "$UPSKILL" report -o "$T/r.html"
is "$rc" 0 "report with no arguments still writes the report"
like "$out" "Report: $T/r.html (1 batch)" "of the finished batch"
like "$err" "warning: skipping '$T/runs/$stopped': no results yet" \
    "the stopped batch is skipped with a warning naming it"
like "$err" "--runs-dir $T/runs --resume $stopped" "saying how to resume it"
like "$err" "or delete the folder" "or delete it"
ok "$([ -s "$T/r.html" ] && echo 0 || echo 1)" "the page is written"

run "$UPSKILL" report "$T/runs" -o "$T/r2.html"
is "$rc" 0 "a runs folder named on the command line: the same"

run "$UPSKILL" report "$T/runs/$stopped" -o "$T/r3.html"
is "$rc" 3 "the stopped batch named itself is still an error"
like "$err" "no run results" "saying why"

rm -rf "$T/runs/$(ls "$T/runs" | head -n 1)"
run "$UPSKILL" report -o "$T/r4.html"
is "$rc" 3 "only stopped batches: nothing to report"
like "$err" "no finished batch to report" "said plainly"

done_testing
