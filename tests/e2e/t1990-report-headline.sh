#!/bin/sh
# upskill report at a glance (issue 34 item 10, part): each batch opens
# with one sentence per model, its verdict and lift with the interval
# ("the skill helps generic.good: +100 points [...]"), in A/B words for a
# compare batch (the intervals are the lift table's, family-controlled:
# two models, 97.5%).  In headless Chromium at 400 and 1,280 px the page
# does not scroll sideways and the sentences are there.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 > /dev/null 2>&1 || fake_skip_all "python3 not found"
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 3, "rules": [
 {"match": {"model": "good"}, "student": {"p_with": 1, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"match": {"model": "same"}, "student": {"p_with": 1, "p_without": 1,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m good -m same \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "an eval of two models"
run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
has() { grep -qF "$1" "$T/r.html" && echo 0 || echo 1; }
ok "$(has '<ul class="headline"><li>the skill helps <b>generic.good</b>: +100 points [+71, +100]</li>')" \
    "a sentence for the model the skill helps, with its lift and interval"
ok "$(has '<li>not clear yet whether the skill helps <b>generic.same</b> (more cases or runs would tell): +0 points [-14, +14]</li>')" \
    "and one for the model it is not clear for"
is "$(grep -o '<ul class="headline">' "$T/r.html" | wc -l | tr -d ' ')" 1 \
    "one headline per batch"
# the headline comes before the first chart
head_at=$(grep -bo '<ul class="headline">' "$T/r.html" | head -n 1 | cut -d: -f1)
chart_at=$(grep -bo '<h3>Pass rates</h3>' "$T/r.html" | head -n 1 | cut -d: -f1)
ok "$([ "$head_at" -lt "$chart_at" ] && echo 0 || echo 1)" "at the top of the batch"

browser_or_skip
for w in 400 1280; do
    measure "$T/r.html" "$w"
    ok "$([ -n "$SW" ] && [ "$SW" -le "$CW" ] && echo 0 || echo 1)" \
        "at $w px the page does not scroll sideways ($MEASURE)"
done
browse --window-size=400,1000 --dump-dom "file://$T/r.html" > "$T/dom.html"
ok "$(grep -qF 'the skill helps <b>generic.good</b>' "$T/dom.html" && echo 0 || echo 1)" \
    "Chromium shows the headline"

done_testing
