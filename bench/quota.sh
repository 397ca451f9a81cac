#!/bin/sh
# The workspace quota within a call (issue 35 item 2; see bench/README.md): builds
# build/bench-quota from bench/sandbox/bench_quota.c against
# build/libupskill.a and runs it.  Run by bench/run.sh (`make bench`) or
# alone after `make`: sh bench/quota.sh [-n N].
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$TOP/build/libupskill.a" ] || {
    echo "bench: build/libupskill.a missing: run 'make'" >&2
    exit 2
}
${CC:-cc} -std=c11 -O2 -I"$TOP/include" -D_POSIX_C_SOURCE=200809L \
    -D_DEFAULT_SOURCE "$TOP/bench/sandbox/bench_quota.c" \
    "$TOP/build/libupskill.a" \
    $(pkg-config --libs jansson yaml-0.1 sqlite3 libpcre2-8 libutf8proc) \
    -ldl -lpthread -lm -o "$TOP/build/bench-quota"
exec "$TOP/build/bench-quota" "$@"
