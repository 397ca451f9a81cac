#!/bin/sh
# Issue 37 item 7's small ones: the Dockerfile's ENV is set inside the
# sandbox only, not in the environment bubblewrap starts with on the host
# (a GCONV_PATH or GLIBC_TUNABLES of a task's would act on bwrap itself;
# what bwrap was started with is /proc/1/environ in the sandbox); no
# "skill read in 0 of N ... rewrite the description" for oracle and null;
# `COPY data/*.cif DEST/` is expanded, not reported as a missing file (a
# wildcard no file matches is, as in Docker).  (tests/test.sh as a symlink:
# t1923.)
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor"

run "$UPSKILL" eval --tasks "$H/env-inside-sandbox" -m oracle -m null --no-log-runs -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
like "$out" "│ oracle │ 100%     │ 100%       │" \
    "the ENV reaches the student and the verifier, not bubblewrap's own environment"
unlike "$out" "skill read in" "no activation line for oracle and null"
unlike "$out" "rewrite the description" "nor advice to rewrite the description"

run "$UPSKILL" eval --tasks "$H/copy-wildcard" --check
like "$out" "cif-files: runnable" "a COPY of a wildcard is runnable"
like "$out" "cif-files: sound (oracle passes, null fails, both arms, 1 run)" \
    "its matches are seeded, and nothing else"
cp -R "$H/copy-wildcard" "$T/nomatch"
sed -i 's#data/\*\.cif#data/*.pdb#' "$T/nomatch/cif-files/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/nomatch" --check --static
like "$out" "cif-files: not runnable: COPY of 'data/*.pdb': no file of environment/ matches it" \
    "a wildcard that matches nothing says so"
done_testing
