#!/bin/sh
# upskill report (docs/report.md) of a 5-model batch whose one model
# answered no conversation with the skill (the fake server answers it
# HTTP 500): that arm is "not measured" with its error count in the
# table, the lift, the forest plot (no marker) and the cost chart (no
# point, so never on the Pareto frontier), and eval's text says nothing
# about its cost.  The cost chart has a log axis with tick values and a
# label per point, no two on one row; a model without a price turns it to
# tokens and the chart says why.  In headless Chromium at 400 and 1,280
# px the page does not overflow, nor does any table or chart box, chart
# text stays >= 10 px and no number or model name is broken; the DOM's
# rates equal eval's JSON.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
export OPENAI_API_KEY=sk-e2e-1602 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/config.yaml" <<'YAML'
prices:
  big-model-x: {input: 15, output: 75}
  claude-haiku-4-5: {input: 1, output: 5}
  gpt-5-mini: {input: 0.25, output: 2}
  tiny-1: {input: 0.02, output: 0.05}
  dead-7: {input: 0.5, output: 1}
YAML
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, ' "$1" "$2"
    printf '"p_without": %s, "default": {"good": "GOOD ANSWER", ' "$3"
    printf '"bad": "no idea"}}, "reply": {"usage": '
    printf '{"input_tokens": 40, "output_tokens": 10}}}'
}
{
    printf '{"seed": 3, "rules": [{"match": {"model": "dead-7", '
    printf '"system": "## Skill:"}, "reply": {"status": 500}},\n'
    printf '%s,\n' "$(rule big-model-x 0.9 0.8)" "$(rule claude-haiku-4-5 0.8 0.5)" \
        "$(rule gpt-5-mini 0.7 0.6)" "$(rule tiny-1 0.5 0.5)" "$(rule free-9 1 0)"
    printf '%s]}\n' "$(rule dead-7 1 0.3)"
} > "$T/s.json"
{
    printf '['
    for i in $(seq 1 12); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"input": "question %s", "expected": {"contains": ["GOOD"]}}' "$i"
    done
    printf ']\n'
} > "$T/t.json"
fake_start "$T/s.json"
MODELS="-m big-model-x -m claude-haiku-4-5 -m gpt-5-mini -m tiny-1 -m dead-7"
# shellcheck disable=SC2086
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" --base-url "$FAKE_URL/v1" \
    $MODELS --runs 3 --runs-dir "$T/runs" -j 8 --json
is "$rc" 4 "the eval ran; dead-7's skill arm failed after retries (exit 4)"
printf '%s\n' "$out" > "$T/eval.json"
# shellcheck disable=SC2086
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" --base-url "$FAKE_URL/v1" \
    $MODELS --runs 3 --runs-dir "$T/runs2" -j 8
dead=$(printf '%s\n' "$out" | sed -n '/^generic.dead-7/,/^$/p')
like "$dead" "36 of 36 conversations errored" "eval says the skill arm errored"
unlike "$dead" "pay for itself" "and makes no cost verdict about an arm with no data"
pays=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print([m["pays_for_itself"] for m in d["models"] if m["model"]=="generic.dead-7"][0])' "$T/eval.json")
is "$pays" "None" "--json: pays_for_itself is null for it"

run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
page=$(cat "$T/r.html")
# (the error message names the endpoint, as text: no reference)
is "$(grep -cE '(src|href)="https?:|url\(https?:' "$T/r.html")" 0 \
    "self-contained: no http or https reference"
row=$(python3 -c 'import sys
s=open(sys.argv[1]).read(); t=s[s.index("<tr><td>generic.dead-7</td>"):]
print(t[:t.index("</tr>")])' "$T/r.html")
like "$row" "not measured: all 36 conversations errored" "the table: the skill arm is not measured, with its error count"
unlike "$row" "(0/0)" "never 0% of 0"
like "$row" "not measured: no case was answered in both arms" "the lift: not measured"
unlike "$row" "+0 points" "never a +0 lift"
forest=$(printf '%s' "$page" | sed -n 's,.*\(<svg[^>]*forest-0-t.*\),\1,p' | sed 's,</svg>.*,,')
like "$forest" "generic.dead-7: not measured" "the forest plot says so"
is "$(printf '%s' "$forest" | grep -o '<g class="v-' | wc -l | tr -d ' ')" 4 \
    "and draws a marker for the 4 measured models alone"
pareto=$(printf '%s' "$page" | sed -n 's,.*\(<svg[^>]*pareto-0-t.*\),\1,p' | sed 's,</svg>.*,,')
is "$(printf '%s' "$pareto" | grep -o '<circle class="[a-z]* pt-' | wc -l | tr -d ' ')" 9 \
    "the cost chart: 9 points, none for the arm that answered nothing"
unlike "$pareto" "generic.dead-7 (skill)" "no label for it"
like "$pareto" "generic.dead-7 with skill: no point, not measured" "its description says why"
like "$pareto" "(log scale)" "a log axis"
like "$pareto" 'text-anchor="middle">$0.0000100</text>' "with dollar tick values"
is "$(grep -cE '\$[0-9.]+e-' "$T/r.html")" 0 "no price in exponent notation"
ys=$(printf '%s' "$pareto" | grep -o '<text class="val" x="482" y="[0-9.]*"' | sed 's/.*y="//; s/"//' | sort -n)
gaps=$(printf '%s\n' "$ys" | awk 'NR>1 && $1-p<15 {bad++} {p=$1} END {print bad+0}')
is "$(printf '%s\n' "$ys" | wc -l | tr -d ' ')" 9 "one label per point, in the label column"
is "$gaps" 0 "no two labels closer than a row (they never overlap)"

# a model without a price: tokens, and the chart says why
cat > "$T/config.yaml" <<'YAML'
prices:
  tiny-1: {input: 0.02, output: 0.05}
YAML
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" --base-url "$FAKE_URL/v1" \
    -m tiny-1 -m free-9 --runs-dir "$T/runs3"
run "$UPSKILL" report "$T/runs3" -o "$T/tok.html"
like "$(cat "$T/tok.html")" "tokens, not cost: no price configured for generic.free-9" \
    "the chart says it shows tokens because free-9 has no price"

# --- in a real browser -----------------------------------------------------
browser_or_skip
dom=$(browse --dump-dom "file://$T/r.html")
python3 - "$T/eval.json" > "$T/want.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    for arm in ("baseline", "with_skill"):
        a = m[arm]
        if a["answered"]:
            print('%s %s %.4f %d/%d' % (m["model"], arm, a["pass_rate"],
                                       a["passed"], a["answered"]))
PY
printf '%s' "$dom" > "$T/dom.html"
python3 - "$T/dom.html" > "$T/got.txt" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
t = s[s.index('id="lift-0"'):]
t = t[:t.index('</table>')]
for row in re.findall(r'<tr><td>([^<]*)</td>(.*?)</tr>', t):
    cells = re.findall(r'<td[^>]*data-rate="([0-9.]+)"[^>]*>.*?\((\d+/\d+)\)', row[1])
    arms = ["baseline", "with_skill"]
    if 'not measured: all' in row[1].split('</td>')[0]:
        arms = ["with_skill"]
    elif 'not measured: all' in row[1]:
        arms = ["baseline"]
    for arm, (rate, frac) in zip(arms, cells):
        print('%s %s %s %s' % (row[0], arm, rate, frac))
PY
is "$(cat "$T/got.txt")" "$(cat "$T/want.txt")" "the DOM's rates and counts equal eval's JSON (9 measured arms)"
is "$(wc -l < "$T/got.txt" | tr -d ' ')" 9 "and there are 9 of them"
for w in 400 1280; do
    measure "$T/r.html" "$w"
    ok "$([ -n "$SW" ] && [ "$SW" -le "$CW" ]; echo $?)" "$w px: no horizontal overflow ($MEASURE)"
    ok "$([ -n "$FONT" ] && [ "$FONT" -ge 10 ]; echo $?)" "$w px: chart text >= 10 px"
    is "$BROKEN" 0 "$w px: no number or model name broken over lines"
    is "$BOXES" 0 "$w px: no table or chart box scrolls sideways (the unmeasured words wrap)"
    shoot "$T/r.html" "$w" "$T/shot-$w.png"
    colours=$(python3 "$TOP/tests/e2e/png_colours.py" "$T/shot-$w.png")
    ok "$([ "${colours:-0}" -ge 4 ]; echo $?)" "$w px screenshot is not blank ($colours colours)"
done
done_testing
