#!/bin/sh
# upskill report of a sweep (eval SKILL..., docs/report.md "A sweep: the
# leaderboard") on a phone (issue 34 item 10): below 1,024 px the
# leaderboard is one card per skill, each lift under its model's name,
# like the batch tables, so at 400 px neither the page nor any box
# scrolls sideways; at 1,280 px it stays a table that fits.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/report_browser.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

mk() { # mk NAME MARK
    mkdir -p "$T/reg/$1"
    printf -- '---\nname: %s\ndescription: The %s skill of the board test. Use when asked about %s.\n---\n\n# %s\n\nSay %s.\n' \
        "$1" "$1" "$1" "$1" "$2" >"$T/reg/$1/SKILL.md"
    printf '{"tests": [%s, %s]}\n' \
        "{\"input\": \"$1 q1\", \"expected\": {\"contains\": [\"GOOD\"]}}" \
        "{\"input\": \"$1 q2\", \"expected\": {\"contains\": [\"GOOD\"]}}" \
        >"$T/reg/$1/skill_meta.json"
}
mk changelog-entries CHANGELOG-MARK
mk release-notes RELEASE-MARK
cat >"$T/s.json" <<'JSON'
{"rules": [
 {"match": {"system": "CHANGELOG-MARK"}, "reply": {"text": "GOOD"}},
 {"reply": {"text": "meh"}}]}
JSON
fake_start "$T/s.json"
run "$UPSKILL" eval "$T"/reg/*/ -m llama-3.1-8b-instruct \
    -m qwen2.5-coder-32b-instruct -m mistral-small-3.1-24b --no-cache \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "a sweep of two skills on three models"
run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
like "$(cat "$T/r.html")" '#board-0 td:nth-child(2)::before{content:"generic.llama-3.1-8b-instruct"}' \
    "each leaderboard cell is named by its model on a card"

browser_or_skip
for w in 400 1280; do
    measure "$T/r.html" "$w"
    ok "$([ -n "$SW" ] && [ "$SW" -le "$CW" ]; echo $?)" "$w px: the page does not scroll sideways ($MEASURE)"
    is "$BOXES" 0 "$w px: no chart or table box scrolls sideways"
    ok "$([ -n "$FONT" ] && [ "$FONT" -ge 10 ]; echo $?)" "$w px: chart text >= 10 px"
    is "$BROKEN" 0 "$w px: no number or model name broken over lines"
done
done_testing
