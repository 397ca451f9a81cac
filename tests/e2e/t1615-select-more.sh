#!/bin/sh
# upskill select (docs/select.md), more: --beat MODEL (at least as good
# as another model's baseline, on a paired interval over the same cases)
# names the cheapest that is, and says "not enough evidence" with the
# cases that would settle it when the suite is too small; select reuses
# the finished batches of the same skill and suite in the runs folder,
# runs only the models they do not cover, prices reused runs at the
# config's prices now, passes over an interrupted batch and a model whose
# conversations errored (saying why), and --fresh runs everything.  The
# students answer with p 0 or 1, so nothing depends on a seed.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1615 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
prices() { # prices MID_INPUT MID_OUTPUT
    cat >"$T/config.yaml" <<YAML
prices:
  big: {input: 15, output: 75}
  mid: {input: $1, output: $2}
  small: {input: 0.1, output: 0.4}
YAML
}
prices 3 15
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, ' "$1" "$2"
    printf '"p_without": %s, "default": {"good": "GOOD ANSWER", ' "$3"
    printf '"bad": "no idea"}}, "reply": {"usage": '
    printf '{"input_tokens": 40, "output_tokens": 10}}}'
}
# big: always right; mid: right only with the skill; small: never right;
# free: always right, without a price
{
    printf '{"rules": [%s,\n' "$(rule big 1 1)"
    printf '%s,\n%s,\n' "$(rule mid 1 0)" "$(rule small 0 0)"
    printf '%s]}\n' "$(rule free 1 1)"
} >"$T/s.json"
suite() { # suite N: N cases that a good answer passes
    _i=1
    printf '['
    while [ "$_i" -le "$1" ]; do
        [ "$_i" -gt 1 ] && printf ','
        printf '{"input": "question %s", "expected": {"contains": ["GOOD"]}}' "$_i"
        _i=$((_i + 1))
    done
    printf ']\n'
}
suite 30 >"$T/t30.json"
suite 80 >"$T/t80.json"
fake_start "$T/s.json"

sel() { # sel TESTS ARGS...
    _t=$1
    shift
    run "$UPSKILL" select --no-cache "$T/sk" -t "$_t" --base-url "$FAKE_URL/v1" \
        --runs-dir "$T/runs" --family-control none "$@"
}
nbatches() { ls "$T/runs" | wc -l | tr -d ' '; }

# --- --beat on 30 cases: ties cannot rule out a 5-point loss ---------------
sel "$T/t30.json" -m big -m mid -m small --beat big
is "$rc" 1 "30 tied cases cannot show mid is within 5 points of big: exit 1"
like "$out" "goal: at least as good as generic.big without the skill, within 5 points" \
    "the goal is said"
like "$out" "reference: generic.big baseline: 1.00" "the reference is its baseline"
like "$out" "not enough evidence: generic.mid with the skill: 1.00" \
    "mid with the skill: not enough evidence"
like "$out" "against generic.big's baseline: +0 points [-11, +11] over 30 case(s); about 43 more case(s) would settle it" \
    "the paired interval and how many more cases would settle it"
like "$out" "too weak: generic.mid baseline: 0.00" "mid without the skill is too weak"
like "$out" "-100 points [-100, -77]" "on its paired interval"
unlike "$out" "generic.big baseline: 1.00 [0.89, 1.00] over 30 run(s), \$0.00135 per passed case;" \
    "big's baseline is the bar, not a candidate"
like "$out" "no candidate is as good as generic.big within 5 points" "says none is"
is "$(nbatches)" 1 "the eval ran and was logged"
b1=$(ls "$T/runs")

# --- the same with a 15-point margin, from the runs already there ----------
sel "$T/t30.json" -m big -m mid -m small --beat big --margin 15
is "$rc" 0 "within 15 points mid with the skill is as good: exit 0"
is "$(printf '%s\n' "$out" | sed -n 3p | cut -d: -f1-2)" \
    "chosen: generic.mid with the skill" "the cheapest as good is chosen"
like "$out" "runner-up: generic.big with the skill" "big with the skill is the runner-up"
like "$err" "reused $T/runs/$b1 for generic.big" "big's runs are reused"
like "$err" "reused $T/runs/$b1 for generic.small" "and small's"
unlike "$err" "running " "nothing runs"
is "$(nbatches)" 1 "no new batch"

# --- a fourth model: only it runs; --beat's model need not be a candidate --
# free meets the goal without a price: --allow-unpriced chooses among the
# priced (docs/select.md)
sel "$T/t30.json" -m mid -m small -m free --beat big --margin 15 --json \
    --allow-unpriced
is "$rc" 0 "--json: exit 0"
like "$err" "running generic.free now: no finished batch" "free runs now"
like "$err" "reused $T/runs/$b1 for generic.big" "the reference is reused"
is "$(nbatches)" 2 "one new batch"
b2=$(ls "$T/runs" | sed -n 2p)
is "$(jq -c .models "$T/runs/$b2/batch_plan.json")" '["generic.free"]' \
    "holding free alone"
is "$(printf '%s' "$out" | jq -r '.beat + " " + (.margin | tostring)')" \
    "generic.big 0.15" "--json: beat and margin"
is "$(printf '%s' "$out" | jq -r '.reference.model + " " + (.reference.skill | tostring)')" \
    "generic.big false" "--json: the reference"
is "$(printf '%s' "$out" | jq -r '[.candidates[] | select(.model == "generic.big")] | length')" \
    0 "a reference not given with -m is no candidate"
is "$(printf '%s' "$out" | jq -r '.chosen.model + " " + (.chosen.skill | tostring)')" \
    "generic.mid true" "--json: the chosen"
is "$(printf '%s' "$out" | jq -r '.chosen.batch')" "$T/runs/$b1" \
    "--json: the batch it came from"
is "$(printf '%s' "$out" | jq -r '[.candidates[] | select(.model == "generic.free")][0] | .batch + " " + (.reused | tostring)')" \
    "$T/runs/$b2 false" "--json: free ran now, in the new batch"
is "$(printf '%s' "$out" | jq -r '.chosen.reused')" true "--json: mid was reused"
is "$(printf '%s' "$out" | jq -r '[.candidates[] | select(.model == "generic.free") | .verdict] | unique | join(",")')" \
    "meets the goal, no price" "--json: free meets the goal, never too expensive"
is "$(printf '%s' "$out" | jq -r .decided_on)" cost "--json: decided on cost"
is "$(printf '%s' "$out" | jq -r '.chosen.vs_reference.lo < -0.1 and .chosen.vs_reference.cases == 30')" \
    true "--json: the paired interval"

sel "$T/t30.json" -m mid -m mid --beat big --margin 15 --json
is "$(printf '%s' "$out" | jq -r '[.candidates[] | .model] | join(",")')" \
    "generic.mid,generic.mid" "a model given twice is one; the reference is still no candidate"

# --- reused runs are priced at the config's prices now ---------------------
prices 30 150
sel "$T/t30.json" -m big -m mid --target 0.8
is "$rc" 0 "--target from reused runs: exit 0"
like "$out" "chosen: generic.big baseline: 1.00 [0.89, 1.00] over 30 run(s), \$0.00135 per passed case" \
    "mid at ten times the price loses to big"
like "$out" "too expensive: generic.mid with the skill: 1.00 [0.89, 1.00] over 30 run(s), \$0.00270 per passed case" \
    "its reused runs cost what the config says now"
prices 3 15

# --- an interrupted batch and an errored one are passed over ---------------
cp -R "$T/runs/$b1" "$T/runs/9999_cut"
rm "$T/runs/9999_cut/batch_summary.json"
cp -R "$T/runs/$b1" "$T/runs/9999_err"
f=$(grep -l '"generic.small"' "$T"/runs/9999_err/run_*/cases/transcripts.jsonl | head -1)
jq -c 'if .case_index == 0 then .error = "boom" else . end' "$f" >"$f.new" &&
    mv "$f.new" "$f"
sel "$T/t30.json" -m big -m small --target 0.8
like "$err" "not reusing '$T/runs/9999_cut': it did not finish" "an interrupted batch is not reused"
like "$err" "upskill eval --resume 9999_cut" "and how to finish it is said"
like "$err" "not reusing '$T/runs/9999_err' for generic.small: 1 of its 60 conversations errored" \
    "nor a model with an errored conversation"
like "$err" "reused $T/runs/9999_err for generic.big" "the batch's other model is"
like "$err" "reused $T/runs/$b1 for generic.small" "small comes from an older batch"
rm -rf "$T/runs/9999_cut" "$T/runs/9999_err"

# --- --fresh runs every model; another suite reuses nothing ----------------
sel "$T/t30.json" -m big -m mid --target 0.8 --fresh
is "$rc" 0 "--fresh: exit 0"
like "$err" "running generic.big now: --fresh" "--fresh runs big again"
unlike "$err" "reused" "and reuses nothing"
is "$(nbatches)" 3 "in a new batch"
sel "$T/t80.json" -m big -m mid -m small --beat big
is "$rc" 0 "80 tied cases show mid is within 5 points of big: exit 0"
unlike "$err" "reused" "a batch of another suite is not reused"
like "$out" "chosen: generic.mid with the skill" "the done-when: the expected cheapest"

# --- usage -------------------------------------------------------------------
sel "$T/t30.json" -m big --target 0.8 --beat big
is "$rc" 2 "--target and --beat together: exit 2"
like "$err" "give one goal: --target RATE or --beat MODEL" "the usage error says so"
sel "$T/t30.json" -m big
is "$rc" 2 "no goal: exit 2"
sel "$T/t30.json" -m big --target 0.8 --margin 10
is "$rc" 2 "--margin without --beat: exit 2"
sel "$T/t30.json" -m big --beat big --margin 60
is "$rc" 2 "--margin over 50 points: exit 2"
sel "$T/t30.json" --target 0.8
is "$rc" 2 "no -m: exit 2"

done_testing
