#!/bin/sh
# Lint: formatting must match .clang-format; banned functions must not
# appear in the sources; no profiler or trace output is committed; every
# end-to-end script has a number of its own; the providers include no
# header of src/lib; nothing sleeps on the loop thread; one function
# reads the monotonic clock; every
# program a test runs is installed by scripts/deps.sh or skipped for.
set -u
status=0
files=$(find src include tests bench -path bench/node_modules -prune -o -name '*.[ch]' -print | sort)

if command -v clang-format >/dev/null 2>&1; then
    if ! clang-format --dry-run -Werror $files; then
        echo "lint: run 'clang-format -i' on the files above" >&2
        status=1
    fi
else
    echo "lint: clang-format not found (scripts/deps.sh installs it)" >&2
    status=1
fi

banned='\b(strcpy|strcat|sprintf|vsprintf|strtok|gets|atoi|atol)[[:space:]]*\('
if grep -nE "$banned" $files; then
    echo "lint: banned functions above (see docs/style)" >&2
    status=1
fi
# Profiler data, syscall traces and scratch files belong in scratch/ (ignored).
scratch='(^|/)(perf\.data[^/]*|[^/]*\.srv|sched\.data|st2?\.txt|[^/]*\.strace|callgrind\.out\.[^/]*|massif\.out\.[^/]*)$'
if command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1; then
    if git ls-files | grep -E "$scratch"; then
        echo "lint: profiler or trace output committed above: move it to scratch/" >&2
        status=1
    fi
fi

# Layers point down (docs/architecture.md): src/loop and src/providers
# include no header of src/lib (one implemented by src/lib/PART/NAME.c or
# NAME_*.c).
for h in $(sed -n 's|^#include "upskill/\([a-z0-9_]*\)\.h".*|\1|p' \
    src/loop/*.[ch] src/providers/*.[ch] | sort -u); do
    for f in src/lib/*/"$h".c src/lib/*/"$h"_*.c; do
        if [ -e "$f" ]; then
            echo "lint: src/loop or src/providers includes upskill/$h.h (of $f)" >&2
            status=1
            break
        fi
    done
done

# The parts of src/lib point down (docs/architecture.md): no part below
# eval reaches eval's headers, nor gen's, through any include chain (the
# closures `cc -MM` reads), the sandbox knows no agent or CLI.
if ! sh scripts/arrows.sh --check; then
    echo "lint: an arrow docs/architecture.md forbids (above)" >&2
    status=1
fi

# src/cli sees the public API only (issue 33): no src/cli object's
# include closure (`cc -MM` with src/cli's flags) holds a header of the
# library's own folders, and the job's layout is no part of the API, so
# a change to it rebuilds no src/cli object.
cli_flags=$(make -s --no-print-directory print-cli-depflags) || status=1
# shellcheck disable=SC2086 # the flags are words
priv=$(${CC:-cc} $cli_flags -MM src/cli/*.c | tr ' \\' '\n\n' |
    grep -E '^(\./)?src/(lib|util|providers|loop)/' | sort -u)
if [ -n "$priv" ]; then
    echo "lint: src/cli reaches private headers: $priv" >&2
    status=1
fi
if grep -nE '^(typedef )?struct up_eval_job \{' include/upskill/*.h; then
    echo "lint: up_eval_job's body belongs in src/lib/eval/eval_job.h" >&2
    status=1
fi

# Nothing sleeps on the loop thread: no sleep, nor a poll that waits,
# outside the waits scripts/loop_waits.sh names (the loop's own).
if ! sh scripts/loop_waits.sh; then
    echo "lint: a wait on the loop thread (above): make it parked work or a timer of the loop" >&2
    status=1
fi

# One monotonic clock (up_http_now_ms, src/util/http.c).
clocks=$(grep -l 'CLOCK_MONOTONIC' $(find src -name '*.c') | grep -v \
    -e '^src/util/http.c$')
if [ -n "$clocks" ]; then
    echo "lint: read the clock with up_http_now_ms, not in: $clocks" >&2
    status=1
fi

dups=$(ls tests/e2e | sed -n 's/^\(t[0-9]\{4\}\)-.*/\1/p' | sort | uniq -d)
if [ -n "$dups" ]; then
    echo "lint: e2e scripts share a number: $dups" >&2
    status=1
fi
# Every program and Python module a test runs comes from a package
# scripts/deps.sh installs, or the test skips without it (issue 31).
if ! python3 scripts/test_needs.py; then
    echo "lint: a test needs what scripts/deps.sh does not install (above)" >&2
    status=1
fi
exit $status
