#!/bin/sh
# A skill registry measured on a real Slurm (issue 26; docs/sharding.md,
# "Sweeping a skill registry"): 20 skills x 3 models x 2 arms as one
# sweep, run by examples/slurm/eval-array.sh as an array job of 4 shards
# and finished by examples/slurm/merge.sh; the merged leaderboard equals
# the unsharded one, in --json byte for byte and in the HTML report.
# Skips, saying why, where Slurm cannot start (tests/e2e/slurm_lib.sh).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/slurm_lib.sh"
fake_need_curl
command -v jq >/dev/null 2>&1 || fake_skip_all "jq not found"
EX="$TOP/examples/slurm"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/bin"
ln -s "$UPSKILL" "$T/bin/upskill" # the scripts call `upskill`
export PATH="$T/bin:$PATH"

# 20 skills, 2 cases each; skill k helps model a when k is even, breaks
# model c when k is a multiple of 5, and does nothing otherwise
rules='{"rules": ['
for k in $(seq 1 20); do
    n=s$k
    mkdir -p "$T/reg/$n"
    printf -- '---\nname: %s\ndescription: Skill %s of the registry. Use when asked about topic %s.\n---\n\n# %s\n\nSay MARK-%s.\n' \
        "$n" "$k" "$k" "$n" "$k" >"$T/reg/$n/SKILL.md"
    printf '{"tests": [{"input": "t%s q1", "expected": {"contains": ["GOOD"]}}, {"input": "t%s q2", "expected": {"contains": ["GOOD"]}}]}\n' \
        "$k" "$k" >"$T/reg/$n/skill_meta.json"
    [ $((k % 2)) -eq 0 ] &&
        rules="$rules{\"match\": {\"model\": \"a\", \"user\": \"t$k q\", \"system\": \"MARK-$k.\"}, \"reply\": {\"text\": \"GOOD\"}},"
    [ $((k % 5)) -eq 0 ] && rules="$rules{\"match\": {\"model\": \"c\", \"user\": \"t$k q\", \"system\": \"MARK-$k.\"}, \"reply\": {\"text\": \"meh\"}}, {\"match\": {\"model\": \"c\", \"user\": \"t$k q\"}, \"reply\": {\"text\": \"GOOD\"}},"
done
printf '%s{"reply": {"text": "meh"}}]}\n' "$rules" >"$T/s.json"
fake_start "$T/s.json" --record "$T/rec.jsonl" || fake_skip_all "the fake server did not start"

slurm_up
ok 0 "a one-node Slurm cluster runs on localhost"

cd "$T" || exit 1
set -- "$T"/reg/*/ -m a -m b -m c --seed 7 --base-url "$FAKE_URL/v1"
timeout 120 upskill eval "$@" --no-cache --runs-dir "$T/full" --json \
    >"$T/full.json" 2>"$T/full.err"
is "$?" 0 "the unsharded sweep exits 0"
is "$(jq '.leaderboard.rows | length' "$T/full.json")" 20 "20 skills on the leaderboard"
is "$(jq '.leaderboard.models | length' "$T/full.json")" 3 "by 3 models"
sent() { wc -l <"$T/rec.jsonl" | tr -d ' '; }
nfull=$(sent)
is "$nfull" 240 "20 skills x 2 cases x 3 models x 2 arms: 240 conversations"

run sbatch --parsable --array=1-4 "$EX/eval-array.sh" "$T/runs" "$@"
is "$rc" 0 "sbatch takes the array job"
aid=${out%%;*}
run sbatch --parsable --dependency=afterok:"$aid" --kill-on-invalid-dep=yes \
    "$EX/merge.sh" "$T/runs" "$@"
is "$rc" 0 "sbatch takes the merge job"
mid=${out%%;*}
gone() { [ -z "$(timeout 5 squeue -h -j "$aid,$mid" -o %i 2>/dev/null)" ]; }
slurm_wait_for 120 gone
ok $? "the jobs finish within 120 s"
tasks=$(slurm_state "$aid" | sort | uniq -c | tr -s ' ')
is "$tasks" " 4 COMPLETED 0:0" "the 4 array tasks completed, exit 0"
is "$(slurm_state "$mid")" "COMPLETED 0:0" "the merge job completed, exit 0"
is "$(($(sent) - nfull))" "$nfull" \
    "the shards sent what the unsharded sweep sent, the merge job nothing"

M=$(ls -d "$T"/runs/merged/* 2>/dev/null | head -1)
kill "$FAKE_PID" # reading the merged batch sends nothing
timeout 60 upskill eval "$@" --no-cache --runs-dir "$T/runs/merged" \
    --resume "$(basename "${M:-none}")" --json >"$T/merged.json" 2>"$T/merged.err"
is "$?" 0 "the merged sweep reads back offline"
jq .leaderboard "$T/full.json" >"$T/full.board"
jq .leaderboard "$T/merged.json" >"$T/merged.board"
ok "$(cmp -s "$T/full.board" "$T/merged.board"; echo $?)" \
    "the merged leaderboard equals the unsharded one byte for byte (--json)"
is "$(jq -r '[.leaderboard.rows[] | select(.skill == "s10") | .cells[].lift * 100 | round] | join("/")' "$T/merged.json")" \
    "100/0/-100" "with the lifts the scenario makes (s10 helps a, breaks c)"

board() { # the leaderboard's table of page $1
    tr -d '\n' <"$1" | sed -n 's|.*\(<table class="board">.*</table></section>\)<script>.*|\1|p' |
        sed 's|</table>.*|</table>|'
}
upskill report "$T"/full/* -o "$T/full.html" --seed 7 >/dev/null 2>&1
upskill report "$M" -o "$T/merged.html" --seed 7 >/dev/null 2>&1
b=$(board "$T/full.html")
ok "$([ -n "$b" ]; echo $?)" "the report has a leaderboard"
is "$(board "$T/merged.html")" "$b" \
    "the merged report's leaderboard equals the unsharded one"
done_testing
