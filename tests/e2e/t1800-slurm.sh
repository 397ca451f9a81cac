#!/bin/sh
# Sharded sweeps on a real Slurm (docs/sharding.md): a one-node cluster on
# this machine (munged, slurmctld and slurmd on localhost, with their own
# key, socket, ports, config, state and logs in $T, nothing system-wide)
# runs examples/slurm/eval-array.sh as an array job of 4 shards
# against the fake server, then examples/slurm/merge.sh as a job
# that depends on the array; the merged batch equals the unsharded run in
# content (per-case verdicts, pass rates, lifts, tokens, costs).  Skips,
# saying why, where Slurm cannot start: not root, binaries missing (Debian:
# slurm-wlm and munge, scripts/deps.sh), a daemon that does not come up
# (with its log's tail).  Every wait has a time limit; every daemon is
# stopped on exit, failed or not (tests/e2e/slurm_lib.sh).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
. "$TOP/tests/e2e/slurm_lib.sh"
fake_need_curl
command -v jq >/dev/null 2>&1 || fake_skip_all "jq not found"
EX="$TOP/examples/slurm"

# --- the eval: 10 cases, 2 priced models, skill better on some (each model
# at 5% on its own, --family-control none: the verdicts differ) ---------
export UPSKILL_CONFIG="$T/config.yaml"
cat >"$T/config.yaml" <<'YAML'
prices:
  a: {input: 3, output: 15}
  b: {input: 0.1, output: 0.4}
YAML
mkdir -p "$T/bin" "$T/sk"
ln -s "$UPSKILL" "$T/bin/upskill" # the docs' scripts call `upskill`
export PATH="$T/bin:$PATH"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
{
    printf '['
    for i in 1 2 3 4 5 6 7 8 9 10; do
        case $i in 1 | 4 | 7) w="good" ;; 2 | 5 | 8 | 9) w="skill" ;; *) w="hard" ;; esac
        [ "$i" -gt 1 ] && printf ',\n'
        printf '{"input": "case %s %s", "expected": {"contains": ["GOOD"]}}' "$i" "$w"
    done
    printf ']\n'
} >"$T/tests.json"
cat >"$T/s.json" <<'JSON'
{"rules": [
  {"name": "good", "match": {"user": "good"},
   "reply": {"text": "GOOD ANSWER", "usage": {"input_tokens": 41, "output_tokens": 7}}},
  {"name": "b misses one", "match": {"model": "b", "user": "case 9 "},
   "reply": {"text": "meh", "usage": {"input_tokens": 37, "output_tokens": 3}}},
  {"name": "skill", "match": {"user": "skill", "system": "## Skill:"},
   "reply": {"text": "GOOD, with the skill", "usage": {"input_tokens": 93, "output_tokens": 13}}},
  {"name": "bad", "reply": {"text": "meh", "usage": {"input_tokens": 37, "output_tokens": 3}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl" || fake_skip_all "the fake server did not start"

slurm_up
ok 0 "a one-node Slurm cluster runs on localhost"

cd "$T" || exit 1
set -- "$T/sk" -t "$T/tests.json" -m b -m a --runs 2 --seed 5 --family-control none \
    --base-url "$FAKE_URL/v1"
timeout 60 upskill eval "$@" --no-cache --runs-dir "$T/full" >"$T/full.out" 2>&1
is "$?" 0 "the unsharded run exits 0"
sent() { wc -l <"$T/rec.jsonl" | tr -d ' '; }
nfull=$(sent)

# --- the docs' scripts, as they are: array of 4, then the merge ------------
run sbatch --parsable --array=1-4 "$EX/eval-array.sh" "$T/runs" "$@"
is "$rc" 0 "sbatch takes the array job"
aid=${out%%;*}
run sbatch --parsable --dependency=afterok:"$aid" --kill-on-invalid-dep=yes \
    "$EX/merge.sh" \
    "$T/runs" "$@"
is "$rc" 0 "sbatch takes the merge job, after the array"
mid=${out%%;*}
gone() { [ -z "$(timeout 5 squeue -h -j "$aid,$mid" -o %i 2>/dev/null)" ]; }
slurm_wait_for 90 gone
ok $? "the jobs finish within 90 s"
tasks=$(slurm_state "$aid" | sort | uniq -c | tr -s ' ')
is "$tasks" " 4 COMPLETED 0:0" "the 4 array tasks completed, exit 0"
is "$(slurm_state "$mid")" "COMPLETED 0:0" "the merge job completed, exit 0"
[ "$tasks $(slurm_state "$mid")" = " 4 COMPLETED 0:0 COMPLETED 0:0" ] ||
    tail -n 5 "$T"/upskill-*.out "$T"/slurm-*.out 2>/dev/null | sed 's/^/# /'
n=0
for i in 1 2 3 4; do
    [ -s "$(ls "$T"/runs/shard-$i/*/journal.jsonl 2>/dev/null | head -1)" ] &&
        n=$((n + 1))
done
is "$n" 4 "each task wrote its shard"
is "$(($(sent) - nfull))" "$nfull" \
    "the shards sent what the unsharded run sent, the merge job nothing"

# --- the merged batch equals the unsharded one in content -----------------
# Costs too are compared exactly: they are summed in a fixed order
# (model, repeat, arm, case), so merged equals unsharded to the bit.
norm() { # without batch ids, timestamps and timings, lines in any order
    jq -cS "walk(if type == \"object\" then del(.batch_id, .latency_ms,
                 .timestamp, .conversation_span_ms, .llm_time_ms, .merged)
             else . end)" "$1" | sort
}
F=$(ls -d "$T"/full/*)
M=$(ls -d "$T"/runs/merged/* 2>/dev/null | head -1)
files=$(cd "$F" && find . -name '*.json' -o -name '*.jsonl' | sort)
mfiles=$(cd "${M:-/nonexistent}" 2>/dev/null && find . -name '*.json' -o -name '*.jsonl' | sort)
is "$(echo $mfiles)" "$(echo $files)" "the merged batch has the unsharded batch's files"
diffs=0
[ -n "$M" ] || files= diffs="no merged batch"
for f in $files; do
    [ "$(norm "$F/$f")" = "$(norm "$M/$f")" ] || {
        echo "# differs: $f"
        diffs=$((diffs + 1))
    }
done
is "$diffs" 0 "the merged batch equals the unsharded one in content"
# the numbers a reader decides on, as eval --json gives them for each
# batch (finished, so nothing is sent): pass rates, intervals, lift,
# p, verdict, tokens and costs of each model and arm
numbers() { # numbers RUNS_DIR BATCH
    timeout 30 upskill eval "$@" --no-cache --json 2>/dev/null |
        jq -cS ".models | walk(if type == \"object\" then del(.latency_ms)
                else . end)"
}
set -- "$T/sk" -t "$T/tests.json" -m b -m a --runs 2 --seed 5 --family-control none \
    --base-url "http://127.0.0.1:1/v1"
fn=$(numbers "$@" --runs-dir "$T/full" --resume "$(basename "$F")")
mn=$(numbers "$@" --runs-dir "$T/runs/merged" --resume "$(basename "$M")")
is "$(printf '%s' "$fn" | jq -r '[.[] | .verdict, (.lift * 100 | round)] | @tsv')" \
    "$(printf 'inconclusive\t30\tbeneficial\t40')" \
    "the unsharded run: the models differ in lift and verdict"
is "$mn" "$fn" "the merged verdicts, pass rates, lifts, tokens and costs are the unsharded ones"

done_testing
