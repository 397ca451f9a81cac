#!/bin/sh
# The CLI skeleton: version, help, usage errors, exit codes, stdout errors.
. "$TOP/tests/e2e/lib.sh"

run "$UPSKILL" --version
is "$rc" 0 "--version exits 0"
like "$out" "upskill " "--version prints the version"

run "$UPSKILL" --help
is "$rc" 0 "--help exits 0"
like "$out" "validate" "--help lists the commands"

run "$UPSKILL"
is "$rc" 2 "no command is a usage error"

run "$UPSKILL" frobnicate
is "$rc" 2 "unknown command exits 2"
like "$err" "unknown command 'frobnicate'" "unknown command is named"

run "$UPSKILL" validate --bogus x
is "$rc" 2 "unknown option exits 2"
like "$err" "unknown option '--bogus'" "unknown option is named"

run "$UPSKILL" validate --help
is "$rc" 0 "command --help exits 0"
like "$out" "usage: upskill validate" "command help has a usage line"

# Each command's summary is written once (its option table): the list
# in --help and the command's own --help say the same.
"$UPSKILL" --help | awk '/^commands:/ { on = 1; next } on && NF { print } !NF { on = 0 }' > "$T/commands"
while read -r cmd summary; do
    run "$UPSKILL" $cmd --help
    is "$rc" 0 "upskill $cmd --help exits 0"
    like "$out" "usage: upskill $cmd" "upskill $cmd --help prints its usage"
    like "$out" "$summary" "upskill $cmd --help has --help's summary"
done < "$T/commands"

if [ -w /dev/full ]; then
    run sh -c "'$UPSKILL' --help > /dev/full"
    ok $([ "$rc" -ne 0 ] && echo 0 || echo 1) "write error on stdout fails"
    like "$err" "cannot write to standard output" "write error is reported"
fi

done_testing
