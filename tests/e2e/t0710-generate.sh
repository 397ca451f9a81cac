#!/bin/sh
# upskill generate against the fake server as teacher and student: a plain
# task, refinement that keeps the best version, invalid teacher output
# repaired or rejected, --from a skill folder and a trace, --no-eval, the
# teacher check, prompt overrides, --json, the min_tests / max_tests and
# max_answer_bytes config keys, Ctrl-C during a teacher call.  Scenarios:
# tests/fixtures/gen/.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
G="$TOP/tests/fixtures/gen"
G_BIG="$T/big.json"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# gen SCENARIO [ARGS...]: a fresh server and record, then generate with
# the teacher and one student on it.
gen() {
    sc=$1
    shift
    rm -f "$T/rec.jsonl"
    fake_start "$G/$sc.json" --record "$T/rec.jsonl"
    GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
        "write commit messages" -m generic.teacher "$@" \
        --eval-model student --eval-base-url "$FAKE_URL/v1"
}
nreq() { wc -l < "$T/rec.jsonl" | tr -d ' '; }
req() { sed -n "${1}p" "$T/rec.jsonl"; } # the Nth recorded request

# --- a plain task -----------------------------------------------------------
gen plain -o "$T/p/commit-helper" --runs-dir "$T/runs-p"
is "$rc" 0 "generate exits 0"
is "$(nreq)" 18 "1 skill + 1 tests + 2 models x 2 arms x 4 cases requests"
like "$(req 2)" '"json_schema"' "tests are asked for as structured output"
like "$out" "generic.teacher" "the report shows the teacher"
like "$out" "generic.student" "and the student side by side"
like "$out" "references/types.md" "the report lists each file"
like "$out" "~20 tokens" "with its token size"
like "$out" "lift +50 points" "and the eval engine's statistics"
run "$UPSKILL" validate "$T/p/commit-helper"
is "$rc" 0 "the generated skill passes upskill validate"
is "$(grep -c '"input"' "$T/p/commit-helper/skill_meta.json")" 4 \
    "its 4 tests are in skill_meta.json"
like "$(cat "$T/p/commit-helper/skill_meta.json")" '"test_pass_rate": 1.0' \
    "the teacher's with-skill rate is recorded"
batch=$(ls "$T/runs-p")
is "$(ls "$T/runs-p/$batch" | grep -c '^run_')" 4 "a run per model and arm"
like "$(cat "$T/runs-p/$batch/run_4/run_result.json")" '"attempt": 1' \
    "runs record their attempt"
unlike "$(cat "$T/runs-p/$batch/run_1/run_metadata.json")" "Based on" \
    "the task is logged as given"
fake_start "$G/plain.json" --record "$T/rec-e.jsonl"
run "$UPSKILL" eval "$T/p/commit-helper" -m student --base-url "$FAKE_URL/v1" \
    --no-log-runs
is "$rc" 0 "upskill eval runs on the generated skill"
like "$err" "4 case(s)" "with the tests generate saved"
run "$UPSKILL" runs -d "$T/runs-p"
like "$out" "commit-helper" "upskill runs reads generate's log"

# --- its evaluations cut answers at max_answer_bytes, as eval's -------------
# The student's good answers end in ANSWER after 6000 bytes: whole they
# pass, cut at 2048 bytes they fail.
big=$(head -c 6000 /dev/zero | tr '\0' 'x')
sed "s/\"good\": \"GOOD ANSWER\"/\"good\": \"GOOD $big ANSWER\"/" \
    "$G/plain.json" > "$G_BIG"
printf 'max_answer_bytes: 2048\n' > "$T/cap.yaml"
for cap in none cap; do
    fake_start "$G_BIG"
    UPSKILL_CONFIG="$T/$cap.yaml" GENERIC_BASE_URL="$FAKE_URL/v1" run \
        "$UPSKILL" generate "write commit messages" -m generic.teacher \
        --eval-model student --eval-base-url "$FAKE_URL/v1" --max-refine 1 \
        -o "$T/cap-$cap/commit-helper" --no-log-runs
    is "$rc" 0 "generate with long answers exits 0 ($cap)"
done
like "$(cat "$T/cap-none/commit-helper/skill_meta.json")" \
    '"test_pass_rate": 1.0' "uncut, the long answers pass"
like "$(cat "$T/cap-cap/commit-helper/skill_meta.json")" \
    '"test_pass_rate": 0.0' "cut at max_answer_bytes, they fail as eval's do"

# --- refinement keeps the best version --------------------------------------
gen keep-best -o "$T/b/commit-helper" --runs-dir "$T/runs-b" --max-refine 2
is "$rc" 0 "generate with a worse refinement exits 0"
like "$(cat "$T/b/commit-helper/SKILL.md")" "SKILL-V1" "attempt 1 is kept"
unlike "$(cat "$T/b/commit-helper/SKILL.md")" "SKILL-V2" "attempt 2 is not"
like "$out" "1. mean lift +0%, with skill 50%  (kept)" "the report says so"
is "$(nreq)" 27 "the baseline runs once: attempt 2 costs 1 refine + 8 requests"
refine=$(grep 'A skill you wrote was tested' "$T/rec.jsonl")
like "$refine" "documentation only" "the refine prompt has the whole skill"
like "$refine" "hard case 3" "and every failure"
like "$refine" "hard case 4" "(all of them)"
like "$refine" "generic.student" "driven by the student's failures"
batch=$(ls "$T/runs-b")
is "$(cat "$T"/runs-b/$batch/run_*/run_result.json | grep -c '"attempt": 2')" 4 \
    "the run log records attempt 2 too"
like "$(cat "$T/runs-b/$batch/batch_summary.json")" '"kept_attempt": 1' \
    "batch_summary.json says which attempt was kept"

# --- one loop for the whole command: its connection is kept -----------------
# Serially (-j 1) the 3 teacher turns (skill, tests, refine) and the 24
# evaluations between them all ride one connection of the command's loop
# (the record's "conn" numbers the server's connections).
gen keep-best -o "$T/k/commit-helper" --no-log-runs --max-refine 2 -j 1
is "$rc" 0 "generate -j 1 exits 0"
is "$(grep -o '"rule":"[a-z]*"' "$T/rec.jsonl" | tr '\n' ' ')" \
    '"rule":"skill" "rule":"tests" "rule":"refine" ' \
    "3 teacher turns (skill, tests, refine)"
is "$(grep -o '"conn":[0-9]*' "$T/rec.jsonl" | sort -u | tr '\n' ' ')" \
    '"conn":1 ' "every request of the command came on one connection"

# --- invalid teacher output: repaired ---------------------------------------
gen repair -o "$T/r/commit-helper" --no-log-runs
is "$rc" 0 "an invalid reply is repaired"
like "$err" "name-not-lowercase" "the errors are shown"
like "$(req 2)" "Missing required field in frontmatter: description" \
    "and sent back to the teacher"
like "$(req 2)" "path must stay inside the folder" "unsafe paths too"
run "$UPSKILL" validate "$T/r/commit-helper"
is "$rc" 0 "the repaired skill (a fenced bare SKILL.md) is valid"
unlike "$(cat "$T/r/commit-helper/SKILL.md")" '```markdown' "fences stripped"
unlike "$(cat "$T/r/commit-helper/SKILL.md")" 'Hope this helps' "prose dropped"
ok "$(find "$T" -name escape.md | grep -c .)" "no file escaped the folder"

# --- invalid teacher output: rejected ---------------------------------------
gen reject -o "$T/x/commit-helper" --no-log-runs
is "$rc" 3 "an output that stays invalid exits 3"
like "$err" "still invalid after 2 repair(s)" "with a clear message"
like "$err" "neither the JSON object asked for nor a SKILL.md" "saying why"
is "$(nreq)" 3 "the reply was sent back twice"
ok "$([ -e "$T/x" ] && echo 1 || echo 0)" "nothing is saved"

# --- --from a skill folder ---------------------------------------------------
cp -R "$G/improve/commit-helper" "$T/src"
SKILLS=$T/skills-i
printf 'skills_dir: %s\n' "$SKILLS" > "$T/cfg-i.yaml"
UPSKILL_CONFIG="$T/cfg-i.yaml" gen improve -f "$T/src" --no-log-runs \
    -e "fix a typo -> docs: fix typo in README"
is "$rc" 0 "--from DIR improves a skill"
like "$err" "Improving commit-helper" "auto-detected as a folder"
like "$(req 1)" "Write a short summary line" "the teacher sees the old skill"
like "$(req 1)" "docs: fix typo in README" "and the -e examples"
unlike "$(cat "$T/rec.jsonl")" "You write test cases" "no tests are generated"
meta=$(cat "$SKILLS/commit-helper/skill_meta.json")
is "$(printf '%s' "$meta" | grep -c 'kept test')" 3 "its tests are kept"
like "$meta" '"version": "1.2"' "its metadata is kept"
like "$meta" '"source_task": "write commit messages"' "its source task too"
like "$(cat "$SKILLS/commit-helper/SKILL.md")" "license: MIT" \
    "frontmatter the teacher left out is kept"

# --- --from a trace file -------------------------------------------------------
{
    echo "# Session: commit messages"
    i=0
    while [ $i -lt 80 ]; do
        echo "assistant: running git diff --stat and reading hunk $i of the change"
        i=$((i + 1))
    done
    echo "user: no, that is wrong. DECISIVE-CORRECTION-42: use the type fix for bug fixes"
} > "$T/trace.md"
ok "$([ "$(grep -b DECISIVE "$T/trace.md" | cut -d: -f1)" -gt 4000 ] && echo 0 || echo 1)" \
    "the trace's correction sits after its first 4,000 characters"
gen plain -f "$T/trace.md" -o "$T/t/commit-helper" --no-log-runs
is "$rc" 0 "--from FILE generates from a trace"
like "$err" "from trace" "auto-detected as a trace"
like "$(req 1)" "DECISIVE-CORRECTION-42" "the correction reaches the teacher's prompt"
like "$(cat "$T/t/commit-helper/skill_meta.json")" \
    '"source_task": "write commit messages"' "the trace is not copied into the task"

gen plain -f "$TOP/tests/fixtures/traces/claude-code.jsonl" --no-eval \
    -o "$T/cc/commit-helper"
is "$rc" 0 "--from a Claude Code session (JSONL)"
like "$err" "claude-code" "its format is detected"
like "$(req 1)" "formatUser fails with a crash" "the user's request reaches the teacher"
unlike "$(req 1)" "sessionId" "as a rendered trace, not raw JSON"

# --- --no-eval ------------------------------------------------------------------
gen plain -o "$T/n/commit-helper" --no-eval --runs-dir "$T/runs-n"
is "$rc" 0 "--no-eval exits 0"
is "$(nreq)" 1 "one request: the skill"
ok "$([ -e "$T/runs-n" ] && echo 1 || echo 0)" "no empty batch folder"
run "$UPSKILL" validate "$T/n/commit-helper"
is "$rc" 0 "the skill is saved and valid"

# --- the teacher check -----------------------------------------------------------
gen miscapture -o "$T/m/commit-helper" --no-log-runs --max-refine 1
is "$rc" 0 "a skill that hurts the teacher still finishes"
like "$out" "mis-captures the task" "and the drop is reported as such"

# --- prompts_dir overrides one prompt ---------------------------------------------
mkdir -p "$T/prompts"
printf 'CUSTOM-PROMPT Write a skill for: {{task}}\n' > "$T/prompts/generate.md"
printf 'prompts_dir: %s\n' "$T/prompts" > "$T/cfg-p.yaml"
UPSKILL_CONFIG="$T/cfg-p.yaml" gen plain -o "$T/o/commit-helper" --no-eval
is "$rc" 0 "generate with a prompt override"
like "$(req 1)" "CUSTOM-PROMPT Write a skill for: write commit messages" \
    "the override is used"
like "$(req 1)" "You are a skill author" "the other prompts stay built in"

# --- --json: one document on stdout ------------------------------------------------
gen keep-best -o "$T/j/commit-helper" --runs-dir "$T/runs-j" --max-refine 2 --json
is "$rc" 0 "generate --json exits 0"
like "$err" "Evaluating... (attempt 2)" "progress stays on stderr"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["skill"]["name"] == "commit-helper", d["skill"]
assert d["skill"]["path"].endswith("/j/commit-helper")
assert [f["path"] for f in d["skill"]["files"]] == ["SKILL.md", "references/types.md"]
assert d["skill"]["tests"] == 4
assert d["kept_attempt"] == 1 and d["stop"] == "limit", d["stop"]
a = d["attempts"]
assert [x["attempt"] for x in a] == [1, 2] and a[0]["kept"] and not a[1]["kept"]
m = a[0]["models"]
assert [x["role"] for x in m] == ["teacher", "student"]
assert m[1]["model"] == "generic.student" and "verdict" in m[1]
assert m[1]["lift"] == 0.0, m[1]["lift"]
u = d["usage"]
assert u["teacher"]["calls"] == 2 and u["test_gen"]["calls"] == 1, u
assert [e["calls"] for e in u["eval"]] == [12, 12], u["eval"]
assert u["teacher"]["input_tokens"] > 0
assert d["run_log"].endswith(d["batch_id"])'
    ok $? "--json has the skill, every attempt per model, usage per role and the run log"
else
    echo "ok - # skip python3 not available"
fi
like "$out" "\"run_log\": \"$T/runs-j/" "the run log's folder is in the document"

# --- min_tests / max_tests from the config ------------------------------------------
printf 'min_tests: 2\nmax_tests: 3\n' > "$T/cfg-t.yaml"
UPSKILL_CONFIG="$T/cfg-t.yaml" gen plain -o "$T/c/commit-helper" --no-log-runs
is "$rc" 0 "generate with min_tests and max_tests in the config"
like "$(req 2)" "Write between 2 and 3 cases" "the test-gen prompt asks for them"
like "$err" "1 case(s) over the limit of 3 dropped" "max_tests caps the cases kept"
is "$(grep -c '"input"' "$T/c/commit-helper/skill_meta.json")" 3 \
    "three tests are saved"
UPSKILL_CONFIG="$T/cfg-t.yaml" gen plain -o "$T/c2/commit-helper" --no-log-runs \
    --max-tests 4
like "$(req 2)" "Write between 2 and 4 cases" "--max-tests beats the config"
UPSKILL_CONFIG="$T/cfg-t.yaml" run "$UPSKILL" config
like "$out" "max_tests" "upskill config shows the key"
like "$out" "cfg-t.yaml:2" "and where it came from"
printf 'max_tests: 2\nmin_tests: 5\n' > "$T/cfg-bad.yaml"
UPSKILL_CONFIG="$T/cfg-bad.yaml" run "$UPSKILL" generate "x" --no-eval
is "$rc" 3 "min_tests above max_tests in the config is bad input"
like "$err" "cfg-bad.yaml':2: min_tests: 5 is above max_tests (2, line 1)" \
    "named with file and line"
run "$UPSKILL" generate "x" --min-tests 9 --max-tests 4
is "$rc" 2 "--min-tests above --max-tests is a usage error"

# --- Ctrl-C during a teacher call -------------------------------------------------
# slow N SCENARIO: the scenario with its Nth reply held for 20 s.
slow() {
    awk -v n="$1" '/"reply": \{/ { if (++k == n) sub(/"reply": \{/, "\"reply\": {\"delay_ms\": 20000,") } { print }' \
        "$G/$2.json" > "$T/slow.json"
}
# gen_bg ARGS...: generate in the background on $T/slow.json; its pid
# goes to $T/bg.pid, its exit code to $T/bg.rc once it ends.
gen_bg() {
    rm -f "$T/rec.jsonl" "$T/bg.pid" "$T/bg.rc"
    fake_start "$T/slow.json" --record "$T/rec.jsonl"
    (
        GENERIC_BASE_URL="$FAKE_URL/v1" "$UPSKILL" generate \
            "write commit messages" -m generic.teacher "$@" \
            --eval-model student --eval-base-url "$FAKE_URL/v1" \
            > "$T/bg.out" 2> "$T/bg.err" &
        echo $! > "$T/bg.pid"
        wait $!
        echo $? > "$T/bg.rc"
    ) &
    bg_sub=$!
}
# wait_for CMD...: poll CMD for up to 10 s; false when it never held.
wait_for() {
    _w=0
    until "$@"; do
        [ $_w -ge 100 ] && return 1
        _w=$((_w + 1))
        sleep 0.1
    done
}
# interrupt PATTERN: once the server has recorded a request with PATTERN,
# Ctrl-C the generate; rc is its exit code, or "still running" after 5 s.
interrupt() {
    wait_for grep -q "$1" "$T/rec.jsonl"
    wait_for test -s "$T/bg.pid"
    kill -INT "$(cat "$T/bg.pid")"
    _w=0
    while [ ! -s "$T/bg.rc" ] && [ $_w -lt 50 ]; do
        _w=$((_w + 1))
        sleep 0.1
    done
    if [ -s "$T/bg.rc" ]; then
        rc=$(cat "$T/bg.rc")
    else
        rc="still running"
        kill -KILL "$(cat "$T/bg.pid")" 2>/dev/null
    fi
    wait "$bg_sub" # not a bare wait: the fake server runs in the background
    err=$(cat "$T/bg.err")
    out=$(cat "$T/bg.out")
}
tmp_files() { find "$T" -name '*.tmp.*' | grep -c .; }

slow 1 plain # the first teacher call
gen_bg -o "$T/i/commit-helper" --runs-dir "$T/runs-i"
interrupt "Write a skill"
is "$rc" 130 "Ctrl-C during the teacher's call exits 130 at once"
like "$err" "upskill: error: interrupted before the teacher wrote a skill; nothing saved" \
    "with a clear message"
is "$(printf '%s\n' "$err" | grep -c interrupted)" 1 "said once"
is "$(nreq)" 1 "no further request was sent"
ok "$([ -e "$T/i" ] || [ -e "$T/runs-i" ] && echo 1 || echo 0)" \
    "no skill folder and no run log were written"
is "$(tmp_files)" 0 "no half-written files"

gen_bg -o "$T/ij/commit-helper" --runs-dir "$T/runs-ij" --json
interrupt "Write a skill"
is "$rc" 130 "--json, Ctrl-C before any skill: exit 130"
like "$out" '"skill": null' "--json still prints a document, with no skill"
like "$out" '"stop": "interrupted"' "saying it was interrupted"
like "$out" '"error": "interrupted before the teacher wrote a skill' \
    "and why nothing was saved"

slow 2 keep-best # the refinement call, after attempt 1 is evaluated
gen_bg -o "$T/ir/commit-helper" --runs-dir "$T/runs-ir" --max-refine 2 --json
interrupt "A skill you wrote was tested"
is "$rc" 130 "Ctrl-C during the refinement exits 130 at once"
like "$err" "interrupted; the best version so far is saved to '$T/ir/commit-helper', finished attempts to '$T/runs-ir/" \
    "saying what was kept"
unlike "$err" "Stopped:" "in one line"
like "$out" '"stop": "interrupted"' "--json still prints the document"
like "$(cat "$T/ir/commit-helper/SKILL.md")" "SKILL-V1" "attempt 1 is saved"
is "$(grep -c '"input"' "$T/ir/commit-helper/skill_meta.json")" 4 "with its tests"
run "$UPSKILL" validate "$T/ir/commit-helper"
is "$rc" 0 "and it is valid"
batch=$(ls "$T/runs-ir")
is "$(ls "$T/runs-ir/$batch" | grep -c '^run_')" 4 "attempt 1 is in the run log"
like "$(cat "$T/runs-ir/$batch/batch_summary.json")" '"stop": "interrupted"' \
    "batch_summary.json says it was interrupted"
is "$(tmp_files)" 0 "no half-written files"

# --- usage ----------------------------------------------------------------------
run "$UPSKILL" generate "x" --eval-base-url http://127.0.0.1:1/v1
is "$rc" 2 "--eval-base-url without --eval-model is a usage error"
run "$UPSKILL" generate "x" -f "$T/nope"
is "$rc" 2 "a missing --from path is a usage error (upstream's click path)"
like "$err" "-f/--from '$T/nope' does not exist" "and is named"

done_testing
