#!/bin/sh
# Coding-agent CLIs as students (docs/agent-clis.md): fake-llm's Gemini
# wire (generateContent / streamGenerateContent with function calls and
# usageMetadata, the conversation facts of Gemini bodies, Google's error
# shape), Claude Code's `HEAD /` probe; then, when `make clis` has
# installed them, live runs of Claude Code, opencode and Gemini CLI
# against fake-llm (tests/clis/live.sh), a skill arm and a baseline arm
# each, skipped with the reason when not.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl

# req METHOD PATH DATA: sets $code and $body.
req() {
    curl -sS -o "$T/body" -w '%{http_code}' -X "$1" \
        -H 'content-type: application/json' ${3:+--data-binary "$3"} \
        "$FAKE_URL$2" >"$T/code" 2>"$T/cerr"
    code=$(cat "$T/code")
    body=$(cat "$T/body" 2>/dev/null)
}
G=/v1beta/models/gemini-x

cat >"$T/sc.json" <<'SC'
{"rules": [
 {"name": "err", "match": {"user": "please fail"}, "reply": {"status": 429}},
 {"name": "second", "match": {"tools": true, "assistant_turns": 1,
                              "last_role": "tool", "tool_result": "REF-42"},
  "reply": {"text": "read it", "usage": {"input_tokens": 70, "output_tokens": 3}}},
 {"name": "first", "match": {"tools": true, "last_role": "user",
                             "model": "gemini-x", "system": "be brief"},
  "reply": {"text": "Looking now", "chunk_size": 4,
            "tool_calls": [{"name": "activate_skill", "arguments": {"name": "s"}}],
            "usage": {"input_tokens": 50, "output_tokens": 7, "cached_tokens": 5}}},
 {"name": "think", "match": {"user": "think first"},
  "reply": {"text": "42", "reasoning": "six times seven",
            "usage": {"input_tokens": 9, "output_tokens": 1, "reasoning_tokens": 4}}},
 {"name": "plain", "match": {"tools": false}, "reply": {"text": "hi"}}
]}
SC
fake_start "$T/sc.json" --record "$T/rec.jsonl" || fake_skip_all "fake-llm did not start"

TOOLS='"tools": [{"functionDeclarations": [{"name": "activate_skill"}]}]'
SYS='"systemInstruction": {"parts": [{"text": "be brief"}]}'
FIRST="{$SYS, $TOOLS, \"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"go\"}]}]}"

req POST "$G:generateContent" "$FIRST"
is "$code" 200 "gemini: generateContent answers 200"
like "$body" '"functionCall":{"name":"activate_skill","args":{"name":"s"}}' \
    "gemini: a function call part with its args object"
like "$body" '"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":7,"totalTokenCount":57,"cachedContentTokenCount":5}' \
    "gemini: usageMetadata from the reply's usage"
like "$body" '"finishReason":"STOP"' "gemini: finishReason STOP"
like "$body" '"role":"model"' "gemini: the candidate's role is model"

req POST "$G:streamGenerateContent?alt=sse" "$FIRST"
is "$code" 200 "gemini: streamGenerateContent answers 200"
is "$(grep -c '^data: ' "$T/body")" 3 "gemini: text in chunk_size pieces, the last with the call"
like "$(sed -n 1p "$T/body")" '"parts":[{"text":"Look"}]' "gemini: the first chunk is a text piece"
unlike "$(sed -n 1p "$T/body")" usageMetadata "gemini: usage only in the last chunk"
like "$(tail -n 2 "$T/body")" '"functionCall":{"name":"activate_skill"' "gemini: the call in the last chunk"
like "$(tail -n 2 "$T/body")" '"usageMetadata"' "gemini: usage in the last chunk"
unlike "$body" '[DONE]' "gemini: no [DONE] line"
ok "$(grep -c "$(printf '\r')" "$T/body" | grep -qv '^0$'; echo $?)" \
    "gemini: events framed with CRLF"

SECOND="{$TOOLS, \"contents\": [{\"role\": \"user\", \"parts\": [{\"text\": \"go\"}]},
 {\"role\": \"model\", \"parts\": [{\"functionCall\": {\"name\": \"activate_skill\", \"args\": {}}}]},
 {\"role\": \"user\", \"parts\": [{\"functionResponse\": {\"name\": \"activate_skill\",
   \"response\": {\"output\": \"<instructions>REF-42</instructions>\"}}}]}]}"
req POST "$G:streamGenerateContent" "$SECOND"
like "$body" '"text":"read it"' "gemini: a functionResponse turn is a tool turn (last_role, tool_result, assistant_turns)"

req POST "$G:generateContent" '{"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}'
like "$body" '"text":"hi"' "gemini: no declarations is tools false"

THINK='{"contents": [{"role": "user", "parts": [{"text": "think first"}]}]}'
req POST "$G:generateContent" "$THINK"
like "$body" '"parts":[{"text":"six times seven","thought":true},{"text":"42"}]' \
    "gemini: reasoning is a thought part before the text"
like "$body" '"candidatesTokenCount":1,"totalTokenCount":14,"thoughtsTokenCount":4' \
    "gemini: thoughtsTokenCount apart from candidatesTokenCount, in the total"
req POST "$G:streamGenerateContent" "$THINK"
like "$(sed -n 1p "$T/body")" '"thought":true' "gemini: streamed, the thought comes first"

req POST "$G:generateContent" '{"contents": [{"role": "user", "parts": [{"text": "please fail"}]}]}'
is "$code" 429 "gemini: an error status"
like "$body" '{"error":{"code":429,"message":"rate limit reached","status":"RESOURCE_EXHAUSTED"}}' \
    "gemini: errors in Google's shape"

req POST /v1beta/models/gemini-x:countTokens '{}'
like "$code" 40 "gemini: another method is not a generate call"

code=$(curl -sS -o /dev/null -w '%{http_code}' -I "$FAKE_URL/" 2>"$T/cerr")
like "$code" 40 "HEAD / (Claude Code's probe) gets a 4xx, not a parse error"
like "$(grep '"method":"HEAD"' "$T/rec.jsonl")" '"body":null' "HEAD / is recorded with no body"
like "$(grep -m1 generateContent "$T/rec.jsonl")" '"rule":"first"' "gemini: the record names the rule"

# ---- live runs of the real CLIs (make clis) ----
CLIS=${CLIS:-$TOP/build-clis}
for cli in claude-code opencode gemini; do
    case $cli in claude-code) bin=claude ;; *) bin=$cli ;; esac
    if [ ! -x "$CLIS/$cli/bin/$bin" ]; then
        echo "ok $((_n + 1)) # SKIP $cli: not installed ($CLIS/$cli/bin/$bin absent; make clis)"
        _n=$((_n + 1))
        continue
    fi
    run env TOP="$TOP" FAKE_LLM="$FAKE_LLM" CLIS="$CLIS" sh "$TOP/tests/clis/live.sh" "$cli" "$T/live-$cli"
    is "$rc" 0 "$cli: the live check ran"
    like "$out" "exit 0" "$cli: the CLI exited 0"
    if unshare -n true 2>/dev/null; then
        like "$out" "netns 1" "$cli: ran in a loopback-only network namespace"
    fi
    like "$out" '"rule":"activate" "rule":"read" "rule":"write" "rule":"answer"' \
        "$cli: skill activated, reference read, file written, answered"
    like "$out" "report.txt: id: int" "$cli: the file was written in the workspace"
    like "$out" "skill listed to the model: yes" "$cli: the skill is discovered in the skill arm"
    run env TOP="$TOP" FAKE_LLM="$FAKE_LLM" CLIS="$CLIS" LIVE_NO_SKILL=1 \
        sh "$TOP/tests/clis/live.sh" "$cli"
    like "$out" "skill listed to the model: no" "$cli: and not in the baseline arm"
    [ "$cli" = gemini ] || continue
    run env TOP="$TOP" FAKE_LLM="$FAKE_LLM" CLIS="$CLIS" LIVE_NO_MODEL=1 \
        sh "$TOP/tests/clis/live.sh" "$cli"
    like "$out" '"rule":"route" "rule":"activate"' \
        "gemini: without -m the routing request (:generateContent) is answered first"
done
done_testing
