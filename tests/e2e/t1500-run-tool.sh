#!/bin/sh
# The sandboxed run tool in agent mode (issue 12 items 1, 2, 6): hostile
# commands through the loop are contained and the eval completes; a
# planted API key never reaches a tool's environment, output or any run
# file; a command blocked in one conversation does not hold another's
# turns; --sandbox none warns and is recorded, and ends a command whose
# child left its process group at the wall clock (issue 23 item 7).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
[ -x /usr/bin/bwrap ] || fake_skip_all "bubblewrap not installed (apt-get install bubblewrap)"
/usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
    fake_skip_all "bubblewrap cannot create namespaces here"
SKILL="$FIX/eval/student"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
echo "precious" > "$T/outside.txt"
KEY="sk-planted-e2e-1500-do-not-leak"
export GENERIC_API_KEY="$KEY" OPENAI_API_KEY="$KEY" ANTHROPIC_API_KEY="$KEY"

cat > "$T/short.yaml" <<'YAML'
sandbox:
  wall_seconds: 3
  file_size_mb: 8
YAML
export UPSKILL_CONFIG="$T/short.yaml"

# One case per hostile command: its first turn runs it, then "done".
names="env net shadow outside bomb sleep yes big killall honest"
{
    printf '{"cases": ['
    sep=
    for n in $names; do
        printf '%s\n {"input": "case-%s", "expected": {"contains": ["done"]}}' "$sep" "$n"
        sep=,
    done
    printf ']}\n'
} > "$T/t.json"

rule() { # rule NAME COMMAND (COMMAND already JSON-escaped)
    printf '  {"match": {"user": "case-%s", "assistant_turns": 0}, "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "%s"}}]}},\n' "$1" "$2"
}
{
    echo '{"seed": 1, "rules": ['
    rule env "env; echo ---self; tr '\\\\0' '\\\\n' < /proc/self/environ; echo ---init; tr '\\\\0' '\\\\n' < /proc/1/environ; echo ---procs; ls /proc | grep -c '^[0-9]'"
    rule net "curl -sS -m 5 http://192.0.2.1/ 2>&1; echo curl-rc=\$?"
    rule shadow "cat /etc/shadow 2>&1; ls -a ~/.ssh /root 2>&1; echo shadow-done"
    rule outside "echo pwned > $T/outside.txt; echo pwned > /tmp/upskill-e2e-1500-pwned; ls $T 2>&1; echo outside-done"
    rule bomb "b() { b | b & }; b; sleep 100"
    rule sleep "sleep 100000"
    rule yes "yes"
    rule big "head -c 10000000000 /dev/zero > big.bin; ls -l big.bin"
    rule killall "kill -9 -1; echo survived"
    rule honest "echo hello > out.txt; cat out.txt"
    echo '  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}'
    echo ']}'
} > "$T/s.json"

fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --run-tool --no-baseline --runs-dir "$T/runs" -v
is "$rc" 0 "the eval completes through hostile commands"
like "$(printf '%s\n' "$out" | grep -c OK)" 10 "every conversation goes on to its answer"
unlike "$err" "--sandbox none" "no warning with the sandbox"
rec=$(cat "$T/rec.jsonl")
like "$rec" '"name":"run","description"' "the run tool is offered"
like "$rec" "The run tool runs a shell command line" "and named in the system prompt"
like "$rec" "HOME=/workspace" "env ran in the sandbox"
like "$rec" "curl-rc=" "curl ran"
like "$rec" "curl-rc=7" "no network beyond loopback: curl cannot connect"
like "$rec" "No such file or directory" "no /etc/shadow, no home"
like "$rec" "shadow-done" "the shadow case went on"
like "$rec" "outside-done" "the outside case went on"
is "$(cat "$T/outside.txt")" "precious" "nothing outside the workspace is written"
[ ! -e /tmp/upskill-e2e-1500-pwned ]; ok $? "/tmp is private"
like "$rec" "the command broke a limit: wall clock (3 s)" "sleep 100000 ends at the wall clock"
like "$rec" "the command broke a limit: output cap (8 MiB)" "yes ends at the output cap"
like "$rec" "the command broke a limit: file size (8 MiB)" "a 10 GB file stops at the file-size cap"
like "$rec" "survived" "kill -9 -1 kills only the sandbox's processes"
like "$rec" "hello" "an honest command runs"
kill -0 "$FAKE_PID" 2>/dev/null; ok $? "the fake server outlived kill -9 -1"
res=$(cat "$T"/runs/*/run_1/run_result.json)
like "$res" '"run": 10' "tool_call_map counts the run calls"
like "$res" '"execute_calls": 10' "execute_calls counts them"
like "$(cat "$T"/runs/*/run_1/run_metadata.json)" '"sandbox": "bwrap"' \
    "run_metadata.json records the sandbox"
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "every workspace is removed"

# The planted key: not in the tools' output (the requests carry the key
# only in their Authorization header), not in any run file.
body=$(grep -o '"tool_call_id"[^}]*' "$T/rec.jsonl")
like "$body" "HOME=/workspace" "the env output is in the requests"
unlike "$body" "$KEY" "the key is in no tool output"
unlike "$body" "API_KEY" "no *_API_KEY variable reaches a tool"
grep -rq "$KEY" "$T/runs"; is $? 1 "the key is in no run file, artifact or journal"
grep -rq "HOME=/workspace" "$T/runs"; ok $? "the artifacts hold the env output"
cases=$(cat "$T"/runs/*/run_1/cases/transcripts.jsonl)
like "$cases" '"is_error":true' "a broken limit is a tool error"
# Its own pid namespace: a handful of processes in /proc (bwrap's init,
# the shell, ls, grep), none of the machine's, so no other process's
# environ (upskill's own included) can be read from inside.
procs=$(printf '%s\n' "$body" | grep -o -- '---procs\\n[0-9]*' | head -1 |
    sed 's/.*n//')
[ -n "$procs" ] && [ "$procs" -ge 1 ] && [ "$procs" -le 8 ]
ok $? "the sandbox's /proc shows its own few processes only ($procs)"
like "$body" '---init\nPATH=' "pid 1 is the sandbox's init, with the allow-list"

# A command blocked in one conversation does not hold the other's turns:
# "slow" waits on a fifo that only "quick"'s third turn writes.  If the
# loop waited for the slow command, quick would never get there and
# slow's command would end at the wall clock (60 s) instead.
mkfifo "$T/fifo"
cat > "$T/long.yaml" <<'YAML'
sandbox:
  wall_seconds: 60
YAML
export UPSKILL_CONFIG="$T/long.yaml"
printf '{"cases": [{"input": "slow", "expected": {"contains": ["done"]}},
 {"input": "quick", "expected": {"contains": ["done"]}}]}\n' > "$T/t2.json"
cat > "$T/s2.json" <<JSON
{"rules": [
  {"match": {"user": "slow", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "cat $T/fifo"}}]}},
  {"match": {"user": "quick", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "echo turn-one"}}]}},
  {"match": {"user": "quick", "tool_result": "turn-one"},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "echo turn-two"}}]}},
  {"match": {"user": "quick", "tool_result": "turn-two"},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "echo released > $T/fifo"}}]}},
  {"match": {"user": "slow", "tool_result": "--- stdout ---\nreleased"},
   "reply": {"text": "done"}},
  {"match": {"user": "slow"}, "reply": {"text": "the fifo never opened"}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON
fake_start "$T/s2.json" --record "$T/rec2.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t2.json" -m local \
    --base-url "$FAKE_URL/v1" --run-tool --sandbox none -j 2 --no-baseline \
    --runs-dir "$T/runs2" -v
is "$rc" 0 "both conversations finish"
rec2=$(cat "$T/rec2.jsonl")
like "$(printf '%s\n' "$out" | grep -c OK)" 2 \
    "the slow command printed what quick's third turn wrote"
unlike "$rec2" "wall clock" "no command ran into the wall clock"
like "$err" "--sandbox none: the run tool runs the students' commands without a sandbox" \
    "--sandbox none warns"
like "$(cat "$T"/runs2/*/run_1/run_metadata.json)" '"sandbox": "none"' \
    "run_metadata.json records the opt-out"

# Issue 23 item 7: under --sandbox none a command whose child leaves its
# process group (setsid) and holds the output open still ends at the wall
# clock, and that child does not outlive the call.  (Before, the call
# waited for the pipes for ever: the eval is bounded by timeout(1) here.)
cat > "$T/wall2.yaml" <<'YAML'
sandbox:
  wall_seconds: 2
YAML
MARK="1501.$$"
printf '{"cases": [{"input": "escape", "expected": {"contains": ["done"]}}]}\n' > "$T/t6.json"
cat > "$T/s6.json" <<JSON
{"rules": [
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "(setsid sleep $MARK &); echo started"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON
fake_start "$T/s6.json" --record "$T/rec6.jsonl"
UPSKILL_CONFIG="$T/wall2.yaml" run timeout 60 "$UPSKILL" eval --no-cache \
    "$SKILL" -t "$T/t6.json" -m local --base-url "$FAKE_URL/v1" --run-tool \
    --sandbox none --no-baseline --no-log-runs
is "$rc" 0 "an escaped process does not hold the eval"
like "$(cat "$T/rec6.jsonl")" "the command broke a limit: wall clock (2 s)" \
    "the call ends at the wall clock"
like "$(cat "$T/rec6.jsonl")" "started" "with what the command printed"
pgrep -f "sleep $MARK" >/dev/null; is $? 1 "the escaped process is gone"

# Without --run-tool, run is neither offered nor callable.
printf '{"cases": [{"input": "case-honest", "expected": {"contains": ["done"]}}]}\n' > "$T/t3.json"
fake_start "$T/s.json" --record "$T/rec3.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t3.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-baseline --no-log-runs
is "$rc" 0 "plain agent mode runs"
rec3=$(cat "$T/rec3.jsonl")
unlike "$rec3" '"name":"run","description"' "without --run-tool, run is not offered"
like "$rec3" "unknown tool 'run'" "and a call to it is an unknown tool"
unlike "$rec3" "exit code:" "nothing ran"

# generate: the students' evaluations get run too; --sandbox none warns.
fake_start "$TOP/tests/fixtures/gen/plain.json" --record "$T/rec4.jsonl"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate \
    "write commit messages" -m generic.teacher --eval-model student \
    --eval-base-url "$FAKE_URL/v1" -o "$T/gen/commit-helper" \
    --runs-dir "$T/runs4" --run-tool --sandbox none
is "$rc" 0 "generate --run-tool runs"
like "$err" "--sandbox none: the run tool runs" "generate warns about --sandbox none"
like "$(cat "$T/rec4.jsonl")" '"name":"run","description"' \
    "the students are offered run"
like "$(cat "$T"/runs4/*/run_1/run_metadata.json)" '"sandbox": "none"' \
    "generate's run log records the opt-out"

# No silent downgrade: bubblewrap missing, or unable to make namespaces
# (both simulated in a private mount namespace, where this runs as root),
# stops the run before anything is sent, exit 3, saying how to fix it.
printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' \
    > "$T/broken-bwrap"
chmod +x "$T/broken-bwrap"
if unshare -m sh -c 'mount -t tmpfs none /usr/bin' 2>/dev/null; then
    fake_start "$T/s.json" --record "$T/rec5.jsonl"
    run unshare -m sh -c 'mount -t tmpfs none /usr/bin && exec "$@"' sh \
        "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t3.json" -m local \
        --base-url "$FAKE_URL/v1" --run-tool --no-log-runs
    is "$rc" 3 "no bubblewrap: exit 3"
    like "$err" "install bubblewrap: apt-get install bubblewrap" "saying what to install"
    run unshare -m sh -c 'mount --bind "$0" /usr/bin/bwrap && exec "$@"' \
        "$T/broken-bwrap" "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t3.json" \
        -m local --base-url "$FAKE_URL/v1" --run-tool --no-log-runs
    is "$rc" 3 "bubblewrap without namespaces: exit 3"
    like "$err" "cannot create its namespaces here" "saying why"
    like "$err" "sysctl kernel.unprivileged_userns_clone=1" "and the sysctl"
    is "$(wc -l < "$T/rec5.jsonl" | tr -d ' ')" 0 "nothing was sent"
else
    _n=$((_n + 1))
    echo "ok $_n - # skip no private mount namespace here (not root)"
fi

run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t2.json" -m local \
    --base-url "$FAKE_URL/v1" --sandbox nope --no-log-runs
is "$rc" 2 "an unknown --sandbox is a usage error"
like "$err" "--sandbox must be 'bwrap' or 'none', not 'nope'" "naming the choices"

done_testing
