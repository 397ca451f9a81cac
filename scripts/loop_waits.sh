#!/bin/sh
# Nothing sleeps on the loop thread (docs/architecture.md, "The loop"):
# every conversation of a command shares one thread, so a sleep, or a
# poll that waits, anywhere in src/ stalls all of them.  This prints each
# call of sleep, usleep, nanosleep, clock_nanosleep, poll, ppoll, select,
# pselect, epoll_wait or epoll_pwait in src/**/*.c (a poll whose timeout
# is a literal 0 does not wait and is not one) that is not in a function
# of the list below, and exits 1 when there is any.
#
#   sh scripts/loop_waits.sh     run from the top of a tree (src/)
#
# The allowed waits, FILE:FUNCTION, each with its reason:
allowed='
src/util/http.c:wait_on
src/util/http.c:run_ready
src/lib/sandbox/sandbox.c:end_given_up
'
# - http.c wait_on, run_ready: the loop's own wait (poll over curl's epoll
#   set and the parked jobs' descriptors, then epoll_wait), the one place
#   the loop thread is meant to block.
# - sandbox.c end_given_up: the end of a sandboxed call given up on (an
#   interrupt, a cancel, a free) whose result is wanted at once; bounded,
#   and never on the path of a call that ends by itself or by a limit,
#   whose end the loop revisits (end_pass).
# The CLI's own pauses, if it ever has one, go in this list too.
set -u
files=$(find src -name '*.c' | sort)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
awk -v allowed="$allowed" '
FNR == 1 { fn = "" }
# a function definition starts at column 0 with its return type
/^[A-Za-z_].*[A-Za-z_0-9]+[ \t]*\(/ && !/;[ \t]*$/ {
    fn = $0
    sub(/\(.*/, "", fn)
    sub(/.*[ \t*]/, "", fn)
}
{
    line = $0
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)   # no string
    gsub(/\/\*.*\*\//, "", line)             # no comment on one line
    if (line ~ /^[ \t]*\*/ || line ~ /^[ \t]*\/\*/)
        next
    if (line !~ /(^|[^A-Za-z_0-9.>])(sleep|usleep|nanosleep|clock_nanosleep|poll|ppoll|select|pselect|epoll_wait|epoll_pwait)[ \t]*\(/)
        next
    if (line ~ /(^|[^A-Za-z_0-9.>])poll[ \t]*\([^;]*,[ \t]*0[ \t]*\)/)
        next                                 # poll(..., 0): no wait
    key = FILENAME ":" fn
    if (index(allowed, "\n" key "\n"))
        next
    printf "%s:%d: %s: a wait on the loop thread: %s\n", FILENAME, FNR, fn, $0
    bad = 1
}
END { exit bad }
' $files >&2
