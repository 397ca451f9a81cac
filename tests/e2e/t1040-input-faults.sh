#!/bin/sh
# Input that must not get through (issue 9, items 15 and 18): terminal
# escape sequences from a trace, a teacher's file name or a skill's
# description reach the terminal only as \xNN; numeric options out of
# range are usage errors naming the flag and the range; --from on a FIFO
# says what it is and never blocks; corrupt run files are reported.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1
ESC=$(printf '\033')

# no_esc NAME: neither stdout nor stderr of the last run holds a raw ESC,
# BEL, CSI (0x9b, also as UTF-8 U+009B) or carriage return.
no_esc() {
    if LC_ALL=C grep -q "$(printf '[\033\007\r\233]')" "$T/.out" "$T/.err"
    then
        ok 1 "$1"
        od -c "$T/.out" "$T/.err" | grep -m3 '033\|007\|233' | sed 's/^/#   /'
    else
        ok 0 "$1"
    fi
}

# --- escape sequences in a trace (trace summarize) --------------------------
printf 'user: fix the title \033]0;owned\007 now\n\tand \033[31mred\033[0m \302\233 end\n' \
    > "$T/evil.txt"
run "$UPSKILL" trace summarize "$T/evil.txt"
is "$rc" 0 "trace summarize of a trace with escapes exits 0"
no_esc "trace summarize prints no raw escape sequence"
like "$out" '\x1b]0;owned\x07 now' "the OSC sequence is shown as \\xNN"
like "$out" '\xc2\x9b end' "a UTF-8 C1 control is shown byte by byte"
like "$out" "$(printf '\tand')" "tabs and newlines of the trace stay"
run "$UPSKILL" trace summarize --json "$T/evil.txt"
no_esc "trace summarize --json prints no raw escape sequence"
like "$out" '\u001B]0;owned' "JSON escapes ESC its own way"
like "$out" '\u009B end' "and the C1 controls jansson passes"

# --- a file name with ESC [31m: errors on stderr are escaped -----------------
mkfile="$T/$(printf 'x\033[31my').txt"
printf 'hello\n' > "$mkfile"
run "$UPSKILL" validate "$mkfile"
no_esc "validate of a path with ESC [31m prints no raw escape"
like "$out$err" 'x\x1b[31my' "the path is shown with \\x1b"

# --- a teacher writes a file name with ESC [31m ----------------------------
cat > "$T/teacher.json" <<'JSON'
{"seed": 1, "rules": [{"name": "skill",
  "match": {"system": "You are a skill author"},
  "reply": {"text": "{\"files\": {\"SKILL.md\": \"---\\nname: commit-helper\\ndescription: Writes commit messages.\\u001b]0;owned\\u0007 Use when asked for one.\\n---\\n\\nbody\\n\", \"references/\\u001b[31mred.md\": \"x\"}}"}}]}
JSON
fake_start "$T/teacher.json"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write commit messages" \
    -m generic.teacher --no-eval --no-log-runs -o "$T/g/commit-helper"
no_esc "generate with a teacher's ESC file name prints no raw escape"
like "$err" '\x1b[31mred.md' "the teacher's file name is shown escaped"

# --- a skill whose description holds escapes: list and validate ------------
mkdir -p "$T/skills/evil"
printf -- '---\nname: evil\ndescription: "Does things \\e]0;owned\\a and \\e[2J clears. Use when asked."\n---\n\nbody\n' \
    > "$T/skills/evil/SKILL.md"
run "$UPSKILL" list -d "$T/skills"
is "$rc" 0 "list of a skill with escapes in its description exits 0"
no_esc "list prints no raw escape sequence"
run "$UPSKILL" validate "$T/skills/evil"
no_esc "validate prints no raw escape sequence"

# --- numbers out of range are usage errors at parse time ---------------------
SK="$TOP/examples/skills/$(ls "$TOP/examples/skills" | head -n 1)"
for bad in "jobs -j 0" "jobs -j -1" "jobs --jobs=10001" \
    "fail-under --fail-under -1" "fail-under --fail-under 1.5" "runs --runs 0"; do
    set -- $bad
    flag=$1
    shift
    run "$UPSKILL" eval "$SK" -m x "$@"
    is "$rc" 2 "eval $* exits 2"
    like "$err" "--$flag expects" "eval $* names --$flag"
done
run "$UPSKILL" eval "$SK" -m x -j 0
like "$err" "--jobs expects a whole number from 1 to 10000, got '0'" \
    "the message names the flag, the range and the value"
run "$UPSKILL" eval "$SK" -m x --fail-under -1
like "$err" "--fail-under expects a number from 0 to 1, got '-1'" \
    "--fail-under's range is 0 to 1"
run "$UPSKILL" benchmark "$SK" -m x -j -1
is "$rc" 2 "benchmark -j -1 exits 2"
run "$UPSKILL" generate "x" -j 0
is "$rc" 2 "generate -j 0 exits 2"
run "$UPSKILL" generate "x" --runs 0
is "$rc" 2 "generate --runs 0 exits 2"
run "$UPSKILL" cache clear --older-than -5
is "$rc" 2 "cache clear --older-than -5 exits 2"
run "$UPSKILL" trace summarize --budget -3 "$T/evil.txt"
is "$rc" 2 "trace summarize --budget -3 exits 2"
like "$err" "--budget expects a whole number from 1 to" "and names its range"

# --- --from on a FIFO, a device --------------------------------------------
mkfifo "$T/fifo"
run "$UPSKILL" generate "x" --from "$T/fifo"
is "$rc" 3 "generate --from a FIFO exits 3"
like "$err" "is a FIFO, not a file or folder" "and says it is a FIFO"
run "$UPSKILL" generate "x" --from /dev/null
like "$err" "is a character device, not a file or folder" \
    "a device is named as one"
run "$UPSKILL" trace summarize "$T/fifo"
is "$rc" 3 "trace summarize of a FIFO exits 3 without blocking"
like "$err" "is a FIFO, not a file" "and says it is a FIFO"

# --- corrupt run files are reported, not skipped silently --------------------
R="$T/runs"
mkdir -p "$R"
cp -r "$FIX/runs/upstream/"* "$R/"
mkdir -p "$R/b2/run_1" "$R/b3"
printf '{"metadata": {"model": "m"' > "$R/b2/run_1/run_result.json"
printf 'not json' > "$R/b3/batch_summary.json"
run "$UPSKILL" runs -d "$R"
is "$rc" 0 "runs with corrupt files still exits 0"
like "$out" "Evaluation History" "and shows what it could read"
like "$err" "b2/run_1/run_result.json" "the corrupt run file is named"
like "$err" "b3/batch_summary.json" "the corrupt summary is named"
like "$err" "2 run files could not be read" "and counted"
run "$UPSKILL" runs -d "$R" --json
like "$out" '"skipped_files": 2' "--json counts the skipped files"
like "$out" '"results": [' "and keeps the results"

done_testing
