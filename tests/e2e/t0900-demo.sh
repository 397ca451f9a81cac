#!/bin/sh
# The README's main job: `make demo` runs generate, validate, eval and runs
# offline against the scripted server (make has built the binaries).
. "$TOP/tests/e2e/lib.sh"
[ -x "${FAKE_LLM:-}" ] || { echo "1..0 # SKIP FAKE_LLM not built"; exit 0; }

HOME="$T" run sh "$TOP/scripts/demo.sh"
is "$rc" 0 "the demo exits 0"
like "$out" "Saved to skills/changelog-entries" "generate saved the skill"
like "$out" "1 skill checked: 1 valid" "the generated skill is valid"
like "$out" "with skill" "eval printed its bars"
like "$out" "Evaluation History: changelog-entries" "runs shows the history"
unlike "$out$err" "demo-key-not-a-real-one" "the demo's key is never printed"
is "$(ls "$T" | wc -l | tr -d ' ')" 0 "nothing is left in HOME"

done_testing
