#!/bin/sh
# generate's progress on a terminal (issue 34 item 8): eval's live line
# ("N/M done, passing, tokens, elapsed, ETA") during each evaluation
# instead of a static "Evaluating...", and the teacher's and the test
# writer's calls show their elapsed time, ending with how long each took.
# Off a terminal (a log) nothing of it is printed.  The terminal is a pty
# made by script(1).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v script > /dev/null 2>&1 || fake_skip_all "script(1) not found"
G="$TOP/tests/fixtures/gen"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

fake_start "$G/plain.json"
cmd="GENERIC_BASE_URL='$FAKE_URL/v1' '$UPSKILL' generate 'write commit messages' -m generic.teacher --eval-model student --eval-base-url '$FAKE_URL/v1' -o '$T/p/commit-helper' --no-log-runs --max-refine 1"
script -qec "$cmd" /dev/null > "$T/tty.out" 2>&1 < /dev/null
out=$(tr '\r' '\n' < "$T/tty.out")
like "$out" "Evaluating... (attempt 1)" "(the evaluation starts)"
like "$out" "  16/16 done, " "eval's live line counts the evaluation's conversations"
like "$out" "passing, " "with passing"
like "$out" " elapsed, ETA " "elapsed and ETA"
like "$out" "waiting for the teacher (generic.teacher): answered in " \
    "the teacher's call says how long it took"
like "$out" "waiting for the test writer (generic.teacher): answered in " \
    "and the test writer's"

# Off a terminal: none of it.
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write commit messages" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    -o "$T/q/commit-helper" --no-log-runs --max-refine 1
is "$rc" 0 "generate exits 0"
unlike "$err" " done, " "no live line in a log"
unlike "$err" "waiting for the teacher" "no elapsed line in a log"

done_testing
