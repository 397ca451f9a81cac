#!/bin/sh
# make demo-agent: agent mode end to end, offline (docs/agent-mode.md).
#
# build/fake-llm plays a small local student, qwen2.5-7b-instruct over the
# OpenAI-compatible API, scripted in examples/demo/agent-scenario.json.
# The skill, examples/skills/incident-report, keeps its value in a
# reference file (references/template.md): a chat student sees only
# SKILL.md's body; an agent student sees the catalogue, opens SKILL.md
# itself and then the template.  The same eval runs without and with
# --agent, then with workspace assertions on the file the student wrote.
# Everything runs in a temporary folder removed at the end.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
UPSKILL=$TOP/build/upskill
FAKE=$TOP/build/fake-llm
for b in "$UPSKILL" "$FAKE"; do
    [ -x "$b" ] || { echo "demo: $b is missing: run 'make demo-agent'" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/upskill-demo.XXXXXX")
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$FAKE" --scenario "$TOP/examples/demo/agent-scenario.json" \
    --port-file "$T/port" --max-seconds 600 >/dev/null 2>"$T/fake.err" &
PID=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do
    sleep 0.1
    i=$((i + 1))
done
[ -s "$T/port" ] || { cat "$T/fake.err" >&2; exit 1; }
URL=http://127.0.0.1:$(cat "$T/port")

cd "$T"
printf 'runs_dir: runs\ncache:\n  enabled: false\n' > upskill.config.yaml
export UPSKILL_CONFIG="$T/upskill.config.yaml"
SKILL=$TOP/examples/skills/incident-report
STUDENT=qwen2.5-7b-instruct

step() {
    if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
        printf '\n\033[1m$ %s\033[0m\n' "$*"
    else
        printf '\n$ %s\n' "$*"
    fi
    "$@"
}

step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5
step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5 \
    --agent
step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5 \
    --agent -t "$TOP/examples/demo/incident-workspace-tests.json"
