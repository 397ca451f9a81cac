#!/bin/sh
# docs/harbor.md's commands run as written, run logs on (issue 37 item 1):
# every line of its first sh block (path/to/tasks a folder of one task
# whose tests/ holds folders, as civ6-adjacency-optimizer's does), and the
# measured `-m oracle -m null --sound sound.txt` without --no-log-runs.
# Before, writing the batch's suite (its hash and suite file) passed a
# tests/ folder entry's NULL bytes to str_json: exit 139.  The `-m sonnet`
# lines talk to the fake server over the Anthropic wire; the CLI line is
# left out (t1705 runs CLIs).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor/tests-subfolder"

if ! [ -x "$(command -v bwrap)" ]; then
    echo "1..0 # SKIP bubblewrap not found"
    exit 0
fi
printf '{"rules": [{"reply": {"text": "Done."}}]}\n' >"$T/sc.json"
fake_start "$T/sc.json" || { echo "1..0 # SKIP fake-llm did not start"; exit 0; }
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=test-key-1920

upskill() { "$UPSKILL" "$@"; }
# the first sh block's lines (comments cut), path/to/tasks our folder
sed -n '/^```sh$/,/^```$/{/^upskill /p;}' "$TOP/docs/harbor.md" |
    sed -n '1,/^$/p' | sed 's/  *#.*$//' >"$T/all-blocks"
awk 'NR == 1, /cli\./' "$T/all-blocks" | grep -v 'cli\.' |
    sed "s|path/to/tasks/one-task|$H/nested-tests|; s|path/to/tasks|$H|" \
        >"$T/commands"
n=$(wc -l <"$T/commands")
[ "$n" -ge 6 ]
ok $? "docs/harbor.md's first block gives its commands ($n)"
while IFS= read -r cmd; do
    eval "run $cmd"
    is "$rc" 0 "as written: $(printf '%s' "$cmd" | sed "s|$H|path/to/tasks|")"
    [ "$rc" = 0 ] || printf '#   %s\n' "$err" | tail -3
done <"$T/commands"
[ -s sound.txt ]
ok $? "--check --sound wrote sound.txt"
like "$(cat sound.txt)" "nested-tests	sound" "the task with tests/ folders is sound"

# the measured flow, with run logs on
rm -rf runs
run upskill eval --tasks "$H" -m oracle -m null --sound sound.txt --runs 2
is "$rc" 0 "-m oracle -m null --sound sound.txt with run logs on exits 0"
like "$out" "│ oracle │ 100%     │ 100%       │" "the oracle passes it"
like "$out" "│ null   │ 0%       │ 0%         │" "null does not"
set -- runs/*/run_1/run_result.json
[ -f "$1" ]
ok $? "the run files are written"
done_testing
