#!/bin/sh
# generate saves a skill as a whole (issue 9, item 9): a write that fails
# during the save (a full disk, here a small RLIMIT_FSIZE) or a process
# killed during it leaves the old version intact, SKILL.md and
# skill_meta.json of one version, never a mix; the failed save says so and
# leaves no hidden folder; what a killed run left (the new version's
# hidden folder, the draft's copy under TMPDIR) is removed by the next run.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
G="$TOP/tests/fixtures/gen"
S="$T/s/commit-helper"
export UPSKILL_CONFIG="$T/none.yaml" TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
cd "$T" || exit 1

# v2.json: another SKILL.md, and a test case whose input is 400 KB, so
# that skill_meta.json (written only by the save) is too large for the
# limit while the draft's files are not.  big.json: the draft itself has
# a 400 KB reference.
python3 - "$G/plain.json" "$T" <<'PY'
import sys
s = open(sys.argv[1]).read().replace("SKILL-V1", "SKILL-V2")
open(sys.argv[2] + "/v2.json", "w").write(
    s.replace("easy case 1: ", "easy case 1: " + "y" * 400000 + " ", 1))
big = '\\"references/big.md\\": \\"' + "x" * 400000 + '\\", '
open(sys.argv[2] + "/big.json", "w").write(
    s.replace('\\"references/types.md\\":', big + '\\"references/types.md\\":'))
deep = '\\"references/' + "d/" * 20 + 'a.md\\": \\"x\\", '
open(sys.argv[2] + "/deep.json", "w").write(
    s.replace('\\"references/types.md\\":', deep + '\\"references/types.md\\":'))
PY

gen() { # gen SCENARIO [ARGS...]: generate commit-helper into $S (--force:
    # it replaces the earlier version), run
    sc=$1 # through $WRAP (a command prefix) when set
    shift
    fake_start "$sc" --record "$T/rec.jsonl"
    GENERIC_BASE_URL="$FAKE_URL/v1" run $WRAP "$UPSKILL" generate \
        "write commit messages" -m generic.teacher -o "$S" --force --no-log-runs \
        --eval-model student --eval-base-url "$FAKE_URL/v1" "$@"
}
# limited CMD...: run CMD with files capped at 256 blocks (128 or 256 KiB),
# SIGXFSZ ignored: a full disk, writes fail.
limited() {
    sh -c 'trap "" XFSZ; ulimit -f 256 && exec "$@"' limited "$@"
}
hidden() { ls -A "$T/s" | grep -c '^\.commit-helper\.upskill-'; }
drafts() { ls -A "$TMPDIR" | grep -c '^upskill-gen-'; }
same_as_v1() { # same_as_v1 NAME: SKILL.md and skill_meta.json unchanged
    cmp -s "$S/SKILL.md" "$T/md1"
    ok $? "$1: SKILL.md is still version 1's"
    cmp -s "$S/skill_meta.json" "$T/meta1"
    ok $? "$1: skill_meta.json too, with version 1's tests"
}

gen "$G/plain.json"
is "$rc" 0 "version 1 is generated, with its tests"
cp "$S/SKILL.md" "$T/md1"
cp "$S/skill_meta.json" "$T/meta1"
like "$(cat "$T/meta1")" '"input"' "(version 1 has tests)"

# --- a full disk during the save -------------------------------------------
WRAP=limited gen "$T/v2.json"
is "$rc" 3 "a save that cannot write fails (exit 3)"
like "$err" "commit-helper' not saved, the old version is kept" \
    "and says the old version is kept"
same_as_v1 "disk full"
is "$(hidden)" 0 "the half-written version is removed"
run "$UPSKILL" validate "$S"
is "$rc" 0 "the skill folder is valid"

# --- a full disk while checking the draft -------------------------------------
WRAP=limited gen "$T/big.json" --no-eval
is "$rc" 3 "a draft that cannot be copied for its check fails (exit 3)"
same_as_v1 "disk full in the draft check"
is "$(drafts)" 0 "and its copy under TMPDIR is removed"

# --- what a killed run leaves ------------------------------------------------
# upskill ignores SIGXFSZ (a full disk is an error it reports, above), so a
# kill in the middle of a save cannot be provoked deterministically; what
# one leaves is made by hand instead: the new version half written in its
# hidden sibling folder and the draft's copy under TMPDIR, both named after
# a process that is gone.
dead=$(sh -c 'echo $$')
mkdir -p "$T/s/.commit-helper.upskill-new-$dead-AbCdEf" \
    "$TMPDIR/upskill-gen-$dead-AbCdEf/commit-helper"
head -c 100 "$S/SKILL.md" > "$T/s/.commit-helper.upskill-new-$dead-AbCdEf/SKILL.md"
cp "$S/SKILL.md" "$TMPDIR/upskill-gen-$dead-AbCdEf/commit-helper/"
same_as_v1 "killed"
is "$(hidden)" 1 "what a killed save was writing sits in a hidden folder"
run "$UPSKILL" validate "$T/s"
is "$rc" 0 "validate of the parent folder passes"
unlike "$out" "upskill-new" "and does not take the hidden folder for a skill"
is "$(drafts)" 1 "a killed draft check leaves the draft's copy under TMPDIR"

# --- the next run cleans up ----------------------------------------------------
gen "$T/v2.json" --no-eval
is "$rc" 0 "the next save succeeds"
like "$(cat "$S/SKILL.md")" "SKILL-V2" "with version 2"
like "$(cat "$S/skill_meta.json")" '"tests": []' "and version 2's tests"
is "$(hidden)" 0 "it removes the hidden folder the killed save left"
is "$(drafts)" 0 "and the draft copy the killed check left"

# --- validate and the loader: one set of rules ----------------------------------
mkdir -p "$T/v"
for f in deep corrupt escape; do
    cp -R "$S" "$T/v/$f"
    sed "s/^name: commit-helper/name: $f/" "$S/SKILL.md" > "$T/v/$f/SKILL.md"
done
d="$T/v/deep/references"
i=0
while [ $i -lt 40 ]; do d="$d/d"; i=$((i + 1)); done
mkdir -p "$d" && echo x > "$d/a.md"
printf '{"metadata": {"vers' > "$T/v/corrupt/skill_meta.json"
rm -rf "$T/v/escape/references" && ln -s / "$T/v/escape/references"
for f in deep corrupt escape; do
    run "$UPSKILL" validate "$T/v/$f"
    is "$rc" 3 "validate refuses $f"
    like "$out" "upskill cannot load this skill: " "$f: with the loader's reason"
    run "$UPSKILL" eval "$T/v/$f" -m student --base-url "$FAKE_URL/v1" \
        --no-log-runs
    is "$rc" 3 "$f: as eval does"
done
run "$UPSKILL" validate "$T/v/deep"
like "$out" "folders nested deeper than 16 levels" "deep: the depth is named"

gen "$T/deep.json" --no-eval -o "$T/d/commit-helper"
is "$rc" 3 "generate refuses a draft nested deeper than eval loads"
like "$err" "nested deeper than 16" "saying why"
ok "$([ -e "$T/d" ] && echo 1 || echo 0)" "and saves nothing"

done_testing
