# Headless Chromium for the report tests (t1600-t1609): source after
# tests/e2e/lib.sh.  browser_or_skip ends the script with a visible SKIP
# line where chromium is absent (scripts/deps.sh installs it); browse runs
# it; measure PAGE WIDTH sets MEASURE to what report_frame.py measures of
# PAGE in a WIDTH px frame ("sw=.. cw=.. font=.. broken=..") and SW, CW,
# FONT (whole px, rounded down), BROKEN, BOXES, MARKS, DRAWN, VERDICT,
# LATE, ROWS (report_frame.py says what they count); shoot PAGE WIDTH PNG takes a
# screenshot.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

browser_or_skip() {
    if [ -z "$CHROMIUM" ]; then
        echo "# SKIP browser checks: chromium is not installed (scripts/deps.sh)"
        done_testing
        exit
    fi
}

browse() {
    HOME="$T" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$T/chrome" "$@" 2>"$T/chrome.err"
}

measure() { # measure PAGE WIDTH
    python3 "$TOP/tests/e2e/report_frame.py" "$1" "$2" "$T/frame.html"
    MEASURE=$(browse --window-size=1400,1000 --dump-dom "file://$T/frame.html" |
        sed -n 's/.*<pre id="measure">\([^<]*\)<.*/\1/p')
    SW=$(echo "$MEASURE" | sed -n 's/.*sw=\([0-9]*\).*/\1/p')
    CW=$(echo "$MEASURE" | sed -n 's/.*cw=\([0-9]*\).*/\1/p')
    FONT=$(echo "$MEASURE" | sed -n 's/.*font=\([0-9]*\).*/\1/p')
    BROKEN=$(echo "$MEASURE" | sed -n 's/.*broken=\([0-9]*\).*/\1/p')
    BOXES=$(echo "$MEASURE" | sed -n 's/.*boxes=\([0-9]*\).*/\1/p')
    MARKS=$(echo "$MEASURE" | sed -n 's/.*marks=\([0-9]*\).*/\1/p')
    DRAWN=$(echo "$MEASURE" | sed -n 's/.*drawn=\([0-9]*\).*/\1/p')
    VERDICT=$(echo "$MEASURE" | sed -n 's/.*verdict=\([0-9]*\).*/\1/p')
    LATE=$(echo "$MEASURE" | sed -n 's/.*late=\([0-9]*\).*/\1/p')
    ROWS=$(echo "$MEASURE" | sed -n 's/.*rows=\([0-9]*\).*/\1/p')
}

shoot() { # shoot PAGE WIDTH PNG
    browse --screenshot="$3" --window-size="$2,1600" "file://$1" >/dev/null
}
