#!/bin/sh
# Workspaces that a run cannot remove must not stay forever (issue 23,
# item 3): an eval ended by SIGTERM removes its workspaces as one ended by
# Ctrl-C does, and the next run sweeps the run folders a killed run left
# (a dead pid, no lock held) and the empty pids cgroups of dead runs, but
# never a live run's.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export ANTHROPIC_API_KEY=sk-ant-PLANTED-e2e-1220 UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [{"input": "question one", "expected": {"contains": ["GOOD"]}}]}
JSON
# The first turn writes a file in the workspace; the next is held until
# the server ends, so the run is mid-conversation when it is signalled.
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "deep/answer.txt", "content": "GOOD"}}]}},
  {"reply": {"fault": "hold"}}
]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

# --- SIGTERM mid-run: no workspace stays --------------------------------------
"$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local --no-baseline \
    --base-url "$FAKE_URL/v1" --agent --runs-dir "$T/runs" \
    >"$T/term.out" 2>"$T/term.err" &
pid=$!
i=0 # wait (bounded) until the workspace holds the model's file
while [ -z "$(find "$T/tmp" -name answer.txt 2>/dev/null)" ] && [ $i -lt 300 ]; do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
    i=$((i + 1))
done
is "$(find "$T/tmp" -name answer.txt | wc -l | tr -d ' ')" 1 \
    "the run is mid-conversation, its workspace in use"
kill -TERM "$pid"
wait "$pid"
rc=$?
is "$rc" 130 "SIGTERM ends the eval as interrupted"
is "$(ls -A "$T/tmp")" "" "and leaves no run folder or workspace behind"

# --- the sweep at the next start ------------------------------------------------
sh -c 'exit 0' &
dead=$!
wait "$dead"
stale="$T/tmp/upskill-run-$dead-aaaaaa"
mkdir -p "$stale/upskill-ws-bbbbbb/a/b/c" "$T/tmp/upskill-run-$$-livexx" \
    "$T/tmp/upskill-run-$dead-lockxx" "$T/tmp/upskill-run-cccccc"
echo x > "$stale/upskill-ws-bbbbbb/a/b/c/f.txt"
chmod 000 "$stale/upskill-ws-bbbbbb/a"
# a run in another pid namespace: its pid means nothing here, its lock does
flock "$T/tmp/upskill-run-$dead-lockxx" sh -c "touch '$T/locked'; \
    while [ ! -e '$T/release' ]; do sleep 0.1; done" &
holder=$!
i=0
while [ ! -e "$T/locked" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
cat > "$T/s2.json" <<'JSON'
{"rules": [{"reply": {"text": "GOOD ANSWER"}}]}
JSON
fake_start "$T/s2.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local --no-baseline \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
is "$rc" 0 "the next eval runs"
ok "$([ ! -e "$stale" ] && echo 0 || echo 1)" \
    "a dead run's folder (mode 000 inside) is swept"
ok "$([ -d "$T/tmp/upskill-run-$$-livexx" ] && echo 0 || echo 1)" \
    "a live process's folder stays"
ok "$([ -d "$T/tmp/upskill-run-$dead-lockxx" ] && echo 0 || echo 1)" \
    "a locked folder stays, whatever its pid"
ok "$([ -d "$T/tmp/upskill-run-cccccc" ] && echo 0 || echo 1)" \
    "a folder without a pid in its name is not ours to judge"
touch "$T/release"
wait "$holder"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local --no-baseline \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs"
ok "$([ ! -e "$T/tmp/upskill-run-$dead-lockxx" ] && echo 0 || echo 1)" \
    "once its lock is free and its pid dead, it goes too"

# --- a dead run's empty pids cgroup goes at the next sandboxed call ----------
CG=/sys/fs/cgroup/pids
if [ "$(id -u)" = 0 ] && mkdir "$CG/upskill-sandbox-$dead-7" 2>/dev/null; then
    cat > "$T/s3.json" <<'JSON'
{"rules": [
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "true"}}]}},
  {"reply": {"text": "GOOD ANSWER"}}
]}
JSON
    fake_start "$T/s3.json"
    run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
        --no-baseline --base-url "$FAKE_URL/v1" --run-tool --runs-dir "$T/runs"
    is "$rc" 0 "an eval with the run tool"
    ok "$([ ! -e "$CG/upskill-sandbox-$dead-7" ] && echo 0 || echo 1)" \
        "a dead run's empty cgroup is swept"
    rmdir "$CG/upskill-sandbox-$dead-7" 2>/dev/null
else
    ok 0 "# SKIP no writable pids cgroup as root"
fi

done_testing
