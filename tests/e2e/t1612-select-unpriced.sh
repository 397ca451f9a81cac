#!/bin/sh
# select without prices, against a dead endpoint, and "how many more
# cases" with --runs > 1 (issue 26, items 7-9; docs/select.md).  Without
# a price for the candidates that meet the goal no choice is made on cost:
# none is "too expensive", none is picked by -m order, exit 1, unless
# --allow-unpriced, which ranks them by pass rate.  A model whose
# conversations all errored is "not measured", with no "more cases".  With
# --runs 3 the promised number of further cases, counted in the effective
# sample size the interval uses, does settle the question when run.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1612 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
: >"$T/config.yaml"
# tiny: right on 9 cases of 10 in both arms; big: always right; no
# model on a case marked "bad"
cat >"$T/s.json" <<'JSON'
{"rules": [
 {"match": {"user": "bad"}, "reply": {"text": "no idea"}},
 {"match": {"model": "big"}, "reply": {"text": "GOOD ANSWER"}},
 {"match": {"model": "tiny", "user": "miss"}, "reply": {"text": "no idea"}},
 {"reply": {"text": "GOOD ANSWER"}}]}
JSON
suite() { # suite N GOOD BAD: N cases, in blocks of GOOD "ok" then BAD "bad"
    _i=1
    printf '['
    while [ "$_i" -le "$1" ]; do
        [ "$_i" -gt 1 ] && printf ','
        _w=ok
        [ $(((_i - 1) % ($2 + $3))) -ge "$2" ] && _w=bad
        [ $((_i % 10)) -eq 0 ] && [ "$_w" = ok ] && _w="ok miss"
        printf '{"input": "question %s %s", "expected": {"contains": ["GOOD"]}}' \
            "$_i" "$_w"
        _i=$((_i + 1))
    done
    printf ']\n'
}
suite 100 1 0 >"$T/t100.json"
fake_start "$T/s.json"

sel() { # sel TESTS ARGS...
    _t=$1
    shift
    run "$UPSKILL" select --no-cache "$T/sk" -t "$_t" --base-url "$FAKE_URL/v1" \
        --runs-dir "$T/runs" "$@"
}

# --- no prices: no choice on cost, whatever the -m order -------------------
for order in "-m tiny -m big" "-m big -m tiny"; do
    # shellcheck disable=SC2086
    sel "$T/t100.json" --target 0.8 $order
    is "$rc" 1 "$order: no price, no choice on cost: exit 1"
    like "$out" "no choice on cost: 4 candidate(s) that meet the goal have no price" \
        "$order: it says the choice cannot be made on cost"
    unlike "$out" "too expensive" "$order: no unpriced model is too expensive"
    unlike "$out" "chosen:" "$order: none is chosen"
    is "$(printf '%s\n' "$out" | sed -n 3p | cut -d: -f1-2)" \
        "meets the goal, no price: generic.big baseline" \
        "$order: listed by pass rate, big first"
done
for order in "-m tiny -m big" "-m big -m tiny"; do
    # shellcheck disable=SC2086
    sel "$T/t100.json" --target 0.8 --allow-unpriced $order
    is "$rc" 0 "$order --allow-unpriced: exit 0"
    like "$out" "chosen: generic.big baseline: 1.00" \
        "$order --allow-unpriced: the best pass rate is chosen"
    like "$out" "chosen by pass rate, not cost" "$order: and it says why"
done
sel "$T/t100.json" --target 0.8 --allow-unpriced -m tiny -m big --json
is "$(printf '%s' "$out" | jq -r .decided_on)" pass_rate \
    "--json: decided on pass rate"

# --- a dead endpoint: nothing was measured ---------------------------------
run "$UPSKILL" select --no-cache "$T/sk" -t "$T/t100.json" -m dead \
    --base-url "http://127.0.0.1:1/v1" --runs-dir "$T/dead" --target 0.8
is "$rc" 4 "a dead endpoint: exit 4, as eval"
like "$out" "not measured: generic.dead with the skill: no conversation was answered (all errored)" \
    "the candidate was not measured"
like "$out" "nothing was measured: no candidate has an answered conversation" \
    "select says nothing was measured"
unlike "$out" "more case" "no number of more cases is promised"
unlike "$out" "[0.00, 1.00]" "no interval of nothing"

# --- --runs 3: more cases in the effective sample size ----------------------
# 4 cases of 5 always right, the fifth always wrong: repeats agree, so
# n_eff is well under the 120 trials of 40 cases.
printf 'prices:\n  big: {input: 1, output: 1}\n' >"$T/config.yaml"
suite 40 4 1 >"$T/t40.json"
sel "$T/t40.json" --target 0.7 --runs 3 -m big --fresh
is "$rc" 1 "40 cases x 3 runs at 0.8 do not settle 0.7"
k=$(printf '%s\n' "$out" | sed -n 's/.*baseline: .*about \([0-9]*\) more case(s).*/\1/p')
ok "$([ -n "$k" ] && [ "$k" -gt 0 ]; echo $?)" "a number of more cases is given ($k)"
# counted in raw trials, 120 are already past the n Wilson's interval
# needs at 0.8, which promised nothing ("would not settle it")
like "$out" "over 120 run(s)" "120 trials were run"
unlike "$out" "would not settle it" "more cases do settle it"
suite $((40 + k)) 4 1 >"$T/tk.json"
sel "$T/tk.json" --target 0.7 --runs 3 -m big --fresh
like "$out" "big baseline: 0.8" "the grown suite passes at about the same rate"
unlike "$out" "not enough evidence: generic.big baseline" \
    "$k more cases settle it by the interval shown"
done_testing
