#!/bin/sh
# scripts/arrows.sh reads the include closures the compiler sees (cc -MM),
# not the literal #include lines: a part below eval that reaches eval.h
# through another header (public or its own private one) is an arrow
# docs/architecture.md forbids, and `--check` (the lint's step) fails.
. "$TOP/tests/e2e/lib.sh"
# a make of its own, not a job of the make running the suite
unset MAKEFLAGS MFLAGS MAKELEVEL
command -v cc >/dev/null 2>&1 || { echo "1..0 # SKIP no cc"; exit 0; }
ARROWS="$TOP/scripts/arrows.sh"

# A tiny tree: eval/ owns eval.h; harness/ and config/ include only
# headers that carry no arrow of their own.
tree() {
    rm -rf "$T/tree"
    mkdir -p "$T/tree/include/upskill" "$T/tree/src/lib/eval" \
        "$T/tree/src/lib/harness" "$T/tree/src/lib/config"
    cd "$T/tree" || exit 1
    echo 'int up_eval_x(void);' > include/upskill/eval.h
    echo 'int up_eval_x(void) { return 0; }' > src/lib/eval/eval.c
    echo 'int up_mid(void);' > include/upskill/mid.h
    printf '#include "upskill/mid.h"\nint h(void);\n' \
        > src/lib/harness/harness_a.c
    echo 'int config_int(void);' > src/lib/config/config_int.h
    printf '#include "config_int.h"\nint c(void);\n' \
        > src/lib/config/config.c
}
check() { ARROWS_FLAGS="-Iinclude -Isrc" run sh "$ARROWS" --check; }

tree
check
is "$rc" 0 "a tree whose parts do not reach eval.h passes"

tree
echo '#include "upskill/eval.h"' >> include/upskill/mid.h
check
is "$rc" 1 "harness reaching eval.h through a public header fails the check"
like "$err" "harness -> eval (eval)" "and names the arrow"
is "$(ARROWS_FLAGS="-Iinclude -Isrc" sh "$ARROWS" | grep -c .)" 1 \
    "the printed arrows are that one"

tree
echo '#include "upskill/eval.h"' >> src/lib/config/config_int.h
check
is "$rc" 1 "config reaching eval.h through its private header fails"
like "$err" "config -> eval (eval)" "and names the arrow"

tree
printf '#include "nowhere.h"\n' >> src/lib/harness/harness_a.c
check
is "$rc" 2 "a source the compiler cannot read is an error, not a pass"

cd "$TOP" || exit 1
run sh "$ARROWS" --check
is "$rc" 0 "the project's own parts keep the rule: $err"

done_testing
