#!/bin/sh
# upskill compare (docs/compare.md): a paired A/B of two versions of a
# skill on the same cases and repeats.  The fake student tells the
# versions apart by a marker in their bodies: with version A it fails the
# "hard" questions, with version B it passes every one, so B is better by
# construction; swapped, B is worse; a skill against itself is never
# better.  Agent mode installs each arm's skill in its workspace; the run
# log says which skill each arm ran; usage and input errors exit 2 and 3.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1620 UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

version() { # version DIR NAME MARKER
    mkdir -p "$1"
    printf -- '---\nname: %s\ndescription: A test skill, version %s. Use when asked a question.\n---\n\n# Student %s\n\nAnswer the question.\n' \
        "$2" "$3" "$3" > "$1/SKILL.md"
}
version a student VERSION-A
version b student VERSION-B
version c student VERSION-C
student() { # student MATCH-JSON MARKER P
    printf '{"match": %s, "student": {"marker": "%s", "p_with": %s, ' "$1" "$2" "$3"
    printf '"default": {"good": "GOOD ANSWER", "bad": "no idea"}}, '
    printf '"reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}'
}
{
    printf '{"seed": 5, "rules": [\n'
    printf '%s,\n' "$(student '{"system": "VERSION-B"}' VERSION-B 1)"
    printf '%s,\n' "$(student '{"system": "VERSION-A", "user": "hard"}' VERSION-A 0)"
    printf '%s,\n' "$(student '{"system": "VERSION-A"}' VERSION-A 1)"
    printf '%s,\n' "$(student '{"system": "VERSION-C"}' VERSION-C 0.5)"
    printf '%s]}\n' "$(student '{}' 'NO SKILL' 0)" # eval's baseline: never
} > "$T/s.json"
# 5 easy questions both versions pass, 25 hard ones only B passes
{
    printf '['
    for i in $(seq 1 5); do
        printf '{"input": "easy question %d", "expected": {"contains": ["GOOD"]}},' "$i"
    done
    for i in $(seq 1 25); do
        [ "$i" = 1 ] || printf ','
        printf '{"input": "hard question %d\\nwith a second line", ' "$i"
        printf '"expected": {"contains": ["GOOD"]}}'
    done
    printf ']\n'
} > "$T/t.json"
fake_start "$T/s.json"
URL1=$FAKE_URL

cmp_() { # cmp_ A B ARGS...
    _a=$1
    _b=$2
    shift 2
    run "$UPSKILL" compare "$_a" "$_b" -t "$T/t.json" -m stu \
        --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$T/runs" "$@"
}

# --- B is better -----------------------------------------------------------
cmp_ a b --no-cache
is "$rc" 0 "compare exits 0"
like "$out" "verdict: B is better: a lift of" "the verdict names B as better"
like "$out" "B - A: +83 points" "the lift is B - A: 50/60 pass with B, 10/60 with A"
like "$out" "cases that differ: 25 of 30" "the 25 hard cases differ"
like "$out" 'case 6 "hard question 1...": A 0/2, B 2/2 (+100 points)' \
    "a differing case: its number, input's first line, A's and B's passes"
is "$(printf '%s\n' "$out" | grep -c '^    case ')" 20 "the text lists 20 cases"
like "$out" "... 5 more (--json lists them all)" "then says how many more"
unlike "$out" "easy question" "cases where A and B agree are not listed"
like "$err" "Comparing A 'a' (student) with B 'b' (student)" "the start line names both skills"

cmp_ a b --no-cache --json
is "$rc" 0 "--json: exit 0"
is "$(printf '%s' "$out" | jq -r '.models[0].verdict + "|" + .models[0].verdict_label')" \
    "beneficial|B is better" "--json: the verdict and its A/B label"
is "$(printf '%s' "$out" | jq -r '.models[0].a.passed, .models[0].b.passed' | tr '\n' ' ')" \
    "10 60 " "--json: A's and B's passes"
is "$(printf '%s' "$out" | jq -r '.models[0].cases_differ | length')" 25 \
    "--json lists every differing case"
is "$(printf '%s' "$out" | jq -c '.models[0].cases_differ[0] | [.case, .a_passed, .a_runs, .b_passed, .b_runs, .diff]')" \
    "[6,0,2,2,2,1]" "--json: a differing case's counts"
is "$(printf '%s' "$out" | jq -r '.a.path + " " + .b.path + " " + .a.name')" \
    "a b student" "--json names both skills"
is "$(printf '%s' "$out" | jq -r '.models[0].lift > 0 and .models[0].p_value < 0.05')" \
    true "--json: a positive lift, significant"

# --- the run log -------------------------------------------------------------
batch=$(printf '%s' "$out" | jq -r .batch_id)
is "$(jq -r '.run_type + " " + .compare.arm + " " + .compare.skill_name' "$T/runs/$batch/run_1/run_result.json")" \
    "baseline A student" "run 1 is A's, in the baseline slot"
is "$(jq -r '.run_type + " " + .compare.arm' "$T/runs/$batch/run_2/run_result.json")" \
    "with_skill B" "run 2 is B's"
is "$(jq -r 'has("base_sha256")' "$T/runs/$batch/batch_plan.json")" true \
    "the batch's plan records skill A"
run "$UPSKILL" runs -d "$T/runs"
is "$rc" 0 "upskill runs reads compare batches"
like "$out" "student" "and lists the skill"
run "$UPSKILL" report "$T/runs/$batch" -o "$T/report.html"
is "$rc" 0 "upskill report reads a compare batch"
run "$UPSKILL" eval b -t "$T/t.json" -m stu --base-url "$FAKE_URL/v1" --runs 2 \
    --runs-dir "$T/runs" --resume "$batch"
is "$rc" 3 "an eval cannot resume a compare batch"
like "$err" "compared skill" "it says the compared skill differs"

cmp_ a b --no-cache --resume "$batch"
is "$rc" 0 "compare --resume of its own batch: exit 0"
like "$err" "120 of 120 jobs already done" "every conversation comes from the journal"
like "$out" "cases that differ: 25 of 30" "the resumed comparison reports the same"
cmp_ b a --no-cache --resume "$batch"
is "$rc" 3 "the skills swapped: the batch is refused"

printf 'prices:\n  stu: {input: 1, output: 2}\n' > "$T/priced.yaml"
UPSKILL_CONFIG="$T/priced.yaml"
cmp_ a b --no-cache
UPSKILL_CONFIG="$T/none.yaml"
like "$out" 'cost per passed case: A $0.000360, B $0.0000600' \
    "with prices: the cost per passed case of each skill"

# --- B is worse, and a skill against itself --------------------------------
cmp_ b a --no-cache --json
is "$(printf '%s' "$out" | jq -r '.models[0].verdict_label')" "B is worse" \
    "swapped: B is worse"
is "$(printf '%s' "$out" | jq -r '.models[0].lift < 0')" true "swapped: a negative lift"

cmp_ c c --no-cache --json
is "$rc" 0 "a skill against itself: exit 0"
v=$(printf '%s' "$out" | jq -r '.models[0].verdict')
case "$v" in no_effect | inconclusive) ok 0 "a skill against itself: $v" ;;
*) ok 1 "a skill against itself: $v, never beneficial or harmful" ;;
esac
cmp_ b b --no-cache
like "$out" "cases that differ: 0 of 30" "a skill that always passes: no case differs"
unlike "$out" "B is better" "nor is it better than itself"

# --- the cache: A's answers never come from a cached baseline ------------
run "$UPSKILL" eval b -t "$T/t.json" -m stu --base-url "$FAKE_URL/v1" --runs 2 \
    --no-log-runs --json
is "$rc" 0 "an eval of B fills the cache (baseline and B)"
cmp_ a b --json
is "$(printf '%s' "$out" | jq -r '.models[0].a.cached, .models[0].b.cached' | tr '\n' ' ')" \
    "0 60 " "A's requests differ from the cached baseline's; B's are eval's"
is "$(printf '%s' "$out" | jq -r '.models[0].a.passed')" 10 "A answered by the student, not the cache"

# --- agent mode: each arm's skill is installed in its workspace ------------
mkdir -p ag
for s in a b; do
    mkdir -p "ag/skill-$s"
    printf -- '---\nname: skill-%s\ndescription: Version %s of a test skill. Use when asked a question.\n---\n\n# Skill %s\n\nWrite the answer to answer.txt.\n' \
        "$s" "$s" "$s" > "ag/skill-$s/SKILL.md"
done
agrule() { # agrule SKILL P_GOOD: the student reads that skill, then writes
    printf '{"match": {"system": ".agents/skills/skill-%s/SKILL.md"}, ' "$1"
    printf '"agent": {"skill": "skill-%s", "file": "answer.txt", ' "$1"
    printf '"content": {"good": "GOOD ANSWER", "bad": "no idea"}, '
    printf '"p_good": {"none": 0, "skill": %s, "reference": %s}, ' "$2" "$2"
    printf '"answer": "done"}, "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}'
}
printf '{"rules": [%s, %s]}\n' "$(agrule b 1)" "$(agrule a 0)" > "$T/ag.json"
{
    printf '{"cases": ['
    for i in $(seq 1 8); do
        [ "$i" = 1 ] || printf ','
        printf '{"input": "question %d", "expected": {"contains": []}, ' "$i"
        printf '"assert": [{"type": "file-contains", "file": "answer.txt", "value": "GOOD"}]}'
    done
    printf ']}\n'
} > "$T/ta.json"
fake_start "$T/ag.json"
run "$UPSKILL" compare ag/skill-a ag/skill-b -t "$T/ta.json" -m stu --agent \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs-ag" --no-cache
is "$rc" 0 "agent mode: exit 0"
like "$out" "A: SKILL.md read in 8 of 8 conversations" \
    "A's folder is installed: the student read A's SKILL.md in its arm"
like "$out" "verdict: B is better" "agent mode: B is better"
like "$out" "cases that differ: 8 of 8" "agent mode: every case differs"
is "$(cat "$T"/runs-ag/*/run_1/run_result.json | jq -r .compare.skill_name)" skill-a \
    "agent mode: run 1 ran skill-a"

run "$UPSKILL" compare a b -t "$T/t.json" -m stu --base-url "$FAKE_URL/v1" \
    --no-cache --runs-dir "$T/runs-ag"
is "$rc" 4 "a model that answers nothing (no rule for chat): exit 4, as eval"
like "$err" "generic.stu" "the error names the model"

# --- usage and input errors ------------------------------------------------
run "$UPSKILL" compare a
is "$rc" 2 "SKILL_B missing: exit 2"
run "$UPSKILL" compare a b c
is "$rc" 2 "three skills: exit 2"
run "$UPSKILL" compare a b -m stu --inject catalog
is "$rc" 2 "--inject catalog without --agent: exit 2"
run "$UPSKILL" compare a nowhere -t "$T/t.json" -m stu --base-url "$URL1/v1"
is "$rc" 3 "a missing skill folder: exit 3"
run "$UPSKILL" compare a b -m stu --base-url "$URL1/v1"
is "$rc" 3 "no tests anywhere: exit 3"
like "$err" "no test cases in 'b' nor in 'a'" "it says neither skill has tests and how to give some"
printf '{"tests": %s}\n' "$(cat "$T/t.json")" > a/skill_meta.json
run "$UPSKILL" compare a b -m stu --base-url "$URL1/v1" --no-cache
is "$rc" 0 "B has no tests but A has: A's are used"
like "$err" "tests: 30 cases from 'a/skill_meta.json'" "the tests' source is said"

done_testing
