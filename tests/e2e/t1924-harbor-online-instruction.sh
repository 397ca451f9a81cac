#!/bin/sh
# What the instruction asks must be reachable here (issue 37 item 5):
# `--check` flags an instruction.md that sends the student to the network
# (a URL, a website, a named online database such as the IMF's WEO, an
# install), as it flags a Dockerfile's network steps, naming the words
# and their lines; such a task is not runnable, so neither checked sound
# nor evaluated, unless --online-instructions.  Words that only look
# alike (FREDERICK, weo.csv) are no reason.
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor/online-instruction"

run "$UPSKILL" eval --tasks "$H" --check --static
is "$rc" 0 "--check --static exits 0"
like "$out" "online-data: not runnable: instruction.md sends the student to the network: 'website' (line 2), 'WEO' (line 1): not reachable here (--online-instructions runs it all the same)" \
    "an instruction sending the student online is flagged, with its words and lines"
like "$out" "offline-words: runnable" "look-alike words are not flagged"
run "$UPSKILL" eval --tasks "$H" --check --static --online-instructions
like "$out" "online-data: runnable" "--online-instructions overrides it"
like "$out" "2 tasks: 2 runnable here, 0 not" "both run then"
run "$UPSKILL" eval --tasks "$H/online-data" -m oracle --no-log-runs
is "$rc" 3 "an eval of it alone leaves no task (exit 3)"
run "$UPSKILL" eval -m oracle --online-instructions "$FIX/harbor-oracle/sound"
is "$rc" 2 "--online-instructions without --tasks is a usage error"

run "$UPSKILL" eval --tasks "$H" -m oracle --no-log-runs --online-instructions
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "# bubblewrap cannot run here: the eval part is skipped"
else
    like "$err" "tests: 2 cases from the Harbor tasks" \
        "with --online-instructions the eval takes both"
fi
done_testing
