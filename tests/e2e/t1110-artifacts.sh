#!/bin/sh
# Case artifacts (docs/runs-format.md, "Case artifacts"): every
# conversation of eval and of generate's evaluations gets a line in its
# run folder's run_N/cases/transcripts.jsonl with its transcript, error, verdicts
# (llm-rubric ones after the judge) and usage; texts are capped and marked;
# a resumed batch gets complete artifacts; `runs --case` shows one case,
# escaped, and --json prints the artifacts.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
printf 'artifact_max_bytes: 1024\n' > "$T/cfg.yaml"
export UPSKILL_CONFIG="$T/cfg.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/tests.json" <<'JSON'
[{"input": "case one", "expected": {"contains": ["GOOD"]},
  "assert": [{"type": "llm-rubric", "value": "a good answer"}]},
 {"input": "case two boom", "expected": {"contains": ["GOOD"]}},
 {"input": "case three long", "expected": {"contains": ["GOOD"]}}]
JSON
long=$(printf '%3000s' '' | tr ' ' x)
cat > "$T/s.json" <<JSON
{"rules": [
  {"name": "judge", "match": {"user": "<rubric>"},
   "reply": {"text": "{\"pass\": true, \"reason\": \"confident\"}"}},
  {"name": "boom", "match": {"user": "boom"},
   "reply": {"status": 400, "error_message": "bad request here"}},
  {"name": "long", "match": {"user": "long"},
   "reply": {"text": "GOOD \u001b[31mRED $long"}},
  {"name": "one", "reply": {"text": "GOOD ANSWER", "reasoning": "thinking hard",
   "usage": {"input_tokens": 40, "output_tokens": 10, "reasoning_tokens": 5}}}]}
JSON
fake_start "$T/s.json"

run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$T/runs"
batch=$(ls "$T/runs")
B="$T/runs/$batch"
# art RUN CASE: the artifact of case CASE (from 1) in run_RUN
art() { sed -n "$2p" "$B/run_$1/cases/transcripts.jsonl"; }
is "$(cat "$B"/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')" 12 \
    "every conversation has its artifact (3 cases x 2 arms x 2 runs)"
is "$(wc -l < "$B/run_1/cases/transcripts.jsonl" | tr -d ' ')" 3 \
    "one line per case in each run folder"
is "$(ls "$B"/run_*/cases/system_prompt.md | wc -l | tr -d ' ')" 4 \
    "each run folder has its system prompt once"
like "$(cat "$B/run_2/cases/system_prompt.md")" "Answer with the words GOOD ANSWER" \
    "the with-skill run's system prompt holds the skill"

a=$(art 2 1)
for f in '"case":1,' '"case_index":0,' '"repeat":1,' '"arm":"with_skill"' \
    '"model":"generic.local"' '"run_number":2,' '"input":"case one"' \
    '{"role":"system","content":null,"content_file":"cases/system_prompt.md"' \
    '{"role":"user","content":"case one"}' \
    '{"role":"assistant","content":"GOOD ANSWER","reasoning":null,"tool_calls":[]}' \
    '"error":null' '"passed":true' '"reasoning_tokens":5' \
    '"input_tokens":40' '"from_cache":false' '"workspace":null' \
    '"tools":null' '"attempts":1'; do
    like "$a" "$f" "case 1's artifact has $f"
done
like "$a" '{"type":"llm-rubric","name":null,"value":"a good answer","file":null,"passed":true' \
    "the llm-rubric verdict is the judge's, not pending"
like "$a" '"message":"found '"'"'GOOD'"'"'"' "each verdict says why"
like "$(art 3 1)" '"repeat":2,"arm":"baseline","model":"generic.local","run_number":3' \
    "the second repeat's baseline is in run_3"

e=$(art 1 2)
like "$e" '"passed":false' "a failed conversation did not pass"
like "$e" 'bad request here' "its artifact holds the error"
unlike "$e" '"role":"assistant"' "and no answer"
like "$e" '"message":"not graded: the conversation failed"' \
    "its verdicts say why"

c=$(art 2 3)
like "$c" '"content_bytes":3014,"content_cut":true' \
    "a long answer is cut to the artifact's cap and marked"
ok $([ ${#c} -lt 2600 ] && echo 0 || echo 1) \
    "the artifact stays near its cap (${#c} bytes)"

# --- runs --case ----------------------------------------------------------
run "$UPSKILL" runs -d "$T/runs" --case 1 --no-color
is "$rc" 0 "runs --case exits 0"
like "$out" "batch $batch, case 1: case one" "it names the batch and the case"
like "$out" "generic.local · with_skill · repeat 2 · run_4: passed" \
    "one block per model, arm and repeat"
like "$out" "    GOOD ANSWER" "with the answer"
like "$out" "✓ llm-rubric 'a good answer'" "and the verdicts"
is "$(printf '%s\n' "$out" | grep -c '^generic.local')" 4 "four blocks"
run "$UPSKILL" runs -d "$T/runs" --case 2 --no-color
like "$out" "run_2: errored (0 of 1 assertions)" "a failed conversation is errored"
like "$out" "http 400: bad request here" "with its error"
run "$UPSKILL" runs -d "$T/runs" --case 3 --batch "$batch" --no-color
like "$out" '\x1b[31mRED' "a model's escape sequence is shown escaped"
ok $(printf '%s' "$out" | grep -q "$(printf '\033')" && echo 1 || echo 0) \
    "no raw escape reaches the terminal"
like "$out" "[cut: " "a cut text is marked"
run "$UPSKILL" runs -d "$T/runs" --case 1 --json
like "$out" '"batch_id": "'"$batch"'"' "--json names the batch"
is "$(printf '%s\n' "$out" | grep -c '"case_index": 0')" 4 \
    "--json prints the four artifacts"
run "$UPSKILL" runs -d "$T/runs" --case 9
is "$rc" 3 "a case with no artifact exits 3"
like "$err" "no artifact for case 9" "and says so"
run "$UPSKILL" runs -d "$T/runs" --case 1 --best
is "$rc" 2 "--case with --best is a usage error"
run "$UPSKILL" runs -d "$T/runs" --case 0
is "$rc" 2 "--case 0 is a usage error"
like "$err" "--case must be a case number from 1, not 0" "and says so"

# --- a resumed batch: the journal's answers get artifacts too ---------------
rm -rf "$B"/run_* "$B/batch_summary.json"
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$T/runs" --resume "$batch"
like "$err" "resuming $batch: 8 of 12 jobs already done" \
    "the resume restores the answered conversations"
is "$(cat "$B"/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')" 12 \
    "the resumed batch has every artifact"
like "$(art 2 1)" \
    '{"role":"assistant","content":"GOOD ANSWER"' \
    "a restored conversation's artifact has its answer"

# --- generate's evaluations -------------------------------------------------
printf '' > "$T/cfg.yaml"
fake_start "$TOP/tests/fixtures/gen/plain.json"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
    "write commit messages" -m generic.teacher -o "$T/g/commit-helper" \
    --eval-model student --eval-base-url "$FAKE_URL/v1" --runs-dir "$T/gruns"
is "$rc" 0 "generate exits 0"
G="$T/gruns/$(ls "$T/gruns")"
nruns=$(ls -d "$G"/run_* | wc -l | tr -d ' ')
ncases=$(cat "$G"/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')
ok $([ "$nruns" -ge 2 ] && [ "$ncases" -ge "$nruns" ] && echo 0 || echo 1) \
    "generate's evaluations have artifacts ($ncases in $nruns runs)"
like "$(sed -n 1p "$G/run_1/cases/transcripts.jsonl")" '"attempt":1' \
    "generate's artifacts name the attempt"
missing=0
for d in "$G"/run_*; do
    n=$(sed 's/.*"cases_total": *\([0-9]*\).*/\1/;t;d' "$d/run_result.json")
    [ "$(wc -l < "$d/cases/transcripts.jsonl" | tr -d ' ')" = "$n" ] || missing=1
done
is "$missing" 0 "every run folder has one artifact per case"

done_testing
