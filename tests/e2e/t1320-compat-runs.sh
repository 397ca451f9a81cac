#!/bin/sh
# Upstream's run history reads as upstream reads it, and our run files
# mean what upstream's mean: "passed", batch_summary's model list, the
# metadata-only row and Python float text in the CSV, a generate batch's
# last attempt in `runs`, upstream's pick with --best.  Keys where upstream
# users keep them (fastagent.secrets.yaml, fastagent.config.yaml, .env)
# reach the request header and nothing else.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
C="$FIX/compat"
R="$C/runs-upstream"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# --- runs on upstream's generate batch: its last attempt, --best its pick ---
run "$UPSKILL" runs -d "$R"
is "$rc" 0 "runs reads upstream's generate batch and metadata-only run"
like "$out" "  baseline   █████░░░░░░░░░░░░░░░    25%" \
    "the last attempt's baseline (run_3), as upstream saved the last skill"
like "$out" "  with skill ███████████████░░░░░    75%  (+50%)" \
    "the last attempt's with-skill run (run_4), not both attempts pooled"
run "$UPSKILL" runs -d "$R" --best
like "$out" "  baseline   ██████████░░░░░░░░░░    50%" \
    "--best pairs upstream's way: the last baseline before the run (run_1)"
like "$out" "  with skill ████████████████████   100%  (+50%)" \
    "--best picks the highest with-skill run, an earlier attempt included"

# --- runs --csv: upstream's rows and number text ----------------------------
run "$UPSKILL" runs -d "$R" --csv "$T/r.csv"
is "$rc" 0 "runs --csv exits 0"
cat > "$T/want.csv" <<'CSV'
batch_id,run_number,model,task,timestamp,passed,assertions_passed,assertions_total,input_tokens,output_tokens,total_tokens,conversation_span_ms,llm_time_ms,tool_time_ms,turns,tool_calls,tool_errors,mcp_calls,execute_calls,error_message,session_id,session_history_file,run_type,skill_name,cached_tokens,reasoning_tokens,cost_usd
2026_01_10_09_00,1,sonnet,write a pull request description,2026-01-10T09:00:10.500000,False,2,4,1200,900,2100,9958.08,9958.08,0.0,4,0,0,0,0,,,,baseline,pr-writer,0,0,
2026_01_10_09_00,2,sonnet,write a pull request description,2026-01-10T09:00:20.500000,True,4,4,1500,700,2200,14484.33,14484.33,0.0,4,0,0,0,0,,,,with_skill,pr-writer,0,0,
2026_01_10_09_00,3,sonnet,write a pull request description,2026-01-10T09:00:30.500000,False,1,4,1100,800,1900,0.1,0.1,0.0,4,0,0,0,0,,,,baseline,pr-writer,0,0,
2026_01_10_09_00,4,sonnet,write a pull request description,2026-01-10T09:00:40.500000,True,3,4,1300,600,1900,1.5e-05,1.5e-05,0.0,4,0,0,0,0,,,,with_skill,pr-writer,0,0,
2026_01_12_14_30,1,haiku,Use when: writing a pull request description,2026-01-12T14:30:04.250000,False,0,0,0,0,0,0.0,0.0,0.0,0,0,0,0,0,No result file found,,,,,0,0,
CSV
is "$(tr -d '\r' < "$T/r.csv")" "$(cat "$T/want.csv")" \
    "CSV: floats as Python's repr, a metadata-only run as 'No result file found'"

# --- our run files: upstream's "passed", batch_summary's models -------------
cat > "$T/s.json" <<'JSON'
{"rules": [
 {"name": "miss", "match": {"user": "case six"}, "reply": {"text": "no idea"}},
 {"name": "hit", "reply": {"text": "the answer is ok"}}
]}
JSON
printf '{"cases": [' > "$T/t.json"
for i in one two three four five; do
    printf '{"input": "case %s", "expected": {"contains": ["ok"]}},' $i >> "$T/t.json"
done
printf '{"input": "case six", "expected": {"contains": ["ok"]}}]}\n' >> "$T/t.json"
mkdir -p "$T/skill"
printf -- '---\nname: s\ndescription: says ok\n---\nSay ok.\n' > "$T/skill/SKILL.md"
fake_start "$T/s.json"
export OPENAI_API_KEY=sk-PLANTED-e2e-1320
run "$UPSKILL" eval --no-cache "$T/skill" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-baseline --runs-dir "$T/runs"
batch=$(ls "$T/runs")
res=$(cat "$T/runs/$batch/run_1/run_result.json")
like "$res" '"passed": true,' "5 of 6 without a baseline: passed, as upstream (> 50%)"
like "$res" '"all_cases_passed": false,' "our stricter notion is its own field"
run "$UPSKILL" eval --no-cache "$T/skill" -t "$T/t.json" -m a -m b \
    --base-url "$FAKE_URL/v1" --no-baseline --runs-dir "$T/runs2"
batch=$(ls "$T/runs2")
sum=$(cat "$T/runs2/$batch/batch_summary.json")
like "$sum" '"model": "generic.a, generic.b",' \
    "a multi-model batch_summary.json names every model"
like "$(cat "$T/runs2/$batch/run_1/run_result.json")" '"passed": false,' \
    "benchmark mode: passed means every case passed, as upstream"

# --- keys from fast-agent's files and .env ----------------------------------
unset OPENAI_API_KEY ANTHROPIC_API_KEY GENERIC_API_KEY HF_TOKEN \
    GENERIC_BASE_URL OPENAI_BASE_URL OPENAI_API_BASE
export XDG_CACHE_HOME="$T/cache"
fake_start "$T/s.json" --record "$T/rec.jsonl"
mkdir -p "$T/fa" "$T/de"
cp "$C/fastagent.secrets.yaml" "$T/fa/"
cp "$C/dotenv" "$T/de/.env"
sed "s|FAKE_URL|$FAKE_URL|" "$C/fastagent.config.yaml" > "$T/de/fastagent.config.yaml"

cd "$T/fa" || exit 1
run "$UPSKILL" config
is "$rc" 0 "config reads fastagent.secrets.yaml"
like "$out" "OPENAI_API_KEY: set (fastagent.secrets.yaml:3)" \
    "config shows the key as set, with its file and line"
run "$UPSKILL" config --json
like "$out" '"key_source": "fastagent.secrets.yaml:3"' "and in --json"
OPENAI_API_KEY=sk-env-wins run "$UPSKILL" config
like "$out" "OPENAI_API_KEY: set (env OPENAI_API_KEY)" "the environment beats the file"
OPENAI_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" eval "$T/skill" -t "$T/t.json" \
    -m openai.gpt-4.1-mini --no-baseline --runs-dir "$T/fa/runs"
is "$rc" 0 "eval with the key from fastagent.secrets.yaml"
like "$(cat "$T/rec.jsonl")" "Bearer sk-FASECRETS-e2e-1320" \
    "the fastagent.secrets.yaml key reaches the request header"
: > "$T/rec.jsonl"

cd "$T/de" || exit 1
run "$UPSKILL" config
like "$out" "GENERIC_API_KEY: set (.env:3)" "config shows a .env key with its line"
like "$out" "$FAKE_URL/v1  [fastagent.config.yaml:3]" \
    "fastagent.config.yaml's generic.base_url, with its source"
like "$err" "'.env':5: expected KEY=VALUE" "a bad .env line is a warning naming it"
run "$UPSKILL" eval "$T/skill" -t "$T/t.json" -m generic.local \
    --no-baseline --runs-dir "$T/de/runs"
is "$rc" 0 "eval with the key from .env, the URL from fastagent.config.yaml"
like "$(cat "$T/rec.jsonl")" "Bearer gk-DOTENV-e2e-1320 # kept" \
    "the .env key (quoted, with its #) reaches the request header"
cd "$T" || exit 1
leaks=$(grep -rl -e FASECRETS -e DOTENV-e2e "$T" | grep -v -e rec.jsonl \
    -e '/fa/fastagent.secrets.yaml$' -e '/de/.env$')
is "$leaks" "" "no key in any run file, cache or other file"
unlike "$out$err" "e2e-1320" "nor in any output"
printf 'openai:\n  api_key: [sk-BAD-e2e-1320]\n' > "$T/fa/fastagent.secrets.yaml"
cd "$T/fa" || exit 1
run "$UPSKILL" config
is "$rc" 3 "a fast-agent file of the wrong shape is bad input"
like "$err" "'fastagent.secrets.yaml':2: openai.api_key: expected a string" \
    "naming the file and line"
unlike "$err" "sk-BAD" "never the value"
cd "$T" || exit 1

done_testing
