#!/bin/sh
# Frontmatter an upstream user has or gets (issue 38, breaking 2 and 8):
# a name YAML reads as a number, boolean or date is refused by validate
# (no spelling serves YAML and upstream's line reader, which keeps
# quotes); a description written as a flow mapping or list is read as
# upstream reads the line, with a warning and the fix.
. "$TOP/tests/e2e/lib.sh"
mk() { # mk DIR FRONTMATTER-LINES
    mkdir -p "$T/s/$1"
    printf -- '---\n%s---\n\n# Body\n\nDo it.\n' "$2" > "$T/s/$1/SKILL.md"
}

mk 123 'name: "123"
description: A numbered skill.
'
run "$UPSKILL" validate --json "$T/s/123"
is "$rc" 3 "validate refuses a name YAML reads as a number"
like "$out" '"code": "name-yaml-typed"' "with its own code"
like "$out" "reads as a number in YAML" "and the reason"
like "$out" "such as 'skill-123'" "and the way around"

mk on "name: 'on'
description: A switch.
"
run "$UPSKILL" validate "$T/s/on"
is "$rc" 3 "and one YAML reads as a boolean"
like "$out" "reads as a boolean" "naming it"

mk 1st-steps 'name: 1st-steps
description: First steps.
'
run "$UPSKILL" validate "$T/s/1st-steps"
is "$rc" 0 "a name that starts with a digit but is text is valid"

rm -rf "$T/s/123" "$T/s/on"
mk flow 'name: flow
description: {Use when: x}
'
run "$UPSKILL" list -d "$T/s"
is "$rc" 0 "list reads a flow-mapping description"
like "$out" "{Use when: x}" "as upstream reads it: the text"
like "$err" "YAML reads description as a mapping; read as upstream upskill reads it, the text '{Use when: x}'; quote the value: description: \"{Use when: x}\"" \
    "with a warning and the fix"
run "$UPSKILL" validate "$T/s/flow"
is "$rc" 3 "validate still reports the flow style, as skills-ref"
like "$out" "flow style mapping is not allowed" "naming it"

done_testing
