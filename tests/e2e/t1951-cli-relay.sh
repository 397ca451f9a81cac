#!/bin/sh
# The model proxy relays only what a CLI's model traffic needs (issue 36
# item 3, docs/agent-clis.md "What is relayed"): a stand-in CLI (python,
# as cli.command) asks for the provider's files, fine-tuning jobs and key
# info with the proxy's real key behind it, and gets the proxy's own 404,
# which never reaches the server and lands in the artifact; its model call
# is relayed, and the server's echo of the key (and of its base64) reaches
# neither the CLI nor any run file.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! command -v python3 >/dev/null 2>&1 ||
    ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
    echo "1..0 # SKIP needs python3 and a bubblewrap that can unshare the network"
    exit 0
fi
SKILL=$TOP/examples/skills/incident-report
KEY=sk-real-1951-secret
B64=c2stcmVhbC0xOTUxLXNlY3JldA==

cat >"$T/sc.json" <<EOF
[{"name": "echo", "match": {"path": "/v1/chat/completions"},
  "reply": {"body": "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello $KEY and $B64\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}"}},
 {"name": "other", "match": {"body": ""}, "reply": {"body": "{\"leak\": \"$KEY\"}"}}]
EOF
fake_start "$T/sc.json" --record "$T/rec.jsonl" || fake_skip_all "fake-llm did not start"

mkdir -p "$T/agent/bin"
cat >"$T/agent/bin/relay" <<'EOF'
#!/usr/bin/python3
import json, sys, urllib.error, urllib.request
base = sys.argv[1]
out = []
def call(method, path, body=None):
    rq = urllib.request.Request(base + path, method=method, data=body,
        headers={"Content-Type": "application/json"})
    try:
        r = urllib.request.urlopen(rq, timeout=30)
        return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
for method, path in (("GET", "/v1/files"), ("POST", "/v1/files"),
                     ("POST", "/v1/fine_tuning/jobs"), ("GET", "/key/info"),
                     ("POST", "/v1/chat/completions/../../files")):
    st, text = call(method, path, b"{}" if method == "POST" else None)
    out.append("%s-%s:%d:%s" % (method, path, st,
        "PROXY" if "upskill's model proxy" in text else "SERVER"))
st, text = call("POST", "/v1/chat/completions",
                json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode())
out.append("MODEL:%d" % st)
if "sk-real" in text or "c2stcmVhbC0xOTUx" in text:
    out.append("KEY-REACHED-CLI")
if "<redacted>" in text:
    out.append("REDACTED-FOR-CLI")
print(" ".join(out))
EOF
chmod +x "$T/agent/bin/relay"
printf '{"cases": [{"input": "relay", "expected": {"contains": ["MODEL:200"]}}]}\n' >"$T/tests.json"

run env UPSKILL_CLI_COMMAND="$T/agent/bin/relay {base_url}" \
    OPENAI_API_KEY="$KEY" "$UPSKILL" eval "$SKILL" --tests "$T/tests.json" \
    -m cli.command --no-baseline --base-url "$FAKE_URL" --runs-dir "$T/runs"
is "$rc" 0 "the eval ran (exit 0)"
cases=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
for r in GET-/v1/files POST-/v1/files POST-/v1/fine_tuning/jobs GET-/key/info \
    POST-/v1/chat/completions/../../files; do
    like "$cases" "$r:404:PROXY" "$r is refused by the proxy itself"
done
like "$cases" "MODEL:200" "the model call is relayed"
unlike "$(cat "$T/rec.jsonl")" '"path":"/v1/files"' "no refused request reached the server"
unlike "$(cat "$T/rec.jsonl")" '/key/info' "nor /key/info"
is "$(grep -c '"path":"/v1/chat/completions"' "$T/rec.jsonl")" 1 "only the model call did"
like "$cases" '"status":404' "the refusals are in the artifact's wire record"
like "$cases" "REDACTED-FOR-CLI" "the server's echo of the key reached the CLI redacted"
unlike "$cases" "KEY-REACHED-CLI" "neither the key nor its base64 reached the CLI"
ok "$(grep -rq -e "$KEY" -e "$B64" -e c2stcmVhbC0xOTUx "$T/runs"; [ $? -ne 0 ]; echo $?)" \
    "the key and its base64 are in no run file"
done_testing
