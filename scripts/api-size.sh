#!/bin/sh
# The size of the public API (include/upskill) and how much of it the
# command line uses (issue 33), as the compiler sees it:
#
#   headers, lines     files and lines under include/upskill
#   struct bodies      "struct NAME {" / "typedef struct ... {" in them
#   opaque typedefs    "typedef struct NAME NAME;" without a body there
#   prototypes         functions declared there (gcc -aux-info)
#   used by src/cli    those the objects of src/cli call (nm -u)
#   headers unused     public headers declaring nothing src/cli calls
#   eval.h closure     objects whose `$CC -MM` closure holds eval.h
#   cli -> private     src/cli objects whose closure holds a header
#                      outside include/ and src/cli (0 by construction)
#
#   sh scripts/api-size.sh     print the figures (needs build/ for nm)
#
# Run from the top of the tree.  CC and API_FLAGS override the compiler
# and its flags (default: the Makefile's, through `make print-depflags`).
set -u
CC=${CC:-cc}
BUILD=${BUILD:-build}
if [ -z "${API_FLAGS+set}" ]; then
    API_FLAGS=$(make -s --no-print-directory print-depflags) || exit 2
fi
CLI_FLAGS=$(make -s --no-print-directory print-cli-depflags 2>/dev/null) ||
    CLI_FLAGS=$API_FLAGS
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

hdrs=$(ls include/upskill/*.h)
echo "headers: $(echo "$hdrs" | wc -l)"
# shellcheck disable=SC2086 # the list is words
echo "lines: $(cat $hdrs | wc -l)"
# shellcheck disable=SC2086
echo "struct bodies: $(grep -hcE '^(typedef )?(struct|union)( [a-z_0-9]+)? *\{' \
    $hdrs | awk '{s += $1} END {print s}')"
# shellcheck disable=SC2086
echo "opaque typedefs: $(grep -hoE '^typedef struct ([a-z_0-9]+) \1;' $hdrs |
    sed 's/typedef struct \([a-z_0-9]*\) .*/\1/' | while read -r s; do
        grep -qE "^(typedef )?struct $s *\{" $hdrs || echo "$s"
    done | wc -l)"

for h in $hdrs; do
    echo "#include \"upskill/${h##*/}\""
done >"$tmp/all.c"
# shellcheck disable=SC2086
$CC $API_FLAGS -fsyntax-only -aux-info "$tmp/aux" "$tmp/all.c" || exit 2
grep '^/\* include/upskill/' "$tmp/aux" |
    sed 's|^/\* include/upskill/\([a-z0-9_]*\.h\):.*[ *]\([a-z_0-9]*\) (.*|\1 \2|' |
    sort -u >"$tmp/protos"
echo "prototypes: $(wc -l <"$tmp/protos")"

if ls "$BUILD"/src/cli/*.o >/dev/null 2>&1; then
    nm -u "$BUILD"/src/cli/*.o | awk '{print $NF}' | sort -u >"$tmp/undef"
    awk 'NR == FNR {u[$1] = 1; next} ($2 in u)' "$tmp/undef" "$tmp/protos" \
        >"$tmp/used"
    echo "prototypes used by src/cli: $(wc -l <"$tmp/used")"
    unused=$(for h in $hdrs; do
        grep -q "^${h##*/} " "$tmp/used" || echo "${h##*/}"
    done)
    echo "headers declaring nothing src/cli calls:" \
        "$(echo "$unused" | grep -c .) ($(printf '%s' "$unused" | tr '\n' ' '))"
else
    echo "prototypes used by src/cli: ? (build first)"
fi

# shellcheck disable=SC2086
mm=$($CC $API_FLAGS -MM src/util/*.c src/lib/*/*.c src/loop/*.c src/providers/*.c) ||
    exit 2
# shellcheck disable=SC2086
cmm=$($CC $CLI_FLAGS -MM src/cli/*.c) || exit 2
printf '%s\n%s\n' "$mm" "$cmm" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' \
    >"$tmp/mm"
echo "objects: $(grep -c '\.o:' "$tmp/mm")"
echo "objects with eval.h in their closure: $(grep -c 'upskill/eval\.h' \
    "$tmp/mm")"
printf '%s\n' "$cmm" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$tmp/cmm"
echo "src/cli objects: $(grep -c '\.o:' "$tmp/cmm")"
echo "src/cli objects reaching a private header:" \
    "$(grep -cE ' (\./)?src/(lib|util|providers|loop)/[^ ]*\.h' "$tmp/cmm")"
