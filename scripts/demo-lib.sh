# Shared by the demo scripts (make demo, demo-agent, demo-cuda); sourced
# after TOP is set.  Checks the binaries, makes a temporary folder $T that
# is removed at the end with every fake server started, and gives:
#   serve SCENARIO NAME  start build/fake-llm on SCENARIO; its URL in $URL
#   step CMD...          print CMD (bold on a terminal), then run it
# The tests set UPSKILL and FAKE_LLM (make sanitize: the sanitizer build's).
UPSKILL=${UPSKILL:-$TOP/build/upskill}
FAKE=${FAKE_LLM:-$TOP/build/fake-llm}
for b in "$UPSKILL" "$FAKE"; do
    [ -x "$b" ] || { echo "demo: $b is missing: run 'make ${DEMO_TARGET:-demo}'" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/upskill-demo.XXXXXX")
PIDS=
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

serve() {
    "$FAKE" --scenario "$1" --port-file "$T/$2.port" --max-seconds 600 \
        >/dev/null 2>"$T/$2.err" &
    PIDS="$PIDS $!"
    i=0
    while [ ! -s "$T/$2.port" ] && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    [ -s "$T/$2.port" ] || { cat "$T/$2.err" >&2; exit 1; }
    URL=http://127.0.0.1:$(cat "$T/$2.port")
}

step() {
    if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
        printf '\n\033[1m$ %s\033[0m\n' "$*"
    else
        printf '\n$ %s\n' "$*"
    fi
    "$@"
}
