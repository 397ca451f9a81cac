#!/bin/sh
# Lint: formatting must match .clang-format; banned functions must not
# appear in the sources.
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
exit $status
