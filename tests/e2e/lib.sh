# TAP helpers for the end-to-end scripts.  Source it, call plan N (or
# done_testing at the end), then ok/is/like/exit_is.  Each script gets a
# private scratch folder in $T, removed on exit.
#
# Environment set by `make check-e2e`: UPSKILL (the binary), FAKE_LLM (the
# fake server binary), TOP (the source tree).

: "${UPSKILL:?run through make check-e2e}"
: "${TOP:?run through make check-e2e}"
FIX="$TOP/tests/fixtures"
T=$(mktemp -d "${TMPDIR:-/tmp}/upskill-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
# The response cache is on by default: keep each script's in its own
# scratch folder, never the user's, never shared between scripts.
export XDG_CACHE_HOME="$T/cache"
_n=0
_failed=0

plan() { echo "1..$1"; }
done_testing() {
    _upstream_schema
    echo "1..$_n"
    [ "$_failed" -eq 0 ]
}

# Every skill this script saved must load in upstream upskill (issue 25):
# its skill_meta.json against upstream's pydantic models, written as plain
# checks in tests/fake/upstream_schema.py.  One more test when there is
# any such skill; none without python3.
_upstream_schema() {
    command -v python3 >/dev/null 2>&1 || return 0
    _us=$(python3 "$TOP/tests/fake/upstream_schema.py" --tree "$T" 2>&1)
    _urc=$?
    [ -n "$_us" ] || return 0
    ok "$_urc" "every skill saved here loads in upstream upskill's schema"
    [ "$_urc" -eq 0 ] || printf '%s\n' "$_us" | head -20 | sed 's/^/#   /'
}

ok() { # ok COND-STATUS NAME
    _n=$((_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $_n - $2"
    else
        echo "not ok $_n - $2"
        _failed=$((_failed + 1))
    fi
}

is() { # is GOT WANT NAME
    if [ "$1" = "$2" ]; then ok 0 "$3"; else
        ok 1 "$3"
        printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
    fi
}

like() { # like TEXT FIXED-STRING NAME
    case "$1" in
    *"$2"*) ok 0 "$3" ;;
    *) ok 1 "$3"; printf '#   text: %s\n#   lacks: %s\n' "$1" "$2" | head -20 ;;
    esac
}

unlike() { # unlike TEXT FIXED-STRING NAME
    case "$1" in
    *"$2"*) ok 1 "$3"; printf '#   unexpected: %s\n' "$2" ;;
    *) ok 0 "$3" ;;
    esac
}

# run CMD...: sets $out (stdout), $err (stderr) and $rc.
run() {
    "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out=$(cat "$T/.out")
    err=$(cat "$T/.err")
}
