#!/bin/sh
# upskill report (docs/report.md) says what the batch is: a shard's page
# says "shard 2 of 4"; the statistics use the seed and margin the eval was
# given (batch_plan.json), so a `--seed 7 --margin 3` batch says seed 7
# and its verdicts equal eval's; the forest plot draws the margin band and
# colours each marker by its verdict; every price and cost is in one
# fixed-point format ($0.00000130, never 1.3e-06).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
export OPENAI_API_KEY=sk-e2e-1605 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/config.yaml" <<'YAML'
prices:
  good: {input: 0.02, output: 0.05}
  meh: {input: 3, output: 15}
YAML
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, ' "$1" "$2"
    printf '"p_without": %s, "default": {"good": "GOOD ANSWER", ' "$3"
    printf '"bad": "no idea"}}, "reply": {"usage": '
    printf '{"input_tokens": 40, "output_tokens": 10}}}'
}
printf '{"seed": 2, "rules": [%s,\n%s]}\n' "$(rule good 1 0)" "$(rule meh 0.5 0.5)" > "$T/s.json"
{
    printf '['
    for i in $(seq 1 20); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"input": "question %s", "expected": {"contains": ["GOOD"]}}' "$i"
    done
    printf ']\n'
} > "$T/t.json"
fake_start "$T/s.json"
ev() { # ev RUNS_DIR ARGS...
    _d=$1
    shift
    run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" -m good -m meh \
        --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$_d" "$@"
}

# --- a shard ---------------------------------------------------------------
ev "$T/shard" --shard 2/4
is "$rc" 0 "shard 2 of 4 ran"
run "$UPSKILL" report "$T/shard" -o "$T/shard.html"
is "$rc" 0 "report of the shard"
like "$(cat "$T/shard.html")" ", shard 2 of 4</span></h2>" "the heading says shard 2 of 4"
like "$(cat "$T/shard.html")" "<b>Shard 2 of 4</b>: these are only this shard" \
    "and that it is only a part"

# --- seed 7, margin 3 --------------------------------------------------------
ev "$T/s7" --seed 7 --margin 3 --json
is "$rc" 0 "an eval with --seed 7 --margin 3"
printf '%s\n' "$out" > "$T/eval.json"
run "$UPSKILL" report "$T/s7" -o "$T/s7.html"
page=$(cat "$T/s7.html")
like "$page" "<td>statistics seed</td><td>7 (the batch&#39;s, batch_plan.json;" \
    "provenance: the seed actually used, 7"
like "$page" "<td>\"no meaningful effect\" margin</td><td>3 points (the batch&#39;s" \
    "and the margin, 3 points"
like "$page" "The band is the no-meaningful-effect margin, -3 to +3 points." \
    "the forest plot draws the --margin band"
like "$page" '<rect class="band" x="433.4" y="4" width="13.2"' "3 points wide each side"
python3 - "$T/eval.json" "$T/s7.html" > "$T/verdicts.txt" <<'PY'
import html, json, re, sys
d = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
got = [html.unescape(v) for v in re.findall(r'<td class="verdict">([^<]*)</td>', page)]
want = [m["verdict_text"] for m in d["models"]]
print("same" if got == want else "differ: %r vs %r" % (got, want))
for m in d["models"]:
    print(m["model"], m["verdict"])
PY
is "$(head -1 "$T/verdicts.txt")" "same" "the page's verdicts equal eval's --json verdict_text"
like "$(cat "$T/verdicts.txt")" "generic.good beneficial" "good is beneficial"
like "$page" '<g class="v-beneficial"><line class="ci"' "its marker carries its verdict"
run "$UPSKILL" report "$T/s7" -o "$T/s1.html" --seed 1 --margin 10
like "$(cat "$T/s1.html")" "<td>statistics seed</td><td>1 (given to report --seed;" \
    "report --seed overrides, and says so"
like "$(cat "$T/s1.html")" "margin, -10 to +10 points" "report --margin too"

# --- one price format --------------------------------------------------------
is "$(grep -cE '\$[0-9.]+e[-+]' "$T/s7.html")" 0 "no price or cost in exponent notation"
like "$page" "\$0.0200 input, \$0.0500 output" "prices per million tokens in the one format"
like "$page" "at \$0.00000130 per case" "a cost per case of 1.3e-06 USD in fixed point"
like "$page" "<td>\$0.000104</td></tr>" "the total cost the same way (80 x 1.3e-06)"

browser_or_skip
sed 's|</body>|<script>var o=[];document.querySelectorAll("#forest-0-t ~ g, svg g[class^=v-]").forEach(function(g){o.push(g.getAttribute("class")+"="+getComputedStyle(g.querySelector(".pt")).fill);});document.body.insertAdjacentHTML("beforeend","<pre id=fills>"+o.join(" ")+"</pre>");</script></body>|' \
    "$T/s7.html" > "$T/fills.html"
fills=$(browse --dump-dom "file://$T/fills.html" | sed -n 's/.*<pre id="fills">\([^<]*\)<.*/\1/p')
like "$fills" "v-beneficial=rgb(26, 127, 55)" "in the browser the beneficial marker is green ($fills)"
ok "$(printf '%s' "$fills" | grep -q 'v-inconclusive=rgb(140, 149, 159)\|v-no_effect=rgb(140, 149, 159)\|v-harmful=rgb(207, 34, 46)'; echo $?)" \
    "the other marker has its verdict's colour, not the beneficial one"
done_testing
