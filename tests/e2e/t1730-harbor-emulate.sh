#!/bin/sh
# More of Docker emulated for Harbor tasks (issue 24, docs/harbor.md):
# the JSON form of COPY (a file name with blanks), and pytest's --ctrf
# report (our own plugin, offline) read by a test.sh for a fractional
# reward.  Each task is made here, from the sound fixture; the oracle
# must pass and the null student fail.
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor-oracle"

# a task from the sound fixture, its Dockerfile, solve.sh and test.sh given
task() {
    cp -R "$H/sound" "$T/$1"
    printf '%b' "$2" >"$T/$1/environment/Dockerfile"
    printf '%b' "$3" >"$T/$1/solution/solve.sh"
    printf '%b' "$4" >"$T/$1/tests/test.sh"
}

# --- COPY ["a b", "/root/a b"]: the JSON form, a name with blanks ----------
task json-copy 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY ["in put.txt", "/root/in put.txt"]\n' \
    '#!/bin/bash\ncp "/root/in put.txt" /root/out.txt\n' \
    '#!/bin/bash\nif grep -qx ok /root/out.txt; then echo 1; else echo 0; fi >/logs/verifier/reward.txt\n'
echo ok >"$T/json-copy/environment/in put.txt"
run "$UPSKILL" eval --tasks "$T/json-copy" --check
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
like "$out" "json-copy: runnable (workdir /root, 1 skill" \
    "COPY in the JSON form is read"
like "$out" "json-copy: sound (oracle passes, null fails, both arms, 1 run)" \
    "the file with blanks in its name is seeded at its place"
printf 'FROM ubuntu:24.04\nCOPY ["in put.txt" "/root/"]x\n' \
    >"$T/json-copy/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/json-copy" --check --static
like "$out" "json-copy: not runnable: line 2: COPY [...] is not a JSON array of strings" \
    "a JSON form that is not an array of strings is refused, with its line"
done_testing
