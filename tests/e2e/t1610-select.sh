#!/bin/sh
# upskill select (docs/select.md): the eval with its baseline on three
# priced students of known quality and one without a price; select names
# the cheapest candidate whose interval clears the target, the runner-up
# and why each other lost, says the missing price, and exits 1 with "not
# enough evidence" (and how many more cases would settle it) when the
# suite is too small to tell.  The students answer with p 0 or 1, so the
# outcome does not depend on a seed.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1610 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/config.yaml" <<'YAML'
prices:
  big: {input: 15, output: 75}
  mid: {input: 3, output: 15}
  small: {input: 0.1, output: 0.4}
YAML
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, ' "$1" "$2"
    printf '"p_without": %s, "default": {"good": "GOOD ANSWER", ' "$3"
    printf '"bad": "no idea"}}, "reply": {"usage": '
    printf '{"input_tokens": 40, "output_tokens": 10}}}'
}
# big: always right; mid: right only with the skill; small: never right;
# free: always right, but the config has no price for it
{
    printf '{"rules": [%s,\n' "$(rule big 1 1)"
    printf '%s,\n%s,\n' "$(rule mid 1 0)" "$(rule small 0 0)"
    printf '%s]}\n' "$(rule free 1 1)"
} > "$T/s.json"
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
suite 30 > "$T/t30.json"
suite 3 > "$T/t3.json"
fake_start "$T/s.json"

sel() { # sel TESTS ARGS...
    _t=$1
    shift
    run "$UPSKILL" select --no-cache "$T/sk" -t "$_t" --base-url "$FAKE_URL/v1" \
        -m big -m mid -m small -m free --runs-dir "$T/runs" "$@"
}

# --- 30 cases: free clears but has no price: no choice on cost -----------
sel "$T/t30.json" --target 0.8
is "$rc" 1 "an unpriced candidate clears: no choice on cost, exit 1"
like "$out" "no choice on cost: 2 candidate(s) that meet the goal have no price" \
    "it says the choice cannot be made on cost"
like "$out" "meets the goal, no price: generic.free baseline: 1.00" \
    "free is listed as meeting the goal without a price"
like "$out" "meets the goal: generic.mid with the skill: 1.00" \
    "mid is listed as meeting the goal"
unlike "$out" "too expensive" "nobody is too expensive without a choice"
unlike "$out" "chosen:" "nothing is chosen"

# --- --allow-unpriced: mid with the skill is the cheapest priced one -------
sel "$T/t30.json" --target 0.8 --allow-unpriced
is "$rc" 0 "a candidate clears the target: exit 0"
like "$out" "chosen: generic.mid with the skill: 1.00" "the cheapest clearing candidate is mid with the skill"
like "$out" "runner-up: generic.big " "big is the runner-up"
is "$(printf '%s\n' "$out" | sed -n 3p | cut -d: -f1)" chosen "the chosen line comes first"
is "$(printf '%s\n' "$out" | sed -n 4p | cut -d: -f1)" runner-up "then the runner-up"
like "$out" "too expensive: generic.big " "big's other arm clears but costs more"
like "$out" "meets the goal, no price: generic.free " "free clears but has no price: never too expensive"
like "$out" "too weak: generic.mid baseline: 0.00" "mid without the skill is too weak"
like "$out" "too weak: generic.small with the skill" "small is too weak with the skill"
like "$out" "no price for generic.free: set prices in the config" "the missing price is said"
unlike "$out" "no price for generic.mid" "priced models are not called unpriced"
ls "$T"/runs/*/batch_summary.json >/dev/null 2>&1
ok $? "the eval was logged like eval's"

sel "$T/t30.json" --target 0.8 --json --allow-unpriced
is "$rc" 0 "--json: exit 0"
is "$(printf '%s' "$out" | jq -r '.chosen.model + " " + (.chosen.skill | tostring)')" \
    "generic.mid true" "--json names the chosen candidate"
is "$(printf '%s' "$out" | jq -r '.runner_up.model')" generic.big "--json names the runner-up"
is "$(printf '%s' "$out" | jq -r '.unpriced | join(",")')" generic.free "--json lists the unpriced model"
is "$(printf '%s' "$out" | jq -r '[.candidates[] | select(.verdict == "too weak")] | length')" \
    3 "--json: three candidates too weak"

# --- 3 cases: nothing can be told apart from 0.8 -----------------------
sel "$T/t3.json" --target 0.8
is "$rc" 1 "none clears on 3 cases: exit 1, a gate"
like "$out" "not enough evidence: generic.mid with the skill: 1.00" "3 of 3 is not enough evidence"
# the 8 candidates' intervals hold all at once (Bonferroni: 99.38% each),
# so more cases are needed than at 95% each (--family-control none)
like "$out" "target: pass rate 0.80 (the 99.38% interval's lower bound)" \
    "the target is read on simultaneous intervals"
like "$out" "intervals: 99.38% each, so that those of the 8 candidates hold all at once with 95% (Bonferroni; --family-control none: 95% each)" \
    "and says so"
like "$out" "generic.mid with the skill: 1.00 [0.29, 1.00] over 3 run(s)" "each interval at 99.38%: 3 of 3 reads [0.29, 1.00]"
like "$out" "about 27 more case(s) would settle it" "how many more cases would settle it"
like "$out" "no candidate clears 0.80" "says that none clears"
sel "$T/t3.json" --target 0.8 --family-control none
like "$out" "target: pass rate 0.80 (the 95% interval's lower bound)" \
    "--family-control none: each interval at 95%"
unlike "$out" "intervals:" "... with no simultaneous line"
like "$out" "generic.mid with the skill: 1.00 [0.44, 1.00] over 3 run(s)" "... 3 of 3 reads [0.44, 1.00] at 95%"
like "$out" "about 13 more case(s) would settle it" "... and fewer cases to settle it"

sel "$T/t3.json" --target 0.8 --json
is "$rc" 1 "--json: exit 1 when none clears"
is "$(printf '%s' "$out" | jq -r '.chosen')" null "--json: no chosen candidate"
is "$(printf '%s' "$out" | jq -r '[.candidates[] | select(.model == "generic.mid" and .skill)][0].more_cases')" \
    27 "--json: more_cases"
is "$(printf '%s' "$out" | jq -c '.simultaneous')" \
    '{"candidates":8,"level":0.99375,"all_at_once":0.95}' "--json: the simultaneous level"

# --- a model no rule answers: its conversations fail, exit 4 as eval -------
run "$UPSKILL" select --no-cache "$T/sk" -t "$T/t3.json" --base-url "$FAKE_URL/v1" \
    -m big -m ghost --target 0.5 --runs-dir "$T/runs"
is "$rc" 4 "a model that answered nothing: exit 4, as eval"
like "$err" "no conversation was answered (6 failed)" "the failures are said (once: issue 34)"

# --- usage ---------------------------------------------------------------
sel "$T/t3.json"
is "$rc" 2 "--target is required: exit 2"
sel "$T/t3.json" --target 1.5
is "$rc" 2 "--target outside (0, 1]: exit 2"
like "$err" "--target must be a pass rate in (0, 1]" "the usage error says the range"

done_testing
