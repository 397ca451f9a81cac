# Helpers to run the fake LLM server from an end-to-end script.  Source it
# after tests/e2e/lib.sh:
#
#   . "$TOP/tests/e2e/lib.sh"
#   . "$TOP/tests/fake/lib.sh"
#   fake_need_curl            # TAP-skip the script when curl is missing
#   fake_start scenario.json [--record "$T/rec.jsonl" ...]
#   curl -s "$FAKE_URL/v1/models"
#
# fake_start runs $FAKE_LLM in the background with --port-file, waits for
# the port file (polling up to 30 s: a 50 MB scenario under a loaded
# sanitizer build takes seconds to parse) and sets FAKE_PID, FAKE_PORT and
# FAKE_URL.  Every server started is killed when the script exits.

_fake_pids=
_fake_n=0
trap '_fake_stop_all; rm -rf "$T"' EXIT

_fake_stop_all() {
    for _p in $_fake_pids; do kill "$_p" 2>/dev/null; done
    return 0
}

# fake_skip_all REASON: a TAP plan that skips the whole script.
fake_skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

fake_need_curl() {
    [ -x "${FAKE_LLM:-}" ] || fake_skip_all "FAKE_LLM not built"
    command -v curl >/dev/null 2>&1 || fake_skip_all "curl not found"
}

# fake_start SCENARIO [ARGS...]: returns 1 when no port appears in 30 s.
fake_start() {
    _fake_n=$((_fake_n + 1))
    _pf="$T/fake-port.$_fake_n"
    _scenario=$1
    shift
    "$FAKE_LLM" --scenario "$_scenario" --port-file "$_pf" \
        --max-seconds 120 "$@" >"$T/fake-out.$_fake_n" \
        2>"$T/fake-err.$_fake_n" &
    FAKE_PID=$!
    _fake_pids="$_fake_pids $FAKE_PID"
    _i=0
    while [ ! -s "$_pf" ] && [ $_i -lt 300 ]; do
        kill -0 "$FAKE_PID" 2>/dev/null || break
        sleep 0.1
        _i=$((_i + 1))
    done
    [ -s "$_pf" ] || return 1
    FAKE_PORT=$(cat "$_pf")
    FAKE_URL="http://127.0.0.1:$FAKE_PORT"
}
