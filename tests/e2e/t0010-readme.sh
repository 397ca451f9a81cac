#!/bin/sh
# Every `upskill ...` line in the README's ```sh blocks runs and exits 0
# (```bash blocks show real providers and are not run).
. "$TOP/tests/e2e/lib.sh"
cd "$TOP" || exit 1

awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on && /^upskill / { print }' \
    README.md > "$T/cmds"
is "$([ -s "$T/cmds" ] && echo yes)" yes "README has upskill examples"
while IFS= read -r line; do
    cmd=${line%%#*}
    run sh -c "\"\$UPSKILL\" ${cmd#upskill }"
    is "$rc" 0 "README example runs: $cmd"
done < "$T/cmds"

done_testing
