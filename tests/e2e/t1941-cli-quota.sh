#!/bin/sh
# A coding-agent CLI student gets the workspace quota, kept while it runs
# (issue 36 item 2): with stand-in CLIs (cli.command), one that fills its
# workspace with fallocate, one that fills its home with dd and then
# waits, one that makes more files than the quota allows.  Each bomb
# stops at the quota (ENOSPC on a file system of the quota's size), the
# CLI is stopped, and its conversation fails naming the limit (the
# student's own failure, not graded as an answer); what it wrote is
# discarded.  A CLI within the quota is graded as before.  Bounded: a
# 1 MiB quota.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    fake_skip_all "bubblewrap cannot run here"
fi
SKILL=$TOP/examples/skills/incident-report
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
mkdir -p "$T/agent/bin" "$T/work"
cat > "$T/q.yaml" <<YAML
workspace_dir: $T/work
workspace_max_bytes: 1048576
workspace_max_files: 3000
YAML
export UPSKILL_CONFIG="$T/q.yaml"
cat > "$T/agent/bin/bomb" <<'EOF2'
#!/bin/sh
case "$1" in
*FALLOC*) for i in $(seq 40); do fallocate -l 900K "f$i" 2>/dev/null; done
    echo falloc-over ;;
*HOME*) dd if=/dev/zero of="$HOME/big" bs=64k count=400 2>/dev/null
    echo home-over; exec sleep 60 ;;
*FILES*) for i in $(seq 4000); do : > "g$i" 2>/dev/null; done
    echo files-over ;;
*) echo "the notes" > notes.txt; echo fine ;;
esac
EOF2
chmod +x "$T/agent/bin/bomb"
cat > "$T/t.json" <<'EOF2'
{"cases": [{"input": "Please FALLOC.", "expected": {"contains": ["over"]}},
 {"input": "Please HOME.", "expected": {"contains": ["over"]}},
 {"input": "Please FILES.", "expected": {"contains": ["over"]}},
 {"input": "Answer.", "expected": {"contains": ["fine"]}}]}
EOF2
run env UPSKILL_CLI_COMMAND="$T/agent/bin/bomb {prompt}" "$UPSKILL" eval \
    "$SKILL" --tests "$T/t.json" -m cli.command --no-baseline \
    --time-limit 30 --base-url "$FAKE_URL" --runs-dir "$T/runs"
is "$rc" 0 "the eval runs to its end"
like "$out" "3 ended by a limit" "three conversations ended by a limit"
like "$out" "with skill █████░░░░░░░░░░░░░░░    25%" \
    "counted as failed cases, not left out as errors"
unlike "$out" "errored" "none is an error"
j=$(cat "$T"/runs/*/journal.jsonl)
like "$j" "the CLI broke the sandbox's limit on workspace quota (1 MiB, 3000 files): it was stopped, and what it wrote was discarded" \
    "the limit is named"
is "$(grep -o "limit on workspace quota" "$T"/runs/*/journal.jsonl | wc -l)" 3 \
    "for each of the three bombs"
unlike "$err" "wall clock" "the one that waits is stopped at the quota, not its wall clock"
tr=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
unlike "$tr" '"path":"f1"' "nothing of the fallocate bomb is kept"
unlike "$tr" '"path":"g1"' "nothing of the many-files bomb is kept"
like "$tr" '"path":"notes.txt"' "the CLI within the quota keeps its files"
like "$(grep 'Answer\.' "$T"/runs/*/run_*/cases/transcripts.jsonl)" '"passed":true' \
    "and passes on its answer"
done_testing
