#!/bin/sh
# upskill report on a phone and a desktop (issue 34 item 10): the charts
# scale to the width (viewBox, width 100%), a narrow variant of each is
# shown below 680 px (names above the rows, the cost chart's labels
# listed below it); below 1,024 px every table is cards, the lift
# table's with the verdict first.  In headless Chromium at 400 and 1,280
# px (and 679, 680, 1,023): no chart or table box scrolls sideways, the
# forest plot's markers lie inside the visible chart, the verdicts are
# on screen (400 px: above the rates), chart text >= 10 px; the filter
# hides matrix cards; upstream's run files fit at 400 px.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
export UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/config.yaml" <<'YAML'
prices:
  claude-haiku-4-5: {input: 1, output: 5}
  gpt-5-mini: {input: 0.25, output: 2}
  llama-3.1-8b-instruct: {input: 0.02, output: 0.05}
  qwen2.5-coder-32b-instruct: {input: 0.1, output: 0.3}
  mistral-small-3.1-24b: {input: 0.1, output: 0.3}
YAML
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, ' "$1" "$2"
    printf '"p_without": %s, "default": {"good": "GOOD ANSWER", ' "$3"
    printf '"bad": "no idea"}}, "reply": {"usage": '
    printf '{"input_tokens": 40, "output_tokens": 10}}}'
}
{
    printf '{"seed": 5, "rules": [\n'
    printf '%s,\n' "$(rule claude-haiku-4-5 0.9 0.3)" "$(rule gpt-5-mini 0.7 0.6)" \
        "$(rule llama-3.1-8b-instruct 0.2 0.9)" "$(rule qwen2.5-coder-32b-instruct 1 1)"
    printf '%s]}\n' "$(rule mistral-small-3.1-24b 0.1 1)"
} > "$T/s.json"
{
    printf '['
    for i in $(seq 1 10); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"input": "question %s about the changelog entry format", ' "$i"
        printf '"expected": {"contains": ["GOOD"]}}'
    done
    printf ']\n'
} > "$T/t.json"
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" --base-url "$FAKE_URL/v1" \
    -m claude-haiku-4-5 -m gpt-5-mini -m llama-3.1-8b-instruct \
    -m qwen2.5-coder-32b-instruct -m mistral-small-3.1-24b --runs 2 \
    --runs-dir "$T/runs" -j 8
is "$rc" 0 "an eval of five models"
run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
page=$(cat "$T/r.html")
like "$page" '<svg class="chart w" role="img" viewBox="0 0 720 ' "a wide chart, by viewBox"
like "$page" '<svg class="chart n" role="img" viewBox="0 0 360 ' "and its narrow variant"
like "$page" '@media (max-width:679px){.cw{display:none}.cn{display:block}' \
    "one of the two shown, by the width"
like "$page" '.chart{width:100%;height:auto}' "scaled to the width"
is "$(grep -o '<svg class="chart n"' "$T/r.html" | wc -l | tr -d ' ')" 3 \
    "three narrow charts: rates, lift, cost"
# the lifts drawn span -90 to +70 points: both ends inside the plot
forest=$(printf '%s' "$page" | sed -n 's,.*\(<svg class="chart n"[^>]*forest-0-n-t.*\),\1,p' | sed 's,</svg>.*,,')
is "$(printf '%s' "$forest" | grep -o '<rect class="pt"' | wc -l | tr -d ' ')" 5 \
    "the narrow forest plot draws a marker per model"

browser_or_skip
for w in 400 1280; do
    measure "$T/r.html" "$w"
    ok "$([ -n "$SW" ] && [ "$SW" -le "$CW" ]; echo $?)" "$w px: the page does not scroll sideways ($MEASURE)"
    is "$BOXES" 0 "$w px: no chart or table box scrolls sideways"
    is "$DRAWN" 5 "$w px: the five lift markers are shown"
    is "$MARKS" 0 "$w px: every lift marker lies inside the visible chart"
    is "$VERDICT" 0 "$w px: every verdict is on screen, not scrolled away"
    ok "$([ -n "$FONT" ] && [ "$FONT" -ge 10 ]; echo $?)" "$w px: chart text >= 10 px"
    is "$BROKEN" 0 "$w px: no number or model name broken over lines"
    [ "$w" = 400 ] && is "$LATE" 0 "400 px: each model's verdict comes before its rates"
done
# either side of the charts' switch, chart text stays >= 10 px as drawn,
# and the tables, cards up to 1,023 px, fit
for w in 679 680 1023; do
    measure "$T/r.html" "$w"
    ok "$([ -n "$FONT" ] && [ "$FONT" -ge 10 ]; echo $?)" "$w px: chart text >= 10 px ($MEASURE)"
    is "$BOXES" 0 "$w px: no chart or table box scrolls sideways"
done
# the filter still hides rows when the matrix is cards
sed "s|</body>|<script>var i=document.querySelector('input.filter');i.value='3';i.dispatchEvent(new Event('input'));</script></body>|" \
    "$T/r.html" > "$T/f.html"
measure "$T/r.html" 400
is "$ROWS" 10 "400 px: the matrix shows its 10 cases"
measure "$T/f.html" 400
is "$ROWS" 1 "400 px: filtered to case 3, one card is shown"
# a batch of upstream's (run files, no artifacts): its two tables are cards too
run "$UPSKILL" report "$FIX/runs/upstream" -o "$T/up.html"
is "$rc" 0 "a report of upstream's runs"
measure "$T/up.html" 400
ok "$([ -n "$SW" ] && [ "$SW" -le "$CW" ]; echo $?)" "400 px: upstream's page does not scroll sideways ($MEASURE)"
is "$BOXES" 0 "400 px: nor do its tables"
done_testing
