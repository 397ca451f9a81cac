#!/bin/sh
# The arrows between the parts of src/lib (docs/architecture.md): one line
# "FROM -> TO (HEADER)" per header of another part in the include closure
# of a part's sources, as the compiler sees it (`$CC -MM` with the flags of
# `make print-depflags`), not only the literal #include lines: a header
# that includes another header carries its arrows with it.
#
#   sh scripts/arrows.sh          print the arrows
#   sh scripts/arrows.sh --check  print the forbidden ones (to stderr) and
#                                 exit 1 when there is any
#
# Run from the top of a tree (src/lib/PART/, include/upskill/).  CC and
# ARROWS_FLAGS override the compiler and its flags (default: the
# Makefile's, through `make -s print-depflags`).
set -u
CC=${CC:-cc}
if [ -z "${ARROWS_FLAGS+set}" ]; then
    ARROWS_FLAGS=$(make -s --no-print-directory print-depflags) || exit 2
fi

# part of each public header: the folder of src/lib implementing it
owner() {
    for f in src/lib/*/"$1".c src/lib/*/"$1"_*.c; do
        [ -e "$f" ] && { echo "$f" | cut -d/ -f3; return; }
    done
    echo "-"
}

# part $1's arrows: one line per header of another part in the closure
# of its sources
part_arrows() {
    # shellcheck disable=SC2086 # the flags are words
    mm=$($CC $ARROWS_FLAGS -MM src/lib/"$1"/*.c) ||
        { echo "arrows: $CC -MM failed on src/lib/$1" >&2; return 1; }
    deps=$(printf '%s\n' "$mm" | tr ' \\' '\n\n' | grep '\.h$' | sort -u)
    for h in $(printf '%s\n' "$deps" |
        sed -n 's|^\(\./\)\{0,1\}include/upskill/\([a-z0-9_]*\)\.h$|\2|p'); do
        o=$(owner "$h")
        [ "$o" != "-" ] && [ "$o" != "$1" ] && echo "$1 -> $o ($h)"
    done
    for o in $(printf '%s\n' "$deps" |
        sed -n 's|^\(\./\)\{0,1\}src/lib/\([a-z]*\)/.*|\2|p' | sort -u); do
        [ "$o" != "$1" ] && echo "$1 -> $o (internal)"
    done
    return 0
}

arrows() {
    out=
    for d in src/lib/*/; do
        a=$(part_arrows "$(basename "$d")") || return 2
        out="$out$a
"
    done
    printf '%s' "$out" | grep . | sort -u
}

# The arrows docs/architecture.md forbids: the lower parts never reach
# eval's or gen's headers, the sandbox knows no agent or CLI.
forbidden() {
    grep -E \
        -e '^(harness|config|agent|sandbox|cases|skill|store|report) -> eval ' \
        -e '^(harness|config|sandbox|cases|skill|store|report) -> gen ' \
        -e '^sandbox -> (agent|harness) '
}

if [ "${1:-}" = "--check" ]; then
    all=$(arrows) || exit 2
    bad=$(printf '%s\n' "$all" | forbidden)
    if [ -n "$bad" ]; then
        printf 'arrows: forbidden by docs/architecture.md:\n%s\n' "$bad" >&2
        exit 1
    fi
    exit 0
fi
arrows
