#!/bin/sh
# Skill file names (issue 23 item 13): a reference named with a backslash
# or an escape character, or a name that is not UTF-8, used to pass
# validate and then fail every skill-arm conversation in agent mode with
# an empty message.  Now validate refuses it naming the file and why,
# eval refuses the skill with the same words, and a conversation that
# cannot start (here: its workspace cannot be made) carries its reason.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
ESC=$(printf '\033')
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# skill NAME FILE: a copy of the student skill with one more file
skill() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1/references" "$T/$1/assets"
    sed "s/^name: student/name: $1/" "$FIX/eval/student/SKILL.md" \
        > "$T/$1/SKILL.md"
    printf 'notes\n' > "$T/$1/$2"
}
skill backslash 'references/notes\old.md'
skill escape "references/a${ESC}[2Jb.md"
skill latin1 "$(printf 'assets/caf\351.txt')"

run "$UPSKILL" validate "$T/backslash"
is "$rc" 3 "validate refuses a backslash in a file name"
like "$out" "skill file 'references/notes\\old.md': the name holds a backslash (a folder separator on Windows); rename it" \
    "naming the file and why"
run "$UPSKILL" validate "$T/escape"
is "$rc" 3 "validate refuses an escape character in a file name"
like "$out" "skill file 'references/a\\x1b[2Jb.md': the name holds a control character; rename it" \
    "the name shown escaped"
unlike "$out$err" "$ESC" "no raw escape reaches the terminal"
run "$UPSKILL" validate "$T/latin1"
is "$rc" 3 "validate refuses a name that is not UTF-8"
like "$out" "the name holds bytes that are not UTF-8 text" "and says so"

cat > "$T/t.json" <<'JSON'
{"cases": [{"input": "hello", "expected": {"contains": ["done"]}}]}
JSON
cat > "$T/s.json" <<'JSON'
{"rules": [{"match": {"last_role": "tool"}, "reply": {"text": "done"}},
 {"reply": {"tool_calls": [{"name": "list_files", "arguments": {}}]}}]}
JSON
fake_start "$T/s.json"
mkdir -p "$T/tmp"
for s in backslash escape; do
    run env TMPDIR="$T/tmp" "$UPSKILL" eval --no-cache "$T/$s" -t "$T/t.json" \
        -m local --base-url "$FAKE_URL/v1" --agent --no-baseline --no-log-runs
    is "$rc" 3 "eval --agent refuses the $s skill"
    like "$err" "skill file 'references/" "with validate's message"
    like "$err" "rename it" "whole"
done
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "no workspace is left"

# A conversation that cannot start says why (it used to say nothing).
run env TMPDIR="$T/none" "$UPSKILL" eval --no-cache "$FIX/eval/student" \
    -t "$T/t.json" -m local --base-url "$FAKE_URL/v1" --agent --no-baseline \
    --no-log-runs
is "$rc" 4 "no conversation could start"
like "$err" "no conversation was answered (1 failed): '$T/none': cannot make a workspace: No such file or directory" \
    "the reason is in the error"
is "$(printf '%s\n' "$err" | grep -c "cannot make a workspace")" 1 \
    "said once (issue 34 item 11: no second summary line for a dead model)"

done_testing
