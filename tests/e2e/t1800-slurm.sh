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
# stopped on exit, failed or not.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
EX="$TOP/examples/slurm"

[ "$(id -u)" -eq 0 ] ||
    fake_skip_all "Slurm's daemons must run as root here (SlurmUser=root)"
for b in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol \
    scancel python3 jq; do
    command -v "$b" >/dev/null 2>&1 ||
        fake_skip_all "$b not found (Debian: slurm-wlm munge, scripts/deps.sh)"
done

# a test run inside a Slurm job must not hand that job's settings on
for v in $(env | sed -n 's/^\(S\(LURM\|BATCH\|QUEUE\|INFO\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$v"
done
S="$T/slurm"
mkdir -p "$S/state" "$S/spool" "$S/log" "$S/munge"
chmod 755 "$S/munge" # munged wants its socket's folder open to all
_pids= # the daemons, last started first: stopped in that order on exit
_up=   # set once slurmctld runs: there may be jobs to cancel
_stop() { # the jobs, then the daemons, each waited for (at most 10 s)
    if [ -n "$_up" ]; then
        timeout 10 scancel --me --full >/dev/null 2>&1
        wait_for 10 jobs_gone
    fi
    for _p in $_pids; do kill "$_p" 2>/dev/null; done
    for _p in $_pids; do
        wait_for 10 dead "$_p" || kill -9 "$_p" 2>/dev/null
    done
    _pids=
}
trap '_stop; _fake_stop_all; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM
dead() { ! kill -0 "$1" 2>/dev/null; }
jobs_gone() { [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; }
# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds, for at
# most SECONDS (of the clock: a Slurm client may itself take seconds)
wait_for() {
    _end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$_end" ] || return 1
        sleep 0.2
    done
}
# skip REASON LOG: skip the script, with the log's last lines in the reason
skip() {
    _tail=$(tail -n 4 "$2" 2>/dev/null | tr '\n' ' ' | tr -s ' ')
    fake_skip_all "$1: ${_tail:-its log is empty}"
}

# --- the eval: 10 cases, 2 priced models, skill better on some ------------
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
fake_start "$T/s.json" || fake_skip_all "the fake server did not start"

# --- munge: a key and a socket of our own ---------------------------------
mungekey -c -k "$S/munge/key" >/dev/null 2>&1 ||
    fake_skip_all "mungekey cannot create a key"
munged -F --force --socket="$S/munge/sock" --key-file="$S/munge/key" \
    --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" \
    >"$S/log/munged.log" 2>&1 &
_pids="$!"
wait_for 10 test -S "$S/munge/sock" ||
    skip "munged did not start" "$S/log/munged.log"

# --- slurmctld and slurmd on localhost, on free ports -----------------------
ports=$(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
node="up1800n$$"
export SLURM_CONF="$S/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=upskill$$
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
MailProg=/bin/true
MessageTimeout=5
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=4 State=UNKNOWN
PartitionName=up Nodes=$node Default=YES MaxTime=10 State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$S/log/slurmctld.out" 2>&1 &
ctld=$!
slurmd -D -N "$node" -f "$SLURM_CONF" >"$S/log/slurmd.out" 2>&1 &
sd=$!
_pids="$sd $ctld $_pids"
idle() { [ "$(timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null)" = idle ]; }
ready() { dead "$ctld" || dead "$sd" || idle; }
wait_for 30 ready
dead "$ctld" && skip "slurmctld did not start" "$S/log/slurmctld.out"
dead "$sd" && skip "slurmd did not start" "$S/log/slurmd.out"
idle || skip "the node is not idle after 30 s" "$S/log/slurmd.out"
_up=1
ok 0 "a one-node Slurm cluster runs on localhost"

cd "$T" || exit 1
set -- "$T/sk" -t "$T/tests.json" -m b -m a --runs 2 --seed 5 \
    --base-url "$FAKE_URL/v1"
upskill eval "$@" --no-cache --runs-dir "$T/full" >"$T/full.out" 2>&1
is "$?" 0 "the unsharded run exits 0"

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
wait_for 90 gone
ok $? "the jobs finish within 90 s"
# state JOB: the job's (or each array task's) JobState and ExitCode
state() {
    timeout 5 scontrol -o show job "$1" 2>/dev/null |
        sed -n 's/.* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1 \2/p'
}
tasks=$(state "$aid" | sort | uniq -c | tr -s ' ')
is "$tasks" " 4 COMPLETED 0:0" "the 4 array tasks completed, exit 0"
is "$(state "$mid")" "COMPLETED 0:0" "the merge job completed, exit 0"
[ "$tasks $(state "$mid")" = " 4 COMPLETED 0:0 COMPLETED 0:0" ] ||
    tail -n 5 "$T"/upskill-*.out "$T"/slurm-*.out 2>/dev/null | sed 's/^/# /'
n=0
for i in 1 2 3 4; do
    [ -s "$(ls "$T"/runs/shard-$i/*/journal.jsonl 2>/dev/null | head -1)" ] &&
        n=$((n + 1))
done
is "$n" 4 "each task wrote its shard"

# --- the merged batch equals the unsharded one in content -----------------
# Costs are compared to 1e-15 dollars: they are sums in the order the
# conversations finish, which may differ in the last bits (issue 26 #9).
COSTS='walk(if type == "object" then with_entries(
    if (.key | test("cost|paid")) and (.value | type) == "number"
    then .value |= (. * 1e15 | round) else . end) else . end)'
norm() { # without batch ids, timestamps and timings, lines in any order
    jq -cS "walk(if type == \"object\" then del(.batch_id, .latency_ms,
                 .timestamp, .conversation_span_ms, .llm_time_ms)
             else . end) | $COSTS" "$1" | sort
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
    upskill eval "$@" --no-cache --json 2>/dev/null |
        jq -cS ".models | walk(if type == \"object\" then del(.latency_ms)
                else . end) | $COSTS"
}
set -- "$T/sk" -t "$T/tests.json" -m b -m a --runs 2 --seed 5 \
    --base-url "http://127.0.0.1:1/v1"
fn=$(numbers "$@" --runs-dir "$T/full" --resume "$(basename "$F")")
mn=$(numbers "$@" --runs-dir "$T/runs/merged" --resume "$(basename "$M")")
is "$(printf '%s' "$fn" | jq -r '[.[] | .verdict, (.lift * 100 | round)] | @tsv')" \
    "$(printf 'inconclusive\t30\tbeneficial\t40')" \
    "the unsharded run: the models differ in lift and verdict"
is "$mn" "$fn" "the merged verdicts, pass rates, lifts, tokens and costs are the unsharded ones"
# say whether the costs matched to the last bit too
if [ -n "$mn" ]; then
    COSTS=.
    fx=$(numbers "$@" --runs-dir "$T/full" --resume "$(basename "$F")")
    mx=$(numbers "$@" --runs-dir "$T/runs/merged" --resume "$(basename "$M")")
    if [ "$fx" = "$mx" ]; then
        echo "# the costs are equal to the last bit"
    else
        echo "# the costs differ in the last bits (equal to 1e-15 dollars)"
    fi
fi

done_testing
