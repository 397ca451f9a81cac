#!/bin/sh
# upskill report (docs/report.md): the HTML page of a fake-server eval is
# self-contained, escapes what the model wrote, and, rendered in headless
# Chromium, shows the expected pass rates, lift and verdict; its
# screenshot is not blank.  The browser half skips, saying so, where
# chromium is absent (scripts/deps.sh installs it).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# The skill arm always passes, the baseline never does; the baseline's
# answer carries markup that must come out as text.
cat > "$T/s.json" <<'JSON'
{"seed": 5, "rules": [
 {"match": {"system": "## Skill:"},
  "student": {"p_with": 1, "default": {"good": "GOOD ANSWER", "bad": "no idea"}}},
 {"student": {"p_without": 0, "default": {"good": "GOOD ANSWER",
   "bad": "<script>alert(1)</script><img src=x onerror=alert(2)>"}}}]}
JSON
fake_start "$T/s.json"
run "$UPSKILL" eval --no-cache "$SKILL" -m local --base-url "$FAKE_URL/v1" \
    --runs-dir "$T/runs" -j 4
is "$rc" 0 "the eval ran"

run "$UPSKILL" report "$T/runs" -o "$T/r.html"
is "$rc" 0 "report exits 0"
like "$out" "Report: $T/r.html (1 batch)" "it says what it wrote"
page=$(cat "$T/r.html")
unlike "$page" "http://" "no network reference (no CDN, no fetch)"
unlike "$page" "https://" "no network reference over https either"
unlike "$page" "<script>alert" "the model's markup is not live"
like "$page" "&lt;script&gt;alert(1)&lt;/script&gt;" "it is shown as text"
like "$page" "<title id=" "charts carry a title"
like "$page" "<desc id=" "and a description"
like "$page" "prefers-color-scheme:dark" "a dark theme"
like "$page" "@media print" "a print style"
like "$page" 'href="#t-0-' "matrix cells link to transcripts"
like "$page" '<details id="t-0-' "transcripts are embedded"
like "$page" "no price configured" "a missing price is said, not guessed"
like "$page" "suite sha256" "provenance names the suite hash"

run "$UPSKILL" plot -d "$T/runs" --html "$T/p.html"
is "$rc" 0 "plot --html writes the same report"
like "$(cat "$T/p.html")" "+100 points" "with the lift"

run "$UPSKILL" report "$T/nowhere" -o "$T/x.html"
is "$rc" 3 "a missing folder is bad input"
like "$err" "nowhere" "the message names it"
ok "$([ ! -e "$T/x.html" ]; echo $?)" "and nothing is written"
run "$UPSKILL" report "$FIX/runs/upstream" -o "$T/x.html"
is "$rc" 0 "upstream's batches, without case artifacts, are reported"
like "$(cat "$T/x.html")" \
    '<td>kimi</td><td>write-good-pr</td><td data-rate="0.6000">60%</td><td data-rate="1.0000">100%</td>' \
    "with the figures upstream's runs shows (issue 25)"
mkdir -p "$T/empty/b1/run_1"
run "$UPSKILL" report "$T/empty/b1" -o "$T/x.html"
is "$rc" 3 "a batch with neither artifacts nor run results is bad input"
like "$err" "no run results" "the message says what is missing"
run "$UPSKILL" report "$FIX/runs/artifacts" -o "$T/fx.html"
is "$rc" 0 "a batch without batch_plan.json (run_N only) is found"

# --- in a real browser -----------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "# SKIP browser checks: chromium is not installed (scripts/deps.sh)"
    done_testing
    exit
fi
browse() {
    HOME="$T" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$T/chrome" "$@" 2>"$T/chrome.err"
}
dom=$(browse --dump-dom "file://$T/r.html")
like "$dom" '<td data-rate="0.0000">0%' "the DOM shows the baseline's 0%"
like "$dom" '<td data-rate="1.0000">100%' "and the skill's 100%"
like "$dom" '+100 points' "the lift"
like "$dom" 'beneficial' "the verdict"
like "$dom" 'local' "the model"
browse --screenshot="$T/shot.png" --window-size=1280,2000 \
    "file://$T/r.html" >/dev/null
ok "$([ -s "$T/shot.png" ]; echo $?)" "a screenshot was taken"
colours=$(python3 "$TOP/tests/e2e/png_colours.py" "$T/shot.png")
ok "$([ "${colours:-0}" -ge 4 ]; echo $?)" "it is not blank ($colours colours)"
done_testing
