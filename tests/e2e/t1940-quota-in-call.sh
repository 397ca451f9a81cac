#!/bin/sh
# The workspace quota holds while a run call runs (issue 35 item 2):
# under bubblewrap the workspace is a file system of its own, sized from
# workspace_max_bytes, for the length of the call, and what the call
# leaves is copied back only when it fits.  A fallocate bomb, a dd bomb
# and a many-files bomb each leave the workspace at most the quota (the
# bound docs/sandbox.md states); the model reads that the call broke the
# workspace quota and what it wrote was discarded; the workspace keeps
# what it held before, and the next run call works.  Bounded: a 1 MiB
# quota; the bombs stop at the workspace's tmpfs.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
[ -x /usr/bin/bwrap ] || fake_skip_all "bubblewrap not installed (apt-get install bubblewrap)"
/usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
    fake_skip_all "bubblewrap cannot create namespaces here"
SKILL="$FIX/eval/student"
mkdir -p "$T/work"
cd "$T" || exit 1
QUOTA=1048576
cat > "$T/q.yaml" <<YAML
workspace_dir: $T/work
workspace_max_bytes: $QUOTA
workspace_max_files: 3000
sandbox:
  file_size_mb: 8
YAML
export UPSKILL_CONFIG="$T/q.yaml"

printf '{"cases": [
 {"input": "case-falloc", "expected": {"contains": ["done"]}},
 {"input": "case-dd", "expected": {"contains": ["done"]}},
 {"input": "case-files", "expected": {"contains": ["done"]}}]}\n' > "$T/t.json"
keep='echo kept > keep.txt'
cat > "$T/s.json" <<JSON
{"rules": [
  {"match": {"user": "case-", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "$keep"}}]}},
  {"match": {"user": "case-falloc", "assistant_turns": 1},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "for i in \$(seq 40); do fallocate -l 900K f\$i; done; echo bomb-over"}}]}},
  {"match": {"user": "case-dd", "assistant_turns": 1},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "for i in \$(seq 40); do dd if=/dev/zero of=d\$i bs=64k count=14 2>/dev/null; done; echo bomb-over"}}]}},
  {"match": {"user": "case-files", "assistant_turns": 1},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "for i in \$(seq 4000); do : > g\$i; done; echo bomb-over"}}]}},
  {"match": {"assistant_turns": 2},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "cat keep.txt; ls | wc -l"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON

fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --run-tool --no-baseline --runs-dir "$T/runs" -v
is "$rc" 0 "the eval finishes through the bombs"
like "$(printf '%s\n' "$out" | grep -c OK)" 3 "every conversation gets to its answer"
rec=$(cat "$T/rec.jsonl")
like "$rec" "the command broke a limit: workspace quota (1 MiB, 3000 files); it was stopped, and what it wrote in the workspace in this call was discarded" \
    "a bomb is a tool error naming the quota"
unlike "$rec" "run is refused while it is" "the workspace never goes over: run is not refused"
like "$rec" 'stdout ---\nkept\n1\n' "the next call sees the workspace as before the bomb"
# what each workspace held at the end: its snapshot's sizes
tr= ; for f in "$T"/runs/*/run_1/cases/transcripts.jsonl; do tr="$f"; done
for c in falloc dd files; do
    line=$(grep "case-$c" "$tr")
    bytes=$(printf '%s\n' "$line" | grep -o '"size":[0-9]*' |
        awk -F: '{ s += $2 } END { print s + 0 }')
    n=$(printf '%s\n' "$line" | grep -o '"path":"[^"]*"' | wc -l)
    [ "$bytes" -le "$QUOTA" ]
    ok $? "case-$c: the workspace holds $bytes bytes, within the quota"
    is "$n" 1 "case-$c: only keep.txt is left ($n files)"
done
done_testing
