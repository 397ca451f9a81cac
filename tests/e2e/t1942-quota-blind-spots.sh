#!/bin/sh
# The quota counts everything a command leaves (issue 36 item 4): files
# more than 256 folders deep, and, for a user who is not root, files in
# a folder made `chmod 000`.  With --sandbox none the count after the
# call sees them (deep: a breach it cannot count; unreadable: opened for
# the owner and counted); under bubblewrap the workspace's own file
# system is walked the same way and the call's writes are discarded.
# The non-root half runs upskill as nobody (setpriv) when the test is
# root, else as the user running it.  Bounded: a 1 MiB quota, 1.8 MB
# written per call.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
chmod 755 "$T"
mkdir -p "$T/work" "$T/home"
chmod 1777 "$T/work" "$T/home"
cd "$T" || exit 1
cat > "$T/q.yaml" <<YAML
workspace_dir: $T/work
workspace_max_bytes: 1048576
workspace_max_files: 3000
YAML
chmod 644 "$T/q.yaml"
export UPSKILL_CONFIG="$T/q.yaml"
printf '{"cases": [
 {"input": "case-deep", "expected": {"contains": ["done"]}},
 {"input": "case-hidden", "expected": {"contains": ["done"]}}]}\n' > "$T/t.json"
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"match": {"user": "case-deep", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "d=$(printf 'd/%.0s' $(seq 300)); mkdir -p $d && for i in 1 2 3; do head -c 600000 /dev/zero > $d/f$i; done; echo deep-made"}}]}},
  {"match": {"user": "case-hidden", "assistant_turns": 0},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "mkdir h && for i in 1 2 3; do head -c 600000 /dev/zero > h/f$i; done; chmod 000 h; echo hidden-made"}}]}},
  {"match": {"user": "case-deep", "assistant_turns": 1},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "ls d 2>&1 | head -3; echo deep-second"}}]}},
  {"match": {"user": "case-hidden", "assistant_turns": 1},
   "reply": {"tool_calls": [{"name": "run", "arguments": {"command": "ls h 2>&1 | head -3; echo hidden-second"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "done"}}
]}
JSON
chmod 644 "$T/t.json" "$T/s.json"
skip() { # skip N REASON
    i=0
    while [ "$i" -lt "$1" ]; do
        _n=$((_n + 1)); echo "ok $_n # SKIP $2"; i=$((i + 1))
    done
}

# eval SANDBOX RECORD [RUNAS...]: the two cases, recorded
eval_as() {
    sb=$1 rec=$2
    shift 2
    fake_start "$T/s.json" --record "$rec"
    run "$@" env HOME="$T/home" XDG_CACHE_HOME="$T/home/cache" \
        "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
        --base-url "$FAKE_URL/v1" --run-tool --sandbox "$sb" --no-baseline \
        --no-log-runs
}

BREACH_DEEP="the command broke the workspace's quota: the workspace holds folders more than 256 deep, which its quota cannot count; run is refused while it is over"
eval_as none "$T/rec-none.jsonl"
is "$rc" 0 "--sandbox none: the eval finishes"
rec=$(cat "$T/rec-none.jsonl")
like "$rec" "$BREACH_DEEP" "--sandbox none: files below 256 folders are a breach, not left out"
unlike "$rec" 'deep-second\n' "--sandbox none: and the next run call is refused"

if [ -x /usr/bin/bwrap ] && /usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null; then
    eval_as bwrap "$T/rec-bwrap.jsonl"
    rec=$(cat "$T/rec-bwrap.jsonl")
    Q='the command broke a limit: workspace quota (1 MiB, 3000 files); it was stopped, and what it wrote in the workspace in this call was discarded'
    like "$rec" "$Q\\nexit code: 0\\n--- stdout ---\\ndeep-made" \
        "bwrap: the deep tree is a breach"
    like "$rec" "$Q\\nexit code: 0\\n--- stdout ---\\nhidden-made" \
        "bwrap: and so is the 000 folder"
    like "$rec" "cannot access 'd': No such file or directory\\ndeep-second" \
        "bwrap: the deep tree was discarded"
    like "$rec" "cannot access 'h': No such file or directory\\nhidden-second" \
        "bwrap: and the hidden folder"
else
    skip 4 "bubblewrap cannot run here"
fi

# not root: chmod 000 folders
RUNAS=
if [ "$(id -u)" = 0 ]; then
    RUNAS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
    $RUNAS test -x "$UPSKILL" -a -r "$SKILL/SKILL.md" ||
        RUNAS=no
fi
if [ "$RUNAS" = no ]; then
    skip 4 "nobody cannot read the build or the fixtures here"
else
    eval_as none "$T/rec-user.jsonl" $RUNAS
    is "$rc" 0 "not root, --sandbox none: the eval finishes"
    rec=$(cat "$T/rec-user.jsonl")
    like "$rec" "the command broke the workspace's quota: the workspace holds 18" \
        "not root: the bytes in a chmod 000 folder are counted"
    like "$rec" "over its quota of 1048576 bytes" "not root: and are over the quota"
    if [ -x /usr/bin/bwrap ] && $RUNAS /usr/bin/bwrap --ro-bind / / --unshare-all true 2>/dev/null; then
        eval_as bwrap "$T/rec-user-bwrap.jsonl" $RUNAS
        like "$(cat "$T/rec-user-bwrap.jsonl")" \
            "cannot access 'h': No such file or directory\\nhidden-second" \
            "not root, bwrap: the chmod 000 folder's bytes are counted and discarded"
    else
        skip 1 "bubblewrap cannot run here as that user"
    fi
fi
done_testing
