#!/bin/sh
# Coding-agent CLIs as eval students (docs/agent-clis.md): the cli.* model
# strings, the sandbox and environment of a run (with stand-in CLIs: small
# scripts that report what they see), the wall clock; then, when `make
# clis` has installed them, issue 14's first Done-when: the four real CLIs
# as students of one eval against fake-llm, offline, with lift and
# activation for each.  Runs in a network namespace with only loopback up
# where `unshare -n` works, so no request can leave 127.0.0.1.
if [ -z "${T1410_NETNS:-}" ] && unshare -n true 2>/dev/null; then
    T1410_NETNS=1 exec unshare -n sh "$0" "$@"
fi
[ -z "${T1410_NETNS:-}" ] || ip link set lo up 2>/dev/null || true
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl

SKILL=$TOP/examples/skills/incident-report
DESC='Writes incident reports (postmortems)'
cat >"$T/tests.json" <<'EOF'
{"cases": [{"input": "Write the incident report for INC-311: checkout returned 500s for 40 minutes after the 14:05 UTC deploy. Save it as incident.md.",
 "expected": {"contains": ["Severity: SEV", "## Timeline (UTC)", "## Action items"]}}]}
EOF
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
URL=$FAKE_URL

# ---- model strings ----
run "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" -m cli.nope \
    --base-url "$URL" --runs-dir "$T/runs0"
is "$rc" 3 "an unknown CLI is bad input"
like "$err" "'cli.nope': unknown coding-agent CLI (expected one of cli.claude-code, cli.codex, cli.opencode, cli.gemini" \
    "the message names the CLIs"
run "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" -m cli.claude-code/ \
    --base-url "$URL" --runs-dir "$T/runs0"
like "$err" "empty model after '/'" "an empty inner model is refused"

for opt in "--max-turns 5" "--token-budget 1000"; do
    run "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" -m cli.codex $opt \
        --base-url "$URL" --runs-dir "$T/runs0"
    is "$rc" 2 "${opt%% *} beside a CLI is refused, not ignored"
    like "$err" "'cli.codex': ${opt%% *} limits upskill's own agent loop" \
        "${opt%% *}: the message names the CLI and the option"
done

run "$UPSKILL" models -m cli.claude-code --base-url "$URL"
ok "$([ "$rc" -lt 128 ]; echo $?)" "models -m cli.claude-code answers without a crash (rc $rc)"

run env UPSKILL_CLIS="$T/nothing" PATH=/usr/bin:/bin "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.gemini --base-url "$URL" --runs-dir "$T/runs0"
like "$err" "the CLI of cli.gemini is not installed" \
    "a missing CLI fails its conversations with the reason"

# ---- stand-in CLIs: the sandbox, the environment, the wall clock ----
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null ||
    ! command -v python3 >/dev/null 2>&1; then
    echo "ok $((_n + 1)) # SKIP stand-in CLIs: bubblewrap cannot run here, or no python3"
    _n=$((_n + 1))
else
    F=$T/fakeclis
    mkdir -p "$F/claude-code/bin" "$F/codex/bin" "$T/outside"
    # a Claude Code stand-in: activates the skill when it is installed,
    # reports its environment and what it may write, answers
    cat >"$F/claude-code/bin/claude" <<EOF
#!/bin/sh
seen=
[ "\$ANTHROPIC_API_KEY" = upskill-proxy ] && seen="\$seen DUMMY-KEY-IN-PROVIDER-VAR"
env | grep -q sk-planted-1410 && seen="\$seen KEY-LEAKED"
env | grep -q sk-other-1410 && seen="\$seen OTHER-SECRET-LEAKED"
env | grep -q sk-openai-1410 && seen="\$seen OPENAI-KEY-LEAKED"
[ "\$HOME" = /home/student ] && [ -f "\$PWD/task.txt" ] && seen="\$seen PRIVATE-HOME"
touch "$T/outside/escaped" 2>/dev/null && seen="\$seen WROTE-OUTSIDE"
env > env.txt
echo made > made.txt
for f in .claude/skills/*/SKILL.md; do
  [ -f "\$f" ] || continue
  name=\${f#.claude/skills/}; name=\${name%/SKILL.md}
  seen="\$seen SKILL-PRESENT GOOD ANSWER"
  # what counts (issue 22): SKILL.md's text reaching the model
  python3 -c 'import json, sys; print(json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": open(sys.argv[1]).read()}]}))' "\$f" |
    curl -s -o /dev/null -H 'content-type: application/json' --data-binary @- "\$ANTHROPIC_BASE_URL/v1/messages"
  echo '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"'\$name'"}}],"usage":{"input_tokens":10,"output_tokens":1}}}'
  echo '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}'
done
printf '{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":2,"result":"%s key=%s","total_cost_usd":0.5,"usage":{"input_tokens":40,"output_tokens":4,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}\n' "\$seen" "\$ANTHROPIC_API_KEY"
EOF
    # a Codex stand-in that never finishes
    printf '#!/bin/sh\nexec sleep 60\n' >"$F/codex/bin/codex"
    chmod +x "$F/claude-code/bin/claude" "$F/codex/bin/codex"
    cat >"$T/tests-files.json" <<'EOF'
{"cases": [{"input": "Write the incident report.", "context": {"files": {"task.txt": "INC-1"}},
 "expected": {"contains": ["never"]}}]}
EOF
    run env UPSKILL_CLIS="$F" ANTHROPIC_API_KEY=sk-planted-1410 \
        OTHER_SECRET=sk-other-1410 OPENAI_API_KEY=sk-openai-1410 \
        "$UPSKILL" eval "$SKILL" --tests "$T/tests-files.json" \
        -m cli.claude-code -m cli.codex --time-limit 1 \
        --base-url "$URL" --runs-dir "$T/runs1"
    like "$out" "skill read in 1 of 1 conversations" \
        "stand-in: the skill is activated in the skill arm"
    cases=$(cat "$T"/runs1/*/run_*/cases/transcripts.jsonl)
    like "$cases" "DUMMY-KEY-IN-PROVIDER-VAR" "stand-in: a dummy key in the CLI's provider variable (issue 22)"
    unlike "$cases" "LEAKED" "stand-in: no other variable of the user reaches the CLI"
    like "$cases" "PRIVATE-HOME" "stand-in: a private HOME, the case's files in the workspace"
    unlike "$cases" "WROTE-OUTSIDE" "stand-in: nothing outside the workspace is writable"
    ok "$([ ! -e "$T/outside/escaped" ]; echo $?)" "stand-in: no file appeared outside"
    like "$cases" "SKILL-PRESENT" "stand-in: the skill is in .claude/skills in the skill arm"
    is "$(grep -c SKILL-PRESENT "$T"/runs1/*/run_*/cases/transcripts.jsonl | awk -F: '{s+=$2} END {print s}')" 1 \
        "stand-in: and only there"
    ok "$(grep -rq sk-planted-1410 "$T/runs1"; [ $? -ne 0 ]; echo $?)" \
        "stand-in: the key is in no artifact (answer, events, workspace)"
    like "$cases" "made.txt" "stand-in: the workspace is in the artifact"
    like "$cases" '"cli_cost_usd":0.5' "stand-in: the CLI's own cost is kept"
    like "$err" "'cli.codex/gpt-5': the CLI ran over its wall clock (1 s) and was stopped" \
        "a CLI that hangs fails its conversation with the reason"

    # --trigger: activation on the tests' prompts and on unrelated ones
    # (the stand-in loads any skill it finds: too eager)
    run env UPSKILL_CLIS="$F" "$UPSKILL" eval "$SKILL" --tests "$T/tests-files.json" \
        -m cli.claude-code --trigger --base-url "$URL" --runs-dir "$T/runs4"
    like "$out" "trigger: cli.claude-code: loaded the skill for 1 of 1 prompts that should trigger it (100%) and for 4 of 4 that should not (100%); it is also loaded for unrelated tasks" \
        "--trigger: the rate for each kind of prompt, and a sentence"
    like "$err" "5 case(s) x 1 run(s), baseline off" "--trigger: the skill arm only"

    # cli.command: any agent, its command line configured, plain stdout
    mkdir -p "$T/agent/bin"
    printf '#!/bin/sh\n[ -f .agents/skills/incident-report/SKILL.md ] && s=with-skill\necho "PLAIN-ANSWER to [$1] in $2 ${s:-}"\n' \
        >"$T/agent/bin/myagent"
    chmod +x "$T/agent/bin/myagent"
    run env UPSKILL_CLI_COMMAND="$T/agent/bin/myagent {prompt} {workspace}" \
        "$UPSKILL" eval "$SKILL" --tests "$T/tests-files.json" -m cli.command \
        --base-url "$URL" --runs-dir "$T/runs3"
    cases=$(cat "$T"/runs3/*/run_*/cases/transcripts.jsonl)
    like "$cases" "PLAIN-ANSWER to [Write the incident report." \
        "cli.command: the prompt replaces {prompt}"
    like "$cases" "in /workspace with-skill" \
        "cli.command: {workspace}, and the skill in .agents/skills in the skill arm"
    run "$UPSKILL" eval "$SKILL" --tests "$T/tests-files.json" -m cli.command \
        --base-url "$URL" --runs-dir "$T/runs3"
    like "$err" "cli.command needs its command line in UPSKILL_CLI_COMMAND" \
        "cli.command without a command line says what to set"

    # issue 21: a CLI student's files are graded by the case's command
    # checks, in its workspace, before the workspace goes
    printf '#!/bin/sh\n[ -f .agents/skills/incident-report/SKILL.md ] && echo "the notes" > notes.txt\necho done\n' \
        >"$T/agent/bin/notes"
    chmod +x "$T/agent/bin/notes"
    cat >"$T/tests-check.json" <<'EOF2'
{"cases": [{"input": "Write notes.txt.", "expected": {"contains": []},
 "assert": [{"type": "command", "value": "grep -q 'the notes' notes.txt"}]}]}
EOF2
    run env UPSKILL_CLI_COMMAND="$T/agent/bin/notes" "$UPSKILL" eval "$SKILL" \
        --tests "$T/tests-check.json" -m cli.command --base-url "$URL" \
        --runs-dir "$T/runs5"
    is "$rc" 0 "cli.command with a command check runs (exit 0)"
    like "$out" "checks passed: 0 of 1 baseline, 1 of 1 with skill" \
        "cli.command: the check ran on the file the CLI wrote"
    unlike "$(cat "$T"/runs5/*/run_*/cases/transcripts.jsonl)" \
        "waiting for the check to run" "cli.command: no check left waiting"

    # issue 21: a CLI over its wall clock is its own failure: run once,
    # never retried as a network timeout, and not a provider's exit 4
    fake_start "$T/none.json" --record "$T/rec-hang.jsonl" ||
        fake_skip_all "fake-llm did not start"
    printf '#!/bin/sh\ncase "$1" in *HANG*) curl -s -o /dev/null "$2/v1/models"; exec sleep 60;; esac\necho fine\n' \
        >"$T/agent/bin/hang"
    chmod +x "$T/agent/bin/hang"
    cat >"$T/tests-hang.json" <<'EOF2'
{"cases": [{"input": "Please HANG.", "expected": {"contains": ["fine"]}},
 {"input": "Answer.", "expected": {"contains": ["fine"]}}]}
EOF2
    run env UPSKILL_CLI_COMMAND="$T/agent/bin/hang {prompt} {base_url}" \
        "$UPSKILL" eval "$SKILL" --tests "$T/tests-hang.json" -m cli.command \
        --no-baseline --time-limit 1 --base-url "$FAKE_URL" --runs-dir "$T/runs6"
    is "$(grep -c . "$T/rec-hang.jsonl")" 1 \
        "a CLI over its wall clock ran once, not four times"
    like "$err" "the CLI ran over its wall clock (1 s) and was stopped" \
        "the wall clock is named"
    ok "$([ "$rc" != 4 ]; echo $?)" "a CLI's own failure is no provider error (rc $rc)"
    fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
    URL=$FAKE_URL

    # generate with a CLI student: measured and refined inside the CLI
    fake_start "$FIX/gen/plain.json" || fake_skip_all "fake-llm did not start"
    mkdir -p "$T/g"
    GENERIC_BASE_URL="$FAKE_URL/v1" run env UPSKILL_CLIS="$F" "$UPSKILL" generate \
        "write commit messages" -m generic.teacher --eval-model cli.claude-code \
        --eval-base-url "$FAKE_URL/v1" -o "$T/g/commit-helper" \
        --runs-dir "$T/g/runs"
    is "$rc" 0 "generate --eval-model cli.claude-code runs"
    like "$err" "measured and refined inside the coding-agent CLI" \
        "generate: the report says the skill was measured inside the CLI"
    like "$out" "cli.claude-code                    student        0%       100%" \
        "generate: the CLI student's lift drives the verdict"
fi

# ---- the real CLIs (make clis) ----
CLIS=${CLIS:-$TOP/build-clis}
missing=
for c in claude-code/claude codex/codex opencode/opencode gemini/gemini; do
    [ -x "$CLIS/$c" ] || [ -x "$CLIS/${c%/*}/bin/${c#*/}" ] || missing="$missing ${c%/*}"
done
command -v python3 >/dev/null 2>&1 || missing="$missing (python3, for the scenario)"
if [ -n "$missing" ]; then
    echo "ok $((_n + 1)) # SKIP real CLIs:$missing not installed in $CLIS (make clis)"
    _n=$((_n + 1))
    done_testing
    exit $?
fi

# the scripted student per CLI: in the skill arm (the description is in
# the request) load the skill, run a shell command (which also tries a
# listener on the host's loopback: the first fake-llm), answer well; in
# the baseline answer badly at once
python3 - "$T/sc.json" "$DESC" "$URL" <<'EOF'
import json, sys
good = ("Incident: INC-311 checkout errors\nSeverity: SEV2\n\n## Timeline (UTC)\n"
        "- 14:05 deploy\n\n## Action items\n- [ ] Alice: add a canary (due 2026-12-15)")
desc = sys.argv[2]
W = ("echo Incident > incident.md; curl -s -m 3 %s/v1/models > probe.txt || "
     "echo UNREACHABLE > probe.txt" % sys.argv[3])
G = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
clis = [("cc", "/v1/messages", {"name": "Skill", "arguments": {"skill": "incident-report"}},
         {"name": "Bash", "arguments": {"command": W, "description": "write"}}),
        ("cx", "/v1/responses", {"name": "exec_command", "arguments": {"cmd": "cat .agents/skills/incident-report/SKILL.md"}},
         {"name": "exec_command", "arguments": {"cmd": W}}),
        ("oc", "/v1/chat/completions", {"name": "skill", "arguments": {"name": "incident-report"}},
         {"name": "bash", "arguments": {"command": W, "description": "write"}}),
        ("gm", G, {"name": "activate_skill", "arguments": {"name": "incident-report"}},
         {"name": "run_shell_command", "arguments": {"command": W}})]
rules = [{"name": "gm-side", "match": {"path": G, "tools": False},
          "reply": {"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}",
                    "usage": {"input_tokens": 6, "output_tokens": 1}}},
         {"name": "side", "match": {"tools": False},
          "reply": {"text": "ok", "usage": {"input_tokens": 5, "output_tokens": 1}}}]
for n, p, act, shell in clis:
    rules += [
        {"name": n + "-act", "match": {"path": p, "tools": True, "assistant_turns": 0, "body": desc},
         "reply": {"tool_calls": [act], "usage": {"input_tokens": 1000, "output_tokens": 10}}},
        {"name": n + "-run", "match": {"path": p, "tools": True, "assistant_turns": 1},
         "reply": {"tool_calls": [shell], "usage": {"input_tokens": 1100, "output_tokens": 20}}},
        {"name": n + "-good", "match": {"path": p, "tools": True, "assistant_turns": 2},
         "reply": {"text": good, "usage": {"input_tokens": 1200, "output_tokens": 30}}},
        {"name": n + "-bad", "match": {"path": p, "tools": True, "assistant_turns": 0},
         "reply": {"text": "The checkout broke.", "usage": {"input_tokens": 900, "output_tokens": 5}}}]
json.dump({"rules": rules}, open(sys.argv[1], "w"))
EOF
fake_start "$T/sc.json" --record "$T/rec.jsonl" || fake_skip_all "fake-llm did not start"
run env UPSKILL_CLIS="$CLIS" ANTHROPIC_API_KEY=sk-planted-real-1410 \
    "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" -j 4 --time-limit 120 \
    -m cli.claude-code -m cli.codex -m cli.opencode -m cli.gemini \
    --base-url "$FAKE_URL" --runs-dir "$T/runs2"
is "$rc" 0 "four real CLIs as students: the eval ran"
[ "$rc" = 0 ] || printf '# %s\n' "$err" | head -20
if [ -n "${T1410_NETNS:-}" ]; then
    ok 0 "in a network namespace with only loopback: no request can leave 127.0.0.1"
fi
for m in cli.claude-code cli.codex/gpt-5 cli.opencode/gpt-5-mini cli.gemini/gemini-2.5-flash; do
    block=$(printf '%s\n' "$out" |
        awk -v m="$m " 'index($0, m) == 1 {p = 1} p {print} p && /agent:/ {exit}')
    like "$block" "lift +100 points" "$m: lift reported"
    like "$block" "skill read in 1 of 1 conversations (100%)" "$m: activation detected"
    unlike "$block" "warning:" "$m: the CLI's events agree with the wire"
done
# issue 22: every request each CLI sent, as the artifacts count it off
# the wire, is one the server recorded, with the tokens it answered
cmp=$(python3 - "$T/sc.json" "$T/rec.jsonl" "$T"/runs2/*/run_*/cases/transcripts.jsonl <<'EOF'
import json, sys
usage = {r["name"]: r["reply"]["usage"] for r in json.load(open(sys.argv[1]))["rules"]}
none = {"input_tokens": 0, "output_tokens": 0}  # a HEAD reply has no body
rec = [(l["path"].split("?")[0],) + tuple((none if l["method"] == "HEAD" else usage[l["rule"]])[k]
        for k in ("input_tokens", "output_tokens")) for l in map(json.loads, open(sys.argv[2]))]
wire = []
for f in sys.argv[3:]:
    for line in open(f):
        for q in json.loads(line)["tools"]["wire"]["requests"]:
            if q["status"] == 404 and q["path"] == "/":
                continue  # Claude Code's HEAD / probe: refused by the proxy, never sent
            wire.append((q["path"].split("?")[0], q["tokens"]["input"], q["tokens"]["output"]))
from collections import Counter
a, b = Counter(rec), Counter(wire)
print("SAME %d" % len(rec) if a == b else "DIFF record-only %s wire-only %s" % (sorted((a - b).elements()), sorted((b - a).elements())))
EOF
)
like "$cmp" "SAME" "tokens equal the server's record, request by request ($cmp)"
is "$(grep -o '"path":"probe.txt","size":[0-9]*,"content":"UNREACHABLE' "$T"/runs2/*/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')" 4 \
    "no CLI's shell reached a listener on the host's loopback"
for n in cc cx oc gm; do
    rules=$(grep -o "\"rule\":\"$n-[a-z]*\"" "$T/rec.jsonl" | sort | tr '\n' ' ')
    is "$rules" "\"rule\":\"$n-act\" \"rule\":\"$n-bad\" \"rule\":\"$n-good\" \"rule\":\"$n-run\" " \
        "$n: skill listed in the skill arm only, a tool round trip, one answer per arm"
done
cases=$(cat "$T"/runs2/*/run_*/cases/transcripts.jsonl)
like "$cases" '"path":"incident.md"' "the workspace the CLI wrote is in the artifact"
like "$(grep -m1 x-api-key "$T/rec.jsonl")" "sk-planted-real-1410" \
    "Claude Code sent the planted key to its provider"
ok "$(grep -rq sk-planted-real-1410 "$T/runs2"; [ $? -ne 0 ]; echo $?)" \
    "the key is in no artifact"
done_testing
