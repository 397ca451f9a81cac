#!/bin/sh
# `make check-headers` (a step of `make lint`) compiles each public header
# alone with -Werror: one that leans on its includer's includes fails.
. "$TOP/tests/e2e/lib.sh"
# a make of its own, not a job of the make running the suite
unset MAKEFLAGS MFLAGS MAKELEVEL
command -v make >/dev/null 2>&1 || { echo "1..0 # SKIP no make"; exit 0; }
mkdir -p "$T/inc/upskill"
printf '#include <stddef.h>\nsize_t up_good(void);\n' > "$T/inc/upskill/good.h"
printf 'size_t up_bad(void);\n' > "$T/inc/upskill/bad.h"
printf '#define UP_ONLY_A_MACRO 1\n' > "$T/inc/upskill/macro.h"
hdrs() { run make -s -C "$TOP" check-headers CPPFLAGS="-I$T/inc" HEADERS="$*"; }

hdrs "$T/inc/upskill/good.h" "$T/inc/upskill/macro.h"
is "$rc" 0 "self-contained headers pass (a header of macros alone too): $err"
hdrs "$T/inc/upskill/good.h" "$T/inc/upskill/bad.h"
isnt_zero=$([ "$rc" -ne 0 ] && echo failed)
is "$isnt_zero" failed "a header that does not compile alone fails"
like "$err" "check-headers: $T/inc/upskill/bad.h" "and is named"
unlike "$err" "good.h" "the good one is not"

run make -s -C "$TOP" check-headers
is "$rc" 0 "every header of include/upskill compiles alone: $err"
like "$(sed -n 's/^lint:\(.*\)/\1/p' "$TOP/Makefile")" "check-headers" \
    "make lint runs it"

# src/cli compiles with include/ alone on its path (issue 33): it cannot
# reach a private header, and the job's layout is not in its closures,
# so a change to it rebuilds no src/cli object.
cli_flags=$(make -s -C "$TOP" print-cli-depflags)
is "$?" 0 "make print-cli-depflags prints src/cli's flags"
printf '#include "lib/eval/eval_job.h"\n' > "$T/priv.c"
# shellcheck disable=SC2086 # the flags are words
(cd "$TOP" && ${CC:-cc} $cli_flags -fsyntax-only "$T/priv.c") 2>/dev/null
isnt_zero=$([ "$?" -ne 0 ] && echo refused)
is "$isnt_zero" refused "a src/cli source cannot include a private header"
b=$(dirname "$UPSKILL")
b=${b#"$TOP"/} # the Makefile's targets are relative to the top
if [ -d "$TOP/$b/src/cli" ]; then
    rebuilt=$(make -s -n -C "$TOP" BUILD="$b" -W src/lib/eval/eval_job.h \
        "$b/upskill")
    like "$rebuilt" "src/lib/eval/eval_run.c" "a change to the job's layout rebuilds the engine"
    unlike "$rebuilt" "-c src/cli/" "and no src/cli object"
fi

# Exported symbols carry up_ (issue 33): scripts/symbols.sh refuses a
# global without it that its allow-list does not name, and a name on the
# list that is no longer exported (the list only shrinks).
lib=$(dirname "$UPSKILL")/libupskill.a
if [ -f "$lib" ]; then
    run sh "$TOP/scripts/symbols.sh" "$lib"
    is "$rc" 0 "every exported symbol is up_ or on the allow-list: $err"
    : > "$T/none.txt"
    run env SYMBOLS_ALLOW="$T/none.txt" sh "$TOP/scripts/symbols.sh" "$lib"
    is "$rc" 1 "one without up_ and not allowed fails"
    like "$err" "exported without the up_ prefix" "and says so"
    unlike "$err" " up_[a-z]" "naming only the bare ones"
    { cat "$TOP/scripts/symbols-allow.txt"; echo no_such_symbol; } > "$T/more.txt"
    run env SYMBOLS_ALLOW="$T/more.txt" sh "$TOP/scripts/symbols.sh" "$lib"
    is "$rc" 1 "an allowed name that is gone fails"
    like "$err" "no longer exported (take it off): no_such_symbol" "naming it"
fi
like "$(sed -n 's/^lint:\(.*\)/\1/p' "$TOP/Makefile")" "check-symbols" \
    "make lint runs it"

done_testing
