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
DEMO_TARGET=demo-agent
. "$TOP/scripts/demo-lib.sh"

serve "$TOP/examples/demo/agent-scenario.json" fake

cd "$T"
printf 'runs_dir: runs\nworkspace_dir: %s/work\ncache:\n  enabled: false\n' "$T" > upskill.config.yaml
export UPSKILL_CONFIG="$T/upskill.config.yaml"
SKILL=$TOP/examples/skills/incident-report
STUDENT=qwen2.5-7b-instruct

step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5
step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5 \
    --agent
step "$UPSKILL" eval "$SKILL" -m "$STUDENT" --base-url "$URL/v1" --runs 5 \
    --agent -t "$TOP/examples/demo/incident-workspace-tests.json"
