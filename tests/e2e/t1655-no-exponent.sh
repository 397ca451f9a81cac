#!/bin/sh
# Issue 31, item 3: a lift of exactly 0 (two arms with the same counts,
# summed in another order: 0.5333 - 0.5333 = -1e-14 in floating point)
# prints "+0", never "-1e-14" or any exponent: in eval's and the sweep's
# text, --json, compare, select, runs and the report.  Six skills that do
# nothing on three models whose answers are good half the time, in both
# arms, over three seeds: some cells have equal rates in both arms.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

for i in 1 2 3 4 5 6; do
    mkdir -p "reg/n$i"
    printf -- '---\nname: n%s\ndescription: Null skill %s of the test. Use when asked about items.\n---\n\n# n%s\n\nNothing.\n' \
        "$i" "$i" "$i" >"reg/n$i/SKILL.md"
    c=""
    for j in 1 2 3 4 5 6 7 8 9 10; do
        c="$c${c:+, }{\"input\": \"item $i q$j\", \"expected\": {\"contains\": [\"GOOD\"]}}"
    done
    printf '{"tests": [%s]}\n' "$c" >"reg/n$i/skill_meta.json"
done
cat >s.json <<'JSON'
{"seed": 3, "rules": [{"name": "half", "student": {"p_with": 0.5, "p_without": 0.5,
  "default": {"good": "GOOD", "bad": "BAD"}}}]}
JSON
fake_start "$T/s.json"
U="$FAKE_URL/v1"
# a printed number with an exponent: 1e-14, -6e-15, 2.5E+03
exp_re='(^|[^0-9A-Za-z_.])[-+]?[0-9]+(\.[0-9]+)?[eE][-+]?[0-9]+($|[^0-9A-Za-z_])'
noexp() { # noexp TEXT NAME: no line of TEXT holds a number with an exponent
    _m=$(printf '%s\n' "$1" | grep -oE ".{0,40}$exp_re" | head -3)
    is "$_m" "" "$2"
}

all=""
zeros=0
for s in 1 2 3; do
    run "$UPSKILL" eval reg/*/ -m a -m b -m c --no-cache --base-url "$U" \
        --runs 3 --seed "$s" --runs-dir "r$s"
    is "$rc" 0 "the sweep of seed $s exits 0"
    all="$all$out"
    run "$UPSKILL" eval reg/*/ -m a -m b -m c --base-url "$U" --runs 3 \
        --seed "$s" --runs-dir "r$s" --resume "$(ls "r$s")" --json
    printf '%s\n' "$out" >"s$s.json"
    z=$(jq '[.. | objects | select(has("lift") and has("baseline_rate")) |
             select(.baseline_rate == .with_skill_rate) | .lift] |
             map(select(. != 0)) | length' "s$s.json")
    is "$z" 0 "seed $s: --json gives every cell of equal rates a lift of exactly 0"
    zeros=$((zeros + $(jq '[.. | objects | select(has("lift") and has("baseline_rate")) |
             select(.lift == 0)] | length' "s$s.json")))
done
ok "$([ "$zeros" -gt 0 ] && echo 0 || echo 1)" \
    "the seeds make cells of equal rates ($zeros), the case under test"
like "$all" "lift +0 points" "an exact 0 prints as +0"
noexp "$all" "no lift or bound in the sweeps' text has an exponent"

run "$UPSKILL" eval reg/n1 reg/n2 -m a -m b --base-url "$U" --runs 3 --seed 1 \
    --runs-dir r1 --no-cache
noexp "$out" "eval over two models: no exponent"
run "$UPSKILL" compare reg/n1 reg/n2 -m a -m b --base-url "$U" --runs 3 \
    --runs-dir cmp --no-cache -t reg/n1/skill_meta.json
noexp "$out" "compare: no exponent"
run "$UPSKILL" select reg/n1 -m a -m b --target 0.4 --allow-unpriced \
    --base-url "$U" --runs 3 --runs-dir sel --no-cache
noexp "$out" "select: no exponent"
for s in 1 2 3; do
    run "$UPSKILL" runs --runs-dir "r$s"
    noexp "$out" "runs of seed $s: no exponent"
    run "$UPSKILL" report "r$s" -o "rep$s.html"
    is "$rc" 0 "the report of seed $s is written"
    # the page's text, with its markup, styles and scripts taken out
    txt=$(sed -e 's/<style.*<\/style>//' -e 's/<script.*<\/script>//' \
        -e 's/<[^>]*>/ /g' "rep$s.html")
    noexp "$txt" "the report of seed $s: no signed exponent"
done
done_testing
