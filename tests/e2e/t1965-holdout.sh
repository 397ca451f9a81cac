#!/bin/sh
# generate keeps held-out cases (docs/generate.md, "Held-out cases"): of 6
# tests, 2 are held out by the seed; a scripted teacher whose refinement
# quotes the failing tests' expected strings raises the training lift to
# +100 while the held-out lift stays 0, and that refinement is flagged
# as giving its tests away and not kept; no refine request carries a
# held-out case's input or expected string; the lift printed and saved
# is the held-out one, the training figure shown apart; --json names the
# held-out cases; --holdout 0 warns.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

skill() { # skill BODY: the teacher's reply, a skill saying BODY
    printf '{"files": {"SKILL.md": "---\\nname: code-helper\\ndescription: Says the code of an item. Use when asked for an item code.\\n---\\n\\n# Codes\\n\\n%s\\n"}}' "$1" | jq -Rs .
}
scenario() { # scenario REFINED-BODY
    _cases=
    for i in 1 2 3 4 5 6; do
        _cases="$_cases${_cases:+, }{\"input\": \"item $i: say its code\", \"expected\": {\"contains\": [\"CODE-$i\", \"OK\"]}}"
    done
    _students=
    for i in 1 2 3 4 5 6; do
        _students="$_students{\"match\": {\"user\": \"item $i:\", \"system\": \"CODE-$i\"}, \"reply\": {\"text\": \"OK CODE-$i\"}},"
    done
    cat <<JSON
{"seed": 1, "rules": [
 {"name": "skill", "match": {"system": "You are a skill author", "user": "Write a skill"}, "reply": {"text": $(skill "Look the code up. SKILL-V1")}},
 {"name": "refine", "match": {"system": "You are a skill author", "user": "A skill you wrote was tested"}, "reply": {"text": $(skill "$1")}},
 {"name": "tests", "match": {"system": "You write test cases"}, "reply": {"text": $(printf '{"cases": [%s]}' "$_cases" | jq -Rs .)}},
 $_students
 {"name": "other", "reply": {"text": "no idea"}}]}
JSON
}
gen() { # gen ARGS...: generate with the teacher and one student
    GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "say item codes" \
        -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
        --no-cache "$@"
}

# which cases the seed holds out (one attempt: no refinement yet)
scenario "SKILL-V2" >"$T/s0.json"
fake_start "$T/s0.json"
gen -o "$T/first" --runs-dir "$T/runs0" --max-refine 1 --json
is "$rc" 0 "generate exits 0"
printf '%s\n' "$out" >"$T/first.json"
is "$(jq -r '.holdout | "\(.status) \(.tests) \(.training_cases) \(.held_out_cases | length)"' "$T/first.json")" \
    "held_out 6 4 2" "--json: 2 of 6 tests held out, 4 to train on"
held=$(jq -r '.holdout.held_out_cases | map(. + 1) | join(" ")' "$T/first.json")
train=
for i in 1 2 3 4 5 6; do
    case " $held " in *" $i "*) ;; *) train="$train $i" ;; esac
done
# the refinement quotes the expected string of every case it was shown
quote=
for i in $train; do quote="$quote CODE-$i"; done
kill "$FAKE_PID"
scenario "Answer with the code:$quote." >"$T/s.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"
gen -o "$T/out" --runs-dir "$T/runs" --max-refine 2 --json
is "$rc" 0 "generate with a refinement exits 0"
printf '%s\n' "$out" >"$T/gen.json"
is "$held" "3 5" "seed 1 holds out cases 3 and 5 of 6 (docs/generate.md)"
is "$(jq -r '.holdout.held_out_cases | map(. + 1) | join(" ")' "$T/gen.json")" "$held" \
    "the split is the seed's: the same cases held out"
is "$(jq -r '.attempts[1].score' "$T/gen.json")" 1 \
    "the quoting refinement's training lift is +100 points"
is "$(jq -r '.attempts[1].quoting' "$T/gen.json")" true "it is flagged as giving its tests away"
is "$(jq -r '.attempts[1].quotes' "$T/gen.json")" \
    "$(for i in $train; do printf 'case %s (the skill holds its expected string "CODE-%s"); ' "$i" "$i"; done | sed 's/; $//')" \
    "... naming each training case it quotes"
like "$err" "attempt 2 gives away 4 of its tests, so it is not kept" "stderr says so"
is "$(jq -r .kept_attempt "$T/gen.json")" 1 "the quoting refinement is not kept"
is "$(jq -r '[.holdout.models[].lift] | map(tostring) | join(" ")' "$T/gen.json")" "0 0" \
    "its held-out lift is 0 for the teacher and the student"
# the teacher's refine request: training failures only
jq -r 'select(.body.messages[-1].content | test("A skill you wrote was tested")) | .body.messages[-1].content' \
    "$T/rec.jsonl" >"$T/refine.txt"
ok "$([ -s "$T/refine.txt" ]; echo $?)" "the teacher was asked to refine"
leak=
for i in $held; do
    grep -q "item $i:\|CODE-$i" "$T/refine.txt" && leak="$leak $i"
done
is "$leak" "" "no held-out input or expected string reaches the teacher"
first_train=$(echo $train | cut -d' ' -f1)
like "$(cat "$T/refine.txt")" "item $first_train: say its code" \
    "the refine request shows the training failures"
is "$(jq '.tests | length' "$T/out/skill_meta.json")" 6 \
    "every test is saved, the held-out ones too"
like "$(cat "$T/out/skill_meta.json")" '"test_pass_rate": 0' \
    "the pass rate saved is the held-out one"

# the text: the held-out figures, the training figure apart; the
# quoting attempt marked
kill "$FAKE_PID"
fake_start "$T/s.json"
gen -o "$T/out2" --runs-dir "$T/runs2" --max-refine 2
is "$rc" 0 "the text run exits 0"
like "$out" "training cases (4 of 6 tests): refined and chose the kept version, so its lift here is biased upward" \
    "the training figure is labelled as such"
like "$out" "held-out cases (2 of 6 tests: $(echo $held | sed 's/ /, /')): never shown to the teacher" \
    "the held-out cases are named"
like "$out" "2. mean lift +100%, with skill 100%  (gives away its tests: not kept)" \
    "the attempts list marks the quoting refinement"
like "$out" "Saved to $T/out2
Tests: 6 test case(s) in skill_meta.json, 2 of them held out" \
    "the save line says how many were held out"

gen -o "$T/out3" --runs-dir "$T/runs3" --max-refine 1 --holdout 0 --json
is "$rc" 0 "--holdout 0 runs"
like "$err" "--holdout 0: no test is held out" "--holdout 0 warns"
is "$(printf '%s' "$out" | jq -r '.holdout | "\(.status) \(.models)"')" "holdout_0 null" \
    "--holdout 0: no held-out figures"

done_testing
