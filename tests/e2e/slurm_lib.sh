# A one-node Slurm cluster for an end-to-end script (docs/sharding.md).
# Source it after tests/e2e/lib.sh and tests/fake/lib.sh, start the fake
# server, then:
#
#   slurm_up                  # or the script is skipped, saying why
#   sbatch --parsable ...     # SLURM_CONF is exported: ours
#   slurm_wait_for 90 CMD...  # poll CMD for at most 90 s
#   slurm_state JOB           # "COMPLETED 0:0": JobState ExitCode (per task)
#
# slurm_up starts munged (its own key and socket), slurmctld and slurmd on
# 127.0.0.1 on free ports, with their config, state, spool and logs under
# $T/slurm (nothing system-wide, nothing shared with another instance),
# and waits (30 s at most) for the node to be idle.  It skips the script
# (TAP "1..0 # SKIP") where Slurm cannot start: not root, a binary
# missing, a scratch folder that cannot run scripts, a daemon that does
# not come up (the tail of its log in the reason).  On exit the jobs are
# cancelled and every daemon is stopped, passed or failed, each waited
# for at most 10 s; the fake servers are stopped and $T removed as
# tests/fake/lib.sh does.

SLURM_DIR="$T/slurm"
_slurm_pids= # the daemons, last started first: stopped in that order
_slurm_up=   # set once the node is idle: there may be jobs to cancel

# slurm_wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds,
# for at most SECONDS of the clock (a Slurm client may take seconds)
slurm_wait_for() {
    _sw_end=$(($(date +%s) + $1))
    shift
    until "$@"; do
        [ "$(date +%s)" -lt "$_sw_end" ] || return 1
        sleep 0.2
    done
}

# slurm_state JOB: "STATE EXIT" of the job, a line per array task
slurm_state() {
    timeout 5 scontrol -o show job "$1" 2>/dev/null |
        sed -n 's/.* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1 \2/p'
}

_slurm_dead() { ! kill -0 "$1" 2>/dev/null; }
_slurm_no_jobs() { [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; }
_slurm_idle() {
    [ "$(timeout 5 sinfo -h -n "$_slurm_node" -o %t 2>/dev/null)" = idle ]
}
_slurm_ready() {
    _slurm_dead "$_slurm_ctld" || _slurm_dead "$_slurm_d" || _slurm_idle
}

_slurm_stop() {
    if [ -n "$_slurm_up" ]; then
        timeout 10 scancel --me --full >/dev/null 2>&1
        slurm_wait_for 10 _slurm_no_jobs
    fi
    for _p in $_slurm_pids; do kill "$_p" 2>/dev/null; done
    for _p in $_slurm_pids; do
        slurm_wait_for 10 _slurm_dead "$_p" || kill -9 "$_p" 2>/dev/null
    done
    _slurm_pids=
}
trap '_slurm_stop; _fake_stop_all; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

# _slurm_skip REASON LOG: skip the script, with the log's last lines
_slurm_skip() {
    _tail=$(tail -n 4 "$2" 2>/dev/null | tr '\n' ' ' | tr -s ' ')
    fake_skip_all "$1: ${_tail:-its log is empty}"
}

_slurm_need() {
    [ "$(id -u)" -eq 0 ] ||
        fake_skip_all "Slurm's daemons must run as root here (SlurmUser=root)"
    for _b in munged mungekey slurmctld slurmd sbatch squeue sinfo \
        scontrol scancel python3; do
        command -v "$_b" >/dev/null 2>&1 ||
            fake_skip_all "$_b not found (Debian: slurm-wlm munge, scripts/deps.sh)"
    done
    # slurmd runs the batch scripts from its spool folder, under $T
    mkdir -p "$SLURM_DIR/spool"
    printf '#!/bin/sh\n' >"$SLURM_DIR/spool/x" && chmod +x "$SLURM_DIR/spool/x"
    "$SLURM_DIR/spool/x" 2>/dev/null ||
        fake_skip_all "$SLURM_DIR cannot run scripts (noexec?)"
    rm -f "$SLURM_DIR/spool/x"
}

_slurm_munge() {
    _m="$SLURM_DIR/munge"
    mkdir -p "$_m" && chmod 755 "$_m" # munged wants its socket's folder open
    mungekey -c -k "$_m/key" >/dev/null 2>&1 ||
        fake_skip_all "mungekey cannot create a key"
    munged -F --force --socket="$_m/sock" --key-file="$_m/key" \
        --pid-file="$_m/pid" --seed-file="$_m/seed" \
        >"$SLURM_DIR/log/munged.log" 2>&1 &
    _slurm_pids="$! $_slurm_pids"
    slurm_wait_for 10 test -S "$_m/sock" ||
        _slurm_skip "munged did not start" "$SLURM_DIR/log/munged.log"
}

# _slurm_conf CTLD_PORT SLURMD_PORT: our slurm.conf on stdout
_slurm_conf() {
    _s=$SLURM_DIR
    _h=$(hostname -s)
    cat <<EOF
ClusterName=upskill$$
SlurmctldHost=$_h(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$_s/munge/sock
StateSaveLocation=$_s/state
SlurmdSpoolDir=$_s/spool
SlurmctldPidFile=$_s/slurmctld.pid
SlurmdPidFile=$_s/slurmd.pid
SlurmctldLogFile=$_s/log/slurmctld.log
SlurmdLogFile=$_s/log/slurmd.log
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
NodeName=$_slurm_node NodeAddr=127.0.0.1 NodeHostname=$_h CPUs=4 State=UNKNOWN
PartitionName=up Nodes=$_slurm_node Default=YES MaxTime=10 State=UP
EOF
}

slurm_up() {
    _slurm_need
    # a test run inside a Slurm job must not hand that job's settings on
    for _v in $(env | sed -n \
        's/^\(S\(LURM\|BATCH\|QUEUE\|INFO\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
        unset "$_v"
    done
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/log"
    _slurm_munge
    _ports=$(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
    _slurm_node="upskill$$"
    export SLURM_CONF="$SLURM_DIR/slurm.conf"
    # shellcheck disable=SC2086 # two port numbers
    _slurm_conf $_ports >"$SLURM_CONF"
    slurmctld -D -f "$SLURM_CONF" >"$SLURM_DIR/log/slurmctld.out" 2>&1 &
    _slurm_ctld=$!
    slurmd -D -N "$_slurm_node" -f "$SLURM_CONF" \
        >"$SLURM_DIR/log/slurmd.out" 2>&1 &
    _slurm_d=$!
    _slurm_pids="$_slurm_d $_slurm_ctld $_slurm_pids"
    slurm_wait_for 30 _slurm_ready
    # the daemons' stdout: -D copies the log there, with what comes first
    _slurm_dead "$_slurm_ctld" &&
        _slurm_skip "slurmctld did not start" "$SLURM_DIR/log/slurmctld.out"
    _slurm_dead "$_slurm_d" &&
        _slurm_skip "slurmd did not start" "$SLURM_DIR/log/slurmd.out"
    _slurm_idle ||
        _slurm_skip "the node is not idle after 30 s" "$SLURM_DIR/log/slurmd.out"
    _slurm_up=1
}
