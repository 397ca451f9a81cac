#!/bin/sh
# upskill config: lookup order, sources, warnings, errors, and secrets that
# never show.
. "$TOP/tests/e2e/lib.sh"

CFG="$FIX/config"
unset UPSKILL_CONFIG ANTHROPIC_API_KEY OPENAI_API_KEY HF_TOKEN \
    GENERIC_API_KEY GENERIC_BASE_URL ANTHROPIC_BASE_URL OPENAI_BASE_URL \
    OPENAI_API_BASE LOCAL_LLM_KEY XDG_CACHE_HOME
HOME="$T/home"
export HOME
mkdir -p "$HOME" "$T/proj"
cd "$T/proj" || exit 1

run "$UPSKILL" config
is "$rc" 0 "config with no file exits 0"
like "$out" "config file: defaults (no config file found)" "says no file"
like "$out" "skill_generation_model               sonnet -> anthropic.claude-sonnet-4-5  [default]" \
    "default model, resolved, from default"
like "$out" "ANTHROPIC_API_KEY: unset" "unset key says unset"

run env ANTHROPIC_API_KEY=sk-ant-PLANTED123 HF_TOKEN=hf_PLANTED456 \
    UPSKILL_CONFIG="$CFG/full.yaml" "$UPSKILL" config
is "$rc" 0 "config with a file exits 0"
like "$out" "config file: $CFG/full.yaml (UPSKILL_CONFIG env var)" \
    "names the file and why"
like "$out" "ANTHROPIC_API_KEY: set" "planted key shows as set"
like "$out" "HF_TOKEN: set" "planted token shows as set"
like "$out" "LOCAL_LLM_KEY: unset" "configured key variable, unset"
unlike "$out$err" "PLANTED" "the key never shows"
unlike "$out$err" "hidden-value-123" "header values never show"
like "$out" "X-Secret-Header" "header names show"
like "$out" "eval_model                           haiku.low -> anthropic.claude-haiku-4-5.low  [$CFG/full.yaml:3]" \
    "model from the file, with line and resolution"
like "$out" "test_gen_model                       kimi:together -> hf.moonshotai/Kimi-K2-Instruct-0905:together" \
    "hf provider suffix"
like "$out" "providers.generic.base_url           http://127.0.0.1:8080/v1  [$CFG/full.yaml:16]" \
    "provider setting from the file"
like "$out" "student" "config aliases listed"
like "$out" "claude-opus-4-6" "prices listed"

run env ANTHROPIC_API_KEY=sk-ant-PLANTED123 UPSKILL_CONFIG="$CFG/full.yaml" \
    "$UPSKILL" config --json
is "$rc" 0 "--json exits 0"
unlike "$out$err" "PLANTED" "the key never shows in JSON"
like "$out" '"config_source": "UPSKILL_CONFIG env var"' "JSON names the source"
like "$out" '"key": "set"' "JSON says set"
like "$out" '"resolved": "anthropic.claude-opus-4-6"' "JSON has resolved ids"

run env GENERIC_BASE_URL=http://127.0.0.1:9/v1 \
    UPSKILL_CONFIG="$CFG/full.yaml" "$UPSKILL" config
like "$out" "providers.generic.base_url           http://127.0.0.1:9/v1  [env GENERIC_BASE_URL]" \
    "environment beats the file"

run env UPSKILL_CONFIG="$CFG/upstream.yaml" "$UPSKILL" config
is "$rc" 0 "upstream's config file loads"
like "$out" "skill_generation_model               sonnet -> anthropic.claude-sonnet-4-5  [$CFG/upstream.yaml:2]" \
    "legacy model key"
is "$err" "" "upstream's config gives no warnings"

run env UPSKILL_CONFIG="$CFG/bad-type.yaml" "$UPSKILL" config
is "$rc" 3 "wrong type exits 3"
is "$err" "upskill: error: '$CFG/bad-type.yaml':4: max_refine_attempts: expected a whole number" \
    "wrong type names file, line and key"

run env UPSKILL_CONFIG="$CFG/unknown-key.yaml" "$UPSKILL" config
is "$rc" 0 "unknown keys are not fatal"
like "$err" "upskill: warning: '$CFG/unknown-key.yaml':2: unknown key 'colour'" \
    "unknown key warns with line"
like "$err" "'$CFG/unknown-key.yaml':6: unknown key 'providers.openai.retries'" \
    "nested unknown key warns with line"

run env UPSKILL_CONFIG="$T/missing.yaml" "$UPSKILL" config
is "$rc" 0 "missing UPSKILL_CONFIG file is fine"
like "$out" "(UPSKILL_CONFIG env var; file missing, using defaults)" \
    "missing file is said"

printf 'eval_model: opus\n' >"$T/proj/upskill.config.yaml"
mkdir -p "$HOME/.config/upskill"
printf 'eval_model: haiku\n' >"$HOME/.config/upskill/config.yaml"
run "$UPSKILL" config
like "$out" "config file: upskill.config.yaml (project-local config)" \
    "project-local file wins over the legacy one"
rm "$T/proj/upskill.config.yaml"
run "$UPSKILL" config
like "$out" "(legacy user config)" "legacy user file is found last"

run "$UPSKILL" config extra
is "$rc" 2 "positional argument is a usage error"

done_testing
