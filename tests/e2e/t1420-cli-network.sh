#!/bin/sh
# Issue 22: every coding-agent CLI conversation has a network namespace of
# its own (only loopback) and reaches its model through a per-conversation
# proxy that upskill runs and that holds the key (docs/agent-clis.md, "The
# network").  Stand-in CLIs (python scripts run as cli.command) bind the
# same port in two concurrent conversations, try the host's loopback and
# an abstract unix socket, look for the key everywhere they can read, and
# send the proxy malformed and over-cap requests.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! command -v python3 >/dev/null 2>&1 ||
    ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
    echo "1..0 # SKIP needs python3 and a bubblewrap that can unshare the network"
    exit 0
fi
SKILL=$TOP/examples/skills/incident-report
KEY=sk-real-1420-secret
ABSTRACT=upskill-t1420-$$

cat >"$T/sc.json" <<'EOF'
[{"name": "meet", "match": {"user": "meet"}, "barrier": 2,
  "reply": {"text": "met", "usage": {"input_tokens": 7, "output_tokens": 3}}},
 {"name": "chunked", "match": {"user": "chunky"}, "reply": {"text": "relayed"}},
 {"reply": {"text": "ok", "usage": {"input_tokens": 11, "output_tokens": 2, "reasoning_tokens": 1}}}]
EOF
fake_start "$T/sc.json" --record "$T/rec.jsonl" || fake_skip_all "fake-llm did not start"

# a listener on the host's abstract unix namespace, for the whole script
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1]); s.listen(4)
while True:
    c, _ = s.accept(); c.sendall(b"HOST-ABSTRACT"); c.close()
' "$ABSTRACT" &
ABS_PID=$!
trap 'kill $ABS_PID 2>/dev/null; _fake_stop_all; rm -rf "$T"' EXIT

mkdir -p "$T/agent/bin"
# the stand-in: serve which arm it is on port 9999, meet the other
# conversation at the model (a barrier of 2: both run at once), then see
# who answers on 9999, on the host's port and on the abstract socket, and
# look for the key
cat >"$T/agent/bin/net" <<EOF
#!/usr/bin/python3
import glob, json, os, re, socket, sys, threading, urllib.request
prompt, base = sys.argv[1], sys.argv[2]
out = []
key = "${KEY%-*}" + "-${KEY##*-}"  # not whole in this file, which it can read
me = b"SKILL-ARM" if os.path.exists(".agents/skills/incident-report/SKILL.md") else b"BASELINE-ARM"
srv = socket.socket()
try:
    srv.bind(("127.0.0.1", 9999)); srv.listen(8); out.append("BOUND")
except OSError:
    out.append("BIND-FAILED"); srv = None
def serve():
    while True:
        c, _ = srv.accept(); c.sendall(me); c.close()
if srv:
    threading.Thread(target=serve, daemon=True).start()
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "meet"}]}).encode()
rq = urllib.request.Request(base + "/v1/chat/completions", data=body, headers={
    "Content-Type": "application/json", "x-api-key": "planted-by-cli",
    "Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")})
reply = json.load(urllib.request.urlopen(rq, timeout=30))
out.append("MODEL:" + reply["choices"][0]["message"]["content"])
def fetch(addr, family=socket.AF_INET):
    try:
        s = socket.socket(family); s.settimeout(5); s.connect(addr)
        d = s.recv(100).decode(); s.close(); return d
    except OSError:
        return "UNREACHABLE"
out.append("PORT9999:" + fetch(("127.0.0.1", 9999)))
host = int(re.search(r"HOSTPORT=(\d+)", prompt).group(1))
try:
    socket.create_connection(("127.0.0.1", host), timeout=5).close()
    out.append("HOST:REACHED")
except OSError:
    out.append("HOST:UNREACHABLE")
out.append("ABSTRACT:" + fetch("\0$ABSTRACT", socket.AF_UNIX))
places = ["/proc/%s/%s" % (p, f) for p in os.listdir("/proc") if p.isdigit() for f in ("cmdline", "environ")]
for d in (os.environ.get("HOME", "/nonexistent"), ".", "/tmp"):
    for root, _, files in os.walk(d):
        places += [os.path.join(root, f) for f in files]
for p in places:
    try:
        if key.encode() in open(p, "rb").read():
            out.append("KEY-LEAKED:" + p)
    except OSError:
        pass
if key in json.dumps(dict(os.environ)):
    out.append("KEY-LEAKED:env")
print(" ".join(out))
EOF
chmod +x "$T/agent/bin/net"
printf '{"cases": [{"input": "Check the network. HOSTPORT=%s", "expected": {"contains": ["MODEL:met"]}}]}\n' \
    "$FAKE_PORT" >"$T/tests.json"

run env UPSKILL_CLI_COMMAND="$T/agent/bin/net {prompt} {base_url}" \
    OPENAI_API_KEY="$KEY" "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" \
    -m cli.command -j 2 --base-url "$FAKE_URL" --runs-dir "$T/runs"
is "$rc" 0 "the eval ran (exit 0)"
cases=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$cases" "MODEL:met" "both conversations reached the model at once, through the proxy"
is "$(grep -o 'BOUND MODEL:met' "$T"/runs/*/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')" 2 \
    "two conversations bind the same port, both succeed"
like "$cases" "PORT9999:BASELINE-ARM" "the baseline reaches only its own listener"
like "$cases" "PORT9999:SKILL-ARM" "the skill arm reaches only its own listener"
unlike "$cases" "BIND-FAILED" "no conversation's bind collides with another's"
unlike "$cases" "HOST:REACHED" "a listener on the host's loopback (fake-llm) is unreachable"
is "$(grep -o 'HOST:UNREACHABLE' "$T"/runs/*/run_*/cases/transcripts.jsonl | wc -l | tr -d ' ')" 2 \
    "both conversations tried the host's port"
unlike "$cases" "HOST-ABSTRACT" "the host's abstract unix sockets are unreachable"
unlike "$cases" "KEY-LEAKED" "the key is in no file, environment or command line the CLI can read"
is "$(grep -c "\"authorization\":\"Bearer $KEY\"" "$T/rec.jsonl")" 2 \
    "the requests reaching the server carry the real key"
ok "$(grep -q 'planted-by-cli\|upskill-proxy' "$T/rec.jsonl"; [ $? -ne 0 ]; echo $?)" \
    "the CLI's own key headers never reach the server"
ok "$(grep -rq "$KEY" "$T/runs"; [ $? -ne 0 ]; echo $?)" "the key is in no artifact"

# the proxy's HTTP reading: a chunked body with Expect is relayed; a
# malformed request, an absolute-form target, a method it does not relay,
# an over-cap body and over-cap headers get the proxy's own answer
cat >"$T/agent/bin/raw" <<'EOF'
#!/usr/bin/python3
import socket
def ask(data, half=False):
    s = socket.create_connection(("127.0.0.1", 8080), timeout=30)
    s.sendall(data)
    if half:
        s.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
    s.close()
    lines = got.split(b"\r\n")
    if lines[0].endswith(b"100 Continue"):
        lines = got.split(b"\r\n\r\n", 1)[1].split(b"\r\n")
    return lines[0].split(b" ")[1].decode() + ("+relayed" if b"relayed" in got else "")
body = b'{"model": "m", "messages": [{"role": "user", "content": "chunky"}]}'
chunked = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 10]), body[i:i + 10]) for i in range(0, len(body), 10)) + b"0\r\n\r\n"
out = [
    "chunked=" + ask(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked),
    "garbage=" + ask(b"HELLO\r\n\r\n"),
    "absolute=" + ask(b"POST http://evil.example/v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"),
    "method=" + ask(b"DELETE /v1/x HTTP/1.1\r\n\r\n"),
    "bigbody=" + ask(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n"),
    "bighead=" + ask(b"GET /v1/models HTTP/1.1\r\nX-Pad: " + b"a" * 70000 + b"\r\n\r\n"),
    "after=" + ask(b"GET /v1/models HTTP/1.1\r\n\r\n"),
    "halfclose=" + ask(b"GET /v1/models HTTP/1.1\r\n\r\n", True),
]
print(" ".join(out))
EOF
chmod +x "$T/agent/bin/raw"
run env UPSKILL_CLI_COMMAND="$T/agent/bin/raw" OPENAI_API_KEY="$KEY" \
    "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" -m cli.command \
    --no-baseline --base-url "$FAKE_URL" --runs-dir "$T/runs-raw"
cases=$(cat "$T"/runs-raw/*/run_*/cases/transcripts.jsonl)
like "$cases" "chunked=200+relayed" "a chunked body (Expect: 100-continue) is decoded and relayed"
like "$cases" "garbage=400" "a malformed request gets 400"
like "$cases" "absolute=400" "an absolute-form target (a host the CLI names) gets 400"
like "$cases" "method=405" "a method the proxy does not relay gets 405"
like "$cases" "bigbody=413" "a body over 32 MiB gets 413, unread"
like "$cases" "bighead=431" "headers over 64 KiB get 431"
like "$cases" "after=200" "the proxy goes on after refusing"
like "$cases" "halfclose=200" "a CLI that closes its sending side still gets its reply"
is "$(grep -c '"path":"/v1/chat/completions"' "$T/rec.jsonl")" 3 \
    "only the well-formed requests reached the server"

# tokens and activation from the wire (issue 22 item 5): the stand-in's
# events (Claude Code's format) claim the skill in both cases and report
# 40 + 4 tokens; what reached the model says otherwise.  LS: `ls -l` of
# SKILL.md sent to the model (no read); CAT: its text sent, plus a title
# request the events never mention
cat >"$T/agent/bin/act" <<'EOF'
#!/usr/bin/python3
import json, os, subprocess, sys, urllib.request
prompt, base = sys.argv[1], sys.argv[2]
f = ".agents/skills/incident-report/SKILL.md"
def ask(text):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
    rq = urllib.request.Request(base + "/v1/chat/completions", data=body,
                                headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(rq, timeout=30))
if "CAT" in prompt:
    ask("Title this conversation")
    ask("Here is the skill:\n" + open(f).read())
else:
    ask("Here is a listing:\n" + subprocess.run(["ls", "-l", f], capture_output=True, text=True).stdout)
print(json.dumps({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "incident-report"}}]}}))
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "done", "num_turns": 1,
                  "usage": {"input_tokens": 40, "output_tokens": 4}}))
EOF
chmod +x "$T/agent/bin/act"
cat >"$T/tests-act.json" <<'EOF'
{"cases": [{"input": "LS", "expected": {"contains": ["done"]}},
           {"input": "CAT", "expected": {"contains": ["done"]}}]}
EOF
: >"$T/rec.jsonl"
run env UPSKILL_CLI_COMMAND="$T/agent/bin/act {prompt} {base_url}" \
    UPSKILL_CLI_FORMAT=claude-code "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests-act.json" -m cli.command --no-baseline \
    --base-url "$FAKE_URL" --runs-dir "$T/runs-act"
is "$rc" 0 "the eval ran (exit 0)"
like "$out" "skill read in 1 of 2 conversations" \
    "activation from content: ls -l of SKILL.md is no read, its text sent is one"
like "$out" "warning: in 1 conversation(s) the CLI's own events disagree with what reached the model about SKILL.md" \
    "the events' disagreement is reported"
act=$(cat "$T"/runs-act/*/run_*/cases/transcripts.jsonl)
ls_row=$(printf '%s\n' "$act" | grep '"input":"LS"')
cat_row=$(printf '%s\n' "$act" | grep '"input":"CAT"')
like "$ls_row" '"usage":{"input_tokens":11,"output_tokens":2,"reasoning_tokens":1' \
    "LS: the tokens are the server's, not the events' 40 + 4"
like "$cat_row" '"usage":{"input_tokens":22,"output_tokens":4,"reasoning_tokens":2' \
    "CAT: every request counts, the title request the events never report too"
like "$ls_row" '"skill_read":false' "LS: not activated"
like "$ls_row" '"events_skill_read":true' "LS: the events' claim is kept"
like "$ls_row" '"activation_disagrees":true' "LS: the disagreement is marked"
like "$cat_row" '"skill_read":true' "CAT: activated"
like "$cat_row" '"activation_disagrees":false' "CAT: events and wire agree"
like "$cat_row" '"events_usage":{"input":40,"output":4' "CAT: the events' tokens are kept"
is "$(printf '%s\n' "$cat_row" | grep -o '"path":"/v1/chat/completions","status":200' | wc -l | tr -d ' ')" 2 \
    "CAT: the artifact lists each request"
is "$(grep -c . "$T/rec.jsonl")" 3 "the server saw the three requests the artifacts count"

# a request the server sits on ends by the CLI's wall clock: the proxy
# answers 502 when it runs out, not when the server finally does
cat >"$T/slow.json" <<'EOF'
[{"reply": {"text": "late", "delay_ms": 60000}}]
EOF
fake_start "$T/slow.json" || fake_skip_all "fake-llm did not start"
printf '#!/bin/sh\ncurl -s -o /dev/null -w "STATUS=%%{http_code}\\n" -H "content-type: application/json" -d "{\\"model\\": \\"m\\", \\"messages\\": [{\\"role\\": \\"user\\", \\"content\\": \\"hi\\"}]}" "$1/v1/chat/completions"\nexec sleep 60\n' \
    >"$T/agent/bin/slow"
chmod +x "$T/agent/bin/slow"
run env UPSKILL_CLI_COMMAND="$T/agent/bin/slow {base_url}" "$UPSKILL" eval \
    "$SKILL" --tests "$T/tests-act.json" -m cli.command --no-baseline \
    --time-limit 2 --base-url "$FAKE_URL" --runs-dir "$T/runs-slow"
like "$err" "the CLI ran over its wall clock (2 s) and was stopped" "the wall clock is named"
like "$(cat "$T"/runs-slow/*/run_*/cases/transcripts.jsonl)" '"path":"/v1/chat/completions","status":502' \
    "the CLI's request ended with its wall clock (502), not the server's 60 s"
done_testing
