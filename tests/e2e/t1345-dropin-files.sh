#!/bin/sh
# What upskill writes, as upstream upskill writes it (issue 25): the
# "passed" of generate's --eval-model runs follows upstream's lift rule,
# benchmark mode's metadata.run_number restarts per model, run stamps are
# local time without a zone, the CSV ends rows with CRLF, and a skill
# whose tests carry assertions loads in upstream's schema (the check in
# tests/e2e/lib.sh's done_testing) and back here with its assertions.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# The skill, four tests (case 1 also asserts with our extension), and a
# student that passes cases 1-3 with the skill and only case 1 without.
cat > "$T/s.json" <<'JSON'
{"rules": [
 {"name": "skill", "match": {"system": "You are a skill author"},
  "reply": {"text": "{\"files\": {\"SKILL.md\": \"---\\nname: note-writer\\ndescription: Writes release notes. Use when asked for release notes.\\n---\\n\\n# Notes\\n\\nSKILL-V1: answer GOOD ANSWER.\\n\"}}"}},
 {"name": "tests", "match": {"system": "You write test cases"},
  "reply": {"text": "{\"cases\": [{\"input\": \"case 1: notes\", \"expected\": {\"contains\": [\"GOOD\", \"ANSWER\"]}, \"assert\": [{\"type\": \"contains\", \"value\": \"ANSWER\"}]}, {\"input\": \"case 2: notes\", \"expected\": {\"contains\": [\"GOOD\", \"ANSWER\"]}}, {\"input\": \"case 3: notes\", \"expected\": {\"contains\": [\"GOOD\", \"ANSWER\"]}}, {\"input\": \"case 4: notes\", \"expected\": {\"contains\": [\"GOOD\", \"ANSWER\"]}}]}"}},
 {"match": {"system": "SKILL-V1"},
  "student": {"p_with": 1, "p_without": 1,
              "answers": {"case 4": {"good": "no idea", "bad": "no idea"}},
              "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 100, "output_tokens": 20}}},
 {"student": {"p_with": 0, "p_without": 0,
              "answers": {"case 1": {"good": "GOOD ANSWER", "bad": "GOOD ANSWER"}},
              "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 100, "output_tokens": 20}}}
]}
JSON
fake_start "$T/s.json"

# --- generate --eval-model: upstream's lift rule ------------------------------
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write release notes" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    --max-refine 1 -o "$T/skills/note-writer" --runs-dir "$T/runs-g"
is "$rc" 0 "generate exits 0"; [ "$rc" = 0 ] || echo "# $err"
g="$T/runs-g/$(ls "$T/runs-g")"
# runs: teacher baseline, teacher with, student baseline, student with
r() { cat "$g/run_$1/run_result.json"; }
like "$(r 2)" '"passed": true' "the teacher's 3/4 against 1/4 passes (lift)"
like "$(r 4)" '"passed": true' "so does the --eval-model run (upstream's rule)"
like "$(r 4)" '"all_cases_passed": false' "our stricter notion stays false"
like "$(r 3)" '"passed": false' "a 1/4 baseline does not pass (not above 50%)"
like "$(r 4)" '"run_number": 4' "generate's run_number is the folder's"

# --- the skill saved: upstream's schema, and our assertions back --------------
m="$T/skills/note-writer/skill_meta.json"
is "$(python3 -c 'import json,sys; print(sum("assert" in t for t in json.load(open(sys.argv[1]))["tests"]))' "$m")" 0 \
    "no assertion inside upstream's tests"
like "$(cat "$m")" '"upskill_c": {' "they are beside them"
python3 "$TOP/tests/fake/upstream_schema.py" "$T/skills/note-writer" \
    > "$T/schema.txt" 2>&1
ok $? "upstream's schema loads the skill: $(head -3 "$T/schema.txt")"
run "$UPSKILL" eval "$T/skills/note-writer" -m student \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs-e"
is "$rc" 0 "eval reads the skill back"
like "$err" "4 case(s)" "its four tests"
like "$(cat "$T"/runs-e/*/run_2/cases/transcripts.jsonl)" \
    '"type":"contains","name":null,"value":"ANSWER"' \
    "and case 1's assertion, graded"

# --- runs: a baseline borrowed from an earlier batch is marked -----------------
first=$(ls "$T/runs-e")
run "$UPSKILL" eval "$T/skills/note-writer" -m student \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs-e" --no-baseline
is "$rc" 0 "a second eval without a baseline"
run "$UPSKILL" runs -d "$T/runs-e"
like "$out" "(batch $first)" "runs names the batch its baseline comes from"
run "$UPSKILL" runs -d "$T/runs-e" --json
like "$out" "\"baseline_batch_id\": \"$first\"" "so does runs --json"

# --- upstream's benchmark mode: metadata.run_number per model -------------------
run "$UPSKILL" eval "$T/skills/note-writer" -m student -m other \
    --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$T/runs-b"
is "$rc" 0 "eval of two models, two runs"
b="$T/runs-b/$(ls "$T/runs-b")"
nums=""
for i in 1 2 3 4 5 6 7 8; do
    n=$(sed -n 's/.*"run_number": \([0-9]*\).*/\1/p' "$b/run_$i/run_metadata.json")
    nums="$nums$n"
done
is "$nums" "11221122" "run_number restarts per model (the folders go 1-8)"
stamp=$(sed -n 's/.*"timestamp": "\([^"]*\)".*/\1/p' "$b/run_1/run_metadata.json")
case "$stamp" in
*Z | *+* ) ok 1 "local time without a zone: $stamp" ;;
[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*)
    ok 0 "local time without a zone, as upstream: $stamp" ;;
*) ok 1 "a timestamp: $stamp" ;;
esac

# --- runs --csv: CRLF rows -----------------------------------------------------
run "$UPSKILL" runs -d "$T/runs-b" --csv "$T/r.csv"
is "$rc" 0 "runs --csv"
is "$(tr -cd '\r' < "$T/r.csv" | wc -c | tr -d ' ')" \
    "$(wc -l < "$T/r.csv" | tr -d ' ')" "every row ends with CRLF"
done_testing
