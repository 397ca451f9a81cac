#!/bin/sh
# scripts/test_needs.py (run by `make lint`, issue 31): a test that runs
# a program or imports a module that scripts/deps.sh does not install,
# and does not skip without it, is an error naming the test, the program
# and the fix; a `command -v` skip, a "test-needs: not" note, a package
# in deps.sh (or a dependency of one, or the base system) pass.
. "$TOP/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP python3 not found"; exit 0; }
command -v dpkg >/dev/null 2>&1 || { echo "1..0 # SKIP dpkg not found (not Debian)"; exit 0; }
N="$TOP/scripts/test_needs.py"

printf '#!/bin/sh\n. lib.sh\nout=$(jq -r .a f.json | sort)\nnot-a-program-xyz --flag\n' >"$T/t1.sh"
run python3 "$N" "$T/t1.sh"
is "$rc" 1 "a program that no package gives is an error"
like "$err" "$T/t1.sh runs 'not-a-program-xyz' (not found on this machine) and does not skip without it" \
    "the error names the test and the program"
unlike "$err" "'jq'" "jq, which deps.sh installs, passes"
unlike "$err" "'sort'" "sort, of the base system, passes"

printf '#!/bin/sh\ncommand -v not-a-program-xyz >/dev/null || exit 0\nnot-a-program-xyz\n' >"$T/t2.sh"
run python3 "$N" "$T/t2.sh"
is "$rc" 0 "a test that skips without the program passes"

printf '#!/bin/sh\n# test-needs: not not-a-program-xyz (the task'"'"'s own)\nx='"'"'#!/bin/sh\nnot-a-program-xyz\n'"'"'\n' >"$T/t3.sh"
run python3 "$N" "$T/t3.sh"
is "$rc" 0 "a program the note names (a task's own script) passes"

# a task script embedded in a string: its programs count too (t1730)
printf '#!/bin/sh\nts='"'"'#!/bin/bash\nnot-a-program-xyz --ctrf out.json\n'"'"'\necho "$ts" >test.sh\n' >"$T/t4.sh"
run python3 "$N" "$T/t4.sh"
is "$rc" 1 "a program of an embedded #! script is checked"

# deps.sh without jq: jq's test fails, naming the package
grep -v '^PKGS=' "$TOP/scripts/deps.sh" >"$T/deps.sh"
printf 'PKGS="coreutils"\n' >>"$T/deps.sh"
run python3 "$N" --deps "$T/deps.sh" "$T/t1.sh"
like "$err" "runs 'jq' (from package jq, which scripts/deps.sh does not install)" \
    "a package deps.sh does not list is named"

printf 'import json\nimport not_a_module_xyz\n' >"$T/h.py"
run python3 "$N" "$T/h.py"
is "$rc" 1 "a Python module that no package gives is an error"
like "$err" "imports 'not_a_module_xyz'" "the error names the module"

run python3 "$N"
is "$rc" 0 "every test of the tree needs only what deps.sh installs" 
[ "$rc" -eq 0 ] || printf '%s\n' "$err" | sed 's/^/#   /'
done_testing
