#!/bin/sh
# A sweep's limits and refusals (docs/eval.md "Many skills in one batch"):
# at most UP_SWEEP_MAX_SKILLS (500) skills, a skill without tests of its
# own is an error naming it (a sweep writes no tests), two skills of one
# name are refused, --plan/--trigger/--inject both are usage errors, and
# a hostile skill name stays inert in the text and the report.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

mk() { # mk DIR NAME: a skill with one test of its own
    mkdir -p "$T/$1"
    printf -- '---\nname: %s\ndescription: A sweep test skill. Use when asked.\n---\n\nSay GOOD.\n' \
        "$2" >"$T/$1/SKILL.md"
    printf '{"tests": [{"input": "%s q", "expected": {"contains": ["GOOD"]}}]}\n' \
        "$1" >"$T/$1/skill_meta.json"
}
mk one one
mk two two
printf '{"rules": [{"reply": {"text": "GOOD"}}]}\n' >"$T/s.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"
ev() { "$UPSKILL" eval "$@" -m a --base-url "$FAKE_URL/v1" --no-cache \
    --runs-dir "$T/runs"; }

i=0
while [ $i -lt 501 ]; do
    mkdir -p "$T/many/s$i"
    i=$((i + 1))
done
run ev "$T"/many/*/
is "$rc" 2 "501 skills: a usage error"
like "$err" "a sweep takes at most 500 skills (501 given)" \
    "the message names the cap and the count"

mkdir -p "$T/bare"
printf -- '---\nname: bare\ndescription: No tests here. Use never.\n---\n\nBody.\n' \
    >"$T/bare/SKILL.md"
run ev "$T/one" "$T/bare"
is "$rc" 3 "a skill without tests stops the sweep"
like "$err" "'$T/bare': no test cases" "the error names the skill"
like "$err" "a sweep writes no tests" "and says why none are generated"

mk twin one
run ev "$T/one" "$T/twin"
is "$rc" 3 "two skills of one name are refused"
like "$err" "are both named 'one'" "the refusal names the name"

for flag in --plan --trigger "--inject both"; do
    # shellcheck disable=SC2086
    run ev "$T/one" "$T/two" $flag
    is "$rc" 2 "a sweep refuses $flag"
    like "$err" "a sweep of several skills does not take" "$flag: says so"
done
is "$(cat "$T/rec.jsonl" 2>/dev/null | wc -l | tr -d ' ')" 0 \
    "no refusal sent a request"

# a dead endpoint: each model that answered nothing gets its line, exit 4
run "$UPSKILL" eval "$T/one" "$T/two" -m a -m b --base-url http://127.0.0.1:1/v1 \
    --no-cache --runs-dir "$T/dead" --shard 1/2
is "$rc" 4 "a sweep against a dead endpoint exits 4"
like "$err" "'generic.a': no conversation was answered" "model a's error line"
like "$err" "'generic.b': no conversation was answered" "model b's error line"

mk evil 'x<script>alert(1)</script>'
run ev "$T/one" "$T/evil"
is "$rc" 0 "a sweep with a hostile skill name runs"
like "$out" "x<script>alert(1)</script>" "the text shows the name as text"
"$UPSKILL" report "$T/runs" -o "$T/page.html" >/dev/null
is "$?" 0 "the report writes the page"
page=$(cat "$T/page.html")
like "$page" "x&lt;script&gt;alert(1)&lt;/script&gt;" "the page escapes the name"
unlike "$page" "<script>alert(1)" "the name is never markup"
done_testing
