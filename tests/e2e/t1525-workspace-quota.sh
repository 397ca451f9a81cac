#!/bin/sh
# The workspace quota and where workspaces live (issue 23 items 1, 6):
# writes past workspace_max_bytes / workspace_max_files, by the tools or
# by a run command, are tool errors the model reads and the eval
# finishes; a skill over the quota fails before any request; workspaces
# go to a disk folder, never /dev/shm unless named; a workspace of many
# files makes a case artifact line within artifact_max_bytes.  Bounded:
# quotas of 64 KiB and 3,000 entries; as root the workspaces live in a
# 16 MiB tmpfs of a private mount namespace.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
cd "$T" || exit 1
mkdir -p "$T/work"
WRAP=
if unshare -m sh -c 'mount -t tmpfs -o size=16m none "$0"' "$T/work" \
    2>/dev/null; then
    WRAP=1
fi
# upskill with $T/work as the bounded folder when it can be had, else
# as is; what is left in $T/work after it goes to $T/work.left
bounded() {
    if [ -n "$WRAP" ]; then
        unshare -m sh -c 'mount -t tmpfs -o size=16m none "$0" && shift &&
            "$@"; r=$?; ls -A "$0" > "$0.left"; exit $r' "$T/work" sh "$@"
    else
        "$@"; r=$?; ls -A "$T/work" > "$T/work.left"; return $r
    fi
}

cat > "$T/q.yaml" <<YAML
workspace_dir: $T/work
workspace_max_bytes: 65536
workspace_max_files: 3000
artifact_max_bytes: 16384
YAML
export UPSKILL_CONFIG="$T/q.yaml"

printf '{"cases": [
 {"input": "case-write", "expected": {"contains": ["done"]}},
 {"input": "case-files", "expected": {"contains": ["done"]}},
 {"input": "case-many", "expected": {"contains": ["done"]}}]}\n' > "$T/t.json"
X40K=$(head -c 40000 /dev/zero | tr '\0' x)
cat > "$T/s.json" <<JSON
{"rules": [
  {"match": {"user": "case-write", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "$X40K"}}]}},
  {"match": {"user": "case-write", "tool_result": "wrote 40000 bytes to 'a.txt'"},
   "reply": {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "$X40K"}}]}},
  {"match": {"user": "case-files", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "mkdir d && cd d && for i in \$(seq 2500); do : > file-\$i.txt; done; echo made"}}]}},
  {"match": {"user": "case-many", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "for i in \$(seq 3500); do : > g\$i; done"}}]}},
  {"match": {"user": "case-many", "tool_result": "run is refused while it is over"},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "rm -f g*"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON

fake_start "$T/s.json" --record "$T/rec.jsonl"
run bounded "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --run-tool --sandbox none --no-baseline \
    --runs-dir "$T/runs" -v
is "$rc" 0 "the eval finishes through writes past the quota"
like "$(printf '%s\n' "$out" | grep -c OK)" 3 "every conversation gets to its answer"
rec=$(cat "$T/rec.jsonl")
like "$rec" "'b.txt': writing 40000 bytes would take the workspace to 80" \
    "a write_file past the byte quota is a tool error"
like "$rec" "bytes, over its quota of 65536 bytes (config workspace_max_bytes)" \
    "naming the quota and its key"
like "$rec" "the command broke the workspace's quota: the workspace holds more than 3000 files and folders, its quota (config workspace_max_files); run is refused while it is over" \
    "a command past the file quota is a tool error naming the key"
like "$rec" "the workspace is over its quota (65536 bytes, 3000 files and folders" \
    "and the next run call is refused"
cases=$(cat "$T"/runs/*/run_1/cases/transcripts.jsonl)
like "$cases" '"is_error":true' "the breaches are tool errors in the transcript"
long=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' \
    "$T"/runs/*/run_1/cases/transcripts.jsonl)
[ "$long" -le 16384 ]
ok $? "every artifact line is within artifact_max_bytes ($long bytes)"
line=$(grep case-files "$T"/runs/*/run_1/cases/transcripts.jsonl)
like "$line" '"artifact_cut":{"bytes":' "the cut line says so"
like "$line" '"path":"d/file-1.txt"' "and keeps the first files of its snapshot"
like "$line" '"more":' "counting the ones left out"
is "$(wc -l < "$T/work.left" | tr -d ' ')" 0 "every workspace is removed"

# A skill over the quota fails before any request.
cp -r "$SKILL" "$T/bigskill"
mkdir -p "$T/bigskill/references"
head -c 70000 /dev/zero | tr '\0' y > "$T/bigskill/references/big.md"
fake_start "$T/s.json" --record "$T/rec2.jsonl"
run bounded "$UPSKILL" eval --no-cache "$T/bigskill" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-baseline --runs-dir "$T/runs2"
[ "$rc" -ne 0 ]; ok $? "a skill over the quota stops the eval (exit $rc)"
like "$err" "do not fit in a workspace's quota of 65536 bytes (config workspace_max_bytes)" \
    "saying so, with the key"
is "$(wc -l < "$T/rec2.jsonl" | tr -d ' ')" 0 "before any request"

# Where workspaces go by default: the cache folder's disk, not /dev/shm.
printf '{"cases": [{"input": "case-pwd", "expected": {"contains": ["done"]}}]}\n' \
    > "$T/t3.json"
cat > "$T/s3.json" <<'JSON'
{"rules": [
  {"match": {"user": "case-pwd", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "pwd"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON
: > "$T/empty.yaml"
fake_start "$T/s3.json" --record "$T/rec3.jsonl"
run env -u TMPDIR UPSKILL_CONFIG="$T/empty.yaml" "$UPSKILL" eval --no-cache \
    "$SKILL" -t "$T/t3.json" -m local --base-url "$FAKE_URL/v1" --run-tool \
    --sandbox none --no-baseline --no-log-runs
is "$rc" 0 "the eval runs with the default folder"
rec3=$(cat "$T/rec3.jsonl")
like "$rec3" "$T/cache/upskill/work/upskill-run-" \
    "the workspace is under \$XDG_CACHE_HOME/upskill/work"
unlike "$rec3" "/dev/shm" "not in /dev/shm"
done_testing
