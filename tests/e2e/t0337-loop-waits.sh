#!/bin/sh
# scripts/loop_waits.sh (a step of scripts/lint.sh): no sleep, nor a poll
# that waits, on the loop thread, outside the waits it names (the loop's
# own, in src/util/http.c, and the end of a sandboxed call given up on).
# The real tree passes; a sleep or a waiting poll anywhere else fails it,
# a poll with a 0 timeout does not.
. "$TOP/tests/e2e/lib.sh"
WAITS="$TOP/scripts/loop_waits.sh"

cd "$TOP" || exit 1
run sh "$WAITS"
is "$rc" 0 "the tree's sources wait only where the loop does"

# tree FILE BODY: a tiny tree whose FILE holds one function with BODY
tree() {
    rm -rf "$T/tree"
    mkdir -p "$T/tree/$(dirname "$1")"
    printf '#include <poll.h>\n#include <time.h>\n\nstatic void f(int fd)\n{\n%s\n}\n' \
        "$2" > "$T/tree/$1"
    cd "$T/tree" || exit 1
}

tree src/lib/sandbox/sandbox_cgroup.c \
    '    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);'
run sh "$WAITS"
is "$rc" 1 "a nanosleep in the sandbox fails the check"
like "$err" "sandbox_cgroup.c:7: f: a wait on the loop thread" \
    "and names the file, line and function"

tree src/loop/sched.c '    sleep(1);'
run sh "$WAITS"
is "$rc" 1 "a sleep in the scheduler fails it"

tree src/lib/agent/tools.c \
    '    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, 250);'
run sh "$WAITS"
is "$rc" 1 "a poll with a timeout fails it"

tree src/lib/agent/tools.c \
    '    struct pollfd p = {fd, POLLIN, 0};
    (void)poll(&p, 1, 0); /* sleep(1) in a comment */
    puts("usleep(5) in a string");'
run sh "$WAITS"
is "$rc" 0 "a poll that does not wait, comments and strings pass"

tree src/util/http.c \
    '    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, 100);'
run sh "$WAITS"
is "$rc" 1 "an allowed file's other functions are not allowed"
sed -i 's/^static void f(int fd)/static void wait_on(int fd)/' src/util/http.c
run sh "$WAITS"
is "$rc" 0 "the loop's own wait (http.c wait_on) is"

done_testing
