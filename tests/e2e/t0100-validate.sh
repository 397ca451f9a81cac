#!/bin/sh
# upskill validate: fixtures for every rule, folders of skills, --json,
# profiles, and bad input (missing files, binary data, huge files).
. "$TOP/tests/e2e/lib.sh"
S="$FIX/skills"
ESC=$(printf '\033')

run "$UPSKILL" validate "$S/valid"
is "$rc" 0 "valid fixtures exit 0"
is "$out" "4 skills checked: 4 valid, 0 invalid (0 errors, 0 warnings)" \
    "valid fixtures: summary only"

# Every invalid case: exit 3 and the expected message.
for case in "$S"/invalid/*/; do
    name=$(basename "$case")
    skill=$(find "$case" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    want=$(cat "$case/expect")
    run "$UPSKILL" validate "$skill"
    is "$rc" 3 "invalid/$name exits 3"
    like "$out" "$want" "invalid/$name reports: $want"
    like "$out" "1 skill checked: 0 valid, 1 invalid" "invalid/$name summary"
done

# Exact line format: path:line: severity: message.
p="$S/invalid/name-not-lowercase/Upper-Case/SKILL.md"
run "$UPSKILL" validate "$p"
like "$out" "$p:2: error: Skill name 'Upper-Case' must be lowercase" \
    "finding line format with the SKILL.md path given"
unlike "$out" "$ESC" "no colour when stdout is not a terminal"
p="$S/invalid/name-missing/name-missing"
run "$UPSKILL" validate "$p"
like "$out" "$p/SKILL.md: error: Missing required field in frontmatter: name" \
    "no :line when the finding has none"

# Warnings do not make a skill invalid.
run "$UPSKILL" validate "$S/warnings"
is "$rc" 0 "warnings only: exit 0"
like "$out" "6 skills checked: 6 valid, 0 invalid (0 errors, 7 warnings)" \
    "warnings counted"
for w in "'references/guide.md' is referenced but does not exist" \
    "keep references one level deep" "script is not executable" \
    "file is named 'skill.md'" "SKILL.md has no body" \
    "skills-ref splits the file there"; do
    like "$out" "$w" "warning: $w"
done

# A folder of mixed skills reports each.
mkdir -p "$T/mixed"
cp -R "$S/valid/minimal" "$S/invalid/name-dir-mismatch/folder-name" \
    "$S/invalid/yaml-flow/yaml-flow" "$T/mixed/"
mkdir "$T/mixed/not-a-skill"
run "$UPSKILL" validate "$T/mixed"
is "$rc" 3 "mixed folder exits 3"
like "$out" "3 skills checked: 1 valid, 2 invalid (2 errors, 0 warnings)" \
    "mixed folder summary"
like "$out" "folder-name/SKILL.md:2: error: Directory name" "mixed: first bad"
like "$out" "yaml-flow/SKILL.md:4: error: Invalid YAML" "mixed: second bad"
run "$UPSKILL" validate "$S/valid/minimal" "$S/valid/pdf-tools"
like "$out" "2 skills checked: 2 valid" "several paths on the command line"

# --json: one document.
run "$UPSKILL" validate --json "$T/mixed"
is "$rc" 3 "--json keeps the exit code"
like "$out" '"invalid": 2' "--json summary"
like "$out" '"code": "name-dir-mismatch"' "--json finding codes"
if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import json' >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c 'import json,sys
d = json.load(sys.stdin)
assert d["summary"]["skills"] == 3 and len(d["skills"]) == 3
assert d["profile"] == "spec"' 
    ok $? "--json output parses and has three skills"
else
    echo "ok - # skip python3 not available"
fi

# Profiles.
cc="$S/invalid/claude-code-keys/claude-code-keys"
run "$UPSKILL" validate --profile claude-code "$cc"
is "$rc" 0 "claude-code profile accepts user-invocable and a tools list"
run "$UPSKILL" validate --profile claude-code "$S/claude-code/cc-ok"
is "$rc" 0 "claude-code profile accepts its extension keys"
run "$UPSKILL" validate "$S/claude-code/cc-ok"
is "$rc" 3 "spec profile rejects them"
run "$UPSKILL" validate --profile=claude-code "$S/claude-code/bad-boolean"
is "$rc" 3 "claude-code profile checks booleans"
like "$out" "Field 'user-invocable' must be a boolean" "boolean message"
run "$UPSKILL" validate --profile portable "$cc"
is "$rc" 2 "unknown profile is a usage error"
like "$err" "unknown profile 'portable'" "unknown profile named"
run "$UPSKILL" validate
is "$rc" 2 "no path is a usage error"

# Bad input: a clear finding, never a crash or a hang.
run "$UPSKILL" validate "$T/does-not-exist"
is "$rc" 3 "missing path exits 3"
like "$out" "Path does not exist: $T/does-not-exist" "missing path named"
mkdir -p "$T/empty"
run "$UPSKILL" validate "$T/empty"
like "$out" "$T/empty: error: Missing required file: SKILL.md" \
    "folder without SKILL.md"
mkdir -p "$T/dirmd/SKILL.md"
run "$UPSKILL" validate "$T/dirmd"
is "$rc" 3 "directory named SKILL.md exits 3"
like "$out" "SKILL.md is a directory, expected a file" "directory named"
mkdir -p "$T/bin"
printf '\177ELF\002\001\001\000\000\000\377\376\375binary' >"$T/bin/SKILL.md"
run "$UPSKILL" validate "$T/bin"
is "$rc" 3 "binary garbage exits 3"
like "$out" "NUL byte" "binary garbage reported"
mkdir -p "$T/latin1"
printf -- '---\nname: latin1\ndescription: caf\351\n---\nbody\n' \
    >"$T/latin1/SKILL.md"
run "$UPSKILL" validate "$T/latin1"
like "$out" "latin1/SKILL.md:3: error: file is not valid UTF-8" \
    "invalid UTF-8 reported with its line"
mkdir -p "$T/big"
dd if=/dev/zero of="$T/big/SKILL.md" bs=1048576 count=0 seek=50 2>/dev/null
run "$UPSKILL" validate "$T/big"
is "$rc" 3 "50 MB SKILL.md exits 3"
like "$out" "file is larger than 16777216 bytes" "50 MB SKILL.md refused"
mkdir -p "$T/bom"
printf '\357\273\277---\nname: bom\ndescription: d\n---\nbody\n' \
    >"$T/bom/SKILL.md"
run "$UPSKILL" validate "$T/bom"
is "$rc" 3 "BOM exits 3"
like "$out" "bom/SKILL.md:1: error: file starts with a UTF-8 byte order mark" \
    "BOM reported"
mkdir -p "$T/crlf"
printf -- '---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n' \
    >"$T/crlf/SKILL.md"
run "$UPSKILL" validate "$T/crlf"
is "$rc" 0 "CRLF line endings are accepted"
if command -v mkfifo >/dev/null 2>&1; then
    mkdir -p "$T/fifo" && mkfifo "$T/fifo/SKILL.md"
    run "$UPSKILL" validate "$T/fifo"
    like "$out" "SKILL.md is not a regular file" "a FIFO is refused, not read"
fi

done_testing
