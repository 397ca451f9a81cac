#!/bin/sh
# Issue 23's hostile-host suite: disk, memory, process and output bombs
# through write_file, edit_file, run and a command check, in one agent
# eval at -j 8 with low limits set through the config keys (so the test
# itself stays small).  The eval must finish, every bomb must be reported
# as a named limit, the host's /dev/shm must be back where it started,
# and no workspace or cgroup of the run may be left.  The coding-agent
# CLI's bombs (processes, a big /tmp file) are t1430's.
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
cat > "$T/c.yaml" <<'YAML'
workspace_max_bytes: 65536
workspace_max_files: 64
sandbox:
  wall_seconds: 5
  file_size_mb: 2
  processes: 16
  call_memory_mb: 96
  memory_mb: 96
YAML
export UPSKILL_CONFIG="$T/c.yaml"

names="write edit disk mem fork out shm check"
{
    printf '{"cases": ['
    sep=
    for n in $names; do
        if [ "$n" = check ]; then
            printf '%s\n {"input": "case-check", "expected": {"contains": []}, "assert": [{"type": "command", "name": "bomb", "value": "head -c 100000000 /dev/zero > /tmp/fill"}]}' "$sep"
        else
            printf '%s\n {"input": "case-%s", "expected": {"contains": ["done"]}}' "$sep" "$n"
        fi
        sep=,
    done
    printf ']}\n'
} > "$T/t.json"
A40=$(head -c 40000 /dev/zero | tr '\0' a)
call() { # call NAME TOOL ARGS-JSON
    printf '  {"match": {"user": "case-%s", "assistant_turns": 0}, "reply": {"tool_calls": [{"name": "%s", "arguments": %s}]}},\n' "$1" "$2" "$3"
}
{
    echo '{"seed": 1, "rules": ['
    printf '  {"match": {"user": "case-write", "assistant_turns": 0}, "reply": {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "%s"}}, {"name": "write_file", "arguments": {"path": "b.txt", "content": "%s"}}]}},\n' "$A40" "$A40"
    printf '  {"match": {"user": "case-edit", "assistant_turns": 0}, "reply": {"tool_calls": [{"name": "write_file", "arguments": {"path": "e.txt", "content": "%s"}}, {"name": "edit_file", "arguments": {"path": "e.txt", "old_string": "a", "new_string": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "replace_all": true}}]}},\n' "$(head -c 12000 /dev/zero | tr '\0' a)"
    call disk run '{"command": "head -c 50000000 /dev/zero > big.bin; ls -l big.bin"}'
    call mem run '{"command": "python3 -c \"x = bytearray(400 * 1024 * 1024); print(len(x))\""}'
    call fork run '{"command": "for i in $(seq 60); do sleep 4 & done; wait; echo forked"}'
    call out run '{"command": "yes"}'
    call shm run '{"command": "head -c 400000000 /dev/zero > /dev/shm/fill; echo shm-rc=$?; head -c 400000000 /dev/zero > /tmp/fill; echo tmp-rc=$?"}'
    echo '  {"match": {"last_role": "tool"}, "reply": {"text": "done"}},'
    echo '  {"reply": {"text": "done"}}'
    echo ']}'
} > "$T/s.json"

shm_used() { df -k --output=used /dev/shm 2>/dev/null | tail -1 | tr -d ' '; }
shm0=$(shm_used)
fake_start "$T/s.json" --record "$T/rec.jsonl"
"$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local -j 8 \
    --base-url "$FAKE_URL/v1" --run-tool --no-baseline --runs-dir "$T/runs" \
    > "$T/out" 2> "$T/err" &
pid=$!
wait "$pid"
rc=$?
out=$(cat "$T/out")
is "$rc" 0 "the eval finishes through every bomb"
rec=$(cat "$T/rec.jsonl")
cases=$(cat "$T"/runs/*/run_1/cases/transcripts.jsonl)
like "$rec" "workspace_max_bytes" "write_file past the quota: a tool error naming the key"
like "$rec" "larger than the cap of 1048576 bytes per write" \
    "edit_file's growth: refused before it is built"
like "$rec" "the command broke a limit: file size (" "a disk bomb stops at the file-size cap (the room left in the quota)"
like "$rec" "the command broke a limit: memory" "a memory bomb stops at the call's memory"
like "$rec" "the command broke a limit: processes (16)" "a process bomb stops at the process cap"
like "$rec" "the command broke a limit: output cap" "an output bomb stops at the output cap"
like "$rec" "shm-rc=1" "a write to the sandbox's /dev/shm is bounded"
like "$rec" "tmp-rc=1" "and so is one to its /tmp"
like "$cases" "file size" "the check's bomb is named in its result"
[ "$(grep -c '"text":"done"\|done' "$T/rec.jsonl")" -ge 7 ]
ok $? "the conversations went on after their bombs"
shm1=$(shm_used)
[ -z "$shm0" ] || [ "$((shm1 - shm0))" -lt 8192 ]
ok $? "the host's /dev/shm is back where it started ($shm0 KiB, now $shm1 KiB)"
is "$(find "$T/tmp" -mindepth 1 -maxdepth 1 | wc -l | tr -d ' ')" 0 \
    "no workspace, run folder or check folder is left"
left=$(find /sys/fs/cgroup -maxdepth 4 -name "upskill-sandbox-$pid-*" 2>/dev/null | wc -l | tr -d ' ')
is "$left" 0 "no cgroup of the run is left"

done_testing
