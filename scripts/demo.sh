#!/bin/sh
# make demo: upskill generate, eval and runs end to end, offline.
#
# build/fake-llm (the test suite's scripted server) plays both models on
# 127.0.0.1: the teacher, claude-sonnet-4-5 over the Anthropic API, and a
# small local student, qwen2.5-7b-instruct over the OpenAI-compatible API.
# Their replies are scripted in examples/demo/scenario.json: the teacher's
# skill, tests and refinement; the student's answers drawn with and
# without the skill.  Everything runs in a temporary folder that is
# removed at the end; no real provider is called and no key is needed.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
DEMO_TARGET=demo
. "$TOP/scripts/demo-lib.sh"

serve "$TOP/examples/demo/scenario.json" fake

cd "$T"
cat > upskill.config.yaml <<YAML
skills_dir: skills
runs_dir: runs
workspace_dir: $T/work
cache:
  path: cache.sqlite
prices:
  claude-sonnet-4-5: {input: 3.0, output: 15.0}
  generic.qwen2.5-7b-instruct: {input: 0.1, output: 0.3}
YAML
export UPSKILL_CONFIG="$T/upskill.config.yaml"
export ANTHROPIC_BASE_URL="$URL" ANTHROPIC_API_KEY=demo-key-not-a-real-one
STUDENT=qwen2.5-7b-instruct

echo "The teacher's trace: examples/traces/changelog-session.md"
step "$UPSKILL" generate \
    "Write the CHANGELOG.md entry for a release from its merged pull requests" \
    --from "$TOP/examples/traces/changelog-session.md" \
    -m anthropic.claude-sonnet-4-5 \
    --eval-model "$STUDENT" --eval-base-url "$URL/v1" --runs 3
step cat skills/changelog-entries/SKILL.md
step "$UPSKILL" validate skills/changelog-entries
step "$UPSKILL" eval skills/changelog-entries -m "$STUDENT" \
    --base-url "$URL/v1" --runs 5
step "$UPSKILL" runs
