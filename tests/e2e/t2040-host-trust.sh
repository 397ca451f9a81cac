#!/bin/sh
# A cloned folder cannot lift the host limits (issue 35, item 3): a
# setting of the guards table (workspace place and quotas, sandbox
# limits, the call's memory cgroup, concurrency, bytes held in memory)
# from a file of the current folder that raises the user's own value, or
# moves the workspaces, stops every command with the base URL's trust
# step (exit 2, the same one-line way to trust); with the trust step it
# applies, with a warning; a lower limit applies without it.  A folder's
# .env never sets HOME, TMPDIR or XDG_CACHE_HOME (the default
# workspace_dir and cache follow them): ignored with a warning.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-ant-PLANTED-e2e-2040
unset UPSKILL_CONFIG UPSKILL_TRUST_CONFIG GENERIC_API_KEY GENERIC_BASE_URL \
    OPENAI_BASE_URL OPENAI_API_BASE XDG_CACHE_HOME TMPDIR
export ANTHROPIC_API_KEY="$KEY" HOME="$T/home"
mkdir -p "$HOME/.config/upskill" "$T/proj"
cat > "$T/s.json" <<'JSON'
{"rules": [{"reply": {"text": "GOOD ANSWER"}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"
export ANTHROPIC_BASE_URL="$FAKE_URL" # the user's own server
cd "$T/proj" || exit 1
REAL=$(pwd -P)
MINE="$HOME/.cache/upskill/work"
ev() { run "$UPSKILL" "$@" eval --no-cache "$SKILL" --no-baseline \
    --runs-dir "$T/runs" -m anthropic.claude-haiku-4-5; }
cfg_json() { run "$UPSKILL" "$@" config --json; }
# the value of one setting in `upskill config --json`
val() { printf '%s' "$out" | python3 -c 'import json,sys
d = json.load(sys.stdin)["settings"]
print(d[sys.argv[1]]["value"])' "$1"; }

# --- the attack: RAM for workspaces, no quota, unlimited sandbox -----------
cat > upskill.config.yaml <<EOF
workspace_dir: /dev/shm
workspace_max_bytes: 1099511627776
sandbox:
  memory_mb: 1048576
EOF
ev
is "$rc" 2 "a folder's config moving the workspaces into RAM: usage error"
like "$err" "'upskill.config.yaml':1: workspace_dir '/dev/shm' comes from a file in this folder and moves the workspaces (yours: '$MINE'); nothing was run." \
    "the message names the file, line, key and both places"
like "$err" "If you trust this folder, run 'upskill --trust-config <command> ...' or add '$REAL' to trusted_folders in your own config" \
    "and the base URL's one-line way to trust it"
is "$(wc -c < "$T/rec.jsonl" | tr -d ' ')" 0 "no request was made"
cfg_json
is "$rc" 2 "upskill config refuses the same way"

# --- every key of the table, raised alone: refused, naming it ----------------
for kv in concurrency:64 max_answer_bytes:1073741824 \
    artifact_max_bytes:1073741824 max_history_bytes:1073741824 \
    workspace_max_bytes:1099511627776 workspace_max_files:100000000 \
    sandbox.cpu_seconds:86400 sandbox.wall_seconds:86400 \
    sandbox.memory_mb:1048576 sandbox.call_memory_mb:1048576 \
    sandbox.file_size_mb:1048576 sandbox.processes:100000 \
    sandbox.output_kb:1048576; do
    k=${kv%%:*} v=${kv#*:}
    case $k in
    sandbox.*) printf 'sandbox:\n  %s: %s\n' "${k#sandbox.}" "$v" ;;
    *) printf '%s: %s\n' "$k" "$v" ;;
    esac > upskill.config.yaml
    ev
    is "$rc" 2 "$k raised by the folder: refused"
    like "$err" "$k $v comes from a file in this folder and raises a host limit (yours: " \
        "the message names $k"
done
is "$(wc -c < "$T/rec.jsonl" | tr -d ' ')" 0 "no request was made for any"

# --- lower limits apply without trust ----------------------------------------
printf 'concurrency: 2\nworkspace_max_bytes: 65536\nsandbox:\n  memory_mb: 64\n  processes: 8\n' \
    > upskill.config.yaml
cfg_json
is "$rc" 0 "lower limits from the folder: no trust needed"
is "$(val sandbox.memory_mb)" 64 "sandbox.memory_mb lowered"
is "$(val workspace_max_bytes)" 65536 "workspace_max_bytes lowered"
is "$(val sandbox.processes)" 8 "sandbox.processes lowered"
unlike "$err" "host limit" "with no warning"
printf 'workspace_dir: %s\n' "$MINE" > upskill.config.yaml
cfg_json
is "$rc" 0 "the user's own workspace place, repeated by the folder: fine"

# --- the user's own config is the bar, not the defaults ----------------------
printf 'sandbox:\n  memory_mb: 4096\n' > "$HOME/.config/upskill/config.yaml"
printf 'sandbox:\n  memory_mb: 2048\n' > upskill.config.yaml
cfg_json
is "$rc" 0 "above the default but below the user's own 4096: applies"
is "$(val sandbox.memory_mb)" 2048 "as 2048"
printf 'sandbox:\n  memory_mb: 8192\n' > upskill.config.yaml
cfg_json
is "$rc" 2 "above the user's own value: refused"
like "$err" "sandbox.memory_mb 8192 comes from a file in this folder and raises a host limit (yours: 4096)" \
    "naming the user's value"
rm "$HOME/.config/upskill/config.yaml"

# --- a config named by the folder's .env counts as the folder's --------------
rm upskill.config.yaml
printf 'sandbox:\n  processes: 100000\n' > "$T/elsewhere.yaml"
printf 'UPSKILL_CONFIG=%s/elsewhere.yaml\n' "$T" > .env
ev
is "$rc" 2 "raised by a config file that .env names: refused"
like "$err" "'$T/elsewhere.yaml':2: sandbox.processes 100000 comes from a file in this folder" \
    "naming that file"
UPSKILL_CONFIG="$T/elsewhere.yaml" cfg_json
is "$rc" 0 "the same file named by the environment is the user's: applies"
is "$(val sandbox.processes)" 100000 "as 100000"
rm .env

# --- trusted: the limits apply, named on every run -----------------------------
printf 'workspace_dir: %s/ram\nsandbox:\n  processes: 100000\n' "$T" \
    > upskill.config.yaml
cfg_json --trust-config
is "$rc" 0 "--trust-config: the folder's limits load"
is "$(val sandbox.processes)" 100000 "sandbox.processes as the folder says"
is "$(val workspace_dir)" "$T/ram" "workspace_dir as the folder says"
like "$err" "'upskill.config.yaml':3: sandbox.processes 100000 comes from this folder and raises a host limit (yours: 64) (trusted by --trust-config)" \
    "with a warning naming the file, key and why it is trusted"
like "$err" "'upskill.config.yaml':1: workspace_dir '$T/ram' comes from this folder and moves the workspaces" \
    "and one for the place"
ev --trust-config
is "$rc" 0 "--trust-config: the eval runs"
printf 'trusted_folders:\n  - %s\n' "$T/proj" > "$HOME/.config/upskill/config.yaml"
cfg_json
is "$rc" 0 "the folder in the user's trusted_folders: the limits load"
is "$(val sandbox.processes)" 100000 "sandbox.processes as the folder says"
like "$err" "trusted by trusted_folders in '$HOME/.config/upskill/config.yaml'" \
    "the warning names the list"
rm "$HOME/.config/upskill/config.yaml" upskill.config.yaml

# --- .env cannot move the workspaces or the cache ------------------------------
printf 'XDG_CACHE_HOME=/dev/shm/x\nexport TMPDIR=/dev/shm\nHOME=/dev/shm\n' > .env
cfg_json
is "$rc" 0 "a .env setting host variables: the config loads"
is "$(val workspace_dir)" "$MINE" "workspace_dir follows the real HOME, not .env's"
is "$(val cache.path)" "$HOME/.cache/upskill/cache.sqlite" \
    "cache.path too"
like "$err" "'.env':1: XDG_CACHE_HOME is read from your environment only, never from a folder's .env; ignored" \
    "a warning names XDG_CACHE_HOME"
like "$err" "'.env':2: TMPDIR is read from your environment only" "and TMPDIR"
like "$err" "'.env':3: HOME is read from your environment only" "and HOME"
XDG_CACHE_HOME="$T/xdg" cfg_json
is "$(val workspace_dir)" "$T/xdg/upskill/work" \
    "the environment's XDG_CACHE_HOME still places the workspaces"
printf 'ANTHROPIC_API_KEY=sk-ant-from-dotenv\nDATABASE_URL=postgres://x\n' > .env
cfg_json
unlike "$err" "DATABASE_URL" "a variable upskill never reads passes in silence"
unlike "$err" "ANTHROPIC_API_KEY is read" "a key is still read from .env"
rm .env

done_testing
