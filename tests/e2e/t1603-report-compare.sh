#!/bin/sh
# upskill report (docs/report.md) of a `compare` batch (docs/compare.md):
# the arms are the two skills, named with their versions ("A: student
# 1.0", "B: student 2.0"), never "baseline" and "with skill"; the verdict
# says "B is better" (or worse), as compare does, never "beneficial"; A is
# named in the heading, the charts and the provenance.  Checked in the file and in
# headless Chromium's DOM.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1603 UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

version() { # version DIR MARKER VERSION
    mkdir -p "$1"
    printf -- '---\nname: student\ndescription: A test skill, version %s. Use when asked a question.\n---\n\n# Student %s\n\nAnswer the question.\n' \
        "$2" "$2" > "$1/SKILL.md"
    printf '{"metadata": {"version": "%s"}, "tests": []}\n' "$3" > "$1/skill_meta.json"
}
version a VERSION-A 1.0
version b VERSION-B 2.0
cat > "$T/s.json" <<'JSON'
{"seed": 5, "rules": [
 {"match": {"system": "VERSION-B"}, "student": {"marker": "VERSION-B", "p_with": 1,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"match": {"system": "VERSION-A", "user": "hard"}, "student": {"marker": "VERSION-A",
   "p_with": 0, "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"match": {"system": "VERSION-A"}, "student": {"marker": "VERSION-A", "p_with": 1,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}}}]}
JSON
{
    printf '['
    for i in $(seq 1 20); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"input": "hard question %d", "expected": {"contains": ["GOOD"]}}' "$i"
    done
    printf ']\n'
} > "$T/t.json"
fake_start "$T/s.json"

cmp_() { # cmp_ A B RUNS_DIR
    run "$UPSKILL" compare "$1" "$2" -t "$T/t.json" -m stu --no-cache \
        --base-url "$FAKE_URL/v1" --runs 2 --runs-dir "$3"
}
cmp_ a b "$T/ab"
is "$rc" 0 "compare a b: B is better"
cmp_ b a "$T/ba"
is "$rc" 0 "compare b a: B is worse"

run "$UPSKILL" report "$T/ab" -o "$T/ab.html"
is "$rc" 0 "report of the compare batch"
page=$(cat "$T/ab.html")
like "$page" "<h2>compare A: student 1.0 with B: student 2.0" \
    "the heading names A and B with their versions"
like "$page" "<th>A: student 1.0</th><th>B: student 2.0</th><th>lift (B − A)" \
    "the table's arms are A and B"
like "$page" '<td class="verdict">B is better: a lift of' "the verdict: B is better"
unlike "$page" "beneficial:" "never eval's 'beneficial'"
unlike "$page" "<th>baseline</th>" "no 'baseline' column"
unlike "$page" ">with skill</text>" "no 'with skill' in the chart legend"
like "$page" ">A: student 1.0</text>" "the legend names A"
like "$page" "Lift of B over A per model" "the forest plot is B over A"
like "$page" "B is better. </desc>" "its description says B is better"
like "$page" "<td>compare: skill A (baseline runs)</td><td>A: student 1.0</td>" \
    "the provenance names A"
like "$page" "generic.stu (A: student 1.0)" "the cost chart labels the points by skill"

run "$UPSKILL" report "$T/ba" -o "$T/ba.html"
like "$(cat "$T/ba.html")" '<td class="verdict">B is worse: a drop of' \
    "swapped: B is worse"
like "$(cat "$T/ba.html")" "<h2>compare A: student 2.0 with B: student 1.0" \
    "and the heading says which is which"

# an eval batch keeps eval's words
run "$UPSKILL" eval --no-cache b -t "$T/t.json" -m stu --base-url "$FAKE_URL/v1" \
    --runs-dir "$T/ev"
run "$UPSKILL" report "$T/ev" -o "$T/ev.html"
like "$(cat "$T/ev.html")" "<th>baseline</th><th>with skill</th><th>lift</th>" \
    "an eval batch: baseline and with skill"

browser_or_skip
dom=$(browse --dump-dom "file://$T/ab.html")
like "$dom" "B is better: a lift of" "the DOM: B is better"
like "$dom" "A: student 1.0" "the DOM names A"
done_testing
