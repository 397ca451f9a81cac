#!/bin/sh
# upskill report (docs/report.md), navigating: each case x model matrix
# cell links the transcript that matters (the first failing repeat of a ✗
# cell, else the first), and opening that link (the page's #anchor) opens
# the transcript; the matrix shows each case's text (cut, the whole in a
# title) with hostile markup inert; the filter takes a case number exactly
# ("case 1" is not case 10) or words of the case; the system prompts the
# runs sent are embedded once each, and every transcript links to its own.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
export OPENAI_API_KEY=sk-e2e-1604 UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/s.json" <<'JSON'
{"seed": 11, "rules": [{"student": {"p_with": 0.6, "p_without": 0.4,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
python3 - > "$T/t.json" <<'PY'
import json
cases = [{"input": "question %d about a topic that takes more than sixty "
          "bytes to say in full, line one\nand line two" % i,
          "expected": {"contains": ["GOOD"]}} for i in range(1, 13)]
cases[4]["input"] = 'question 5 <img src=x onerror=alert(5)> "quoted"'
print(json.dumps(cases))
PY
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" -m stu \
    --base-url "$FAKE_URL/v1" --runs 3 --runs-dir "$T/runs" -j 4
is "$rc" 0 "the eval ran"
run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
batch=$(ls "$T/runs")

# every matrix link against the transcripts: a ✗ cell links its first
# failing repeat, a ✓ cell its first
python3 - "$T/runs/$batch" "$T/r.html" > "$T/links.txt" <<'PY'
import glob, json, re, sys
want, fail_later = {}, 0
runs = sorted(glob.glob(sys.argv[1] + "/run_*"), key=lambda p: int(p.rsplit("_", 1)[1]))
cells = {}
for r in runs:
    for line in open(r + "/cases/transcripts.jsonl"):
        o = json.loads(line)
        cells.setdefault((o["arm"], o["case"]), []).append(o)
for (arm, case), arts in cells.items():
    fails = [a for a in arts if not a["passed"]]
    pick = fails[0] if fails else arts[0]
    want["%s-%d" % (arm, case)] = "#t-0-%d-%d" % (pick["run_number"], case)
    fail_later += bool(fails) and arts[0]["passed"]
page = open(sys.argv[2]).read()
m = page[page.index('id="matrix-0"'):]
m = m[:m.index("</table>")]
bad = links = 0
for n, row in enumerate(re.findall(r'<tr[^>]*>(.*?)</tr>', m, re.S)[1:], 1):
    hrefs = re.findall(r'href="([^"]+)"', row)
    for arm, h in zip(("baseline", "with_skill"), hrefs):
        links += 1
        bad += want["%s-%d" % (arm, n)] != h
print("cells=%d links=%d bad=%d fail_later=%d" % (len(want), links, bad,
                                                 fail_later))
PY
like "$(cat "$T/links.txt")" "cells=24 links=24 bad=0" "every matrix cell links the repeat that matters ($(cat "$T/links.txt"))"
ok "$(grep -q 'fail_later=[1-9]' "$T/links.txt"; echo $?)" \
    "some ✗ cell's first repeat passed: it links a later, failing one"

page=$(cat "$T/r.html")
like "$page" '<tr data-case="1"><td class="text" title="question 1 about a topic that takes more than sixty bytes to say in full, line one' \
    "the matrix row carries the case's whole text in a title"
like "$page" '<b class="nw">case 1</b> <span class="mut">question 1 about a topic that takes more than sixty bytes to…</span>' \
    "and shows it cut"
like "$page" 'question 5 &lt;img src=x onerror=alert(5)&gt; &quot;quoted&quot;' \
    "hostile case text is escaped"
unlike "$page" "<img src=x" "and never live"
is "$(grep -cE '(src|href)="https?:' "$T/r.html")" 0 "self-contained: no http or https reference"
is "$(grep -o '<details id="sys-0-' "$T/r.html" | wc -l | tr -d ' ')" 2 \
    "the two system prompts (baseline, with skill) are embedded once each"
is "$(grep -o 'href="#sys-0-[12]"' "$T/r.html" | wc -l | tr -d ' ')" 72 \
    "each of the 72 transcripts links its system prompt"
unlike "$page" "(the system prompt: cases/system_prompt.md)" "never a file the page lacks"
like "$page" "## Skill:" "the skill arm's prompt is there, with the skill"

browser_or_skip
# an anchor opens its transcript
link=$(sed -n 's/.*\(#t-0-[0-9]*-[0-9]*\)">✗.*/\1/p' "$T/r.html" | head -1)
id=${link#\#}
dom=$(browse --dump-dom "file://$T/r.html$link")
like "$dom" "<details id=\"$id\" open=\"\">" "opening a ✗ cell's link opens its transcript ($link)"
dom=$(browse --dump-dom "file://$T/r.html#sys-0-2")
like "$dom" '<details id="sys-0-2" open="">' "a system prompt link opens the prompt"

filter() { # filter QUERY: the visible rows of the matrix after typing QUERY
    sed "s|</body>|<script>var i=document.querySelector('input.filter');i.value='$1';i.dispatchEvent(new Event('input'));var n=[];document.querySelectorAll('#matrix-0 tbody tr').forEach(function(r){if(!r.hidden)n.push(r.dataset.case);});document.body.insertAdjacentHTML('beforeend','<pre id=rows>'+n.join(' ')+'</pre>');</script></body>|" \
        "$T/r.html" > "$T/f.html"
    browse --dump-dom "file://$T/f.html" | sed -n 's/.*<pre id="rows">\([^<]*\)<.*/\1/p'
}
is "$(filter 'case 1')" "1" "filter 'case 1': case 1 alone, not 10, 11, 12"
is "$(filter '12')" "12" "filter '12': case 12"
is "$(filter 'question 1 ')" "1 10 11 12" "filter by the case's words"
is "$(filter 'onerror')" "5" "the case text is searched"
is "$(filter '')" "1 2 3 4 5 6 7 8 9 10 11 12" "an empty filter shows every case"
done_testing
