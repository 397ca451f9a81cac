#!/bin/sh
# Disk and batch faults of eval: a full disk (RLIMIT_FSIZE) stops sending,
# prints what was answered and leaves a journal of whole lines; --resume
# repairs a torn line, refuses a batch made for another plan or held by
# another process, cleans orphan temp files and counts restored jobs in
# the progress line; answers over max_answer_bytes are cut; a missing
# parent folder is an error.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 1,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
EVAL="$UPSKILL eval --no-cache $SKILL -m local --base-url $FAKE_URL/v1"
nreq() { wc -l < "$T/rec.jsonl" | tr -d ' '; }

# --- disk full: 240 conversations, the journal hits the file-size limit ----
# dash counts ulimit -f in 512-byte blocks, bash in 1024: either way the
# limit (32 or 64 KB) is under the journal's ~80 KB.  stdout goes through
# a pipe, which the limit does not cover.
(ulimit -f 64; $EVAL --runs 4 -j 2 --json --runs-dir "$T/runs" \
    2> "$T/d.err"; echo $? > "$T/d.rc") | cat > "$T/d.out"
err=$(cat "$T/d.err"); out=$(cat "$T/d.out")
is "$(cat "$T/d.rc")" 5 "a full disk exits 5"
like "$err" "journal.jsonl': cannot append: File too large" \
    "the message names the journal and the system's reason"
unlike "$err" "short write" "no 'short write'"
like "$err" "--resume" "the message says how to resume"
like "$out" '"verdict"' "--json still prints the summary of what was answered"
batch=$(ls "$T/runs")
J="$T/runs/$batch/journal.jsonl"
first=$(nreq)
lines=$(wc -l < "$J" | tr -d ' ')
ok $([ "$first" -lt 240 ] && echo 0 || echo 1) \
    "sending stopped at the first write error ($first of 240 sent)"
ok $([ "$first" -le $((lines + 2)) ] && echo 0 || echo 1) \
    "at most the running conversations were sent after it ($lines journalled)"
is "$(tail -c 1 "$J" | od -An -c | tr -d ' ')" '\n' \
    "the journal ends with a whole line"
ok $([ -e "$T/runs/$batch/batch_summary.json" ] && echo 1 || echo 0) \
    "no batch summary for an unfinished batch"
like "$(cat "$T/runs/$batch/lock")" "pid " \
    "a fresh eval took the batch lock and wrote who holds it"
unlike "$err" "240/240 done" \
    "the progress line does not count conversations that were never sent"

# --- resume: a torn line is cut away, temp files go, totals count ---------
printf '{"model":"generic.local","arm":"with' >> "$J"
touch "$T/runs/$batch/batch_summary.json.tmp.Ab12Cd"
mkdir -p "$T/runs/$batch/run_1"
touch "$T/runs/$batch/run_1/run_result.json.tmp.Zz9Yy8"
run $EVAL --runs 4 -j 4 --runs-dir "$T/runs" --resume "$batch"
is "$rc" 0 "the resume finishes the batch"
like "$err" "resuming $batch: $lines of 240 jobs already done" \
    "every whole journal line is restored"
is "$(grep -c '{"model".*{"model"' "$J")" 0 \
    "the torn line was cut away, no line is glued to it"
is "$(wc -l < "$J" | tr -d ' ')" 240 "one journal line per conversation"
is "$(find "$T/runs/$batch" -name '*.tmp.*' | wc -l | tr -d ' ')" 0 \
    "orphan temp files are removed"
like "$err" "240/240 done, 240 passing" \
    "the progress totals count the restored conversations"
like "$(cat "$T/runs/$batch/batch_plan.json")" '"suite_sha256"' \
    "the batch records what it was made for"

# --- resume of a finished batch with another plan: refused ----------------
cp "$T/runs/$batch/run_1/run_result.json" "$T/before.json"
run $EVAL --runs 2 --runs-dir "$T/runs" --resume "$batch"
is "$rc" 3 "resume with other --runs exits 3"
like "$err" "number of runs (--runs)" "the message names what differs"
printf '[{"input": "another question", "expected": {"contains": "x"}}]\n' \
    > "$T/other.json"
run $EVAL --runs 4 -t "$T/other.json" --runs-dir "$T/runs" --resume "$batch"
is "$rc" 3 "resume with another suite exits 3"
like "$err" "test suite" "the message names the suite"
run $EVAL --runs 4 -m other --runs-dir "$T/runs" --resume "$batch"
is "$rc" 3 "resume with other models exits 3"
like "$err" "models (-m)" "the message names the models"
run $EVAL --runs 4 --agent --runs-dir "$T/runs" --resume "$batch"
is "$rc" 3 "resume of a chat batch with --agent exits 3"
like "$err" "agent mode (--agent)" "the message names agent mode"
cmp -s "$T/before.json" "$T/runs/$batch/run_1/run_result.json"
ok $? "the finished batch is untouched"

# --- a batch in use: the second comer refuses and names the holder -------
if command -v flock >/dev/null 2>&1; then
    exec 9<>"$T/runs/$batch/lock"
    flock -n 9
    ok $? "the test holds the batch lock"
    n0=$(nreq)
    run $EVAL --runs 4 --runs-dir "$T/runs" --resume "$batch"
    is "$rc" 3 "a resume of a locked batch exits 3"
    like "$err" "the batch is in use by pid " "the message names the holder's pid"
    like "$err" " on host " "... and host"
    is "$(nreq)" "$n0" "nothing was sent"
    exec 9<&-
    run $EVAL --runs 4 --runs-dir "$T/runs" --resume "$batch"
    is "$rc" 0 "once released, the resume runs"
else
    for i in 1 2 3 4 5 6 7; do ok 0 "# SKIP flock(1) not found"; done
fi

# --- large answers are cut to max_answer_bytes ----------------------------
big=$(head -c 6000 /dev/zero | tr '\0' 'x')
cat > "$T/big.json" <<JSON
[{"reply": {"text": "GOOD $big ANSWER",
  "usage": {"input_tokens": 40, "output_tokens": 10}}}]
JSON
fake_start "$T/big.json"
printf 'max_answer_bytes: 2048\n' > "$T/cap.yaml"
UPSKILL_CONFIG="$T/cap.yaml" run "$UPSKILL" eval --no-cache "$SKILL" -m local \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/big" --json
is "$rc" 0 "an eval with large answers exits 0"
J=$(ls "$T"/big/*/journal.jsonl)
is "$(grep -c '"answer_cut":true,"answer_bytes":6012' "$J")" 60 \
    "every answer is marked as cut, with its size"
ok $(awk 'length($0) > 3000 { bad = 1 } END { exit bad }' "$J"; echo $?) \
    "no journal line keeps more than the cap"
like "$out" '"passed": 0' "a cut answer is graded on what was kept"

# --- missing folders ------------------------------------------------------
run $EVAL --runs-dir "$T/no/such/runs"
is "$rc" 3 "--runs-dir under a missing parent exits 3"
like "$err" "'$T/no/such': no such folder" "the message names the missing folder"
ok $([ -e "$T/no" ] && echo 1 || echo 0) "no folder was created"
run $EVAL --runs-dir "$T/fresh"
is "$rc" 0 "a missing runs folder under an existing parent is fine"
like "$err" "created the runs folder '$T/fresh'" "... and said so"
run "$UPSKILL" runs -d "$T/runs" --csv "$T/nope/out.csv"
is "$rc" 3 "--csv into a missing folder exits 3"
like "$err" "'$T/nope': no such folder" "the message names the folder"

done_testing
