#!/bin/sh
# Numbers as printed (issue 26, item 10): a significant lift whose lower
# bound lies between 0 and 0.5 points is printed "+0.3", never "+0", so
# the interval never reads as if it touched 0 beside "beneficial": in
# eval's text, its verdict sentence, the HTML report of the batch,
# `select --beat`'s paired interval and `compare`'s.  12 cases only the
# skill passes, 4 only the baseline, 34 both, of 50: p = 0.0455, Tango's
# [+0.3, +31].
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
sed 's/^Answer with/beta-marker: answer with/' \
    "$FIX/eval/student/SKILL.md" >"$T/sk/SKILL.md"
{
    printf '['
    i=0
    for kind in $(printf 'xsk %.0s' $(seq 12)) $(printf 'xbs %.0s' $(seq 4)) \
        $(printf 'xtie %.0s' $(seq 34)); do
        i=$((i + 1))
        [ $i -gt 1 ] && printf ','
        printf '{"input": "case %d %s", "expected": {"contains": ["GOOD"]}}' \
            "$i" "$kind"
    done
    printf ']\n'
} >"$T/tests.json"
cat >"$T/s.json" <<'JSON'
{"rules": [
 {"match": {"system": "beta-marker", "user": "xsk"}, "reply": {"text": "GOOD ANSWER"}},
 {"match": {"system": "beta-marker", "user": "xbs"}, "reply": {"text": "no idea"}},
 {"match": {"user": "xbs"}, "reply": {"text": "GOOD ANSWER"}},
 {"match": {"user": "xsk"}, "reply": {"text": "no idea"}},
 {"reply": {"text": "GOOD ANSWER"}}]}
JSON
fake_start "$T/s.json"

run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" -j 8
is "$rc" 0 "the eval exits 0"
like "$out" "lift +16 points, 95% CI [+0.3, +31], p = 0.0455 over 50 cases" \
    "the lower bound is printed on its side of 0"
like "$out" "verdict: beneficial: a lift of +0.3 to +31 points" \
    "and so is the verdict's"
unlike "$out" "[+0," "no bound reads +0"

run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "the report is written"
like "$(cat "$T/r.html")" "+16 points <span class=\"mut\">[+0.3, +31]</span>" \
    "the report's lift cell"
like "$(cat "$T/r.html")" "lift +16 points, 95% interval +0.3 to +31" \
    "the forest plot's description"

run "$UPSKILL" select "$T/sk" -t "$T/tests.json" -m local --beat local \
    --margin 0 --allow-unpriced --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "select reuses the batch: the skill arm beats the baseline"
like "$out" "against generic.local's baseline: +16 points [+0.3, +31] over 50 case(s)" \
    "select's paired interval"
like "$out" "within 0 points (the paired 95% interval of the difference, over the same cases, stays above 0 points)" \
    "a margin of 0 is no \"-0\""

# compare: skill A (no marker: answered as the baseline) against B
mkdir -p "$T/ska"
sed 's/^name: student/name: student-a/' "$FIX/eval/student/SKILL.md" \
    >"$T/ska/SKILL.md"
run "$UPSKILL" compare --no-cache "$T/ska" "$T/sk" -t "$T/tests.json" \
    -m local --base-url "$FAKE_URL/v1" --runs-dir "$T/cmp" -j 8
like "$out" "B - A: +16 points, 95% CI [+0.3, +31], p = 0.0455 over 50 cases" \
    "compare's interval"
done_testing
