#!/bin/sh
# Not-sound reasons that say why (issue 37 item 6): the verifier's
# failing test and its assertion, from pytest's output, not its last
# line ("1 failed in 0.02s", "1 error", or, for an output over the 8 KiB
# kept, our "[cut at 8192 bytes]" marker).  Each oracle here fails.
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
    echo "1..0 # SKIP python3-pytest not installed (apt-get install python3-pytest)"
    exit 0
fi
H="$FIX/harbor/verifier-reasons"

run "$UPSKILL" eval --tasks "$H" --check
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
is "$rc" 0 "--check exits 0"
like "$out" "failing-test: not sound: oracle failed in the baseline arm (1 of 1 run: reward 0, below the threshold 1: FAILED test_outputs.py::test_answer_is_42: AssertionError: the answer must be 42)" \
    "the failing test's name and its assertion"
like "$out" "long-output: not sound: oracle failed in the baseline arm (1 of 1 run: reward 0, below the threshold 1: FAILED test_outputs.py::test_noisy_then_wrong: AssertionError: assert '41' == '42')" \
    "an output over the 8 KiB kept still gives the test and its assertion"
like "$out" "collection-error: not sound: oracle failed in the baseline arm (1 of 1 run: reward 0, below the threshold 1: ERROR test_outputs.py: ModuleNotFoundError: No module named 'upskill_absent_module_1925')" \
    "a collection error names the module, not a bare '1 error'"
unlike "$out" "[cut at" "no cut marker as a reason"
unlike "$out" " in 0." "no pytest count line as a reason"
done_testing
