#!/bin/sh
# upskill runs for a newcomer (issue 34 item 5): a later eval whose model
# answered nothing (a typo in the base URL) does not turn a good cell into
# "errored"; a compare batch is labelled A/B, not baseline/with skill; -m
# matches the name as typed (llama-3.1-8b finds generic.llama-3.1-8b); no
# match lists the models and skills there are.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml" OPENAI_API_KEY=sk-e2e-1983
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [
 {"match": {"system": "VERSION-B"}, "student": {"marker": "VERSION-B", "p_with": 1,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"match": {"system": "VERSION-A"}, "student": {"marker": "VERSION-A", "p_with": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"student": {"p_with": 1, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json"
printf '[{"input": "q1", "expected": {"contains": ["GOOD"]}}, {"input": "q2", "expected": {"contains": ["GOOD"]}}]\n' > "$T/t.json"

run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m llama-3.1-8b \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "a good eval: 0% -> 100%"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m llama-3.1-8b \
    --base-url "http://127.0.0.1:1/v1" --runs-dir "$T/runs"
is "$rc" 4 "then one whose base URL has a typo: nothing answered"
is "$(ls "$T/runs" | wc -l | tr -d ' ')" 2 "(two batches)"

run "$UPSKILL" runs -d "$T/runs"
is "$rc" 0 "runs exits 0"
unlike "$out" "errored" "the failed batch does not hide the good one"
like "$out" "100%" "the good result is shown"

# --- -m as typed ------------------------------------------------------------
run "$UPSKILL" runs -d "$T/runs" -m llama-3.1-8b
like "$out" "generic.llama-3.1-8b" "-m llama-3.1-8b finds generic.llama-3.1-8b"
unlike "$out" "No results match" "(a match)"
run "$UPSKILL" runs -d "$T/runs" -m llama-3.1-8b --json
like "$out" '"model": "generic.llama-3.1-8b"' "in --json too"
run "$UPSKILL" runs -d "$T/runs" -m llama-3.1-8b --csv "$T/r.csv"
like "$(cat "$T/r.csv")" "generic.llama-3.1-8b" "and in --csv"

# --- no match: what there is ------------------------------------------------
run "$UPSKILL" runs -d "$T/runs" -m nosuch-model
like "$out" "No results match the specified filters." "no match says so"
like "$out" "Models in '$T/runs': generic.llama-3.1-8b" "and lists the models there are"
like "$out" "Skills in '$T/runs': " "and the skills"

# --- a compare batch is A/B ---------------------------------------------------
version() { # version DIR MARKER
    mkdir -p "$1"
    printf -- '---\nname: student\ndescription: A test skill, version %s. Use when asked a question.\n---\n\n# Student %s\n\nAnswer the question.\n' \
        "$2" "$2" > "$1/SKILL.md"
}
version "$T/a" VERSION-A
version "$T/b" VERSION-B
run "$UPSKILL" compare "$T/a" "$T/b" -t "$T/t.json" -m cmpstu \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "a compare batch"
run "$UPSKILL" runs -d "$T/runs" -m cmpstu
like "$out" "compare: A = student, B = student" "runs names the compare's arms"
like "$out" "skill A " "labels the first arm A"
like "$out" "skill B " "and the second B"
unlike "$out" "with skill" "not 'with skill'"
unlike "$out" "baseline" "nor 'baseline'"
mkdir -p "$T/other" # a second skill: the matrix view
printf -- '---\nname: other\ndescription: Another test skill. Use when asked a question.\n---\n\n# Other\n' \
    > "$T/other/SKILL.md"
run "$UPSKILL" eval --no-cache "$T/other" -t "$T/t.json" -m llama-3.1-8b \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
run "$UPSKILL" runs -d "$T/runs"
like "$out" "Skill Performance Matrix" "(the matrix)"
like "$out" "A 0%→B 100%" "the matrix cell says A and B"
run "$UPSKILL" runs -d "$T/runs" -m cmpstu --json
like "$out" '"compare": {' "--json marks the compare batch"

done_testing
