#!/bin/sh
# Upstream users' files work unchanged: a SKILL.md with upstream's unquoted
# "key: value" (list, eval, validate), alias-named run history (runs -m),
# a skill-creator skill with evals/evals.json (eval, judged rubrics), and
# the version in --version, the User-Agent and run metadata.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
C="$FIX/compat"
export OPENAI_API_KEY=sk-PLANTED-e2e-1300 UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1
version=$(sed -n 's/^#define UPSKILL_VERSION "\(.*\)"$/\1/p' \
    "$TOP/include/upskill/version.h")

# --- --version: the one place ---------------------------------------------
run "$UPSKILL" --version
is "$out" "upskill $version" "--version prints include/upskill/version.h's value"

# --- upstream's unquoted frontmatter ---------------------------------------
run "$UPSKILL" list -d "$C/skills"
is "$rc" 0 "list loads upstream's unquoted 'description: Use when: ...'"
like "$out" "Use when: writing a pull request description" \
    "the value is read as upstream reads it"
like "$err" "pr-writer/SKILL.md':3: invalid YAML (mapping values are not allowed" \
    "a warning names the file and the line"
like "$err" 'quote the value: description: "Use when: writing a pull request description"' \
    "and the fix"
run "$UPSKILL" list -v -d "$C/skills"
like "$out" "tests (3 cases)" "list -v counts skill-creator's evals/evals.json"
run "$UPSKILL" validate "$C/skills/pr-writer"
is "$rc" 3 "validate still calls it an error under the spec"
like "$out$err" 'quote the value: description: "Use when: writing' \
    "validate gives the same hint"
cp -R "$C/skills/pr-writer" "$T/nested"
printf -- '---\nname: pr-writer\ndescription: a: b\n  more: c\n---\nBody\n' \
    > "$T/nested/SKILL.md"
run "$UPSKILL" eval "$T/nested" -t "$C/pr-tests.json" -m x \
    --base-url http://127.0.0.1:9/v1 --no-log-runs
is "$rc" 3 "a file not in upstream's line shape keeps its YAML error"

# --- eval against the fake: both skills, one server ------------------------
cat > "$T/s.json" <<'JSON'
{"rules": [
 {"name": "judge-fails", "match": {"user": "<rubric>", "body": "exactly once"},
  "reply": {"text": "{\"pass\": false, \"reason\": \"a change is missing\"}"}},
 {"name": "judge", "match": {"user": "<rubric>"},
  "reply": {"text": "{\"pass\": true, \"reason\": \"meets it\"}"}},
 {"name": "student", "reply": {"text": "Changes: adds json, fixes a crash. Added / Fixed / Changed."}}
]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$C/skills/pr-writer" -t "$C/pr-tests.json" \
    -m local --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "eval runs upstream's skill unchanged"
like "$err" "SKILL.md':3: invalid YAML" "eval warns about the unquoted line"
like "$err" "tests: 2 cases from '$C/pr-tests.json'" "eval says where the tests came from"
like "$(head -1 "$T/rec.jsonl")" "\"user-agent\":\"upskill/$version\"" \
    "requests carry User-Agent: upskill/VERSION"
batch=$(ls "$T/runs")
like "$(cat "$T/runs/$batch/run_1/run_metadata.json")" \
    "\"upskill_version\": \"$version\"" "run_metadata.json records upskill_version"
like "$(cat "$T/runs/$batch/run_1/run_metadata.json")" '"model": "generic.local"' \
    "upstream's metadata keys keep their meaning"

# --- skill-creator's evals/evals.json --------------------------------------
: > "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$C/skills/release-notes" -m local \
    --base-url "$FAKE_URL/v1" --no-baseline --json --no-log-runs
is "$rc" 0 "eval reads a skill-creator skill with no skill_meta.json"
like "$err" "tests: 3 cases from '$C/skills/release-notes/evals/evals.json' (skill-creator format)" \
    "and says the tests came from evals.json"
rec=$(cat "$T/rec.jsonl")
like "$rec" "runs no longer crashes on an empty folder" \
    "an eval's files are sent as context files"
like "$rec" "Every change from the list appears exactly once" \
    "each expectation goes to the judge as a rubric"
like "$rec" "The answer achieves this expected output: A one-line note" \
    "an eval without expectations is judged on its expected_output"
is "$(grep -c '<rubric>' "$T/rec.jsonl")" 4 "one judgement per expectation"
like "$out" '"passed": 2,' "the judge's failing verdict fails its case (2 of 3 pass)"

# --- generate --from an upstream skill (the teacher refuses: no retries) ---
echo '{"rules": [{"reply": {"status": 400}}]}' > "$T/refuse.json"
fake_start "$T/refuse.json"
OPENAI_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "tighten it" \
    --from "$C/skills/pr-writer" -m openai.gpt-4.1-mini --no-eval -o "$T/out"
like "$err" "Improving pr-writer with" "generate --from loads upstream's skill"
like "$err" "SKILL.md':3: invalid YAML" "and warns about the unquoted line"

# --- runs: upstream's alias-named history and resolved ids are one model ---
run "$UPSKILL" runs -d "$C/runs" -m sonnet
is "$rc" 0 "runs -m sonnet exits 0"
like "$out" "anthropic.claude-sonnet-4-5" "-m sonnet finds the resolved id's runs"
like "$out" "100%" "and shows the latest batch (this project's)"
run "$UPSKILL" runs -d "$C/runs" --json
is "$(printf '%s\n' "$out" | grep -c '"model"')" 1 \
    "'sonnet' and 'anthropic.claude-sonnet-4-5' show as one model"
run "$UPSKILL" runs -d "$C/runs" -m anthropic.claude-sonnet-4-5 --best
like "$out" "anthropic.claude-sonnet-4-5" "the resolved id as -m finds them too"
run "$UPSKILL" runs -d "$C/runs" -m sonnet --csv "$T/r.csv"
is "$(grep -c ',sonnet,\|,anthropic.claude-sonnet-4-5,' "$T/r.csv")" 4 \
    "runs --csv -m sonnet keeps both histories, each model as logged"
done_testing
