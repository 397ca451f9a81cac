#!/bin/sh
# Drop-in, precisely (issue 25, items 4, 5, 7, 8, 10): upstream's model
# names reach the same provider and wire, upstream's exit codes where a
# script can test them, clustered short flags, upstream's
# max_refine_attempts values, warnings where YAML and upstream's line
# reader read a SKILL.md value differently, and upstream's grep-able eval
# lines on stdout.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-PLANTED-dropin-1350
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 5, "rules": [
 {"student": {"p_with": 1, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

# --- item 4: model names as upstream's fast-agent resolves them ------------
OPENAI_BASE_URL="$FAKE_URL/v1" OPENAI_API_KEY=$KEY run "$UPSKILL" models \
    -m gpt-5-mini
is "$rc" 0 "a bare gpt-5 name resolves"
like "$out" "responses.gpt-5-mini" "to the Responses API, as upstream's"
like "$(grep '"model":"gpt-5-mini"' "$T/rec.jsonl")" '"path":"/v1/responses"' \
    "and the request went to /v1/responses"
OPENAI_BASE_URL="$FAKE_URL/v1" OPENAI_API_KEY=$KEY run "$UPSKILL" models \
    -m openai/gpt-4.1
is "$rc" 0 "upstream's provider/model form resolves"
like "$out" "openai.gpt-4.1" "to the named provider"
like "$(grep '"model":"gpt-4.1"' "$T/rec.jsonl")" '"path":"/v1/chat/completions"' \
    "openai/ speaks Chat Completions"
ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=$KEY run "$UPSKILL" models \
    -m anthropic/claude-haiku-4-5
like "$out" "anthropic.claude-haiku-4-5" "anthropic/claude-haiku-4-5 resolves"
printf 'providers:\n  aliyun:\n    base_url: %s/v1\n' "$FAKE_URL" > "$T/ali.yaml"
ALIYUN_API_KEY=$KEY UPSKILL_CONFIG="$T/ali.yaml" run "$UPSKILL" models \
    -m qwen3-max
is "$rc" 0 "qwen3-max resolves"
like "$out" "aliyun.qwen3-max" "to aliyun, as upstream's"
run "$UPSKILL" models -m gpt-5.3-codex-spark
is "$rc" 3 "gpt-5.3-codex-spark (upstream's codex wire) is refused"
like "$out$err" "use 'responses.gpt-5.3-codex-spark' instead" "naming the alternative"

# --- item 5: exit codes ------------------------------------------------------
run "$UPSKILL" eval "$T/no-skill" -m x --base-url "$FAKE_URL/v1"
is "$rc" 2 "a missing SKILL_PATH is a usage error, as upstream's"
like "$err" "SKILL_PATH '$T/no-skill' does not exist" "naming the path"
run "$UPSKILL" eval "$SKILL" -t "$T/no.json" -m x --base-url "$FAKE_URL/v1"
is "$rc" 2 "a missing -t file is a usage error"
like "$err" "-t/--tests '$T/no.json' does not exist" "naming the file"
run "$UPSKILL" benchmark "$T/no-skill" -m x --base-url "$FAKE_URL/v1"
is "$rc" 2 "benchmark: a missing SKILL_PATH is a usage error"
mkdir -p "$T/empty-skill" "$T/empty-runs"
run "$UPSKILL" eval "$T/empty-skill" -m x --base-url "$FAKE_URL/v1"
is "$rc" 3 "a folder without SKILL.md is bad input (3; upstream 1, documented)"
run "$UPSKILL" runs -d "$T/empty-runs" --csv "$T/out.csv"
is "$rc" 3 "runs --csv over a folder with no runs fails"
like "$err" "no run folders found under '$T/empty-runs'" "saying so"
ok "$([ ! -e "$T/out.csv" ]; echo $?)" "and writes no file"
run "$UPSKILL" eval "$SKILL" --runs -1 -m x --base-url "$FAKE_URL/v1"
is "$rc" 2 "--runs -1 is refused (upstream runs once; documented)"

# --- item 8: clustered short flags, max_refine_attempts ---------------------
run "$UPSKILL" list -vd "$FIX/eval"
is "$rc" 0 "clustered short flags: -vd DIR is -v -d DIR"
like "$out" "SKILL.md (~" "-v took effect"
run "$UPSKILL" list -vz
is "$rc" 2 "an unknown letter in a cluster is a usage error"
like "$err" "unknown option '-z' in '-vz'" "naming the letter"
for v in 0 -1 2.0 true; do
    printf 'max_refine_attempts: %s\n' "$v" > "$T/c.yaml"
    UPSKILL_CONFIG="$T/c.yaml" run "$UPSKILL" config
    is "$rc" 0 "max_refine_attempts: $v is accepted, as upstream's pydantic"
done
like "$out" "max_refine_attempts" "config shows it"
printf 'max_refine_attempts: 0\n' > "$T/c.yaml"
UPSKILL_CONFIG="$T/c.yaml" run "$UPSKILL" config
like "$err" "max_refine_attempts: 0 counts as 1 (as upstream's max(1, n))" \
    "0 counts as 1, with a warning"

# --- item 7: values YAML reads differently from upstream ---------------------
mk() { mkdir -p "$T/sk/$1"; printf -- "---\nname: $1\n$2\n---\nBody.\n" \
    > "$T/sk/$1/SKILL.md"; }
mk hash 'description: #1 tool for PRs'
mk amp 'description: &co writes PRs'
mk cmt 'description: Use C # for comments'
mk multi 'description: Writes PRs\n  and changelogs'
mk fine 'description: Writes PRs: well'
run "$UPSKILL" list -d "$T/sk"
like "$err" "hash/SKILL.md':3: YAML reads description as \"\", upstream upskill as \"#1 tool for PRs\"; quote the value: description: \"#1 tool for PRs\"" \
    "a value starting with # is warned about, with the fix"
like "$err" "amp/SKILL.md':3: YAML reads description as \"writes PRs\", upstream upskill as \"&co writes PRs\"" \
    "an anchor too"
like "$err" "cmt/SKILL.md':3: YAML reads description as \"Use C\"" \
    "a ' #' comment too"
like "$err" "multi/SKILL.md':3: YAML reads description as \"Writes PRs and changelogs\", upstream upskill as \"Writes PRs\"; write it on one line: description: \"Writes PRs and changelogs\"" \
    "a value going on over lines too"
unlike "$err" "fine/SKILL.md':3: YAML reads" \
    "upstream's unquoted colon keeps its own warning, not this one"
run "$UPSKILL" validate "$T/sk/cmt"
is "$rc" 0 "validate: a valid file stays valid"
like "$out" "cmt/SKILL.md:3: warning: YAML reads description as \"Use C\"" \
    "validate gives the same warning"

# --- item 10: upstream's lines on stdout --------------------------------------
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs
is "$rc" 0 "eval against the fake exits 0"
like "$out" "Loaded 30 test case(s) from skill_meta.json" \
    "upstream's Loaded line is on stdout"
like "$out" "Recommendation: keep skill" "upstream's recommendation too"
cat > "$T/s2.json" <<'JSON'
{"seed": 5, "rules": [
 {"student": {"p_with": 0, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
kill "$FAKE_PID"
fake_start "$T/s2.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs
like "$out" "Recommendation: skill may not be beneficial" \
    "and its other wording"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs --json
unlike "$out" "Loaded" "--json keeps stdout one document"
# the source comes from the suite, not from the wording of a note: a
# folder whose name reads like another source changes nothing
EV="$T/ev generated by m"
mkdir -p "$EV/evals"
printf -- '---\nname: ev\ndescription: Answers with GOOD. Use when asked.\n---\n\n# ev\n' \
    >"$EV/SKILL.md"
printf '{"skill_name": "ev", "evals": [{"id": 1, "prompt": "say it", "expected_output": "GOOD", "expectations": ["says GOOD"]}]}\n' \
    >"$EV/evals/evals.json"
run "$UPSKILL" eval --no-cache "$EV" -m local --base-url "$FAKE_URL/v1" \
    --no-log-runs --no-baseline
like "$out" "Loaded 1 test case(s) from evals/evals.json" \
    "skill-creator's evals.json is named as such"

done_testing
