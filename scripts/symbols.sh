#!/bin/sh
# Every global symbol the library defines (nm: T, D, B, R, ...) carries
# the up_ prefix (issue 33), but those named in scripts/symbols-allow.txt:
# the list of old names still to be renamed, which only shrinks (a name
# on it that is no longer exported fails too: take it off).
#
#   sh scripts/symbols.sh build/libupskill.a
set -u
lib=${1:-build/libupskill.a}
allow=${SYMBOLS_ALLOW:-scripts/symbols-allow.txt}
[ -f "$lib" ] || { echo "symbols: no $lib (build it first)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# defined globals (upper-case types; U is undefined, w/v weak)
nm -g --defined-only "$lib" 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' | sort -u >"$tmp/all"
# a sanitizer's own (ASan's __odr_asan.NAME beside each global) are the
# compiler's, not the library's
grep -v -e '^up_' -e '^__odr_asan' -e '^__asan_' -e '^__ubsan_' \
    -e '^__sancov' "$tmp/all" >"$tmp/bare"
grep -v -e '^#' -e '^$' "$allow" 2>/dev/null | sort -u >"$tmp/allow"
status=0
new=$(comm -23 "$tmp/bare" "$tmp/allow")
if [ -n "$new" ]; then
    echo "symbols: exported without the up_ prefix (make them static," \
        "or name them up_...):" "$(printf '%s\n' "$new" | tr '\n' ' ')" >&2
    status=1
fi
gone=$(comm -13 "$tmp/bare" "$tmp/allow")
if [ -n "$gone" ]; then
    echo "symbols: $allow names what is no longer exported" \
        "(take it off):" "$(printf '%s\n' "$gone" | tr '\n' ' ')" >&2
    status=1
fi
exit $status
