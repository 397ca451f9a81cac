#!/bin/sh
# Reference and null students of Harbor tasks (issue 24 item 4,
# docs/harbor.md): `-m oracle` runs the task's solution/solve.sh in the
# workspace (seeing /solution, never /tests; the skills present in the
# skill arm), `-m null` does nothing; neither sends a request (no server
# runs here).  `--check` runs both in both arms over --runs and names
# each task sound or not, and why: an oracle that fails, a verifier the
# null student passes, a solution that needs the skill's script.
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor-oracle"

# --- -m oracle / -m null on the sound task: 100% and 0%, no tokens ---------
run "$UPSKILL" eval --tasks "$H/sound" -m oracle -m null --runs 2 \
    --no-log-runs -v
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "1..0 # SKIP bubblewrap cannot run here: $err"
    exit 0
fi
is "$rc" 0 "an eval of the reference students exits 0"
like "$out" "│ oracle │ 100%     │ 100%       │" \
    "the oracle passes the sound task in both arms (and never saw /tests)"
like "$out" "│ null   │ 0%       │ 0%         │" "null fails it in both arms"
like "$out" "tokens per case: 0 -> 0" "no token is counted"

# --- the solution uses a skill's script: it passes only in the skill arm ---
run "$UPSKILL" eval --tasks "$H/skill-script" -m oracle --no-log-runs -v
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "the skill's script is there in the skill arm only"

# --- COPY skills DEST: the oracle finds the skills folder there as it is ----
# (the folder's name, not the skill's; files outside scripts/; a DEST
# outside the WORKDIR), in the skill arm only
A="$T/as-copied/environment"
cp -R "$H/skill-script" "$T/as-copied"
mv "$A/skills/ok-maker" "$A/skills/ok_maker"
mkdir "$A/skills/ok_maker/tools"
mv "$A/skills/ok_maker/scripts/make.sh" "$A/skills/ok_maker/tools/"
printf 'FROM ubuntu:24.04\nWORKDIR /root\nCOPY skills /opt/skills\n' \
    >"$A/Dockerfile"
printf '#!/bin/bash\nbash /opt/skills/ok_maker/tools/make.sh\n' \
    >"$T/as-copied/solution/solve.sh"
run "$UPSKILL" eval --tasks "$T/as-copied" -m oracle --no-log-runs -v
like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
    "the skills folder is copied where the Dockerfile copies it, as it is"

# --- --check: sound or not, and why; --runs 2 ------------------------------
run "$UPSKILL" eval --tasks "$H" --check --runs 2 --sound "$T/verdicts"
is "$rc" 0 "--check exits 0"
like "$out" "4 tasks: 4 runnable here, 0 not" "the static part first"
like "$out" "sound: sound (oracle passes, null fails, both arms, 2 runs)" \
    "a sound task"
like "$out" "oracle-fails: not sound: oracle failed in the baseline arm (2 of 2 runs: reward 0, below the threshold 1); oracle failed in the skill arm (2 of 2 runs: reward 0, below the threshold 1)" \
    "an oracle that fails: not sound, with its reward"
like "$out" "lax-verifier: not sound: null passed in the baseline arm (2 of 2 runs: reward 1, at least the threshold 1); null passed in the skill arm" \
    "a verifier the null student passes: not sound"
like "$out" "skill-script: sound in the skill arm only: oracle failed in the baseline arm (2 of 2 runs: reward 0, below the threshold 1; solve.sh: exit 127: bash: /root/.agents/skills/ok-maker/scripts/make.sh: No such file or directory); its solution needs the skills" \
    "a solution that needs the skill: sound in the skill arm only"
like "$out" "4 tasks checked with oracle and null: 1 sound, 1 sound in the skill arm only, 2 not" \
    "the count"

# --- --sound FILE: --check's verdicts; an eval runs only the sound tasks ---
like "$out" "verdicts written to $T/verdicts" "--check --sound writes the verdicts"
is "$(cat "$T/verdicts")" "$(printf 'lax-verifier\tnot sound\noracle-fails\tnot sound\nskill-script\tsound in the skill arm only\nsound\tsound')" \
    "one line per task: its name, a tab, its verdict"
run "$UPSKILL" eval --tasks "$H" -m oracle -m null --sound "$T/verdicts" \
    --no-log-runs
is "$rc" 0 "an eval of the sound tasks exits 0"
like "$err" "tests: 1 case from the Harbor tasks in '$H' (0 left out: not runnable here or without skills; --check says why); 3 left out as not sound by '$T/verdicts': lax-verifier (not sound), oracle-fails (not sound), skill-script (sound in the skill arm only)" \
    "the tasks left out, named with their verdicts"
unlike "$err" "soundness not checked" "no warning when the verdicts are given"
like "$out" "│ oracle │ 100%     │ 100%       │" "the oracle passes the sound one"
like "$out" "│ null   │ 0%       │ 0%         │" "null fails it"
run "$UPSKILL" eval --tasks "$H" -m null --sound "$T/verdicts" --no-log-runs \
    --json
like "$out" '"cases": 1,' "--json: one case"
like "$out" '"sound_file": "'"$T/verdicts"'"' "--json names the verdicts file"
like "$out" '"task": "skill-script",' "--json lists each task left out"
like "$out" '"verdict": "sound in the skill arm only"' "with its verdict"
like "$out" '"soundness_checked": true' "--json: soundness checked"
# a task the file does not name was not checked: left out
grep -v '^sound' "$T/verdicts" >"$T/partial"
run "$UPSKILL" eval --tasks "$H" -m null --sound "$T/partial" --no-log-runs
is "$rc" 3 "no sound task left: exit 3"
like "$err" "no task here runs and has a skill" "nothing left to run, said"
# a task the file does not name, whose Dockerfile copies a file that is
# missing, is not runnable here (as --check says), not "not checked"
cp -R "$H" "$T/hm" && cp -R "$H/sound" "$T/hm/gone-file"
printf 'COPY data.csv /root/\n' >>"$T/hm/gone-file/environment/Dockerfile"
run "$UPSKILL" eval --tasks "$T/hm" -m null --sound "$T/verdicts" --no-log-runs
like "$err" "(1 left out: not runnable here or without skills; --check says why)" \
    "a task with a missing file: not runnable, with --sound too"
unlike "$err" "gone-file (not checked)" "not 'not checked'"
# without --sound: every runnable task runs, with a warning
run "$UPSKILL" eval --tasks "$H" -m null --no-log-runs --json
like "$err" "warning: soundness not checked: every runnable task is in the lift figures (run --check --sound FILE, then --sound FILE; docs/harbor.md)" \
    "without --sound: warned that soundness was not checked"
like "$out" '"cases": 4,' "without --sound: all 4 tasks run"
like "$out" '"soundness_checked": false' "--json: soundness not checked"
# a hostile verdicts file: a bad line, too big
printf 'sound\tsound\nsound is fine\n' >"$T/bad"
run "$UPSKILL" eval --tasks "$H" -m null --sound "$T/bad" --no-log-runs
is "$rc" 3 "a malformed verdicts file: exit 3"
like "$err" "'$T/bad':2: expected a task's name, a tab, then 'sound', 'sound in the skill arm only' or 'not sound' (what --check --sound writes)" \
    "the bad line is named"
head -c 1100000 /dev/zero | tr '\0' a >"$T/big"
run "$UPSKILL" eval --tasks "$H" -m null --sound "$T/big" --no-log-runs
is "$rc" 3 "a verdicts file over 1 MiB is refused"
like "$err" "'$T/big': file is larger than 1048576 bytes" "naming the file"
run "$UPSKILL" eval "$T" --sound "$T/verdicts" --no-log-runs
is "$rc" 2 "--sound without --tasks: a usage error"

# --- a task without solution/: the oracle fails, saying so -----------------
cp -R "$H/sound" "$T/nosol" && rm -r "$T/nosol/solution"
run "$UPSKILL" eval --tasks "$T/nosol" --check
like "$out" "nosol: not sound: oracle failed in the baseline arm (1 of 1 run: reward 0, below the threshold 1; solve.sh: the task has no solution/)" \
    "no solution: not sound, named"

# --- --static: only the reading, no student runs ----------------------------
run "$UPSKILL" eval --tasks "$H" --check --static
is "$rc" 0 "--check --static exits 0"
unlike "$out" "checked with oracle and null" "--static runs no student"
done_testing
