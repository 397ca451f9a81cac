#!/bin/sh
# Live check of one coding-agent CLI against fake-llm (docs/agent-clis.md):
# a scripted student activates the skill, reads its reference, writes a
# file and answers.  Runs in a private HOME inside a temp dir, with the
# CLI's quiet settings, inside a network namespace with loopback only
# (unshare -n) when that works.  Not part of `make check`: needs
# `make clis`.
#
#   sh tests/clis/live.sh CLI [OUT_DIR]     CLI: claude-code opencode gemini
#
# Prints the wall time; leaves in OUT_DIR (when given) events.jsonl (the
# CLI's stdout), record.jsonl (fake-llm's record) and stderr.txt.
set -eu

CLI=$1
OUT=${2:-}
if [ -z "${LIVE_NETNS:-}" ] && unshare -n true 2>/dev/null; then
    LIVE_NETNS=1 exec unshare -n sh "$0" "$@"
fi
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
FAKE_LLM=${FAKE_LLM:-$TOP/build/fake-llm}
CLIS=${CLIS:-$TOP/build-clis}
SKILL=csv-report

T=$(mktemp -d "${TMPDIR:-/tmp}/clis-live.XXXXXX")
trap 'rm -rf "$T"' EXIT
WS=$T/ws
mkdir -p "$WS" "$T/home"
KEY=sk-fake-clis-0000

# the skill, in the folder this CLI discovers
case $CLI in
claude-code) SDIR=$WS/.claude/skills/$SKILL ;;
opencode) SDIR=$WS/.opencode/skill/$SKILL ;;
gemini) SDIR=$WS/.gemini/skills/$SKILL ;;
*) echo "live: unknown CLI '$CLI'" >&2; exit 2 ;;
esac
mkdir -p "$SDIR/references"
cat > "$SDIR/SKILL.md" <<'SK'
---
name: csv-report
description: Use when asked to write a report about a CSV file; explains the report format.
---
# CSV report

Read references/format.md for the format, then write report.txt.
SK
printf 'FORMAT-MARKER: one line per column, "name: type".\n' \
    > "$SDIR/references/format.md"

# tool names and argument names per CLI: skill, read, write
case $CLI in
claude-code)
    ACT='{"name": "Skill", "arguments": {"skill": "csv-report"}}'
    READ="{\"name\": \"Read\", \"arguments\": {\"file_path\": \"$SDIR/references/format.md\"}}"
    WRITE="{\"name\": \"Write\", \"arguments\": {\"file_path\": \"$WS/report.txt\", \"content\": \"id: int\"}}"
    SIDE='{"name": "side", "match": {"tools": false}, "reply": {"text": "ok"}}' ;;
opencode)
    ACT='{"name": "skill", "arguments": {"name": "csv-report"}}'
    READ="{\"name\": \"read\", \"arguments\": {\"filePath\": \"$SDIR/references/format.md\"}}"
    WRITE="{\"name\": \"write\", \"arguments\": {\"filePath\": \"$WS/report.txt\", \"content\": \"id: int\"}}"
    SIDE='{"name": "title", "match": {"tools": false}, "reply": {"text": "CSV report"}}' ;;
gemini)
    ACT='{"name": "activate_skill", "arguments": {"name": "csv-report"}}'
    READ="{\"name\": \"read_file\", \"arguments\": {\"file_path\": \"$SDIR/references/format.md\"}}"
    WRITE="{\"name\": \"write_file\", \"arguments\": {\"file_path\": \"$WS/report.txt\", \"content\": \"id: int\"}}"
    # without -m a routing request comes first (JSON schema with
    # complexity_score); other tool-less side requests expect JSON too
    SIDE='{"name": "route", "match": {"tools": false, "body": "complexity_score"},
           "reply": {"text": "{\"complexity_reasoning\": \"simple\", \"complexity_score\": 10}"}},
          {"name": "side", "match": {"tools": false}, "reply": {"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}}' ;;
esac

cat > "$T/scenario.json" <<SC
{"rules": [
 $SIDE,
 {"name": "activate", "match": {"tools": true, "assistant_turns": 0},
  "reply": {"tool_calls": [$ACT], "usage": {"input_tokens": 1000, "output_tokens": 10}}},
 {"name": "read", "match": {"tools": true, "assistant_turns": 1},
  "reply": {"tool_calls": [$READ], "usage": {"input_tokens": 1100, "output_tokens": 20}}},
 {"name": "write", "match": {"tools": true, "assistant_turns": 2, "tool_result": "FORMAT-MARKER"},
  "reply": {"tool_calls": [$WRITE], "usage": {"input_tokens": 1200, "output_tokens": 30}}},
 {"name": "answer", "match": {"tools": true, "assistant_turns": 3},
  "reply": {"text": "DONE: report.txt written.", "usage": {"input_tokens": 1300, "output_tokens": 8}}}
]}
SC

# LIVE_TRIVIAL=1: every request answered with one line of text (for
# start-up timing: one model turn, no tools)
# LIVE_NO_SKILL=1: the baseline arm: no skill folder, same answers
if [ -n "${LIVE_TRIVIAL:-}" ] || [ -n "${LIVE_NO_SKILL:-}" ]; then
    echo '[{"reply": {"text": "hi"}}]' > "$T/scenario.json"
fi
[ -z "${LIVE_NO_SKILL:-}" ] || rm -rf "$WS/.claude" "$WS/.opencode" "$WS/.gemini"
# LIVE_NO_MODEL=1 (gemini): leave out -m, so Gemini CLI routes first
GMODEL="-m gemini-2.5-flash"
[ -z "${LIVE_NO_MODEL:-}" ] || GMODEL=

HOME=$T/home
export HOME
PROMPT="Write a report about data.csv into report.txt."
printf 'id\n1\n' > "$WS/data.csv"

# the CLI's command line, config and environment (docs/agent-clis.md)
run_cli() {
    url=http://127.0.0.1:$1
    case $CLI in
    claude-code)
        timeout 60 env ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=$KEY \
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 \
            DISABLE_AUTOUPDATER=1 CLAUDE_CODE_MAX_RETRIES=0 IS_SANDBOX=1 \
            "$CLIS/claude-code/bin/claude" -p "$PROMPT" \
            --output-format stream-json --verbose \
            --allowedTools "Bash Read Write Skill" \
            --dangerously-skip-permissions </dev/null ;;
    opencode)
        mkdir -p "$HOME/.config/opencode"
        cat > "$HOME/.config/opencode/opencode.json" <<OC
{"\$schema": "https://opencode.ai/config.json", "model": "local/m",
 "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny",
   "external_directory": "deny"},
 "experimental": {"continue_loop_on_deny": true},
 "provider": {"local": {"npm": "@ai-sdk/openai-compatible",
   "options": {"baseURL": "$url/v1", "apiKey": "$KEY"},
   "models": {"m": {}}}}}
OC
        timeout 60 env OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
            OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
            OPENCODE_DISABLE_SHARE=1 \
            "$CLIS/opencode/bin/opencode" run --pure --format json "$PROMPT" \
            </dev/null ;;
    gemini)
        mkdir -p "$HOME/.gemini"
        cat > "$HOME/.gemini/settings.json" <<GS
{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false}}
GS
        timeout 60 env GOOGLE_GEMINI_BASE_URL="$url" GEMINI_API_KEY=$KEY \
            GEMINI_CLI_TRUST_WORKSPACE=true \
            "$CLIS/gemini/bin/gemini" $GMODEL -y -p "$PROMPT" \
            --output-format stream-json </dev/null ;;
    esac
}

ip link set lo up 2>/dev/null || true
"$FAKE_LLM" --scenario "$T/scenario.json" --port-file "$T/port" \
    --record "$T/record.jsonl" --max-seconds 150 >/dev/null 2>"$T/fake.err" &
fpid=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -s "$T/port" ]; then
    echo "live: fake-llm did not start: $(cat "$T/fake.err")" >&2
    exit 1
fi
cd "$WS"
start=$(date +%s%N)
rc=0
run_cli "$(cat "$T/port")" >"$T/events.jsonl" 2>"$T/stderr.txt" || rc=$?
end=$(date +%s%N)
kill $fpid 2>/dev/null || true
echo "live: $CLI exit $rc, wall $(( (end - start) / 1000000 )) ms, netns ${LIVE_NETNS:-no}"
# The side requests (opencode's title, Gemini's routing) run beside the
# conversation, so where they fall in the record depends on timing: they
# are counted apart, and the rules line is the conversation's turns.
echo "live: requests: $(wc -l < "$T/record.jsonl"), side: $(grep -c '"rule":"side"' "$T/record.jsonl"), rules: $(grep -o '"rule":"[a-z]*"' "$T/record.jsonl" | grep -v '"side"' | tr '\n' ' ')"
echo "live: report.txt: $(cat "$WS/report.txt" 2>/dev/null || echo absent)"
# the skill is discovered when its description reaches the model
if grep -q 'report about a CSV file' "$T/record.jsonl"; then
    echo "live: skill listed to the model: yes"
else
    echo "live: skill listed to the model: no"
fi
# kept for fixtures: temp paths replaced, keys redacted, capped at 1 MiB
scrub() {
    sed -e "s#$T#/tmp/clis-live.XXXXXX#g" \
        -e 's/"\(x-api-key\|authorization\|x-goog-api-key\)":"[^"]*"/"\1":"<redacted>"/g' \
        "$1" | head -c 1048576 > "$OUT/$(basename "$1")"
}
if [ -n "$OUT" ]; then
    mkdir -p "$OUT"
    for f in events.jsonl record.jsonl stderr.txt scenario.json; do
        scrub "$T/$f"
    done
fi
