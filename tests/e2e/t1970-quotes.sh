#!/bin/sh
# A skill that gives its tests away is flagged (docs/eval.md, "A skill
# that gives its tests away"): eval warns, naming the cases, when the
# skill holds a case's answer-like expected string (with a digit, found
# in no other case), a 60-byte span of its input found in no other case,
# or when a test's prompt names the skill.  The false-alarm rate on every
# skill with tests in examples/ and tests/fixtures is zero.  (generate's
# side, a quoting refinement not kept: t1965.)
. "$TOP/tests/e2e/lib.sh"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# every skill of the tree with its own tests: no warning
n=0 flagged=
for d in $(find "$TOP/examples" "$FIX" -name SKILL.md -exec dirname {} \; | sort); do
    "$UPSKILL" eval "$d" --plan >/dev/null 2>"$T/e" || continue
    n=$((n + 1))
    grep -q "gives away" "$T/e" && flagged="$flagged ${d#"$TOP"/}"
done
ok "$([ "$n" -ge 10 ]; echo $?)" "the tree holds $n skills with tests (at least 10)"
is "$flagged" "" "none of them is flagged: no false alarm"

mkdir -p "$T/sk"
cat >"$T/sk/SKILL.md" <<'MD'
---
name: order-codes
description: Finds the shipping code of an order. Use when asked for an order's shipping code.
---

# Order codes

Look the code up in the shipping table. For order 1138 it is SHIP-4471.
When the customer writes that the parcel left the warehouse on a Tuesday and never arrived at the pickup point, open a trace.
MD
cat >"$T/tests.json" <<'JSON'
[{"input": "What is the shipping code of order 1138?", "expected": {"contains": ["SHIP-4471", "code"]}},
 {"input": "What is the shipping code of order 2001?", "expected": {"contains": ["SHIP-9001", "code"]}},
 {"input": "The customer writes that the parcel left the warehouse on a Tuesday and never arrived at the pickup point. What now?", "expected": {"contains": ["trace", "code"]}},
 {"input": "Use the order-codes skill: what is the code of order 7?", "expected": {"contains": ["SHIP-7", "code"]}}]
JSON
run "$UPSKILL" eval "$T/sk" -t "$T/tests.json" --plan
is "$rc" 0 "eval --plan runs"
like "$err" "warning: 'order-codes' gives away 3 of its tests, which then measure recall, not the skill: " \
    "eval warns that the skill gives tests away"
like "$err" 'case 1 (the skill holds its expected string "SHIP-4471")' \
    "an answer-like expected string found in the skill names its case"
like "$err" 'case 3 (the skill holds its input "customer writes that the parcel left the warehouse on a Tues")' \
    "a long span of a case's input found in the skill names its case"
like "$err" 'case 4 (its prompt names the skill "order-codes")' \
    "a test whose prompt names the skill is flagged"
unlike "$err" "case 2 (" "a case the skill does not quote is not named"

# "code" is expected by every case: shared, never case-specific
sed -i 's/SHIP-4471/the code/' "$T/sk/SKILL.md"
sed -i 's/open a trace/ask for the tracking number/' "$T/sk/SKILL.md"
printf '[{"input": "code of order 1?", "expected": {"contains": ["code", "order"]}}, {"input": "code of order 2?", "expected": {"contains": ["code", "order"]}}]\n' >"$T/plain.json"
run "$UPSKILL" eval "$T/sk" -t "$T/plain.json" --plan
unlike "$err" "gives away" "strings every case expects are not quotes"

done_testing
