#!/bin/sh
# generate's folder rule and overwrite rule (issue 34 items 1 and 2): a
# folder this run did not write is never replaced without --force (refused
# before anything is spent when -o or --from DIR names it, right after the
# teacher's first reply otherwise); --force keeps the old folder as
# NAME.bak-<time>; a run that Ctrl-C ends never touches what was there and
# saves beside it; -o DIR names the skill after DIR.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
G="$TOP/tests/fixtures/gen"
SKILLS=$T/skills
export UPSKILL_CONFIG="$T/cfg.yaml"
printf 'skills_dir: %s\n' "$SKILLS" > "$UPSKILL_CONFIG"
cd "$T" || exit 1

gen() {
    sc=$1
    shift
    rm -f "$T/rec.jsonl"
    fake_start "$G/$sc.json" --record "$T/rec.jsonl"
    GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
        "write commit messages" -m generic.teacher "$@" \
        --eval-model student --eval-base-url "$FAKE_URL/v1" --no-log-runs
}
nreq() { wc -l < "$T/rec.jsonl" 2>/dev/null | tr -d ' '; }
# An existing, better skill: a file the teacher never writes, a README.
old_skill() {
    rm -rf "$1" "$1".*
    mkdir -p "$1/references"
    cp "$G/improve/commit-helper/SKILL.md" "$1/SKILL.md"
    printf 'the better lift\n' > "$1/references/lift.md"
    printf 'mine\n' > "$1/README"
    rm -rf "$T/orig"
    cp -Rp "$1" "$T/orig"
}
same() { diff -r "$T/orig" "$1" > /dev/null && echo yes || echo no; }

# --- refused before anything is spent: -o names an existing folder ---------
old_skill "$SKILLS/commit-helper"
gen plain -o "$SKILLS/commit-helper"
is "$rc" 2 "-o an existing folder without --force is refused (exit 2)"
like "$err" "'$SKILLS/commit-helper' already exists and this run did not write it" \
    "the message names the folder"
like "$err" "pass --force to replace it" "and the flag"
is "$(nreq)" 0 "before any request"
is "$(same "$SKILLS/commit-helper")" yes "the skill is byte for byte as it was"

# --- the default folder: refused after the first reply, before the tests ---
gen plain
is "$rc" 2 "skills_dir/NAME existing is refused too"
like "$err" "'$SKILLS/commit-helper' already exists" "naming it"
is "$(nreq)" 1 "after the teacher's one call, before tests and evaluation"
is "$(same "$SKILLS/commit-helper")" yes "the skill is as it was"

# --- --from DIR saving over itself needs --force as well -------------------
gen improve -f "$SKILLS/commit-helper"
is "$rc" 2 "improving a skill in place without --force is refused"
is "$(nreq)" 0 "before any request"

# --- --force: the old folder is kept, whole, as NAME.bak-<time> ------------
gen plain --force
is "$rc" 0 "--force replaces it"
like "$err" "The previous '$SKILLS/commit-helper' is kept as '$SKILLS/commit-helper.bak-" \
    "and says where the old one went"
bak=$(ls -d "$SKILLS"/commit-helper.bak-* | head -n 1)
is "$(same "$bak")" yes "the old version is there byte for byte"
like "$(cat "$SKILLS/commit-helper/SKILL.md")" "SKILL-V1" "the new one is saved"
run "$UPSKILL" validate "$SKILLS/commit-helper"
is "$rc" 0 "and valid"

rm -rf "$SKILLS"/commit-helper.bak-*
gen plain -o "$SKILLS/commit-helper/" --force --max-refine 1
is "$rc" 0 "-o DIR/ with a trailing slash and --force"
ok "$(ls -d "$SKILLS"/commit-helper.bak-* > /dev/null 2>&1 && echo 0 || echo 1)" \
    "keeps the old folder beside it"
ok "$(ls -A "$SKILLS/commit-helper" | grep -q bak && echo 1 || echo 0)" \
    "not inside it"

# --- Ctrl-C never overwrites what was there --------------------------------
slow() {
    awk -v n="$1" '/"reply": \{/ { if (++k == n) sub(/"reply": \{/, "\"reply\": {\"delay_ms\": 20000,") } { print }' \
        "$G/$2.json" > "$T/slow.json"
}
gen_bg() {
    rm -f "$T/rec.jsonl" "$T/bg.pid" "$T/bg.rc"
    fake_start "$T/slow.json" --record "$T/rec.jsonl"
    (
        GENERIC_BASE_URL="$FAKE_URL/v1" "$UPSKILL" generate \
            "write commit messages" -m generic.teacher "$@" \
            --eval-model student --eval-base-url "$FAKE_URL/v1" \
            > "$T/bg.out" 2> "$T/bg.err" &
        echo $! > "$T/bg.pid"
        wait $!
        echo $? > "$T/bg.rc"
    ) &
    bg_sub=$!
}
wait_for() {
    _w=0
    until "$@"; do
        [ $_w -ge 100 ] && return 1
        _w=$((_w + 1))
        sleep 0.1
    done
}
interrupt() {
    wait_for grep -q "$1" "$T/rec.jsonl"
    wait_for test -s "$T/bg.pid"
    kill -INT "$(cat "$T/bg.pid")"
    wait_for test -s "$T/bg.rc"
    rc=$(cat "$T/bg.rc" 2>/dev/null || echo "still running")
    wait "$bg_sub"
    err=$(cat "$T/bg.err")
}

old_skill "$SKILLS/commit-helper"
slow 1 plain
gen_bg --runs-dir "$T/runs-a"
interrupt "Write a skill"
is "$rc" 130 "Ctrl-C during the teacher's call over an existing skill: 130"
is "$(same "$SKILLS/commit-helper")" yes "the existing skill is byte for byte as it was"

slow 2 keep-best # the refinement, after attempt 1 is evaluated
gen_bg --force --max-refine 2 --runs-dir "$T/runs-b"
interrupt "A skill you wrote was tested"
is "$rc" 130 "Ctrl-C during the refinement with --force: 130"
is "$(same "$SKILLS/commit-helper")" yes \
    "even with --force, an interrupted run leaves the old skill as it was"
like "$err" "the best version so far is saved to '$SKILLS/commit-helper.new-" \
    "the best version is saved beside it"
like "$err" "('$SKILLS/commit-helper' was there before this run and is left as it was)" \
    "and the message says so"
new=$(ls -d "$SKILLS"/commit-helper.new-* | head -n 1)
like "$(cat "$new/SKILL.md")" "SKILL-V1" "attempt 1 is in it"
ok "$(ls -d "$SKILLS"/commit-helper.bak-* > /dev/null 2>&1 && echo 1 || echo 0)" \
    "no backup was made: nothing was replaced"

# --- -o DIR: the skill is named after DIR -----------------------------------
gen plain -o "$T/out/changelog" --max-refine 1
is "$rc" 0 "-o DIR with a name unlike the teacher's"
like "$(cat "$T/out/changelog/SKILL.md")" "name: changelog" \
    "the skill is named after DIR"
run "$UPSKILL" validate "$T/out/changelog"
is "$rc" 0 "so it passes validate"

gen plain -o "$T/out/Change_Log"
is "$rc" 2 "-o DIR whose name is no skill name is refused"
like "$err" "'Change_Log' is not a skill name" "saying why"
is "$(nreq)" 0 "before any request"
ok "$([ -e "$T/out/Change_Log" ] && echo 1 || echo 0)" "nothing is written"

# --- --help says the rules ---------------------------------------------------
run "$UPSKILL" generate --help
like "$out" "The skill goes to -o DIR, named after DIR, else to skills_dir/NAME." \
    "--help states the folder rule"
like "$out" "A folder already there is never replaced without --force" \
    "and the overwrite rule"
run "$UPSKILL" runs --help
like "$out" "--prune" "runs --help names --prune"

# --- docs/generate.md's examples are what the command prints --------------
doc() { grep -F "$1" "$TOP/docs/generate.md" | head -n 1; }
old_skill "$T/skills/commit-helper"
rm -f "$T/rec.jsonl"
fake_start "$G/plain.json" --record "$T/rec.jsonl"
ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL="$FAKE_URL" run "$UPSKILL" generate \
    "write commit messages" -o skills/commit-helper
is "$err" "$(doc "upskill: error: 'skills/commit-helper' already exists")" \
    "the refusal is the one docs/generate.md shows"
like "$(doc '$ upskill generate "write commit messages" -o skills/commit-helper')" \
    "upskill generate" "(the doc shows that command)"
gen plain -o skills/commit-helper --force --max-refine 1
line=$(printf '%s\n' "$err" | grep '^The previous')
pat=$(doc "The previous 'skills/commit-helper' is kept as" |
    sed 's/bak-[0-9-]*/bak-[0-9-]*/')
ok "$(printf '%s\n' "$line" | grep -qx "$pat"; echo $?)" \
    "the --force line is the one docs/generate.md shows"

done_testing
