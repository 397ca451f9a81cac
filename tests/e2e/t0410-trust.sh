#!/bin/sh
# A folder's own files (upskill.config.yaml, .env, fastagent.*.yaml) may
# not send the user's key from the environment to a base URL they set
# (issue 23, item 9): refused with exit 2 before any request, unless the
# user trusts the folder (--trust-config, or trusted_folders in the
# user's own config); a key and URL from the folder's files together, or
# from the user's own config, are fine.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-ant-PLANTED-e2e-0410
unset UPSKILL_CONFIG UPSKILL_TRUST_CONFIG GENERIC_API_KEY GENERIC_BASE_URL \
    ANTHROPIC_BASE_URL OPENAI_BASE_URL OPENAI_API_BASE XDG_CACHE_HOME
export ANTHROPIC_API_KEY="$KEY" OPENAI_API_KEY="$KEY" HOME="$T/home"
mkdir -p "$HOME/.config/upskill" "$T/proj"
cat > "$T/s.json" <<'JSON'
{"rules": [{"reply": {"text": "GOOD ANSWER"}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
cd "$T/proj" || exit 1
REAL=$(pwd -P)
ev() { run "$UPSKILL" "$@" eval --no-cache "$SKILL" --no-baseline \
    --runs-dir "$T/runs"; }

# --- a cloned repository's config points the key at its server -------------
printf 'eval_model: anthropic.claude-haiku-4-5\nproviders:\n  anthropic:\n    base_url: %s\n' \
    "$FAKE_URL" > upskill.config.yaml
ev
is "$rc" 2 "a project config's base URL with the key from the environment: usage error"
like "$err" "'upskill.config.yaml':4: base URL '$FAKE_URL' comes from a file in this folder" \
    "the message names the file, line and URL"
like "$err" "ANTHROPIC_API_KEY" "and the key's variable"
like "$err" "--trust-config" "and the flag that trusts the folder"
like "$err" "add '$REAL' to trusted_folders" "and the trusted-folders list"
unlike "$err" "$KEY" "never the key"
is "$(wc -c < "$T/rec.jsonl" | tr -d ' ')" 0 "the server received no request"

# --- the same from .env ----------------------------------------------------
rm upskill.config.yaml
printf 'ANTHROPIC_BASE_URL=%s\n' "$FAKE_URL" > .env
run "$UPSKILL" eval --no-cache "$SKILL" --no-baseline --runs-dir "$T/runs" \
    -m anthropic.claude-haiku-4-5
is "$rc" 2 "a .env base URL with the key from the environment: refused"
like "$err" "'.env':1: base URL '$FAKE_URL'" "naming .env"
is "$(wc -c < "$T/rec.jsonl" | tr -d ' ')" 0 "still no request"

# --- .env naming the config file makes that file the folder's too ------------
printf 'UPSKILL_CONFIG=%s/elsewhere.yaml\n' "$T" > .env
printf 'providers:\n  anthropic:\n    base_url: %s\n' "$FAKE_URL" \
    > "$T/elsewhere.yaml"
run "$UPSKILL" eval --no-cache "$SKILL" --no-baseline --runs-dir "$T/runs" \
    -m anthropic.claude-haiku-4-5
is "$rc" 2 "a config file named by .env counts as the folder's"
like "$err" "'$T/elsewhere.yaml':3: base URL '$FAKE_URL'" "naming it"
is "$(wc -c < "$T/rec.jsonl" | tr -d ' ')" 0 "no request"
UPSKILL_CONFIG="$T/elsewhere.yaml" run "$UPSKILL" eval --no-cache "$SKILL" \
    --no-baseline --runs-dir "$T/runs" -m anthropic.claude-haiku-4-5
is "$rc" 0 "the same file named by the environment is the user's: runs"
: > "$T/rec.jsonl"
printf 'ANTHROPIC_BASE_URL=%s\n' "$FAKE_URL" > .env

# --- a project file cannot trust itself --------------------------------------
printf 'trusted_folders:\n  - %s\n' "$REAL" > upskill.config.yaml
run "$UPSKILL" eval --no-cache "$SKILL" --no-baseline --runs-dir "$T/runs" \
    -m anthropic.claude-haiku-4-5
is "$rc" 2 "trusted_folders in the folder's own config does not count"
like "$err" "trusted_folders is read only from your own config" \
    "and says so"
rm upskill.config.yaml .env

# --- trusted: by the flag, by the user's list --------------------------------
printf 'eval_model: anthropic.claude-haiku-4-5\nproviders:\n  anthropic:\n    base_url: %s\n' \
    "$FAKE_URL" > upskill.config.yaml
ev --trust-config
is "$rc" 0 "--trust-config: the run goes ahead"
like "$err" "'upskill.config.yaml':4: providers.anthropic.base_url '$FAKE_URL' comes from this folder and receives the key in ANTHROPIC_API_KEY" \
    "with a warning naming the file and URL"
like "$err" "trusted by --trust-config" "and why it is trusted"
like "$(cat "$T/rec.jsonl")" "$KEY" "the key reached the trusted URL"
: > "$T/rec.jsonl"

printf 'trusted_folders:\n  - /somewhere/else\n  - %s\n' "$T/proj" \
    > "$HOME/.config/upskill/config.yaml"
ev
is "$rc" 0 "the folder in the user's trusted_folders: the run goes ahead"
like "$err" "trusted by trusted_folders in '$HOME/.config/upskill/config.yaml'" \
    "with the warning naming the list"
: > "$T/rec.jsonl"
printf 'trusted_folders:\n  - %s/other\n  - relative/path\n' "$T" \
    > "$HOME/.config/upskill/config.yaml"
ev
is "$rc" 2 "another folder in the list does not trust this one"
like "$err" "'relative/path' is not an absolute path" "a relative entry is named"
rm "$HOME/.config/upskill/config.yaml"

# --- key and URL from the folder's files together: fine -----------------------
printf 'eval_model: generic.local\nproviders:\n  generic:\n    base_url: %s/v1\n' \
    "$FAKE_URL" > upskill.config.yaml
printf 'GENERIC_API_KEY=gk-project-0410\n' > .env
ev
is "$rc" 0 "key and URL both from the folder's files: runs"
unlike "$err" "comes from this folder" "with no warning"
like "$(cat "$T/rec.jsonl")" "gk-project-0410" "the folder's key went to the folder's URL"
: > "$T/rec.jsonl"
rm upskill.config.yaml .env

# --- key and URL from the user's own config and environment: fine -------------
printf 'providers:\n  anthropic:\n    base_url: %s\n' "$FAKE_URL" \
    > "$HOME/.config/upskill/config.yaml"
run "$UPSKILL" eval --no-cache "$SKILL" --no-baseline --runs-dir "$T/runs" \
    -m anthropic.claude-haiku-4-5
is "$rc" 0 "a base URL from the user's own config: runs"
is "$err" "$(printf '%s' "$err" | grep -v 'comes from')" "with no trust warning"
like "$(cat "$T/rec.jsonl")" "$KEY" "the key reached the user's URL"

done_testing
