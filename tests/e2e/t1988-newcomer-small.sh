#!/bin/sh
# Small things a newcomer hits (issue 34 item 11): "did you mean" for an
# unknown flag, config key and model name; a hint when a base URL lacks
# /v1; a dead model's failure said once, not twice; the fake server
# answers GET /v1/models without a catch-all rule (it sent an empty
# reply).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# --- did you mean ------------------------------------------------------------
run "$UPSKILL" eval "$SKILL" --modle x
is "$rc" 2 "an unknown flag is a usage error"
like "$err" "unknown option '--modle' (did you mean '--model'?)" "with the nearest flag"
run "$UPSKILL" generate x --froce
like "$err" "unknown option '--froce' (did you mean '--force'?)" "of each command"
run "$UPSKILL" eval "$SKILL" --zzzzzz
like "$err" "unknown option '--zzzzzz'" "a stranger is still named"
unlike "$err" "did you mean" "without a wild guess"

printf 'runs_dri: r\nproviders:\n  openai:\n    base_ulr: x\n' > "$T/typo.yaml"
UPSKILL_CONFIG="$T/typo.yaml" run "$UPSKILL" config
like "$err" "unknown key 'runs_dri' (did you mean 'runs_dir'?)" "a config key"
like "$err" "unknown key 'providers.openai.base_ulr' (did you mean 'base_url'?)" \
    "a provider's key"

run "$UPSKILL" eval "$SKILL" -m sonet --no-log-runs
like "$err" "'sonet': unknown model or provider (did you mean 'sonnet'? or write provider.model" \
    "a model alias"

# --- a base URL without /v1; said once ----------------------------------------
cat > "$T/s.json" <<'JSON'
{"rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL" --no-log-runs
is "$rc" 4 "a base URL without /v1: nothing answered, exit 4"
like "$err" "hint: the base URL '$FAKE_URL' has no /v1; OpenAI-compatible servers usually answer at '$FAKE_URL/v1'" \
    "a hint says to add /v1"
is "$(printf '%s\n' "$err" | grep -c 'http 404')" 1 "the failure is said once"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" --no-log-runs
is "$rc" 0 "with /v1 it works"
unlike "$err" "hint:" "and no hint"

# --- the fake server's GET /v1/models without a catch-all rule ---------------
printf '{"models": ["fake-a"], "rules": [{"match": {"user": "zzz"}, "reply": {"text": "x"}}]}\n' \
    > "$T/nomatch.json"
fake_start "$T/nomatch.json"
code=$(curl -sS -o "$T/models.json" -w '%{http_code}' "$FAKE_URL/v1/models" 2> "$T/curl.err")
is "$code" 200 "GET /v1/models answers 200 with no rule matching it"
like "$(cat "$T/models.json")" '{"object":"list","data":[{"id":"fake-a"' \
    "with the scenario's models"

done_testing
