#!/bin/sh
# upskill list: tree, -v, --json, broken skills, missing and empty folders.
. "$TOP/tests/e2e/lib.sh"

EX="$TOP/examples/skills"
LF="$FIX/list"

run "$UPSKILL" list -d "$EX"
is "$rc" 0 "list of the examples exits 0"
like "$out" "Skills in $EX" "title names the folder"
like "$out" "├── git-commit-messages" "skills are labelled by folder"
like "$out" "└── sql-query-review" "last skill gets the corner"
like "$out" "│   └── Writes clear git commit messages in the Conventional Commits..." \
    "description is cut at 60 characters with ..."
like "$out" "6 skills, ~" "footer counts skills"
unlike "$out" "SKILL.md (~" "no file details without -v"
is "$err" "" "nothing on stderr"

run "$UPSKILL" list -d "$EX" -v
is "$rc" 0 "-v exits 0"
like "$out" "│   ├── SKILL.md (~" "-v shows SKILL.md tokens"
like "$out" "│   ├── references/
│   │   └── status-codes.md (~" "-v shows reference files with tokens"
like "$out" "    └── tests (5 cases)" "-v counts tests from skill_meta.json"

run "$UPSKILL" list -d "$LF" -v
is "$rc" 0 "a broken skill is listed, exit 0 as upstream (issue 38)"
like "$out" "├── broken-skill
│   └── error: '$LF/broken-skill/SKILL.md'" "broken skill is listed with its error"
like "$out" "'$LF/bad-tests/skill_meta.json': tests[0].expected.contains: expected a string or a list of strings" \
    "bad tests are reported with their JSON path"
like "$err" "2 skills could not be loaded (upskill validate '$LF' tells why and exits 3)" \
    "stderr says how many failed and what tells why"
like "$out" "│   ├── Exactly sixty characters long for the truncation test here!!
" "60 characters are shown whole, without ..."
like "$out" "Short one. Use when testing.
" "short description has no ..."
like "$out" "à partir de données éparses, en fra..." \
    "UTF-8 descriptions are cut on characters"
like "$out" "│   ├── scripts/
│   │   └── run.sh
│   ├── assets/
│   │   └── template.txt
│   └── tests (1 case)" "scripts, assets and a single test case"
unlike "$out" "not-a-skill" "folders without SKILL.md are not skills"
like "$out" "5 skills (2 failed to load), ~" "footer counts failures"
run "$UPSKILL" validate "$LF"
is "$rc" 3 "validate is the command whose exit code judges them"

run "$UPSKILL" list -d "$LF" --json
is "$rc" 0 "--json with a broken skill exits 0"
like "$out" '"folder": "broken-skill"' "--json lists the broken skill"
like "$out" '"error": "'"'$LF/broken-skill/SKILL.md'" "--json carries its error"
like "$out" '"path": "references/guide.md"' "--json lists files"
like "$out" '"tests": 1' "--json counts tests"
like "$out" '"tests": null' "--json: null tests without skill_meta.json"
if command -v python3 >/dev/null 2>&1; then
    printf '%s\n' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["count"] == 5 and d["failed"] == 2'
    ok $? "--json is one valid document"
fi

run "$UPSKILL" list -d "$T/nowhere"
is "$rc" 0 "missing folder exits 0, as upstream (issue 38)"
is "$out" "No skills directory found at $T/nowhere" "upstream's line, on stdout"
run "$UPSKILL" list -d "$T/nowhere" --json
is "$rc" 0 "missing folder with --json exits 0"
like "$out" '"count": 0' "an empty listing"
like "$err" "no skills directory found at '$T/nowhere'" "and a warning naming it"
: > "$T/a-file"
run "$UPSKILL" list -d "$T/a-file"
is "$rc" 3 "a file given as the folder is bad input"
like "$err" "'$T/a-file' is not a folder" "and says so"

mkdir -p "$T/empty/not-a-skill"
run "$UPSKILL" list -d "$T/empty"
is "$rc" 0 "empty folder exits 0"
like "$out" "No skills found in $T/empty" "empty folder says so"

mkdir -p "$T/cwd/skills/big"
{
    printf -- '---\nname: big\ndescription: Big.\n---\n\n'
    i=0
    while [ $i -lt 994 ]; do printf 'word '; i=$((i + 1)); done
    echo
} >"$T/cwd/skills/big/SKILL.md"
run sh -c "cd '$T/cwd' && '$UPSKILL' list"
is "$rc" 0 "default folder is the config default, skills"
like "$out" "Skills in skills" "default folder (config default skills_dir) is named"
like "$out" "1 skill, ~1,3" "footer uses thousands separators"

run "$UPSKILL" list extra
is "$rc" 2 "a positional argument is a usage error"

if [ -w /dev/full ]; then
    run sh -c "'$UPSKILL' list -d '$EX' > /dev/full"
    ok $([ "$rc" -ne 0 ] && echo 0 || echo 1) "write error on stdout fails"
    like "$err" "cannot write to standard output" "write error is reported"
fi

done_testing
