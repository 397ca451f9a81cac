#!/bin/sh
# Task folders that point outside (issue 36 item 5, issue 37 item 7):
# every path of a task that is read -- instruction.md, task.toml, tests/,
# tests/test.sh, solution/, environment/, a skill's folder -- is refused,
# naming it, when it leads outside the task's folder (before, a symlinked
# instruction.md was sent to the model and stored in the run files).  A
# task folder that is itself a link (a folder of links to tasks) is
# fine, and so is a link inside the task; but tests/test.sh as a symlink
# is not runnable, saying why (its verifier could never run).
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp" "$T/host" "$T/tasks"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
S="$FIX/harbor-oracle/sound"
echo "HOST-SECRET-1923" >"$T/host/secret.txt"
mkdir -p "$T/host/tests" "$T/host/skill"
printf '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n' >"$T/host/tests/test.sh"
cp "$S/environment/skills/ok-writer/SKILL.md" "$T/host/skill/"

mk() { cp -R "$S" "$T/tasks/$1"; }
mk instruction-link
ln -sf "$T/host/secret.txt" "$T/tasks/instruction-link/instruction.md"
mk tests-link
rm -rf "$T/tasks/tests-link/tests"
ln -s "$T/host/tests" "$T/tasks/tests-link/tests"
mk skill-link
rm -rf "$T/tasks/skill-link/environment/skills/ok-writer"
ln -s "$T/host/skill" "$T/tasks/skill-link/environment/skills/ok-writer"
mk toml-link
ln -sf "$T/host/secret.txt" "$T/tasks/toml-link/task.toml"
mk test-sh-link
mv "$T/tasks/test-sh-link/tests/test.sh" "$T/tasks/test-sh-link/tests/real.sh"
ln -s real.sh "$T/tasks/test-sh-link/tests/test.sh"
mk inner-link
ln -sf instruction.txt "$T/tasks/inner-link/instruction.md"
cp "$S/instruction.md" "$T/tasks/inner-link/instruction.txt"
ln -s "$S" "$T/tasks/linked-task"

run "$UPSKILL" eval --tasks "$T/tasks" --check --static
is "$rc" 0 "--check --static exits 0"
like "$out" "instruction-link: not runnable: '$T/tasks/instruction-link/instruction.md' leads outside the task folder (a symlink): refused" \
    "a symlinked instruction.md leading out is refused, named"
like "$out" "tests-link: not runnable: '$T/tasks/tests-link/tests' leads outside the task folder" \
    "a tests/ folder leading out is refused"
like "$out" "skill-link: not runnable: '$T/tasks/skill-link/environment/skills/ok-writer' leads outside the task folder" \
    "a skill folder leading out is refused"
like "$out" "toml-link: not runnable: '$T/tasks/toml-link/task.toml' leads outside the task folder" \
    "a task.toml leading out is refused"
like "$out" "test-sh-link: not runnable: tests/test.sh is a symlink" \
    "tests/test.sh as a symlink is not runnable, saying why"
like "$out" "inner-link: runnable" "a link inside the task is fine"
like "$out" "linked-task: runnable" "a task folder that is itself a link is fine"

run "$UPSKILL" eval --tasks "$T/tasks" -m oracle --runs-dir "$T/runs"
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    echo "# bubblewrap cannot run here: the eval part is skipped"
else
    is "$rc" 0 "the eval of the others exits 0"
    ok "$(grep -rq HOST-SECRET-1923 "$T/runs"; [ $? -ne 0 ]; echo $?)" \
        "the host file is in no run file"
fi
done_testing
