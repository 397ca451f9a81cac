#!/bin/sh
# `upskill runs --prune` (issue 34 item 11): a failed run (a dead base
# URL) leaves a batch folder with nothing answered; --prune removes such
# folders and only them: a good batch, a batch stopped half-way (its
# journal holds answers: --resume finishes it) and a folder that is no
# batch stay.  The output is the one docs/runs-format.md shows.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v bash > /dev/null 2>&1 || fake_skip_all "bash not found"
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json"
EVAL="$UPSKILL eval --no-cache $SKILL -m local --runs-dir runs"
run $EVAL --base-url "$FAKE_URL/v1"
is "$rc" 0 "a good batch"
good=$(ls runs)
run $EVAL --base-url "http://127.0.0.1:1/v1"
is "$rc" 4 "a failed one (a dead base URL)"
dead=$(ls runs | grep -v "^$good\$")
ok "$([ -n "$dead" ] && [ -d "runs/$dead" ] && echo 0 || echo 1)" \
    "(it left a batch folder: $dead)"
bash -c 'trap "" XFSZ; ulimit -f 24 && exec "$@"' limited $EVAL \
    --base-url "$FAKE_URL/v1" --runs 4 > /dev/null 2>&1
is "$?" 5 "one stopped half-way by a full disk"
half=$(ls runs | grep -v "^$good\$" | grep -v "^$dead\$")
mkdir runs/notes
echo mine > runs/notes/todo.txt

run "$UPSKILL" runs -d runs --prune
is "$rc" 0 "runs --prune exits 0"
first=$out
is "$out" "removed 'runs/$dead': nothing in it was answered
1 batch folder removed from 'runs'" "it names what it removed"
ok "$([ -e "runs/$dead" ] && echo 1 || echo 0)" "the failed batch is gone"
ok "$([ -d "runs/$good" ] && echo 0 || echo 1)" "the good batch stays"
ok "$([ -d "runs/$half" ] && echo 0 || echo 1)" "the half-done batch stays (resumable)"
is "$(cat runs/notes/todo.txt)" mine "a folder that is no batch stays"
run $EVAL --base-url "$FAKE_URL/v1" --runs 4 --resume "$half"
is "$rc" 0 "and the half-done one still resumes"

run "$UPSKILL" runs -d runs --prune
is "$out" "0 batch folders removed from 'runs'" "a second prune finds nothing"
run "$UPSKILL" runs -d runs --prune --json
is "$rc" 2 "--prune takes no other flag"

# docs/runs-format.md shows the same lines (its batch id for ours)
doc=$(grep -A2 '^\$ upskill runs --prune' "$TOP/docs/runs-format.md" |
    tail -n 2 | sed "s|runs/[0-9_]*'|runs/$dead'|")
is "$first" "$doc" "the output is the one docs/runs-format.md shows"

done_testing
