#!/bin/sh
# The fake LLM server (tests/fake): endpoints, streaming shapes, errors,
# faults, rule matching (nth/times/headers/system), recording, student
# mode, seeded transient failures, concurrency and auto-exit.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl

nreq=0
# req METHOD PATH DATA [CURL-ARGS...]: sets $code, $body, $hdr and $rc.
req() {
    _m=$1 _p=$2 _d=$3
    shift 3
    rm -f "$T/body" "$T/hdr"
    nreq=$((nreq + 1))
    if [ "$_m" = GET ]; then
        curl -sS -o "$T/body" -D "$T/hdr" -w '%{http_code}' "$@" \
            "$FAKE_URL$_p" >"$T/code" 2>"$T/cerr"
    else
        curl -sS -o "$T/body" -D "$T/hdr" -w '%{http_code}' \
            -H 'content-type: application/json' --data-binary "$_d" "$@" \
            "$FAKE_URL$_p" >"$T/code" 2>"$T/cerr"
    fi
    rc=$?
    code=$(cat "$T/code")
    body=$(cat "$T/body" 2>/dev/null)
    hdr=$(tr -d '\r' <"$T/hdr" 2>/dev/null)
}
oai() { req POST /v1/chat/completions "$@"; }
ant() { req POST /v1/messages "$@" -H 'anthropic-version: 2023-06-01'; }
umsg() { # umsg TEXT [EXTRA-JSON-FIELDS]: an OpenAI body
    printf '{"model":"m1","messages":[{"role":"user","content":"%s"}]%s}' \
        "$1" "${2:-}"
}
amsg() { # amsg TEXT [EXTRA]: an Anthropic body
    printf '{"model":"c1","max_tokens":50,"messages":[{"role":"user","content":"%s"}]%s}' \
        "$1" "${2:-}"
}
# urls N: the chat URL N times, for one curl doing N requests.
urls() { _i=0; while [ $_i -lt "$1" ]; do
    echo "$FAKE_URL/v1/chat/completions"; _i=$((_i + 1)); done; }
count() { grep -o "$1" | wc -l | tr -d ' '; }
between() { # between N LO HI NAME
    echo "# $4: $1"
    ok $([ "$1" -ge "$2" ] && [ "$1" -le "$3" ] && echo 0 || echo 1) "$4"
}

# ---- command line ----
run "$FAKE_LLM"
is "$rc" 2 "no --scenario is a usage error"
run "$FAKE_LLM" --scenario x --port nope
is "$rc" 2 "a bad number is a usage error"
printf '[{"reply": {"txt": "typo"}}]' >"$T/typo.json"
run "$FAKE_LLM" --scenario "$T/typo.json"
is "$rc" 3 "a scenario with an unknown key is bad input"
like "$err" "typo.json': rules[0].reply: unknown key 'txt'" \
    "the unknown key is named with its place"
printf '{"rules": [\n  {"reply": }]}' >"$T/broken.json"
run "$FAKE_LLM" --scenario "$T/broken.json"
like "$err" "broken.json':2:" "a JSON syntax error names the line"
printf '[{"reply": {"fault": "explode"}}]' >"$T/fault.json"
run "$FAKE_LLM" --scenario "$T/fault.json"
like "$err" "rules[0].reply.fault: expected a fault" "unknown faults rejected"

# ---- the main scenario ----
cat >"$T/main.json" <<'EOF'
{"models": ["fake-a", "fake-b"], "rules": [
 {"name": "limited", "match": {"user": "limited"}, "times": 1,
  "reply": {"fault": "retry_after", "retry_after": 7}},
 {"name": "limited-ok", "match": {"user": "limited"},
  "reply": {"text": "after limit"}},
 {"match": {"user": "please reset"}, "reply": {"fault": "reset"}},
 {"match": {"user": "please close"},
  "reply": {"fault": "early_close", "bytes": 40}},
 {"match": {"user": "please garble"}, "reply": {"fault": "invalid_json"}},
 {"match": {"user": "please bloat"},
  "reply": {"fault": "oversized", "bytes": 100000}},
 {"match": {"user": "no usage"}, "reply": {"fault": "no_usage", "text": "x"}},
 {"match": {"user": "please fail"}, "reply": {"fault": "error_500"}},
 {"match": {"user": "overload"}, "reply": {"fault": "overloaded"}},
 {"match": {"user": "mid-stream"},
  "reply": {"fault": "stream_error", "text": "abcdefghijklmnopqrstuvwxyz"}},
 {"match": {"user": "raw body"}, "reply": {"status": 418,
  "headers": {"X-Teapot": "yes"}, "body": "I am a teapot"}},
 {"match": {"user": "auth"}, "reply": {"status": 401}},
 {"match": {"system": "pirate", "model": "m-sys"}, "reply": {"text": "Arr"}},
 {"match": {"headers": {"X-Test": "on", "x-absent": false},
  "user": "header"}, "reply": {"text": "header matched"}},
 {"match": {"stream": true, "user": "small chunks"},
  "reply": {"text": "abc", "chunk_size": 1}},
 {"name": "default", "reply": {"text": "Hello, world",
  "reasoning": "Let me think", "usage": {"input_tokens": 11,
  "output_tokens": 22, "cached_tokens": 3, "reasoning_tokens": 5,
  "cache_creation_tokens": 2}}}
]}
EOF
fake_start "$T/main.json" --record "$T/rec.jsonl"
ok $? "the server starts and writes its port file"
like "$(cat "$T/fake-out.$_fake_n")" "port=$FAKE_PORT" \
    "stdout and the port file agree"

req GET /v1/models ""
is "$code" 200 "GET /v1/models"
like "$body" '{"object":"list","data":[{"id":"fake-a","object":"model"' \
    "models list in OpenAI shape"
like "$body" '"id":"fake-b"' "every scenario model listed"

# OpenAI, non-streaming
oai "$(umsg hi)"
is "$code" 200 "chat completion answers 200"
like "$body" '{"id":"chatcmpl-fake' "completion id"
like "$body" '"object":"chat.completion","created":' "object and created"
like "$body" '"model":"m1"' "the request's model is echoed"
like "$body" '"message":{"role":"assistant","content":"Hello, world","refusal":null,"reasoning_content":"Let me think"}' \
    "message with content and reasoning_content"
like "$body" '"finish_reason":"stop"' "finish_reason"
like "$body" '"usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33,"prompt_tokens_details":{"cached_tokens":3' \
    "usage with cached tokens"
like "$body" '"completion_tokens_details":{"reasoning_tokens":5' \
    "usage with reasoning tokens"
like "$hdr" "x-request-id: req_fake" "x-request-id header"
like "$hdr" "content-type: application/json" "JSON content type"

# OpenAI, streaming with usage
oai "$(umsg hi ',"stream":true,"stream_options":{"include_usage":true}')"
is "$code" 200 "streaming completion answers 200"
like "$hdr" "content-type: text/event-stream" "SSE content type"
like "$hdr" "Transfer-Encoding: chunked" "SSE is chunked"
is "$(printf '%s\n' "$body" | grep -c '^data: ')" 8 "8 data lines"
is "$(printf '%s\n' "$body" | grep -vc '^data: \|^$')" 0 \
    "nothing but data lines and blank lines"
like "$(printf '%s\n' "$body" | head -1)" \
    '"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}' \
    "first chunk carries the role"
like "$body" '"delta":{"reasoning_content":"Let me t"}' "reasoning delta"
like "$body" '"delta":{"content":"Hello, w"}' "first content delta"
like "$body" '"delta":{"content":"orld"}' "second content delta"
like "$body" '"delta":{},"logprobs":null,"finish_reason":"stop"}' \
    "finish chunk"
like "$body" '"choices":[],"usage":{"prompt_tokens":11,' \
    "usage chunk with empty choices"
is "$(printf '%s\n' "$body" | tail -1)" "data: [DONE]" "ends with [DONE]"

oai "$(umsg hi ',"stream":true')"
is "$(printf '%s\n' "$body" | grep -c '^data: ')" 7 \
    "no usage chunk without include_usage"
unlike "$body" '"usage"' "no usage key without include_usage"

oai "$(umsg 'small chunks' ',"stream":true')"
like "$body" '"delta":{"content":"a"}' "chunk_size 1: a"
like "$body" '"delta":{"content":"c"}' "chunk_size 1: c"
is "$(printf '%s\n' "$body" | count '"content":"[abc]"')" 3 "three deltas"

# Anthropic, non-streaming
ant "$(amsg hi)"
is "$code" 200 "messages answers 200"
like "$body" '{"id":"msg_fake' "message id"
like "$body" '"type":"message","role":"assistant","model":"c1"' \
    "type, role and model"
like "$body" '"content":[{"type":"thinking","thinking":"Let me think","signature":"fake-signature"},{"type":"text","text":"Hello, world"}]' \
    "thinking block before the text block"
like "$body" '"stop_reason":"end_turn","stop_sequence":null' "stop fields"
like "$body" '"usage":{"input_tokens":11,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":22,"output_tokens_details":{"thinking_tokens":5}}' \
    "Anthropic usage"
like "$hdr" "request-id: req_fake" "request-id header"

# Anthropic, streaming
ant "$(amsg 'small chunks' ',"stream":true')"
events=$(printf '%s\n' "$body" | sed -n 's/^event: //p' | tr '\n' ' ')
is "$events" "message_start content_block_start ping content_block_delta content_block_delta content_block_delta content_block_stop message_delta message_stop " \
    "the exact Anthropic event sequence"
is "$(printf '%s\n' "$body" | grep -c '^data: {"type":"')" 9 \
    "each event has a data line with its type"
like "$body" 'data: {"type":"message_start","message":{"id":"msg_fake' \
    "message_start carries the message"
like "$body" '"content":[],"stop_reason":null' "message_start: no content"
like "$body" '"index":0,"delta":{"type":"text_delta","text":"b"}}' \
    "text_delta"
like "$body" 'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":' \
    "message_delta with stop_reason and output_tokens"
ant "$(amsg hi ',"stream":true')"
like "$body" '"delta":{"type":"thinking_delta","thinking":"Let me t"}' \
    "thinking deltas"
like "$body" '"delta":{"type":"signature_delta","signature":"fake-signature"}' \
    "signature delta"
like "$body" '"index":1,"delta":{"type":"text_delta","text":"Hello, w"}' \
    "the text block is index 1 after thinking"

# Errors in each provider's shape
oai '{not json'
is "$code" 400 "invalid JSON request: 400"
like "$body" '{"error":{"message":"request body is not JSON' \
    "OpenAI error shape"
like "$body" '"type":"invalid_request_error","param":null,"code":null}}' \
    "OpenAI error type"
ant '[1,2]'
is "$code" 400 "non-object request: 400"
like "$body" '{"type":"error","error":{"type":"invalid_request_error","message":"request body is not a JSON object"},"request_id":"req_fake' \
    "Anthropic error shape"
req GET /v2/nothing ""
is "$code" 404 "unknown path: 404"
head -c 9000000 /dev/zero | tr '\0' a >"$T/huge"
oai "@$T/huge"
is "$code" 413 "body over 8 MB: 413"
ant "$(amsg auth)"
is "$code" 401 "status 401 from a rule"
like "$body" '"type":"authentication_error"' "401 as authentication_error"

# Faults
oai "$(umsg limited)"
is "$code" 429 "retry_after: 429 first"
like "$hdr" "retry-after: 7" "retry_after: Retry-After header"
like "$body" '"type":"requests","param":null,"code":"rate_limit_exceeded"' \
    "retry_after: OpenAI rate-limit error"
oai "$(umsg limited)"
is "$code" 200 "times 1: the next request succeeds"
like "$body" '"content":"after limit"' "times 1: the next rule answers"

oai "$(umsg 'please reset')"
ok $([ "$rc" -eq 56 ] || [ "$rc" -eq 52 ] && echo 0 || echo 1) \
    "reset: the connection is reset (curl $rc)"
is "$code" 000 "reset: no response at all"

oai "$(umsg 'please close')"
is "$rc" 18 "early_close: curl sees a partial transfer"
is "${#body}" 40 "early_close: exactly the first 40 bytes were sent"
like "$body" '{"id":"chatcmpl-fake' "early_close: the start of the body"
oai "$(umsg 'please close' ',"stream":true')"
is "$rc" 18 "early_close: a stream is cut too"
unlike "$body" '[DONE]' "early_close: no [DONE]"

oai "$(umsg 'please garble')"
is "$code" 200 "invalid_json: 200"
is "$body" '{"id": "fake", "choices": [ not json' "invalid_json: the body"

oai "$(umsg 'please bloat')"
is "$code" 200 "oversized: 200"
is "$(wc -c <"$T/body" | tr -d ' ')" 100000 "oversized: exactly N bytes"

oai "$(umsg 'no usage')"
like "$body" '"content":"x"' "no_usage: a normal reply"
unlike "$body" '"usage"' "no_usage: without usage"
oai "$(umsg 'no usage' ',"stream":true,"stream_options":{"include_usage":true}')"
unlike "$body" '"usage"' "no_usage: no usage chunk when streaming"
ant "$(amsg 'no usage' ',"stream":true')"
unlike "$body" '"usage"' "no_usage: Anthropic stream without usage"

oai "$(umsg 'please fail')"
is "$code" 500 "error_500: 500"
like "$body" '"type":"server_error"' "error_500: OpenAI server_error"
ant "$(amsg overload)"
is "$code" 529 "overloaded: 529 from Anthropic"
like "$body" '"error":{"type":"overloaded_error"' "overloaded_error"
oai "$(umsg overload)"
is "$code" 503 "overloaded: 503 from OpenAI"

oai "$(umsg mid-stream ',"stream":true')"
is "$code" 200 "stream_error: the stream starts with 200"
is "$(printf '%s\n' "$body" | grep '^data: ' | tail -1)" \
    'data: {"error":{"message":"the server had an error while processing your request","type":"server_error","param":null,"code":null}}' \
    "stream_error: OpenAI ends with an error data line"
unlike "$body" '[DONE]' "stream_error: no [DONE]"
ant "$(amsg mid-stream ',"stream":true')"
like "$body" 'event: content_block_delta' "stream_error: some deltas first"
is "$(printf '%s\n' "$body" | tail -2 | tr '\n' ' ')" \
    'event: error data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} ' \
    "stream_error: Anthropic ends with an error event"
unlike "$body" 'message_stop' "stream_error: no message_stop"
ant "$(amsg mid-stream)"
is "$code" 529 "stream_error without streaming: overloaded"

oai "$(umsg 'raw body')"
is "$code" 418 "body: the rule's status"
is "$body" "I am a teapot" "body: sent verbatim"
like "$hdr" "x-teapot: yes" "headers: the rule's headers"

# Matching on system text, model and headers
oai '{"model":"m-sys","messages":[{"role":"developer","content":"You are a pirate"},{"role":"user","content":"hi"}]}'
like "$body" '"content":"Arr"' "developer text and model match"
ant '{"model":"m-sys","max_tokens":5,"system":[{"type":"text","text":"a pirate"}],"messages":[{"role":"user","content":"hi"}]}'
like "$body" '"text":"Arr"' "Anthropic system blocks match"
oai '{"model":"other","messages":[{"role":"system","content":"pirate"},{"role":"user","content":"hi"}]}'
like "$body" '"content":"Hello, world"' "a different model does not match"
oai "$(umsg header)" -H 'x-test: on'
like "$body" '"content":"header matched"' "header value matches"
oai "$(umsg header)" -H 'x-test: on' -H 'x-absent: 1'
like "$body" '"content":"Hello, world"' "a forbidden header prevents the match"
oai "$(umsg header)" -H 'x-test: off'
like "$body" '"content":"Hello, world"' "a wrong header value does not match"

# Recording
rec=$(cat "$T/rec.jsonl")
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" "$nreq" "one record line per request"
like "$rec" '{"n":1,"method":"GET","path":"/v1/models","headers":{' \
    "the first record"
like "$rec" '"anthropic-version":"2023-06-01"' "request headers recorded"
like "$rec" '"x-test":"on"' "header names recorded in lowercase"
like "$rec" '"body":{"model":"c1","max_tokens":50,' "JSON bodies recorded parsed"
like "$rec" '"body":"{not json"' "other bodies recorded as strings"
like "$rec" '"rule":"limited","fault":"retry_after"' "rule and fault recorded"
like "$rec" '"ts":' "timestamps recorded"

# ---- nth, times, no match, --max-requests ----
cat >"$T/nth.json" <<'EOF'
[{"match": {"nth": 2}, "reply": {"text": "second"}},
 {"match": {"path": "/v1/chat/completions"}, "times": 2,
  "reply": {"text": "early ones"}}]
EOF
fake_start "$T/nth.json" --max-requests 4
oai "$(umsg a)"
like "$body" '"content":"early ones"' "nth: request 1 is not the 2nd"
oai "$(umsg a)"
like "$body" '"content":"second"' "nth: request 2 matches nth 2"
oai "$(umsg a)"
like "$body" '"content":"early ones"' "times: second use of the rule"
oai "$(umsg a)"
is "$code" 400 "no rule left: 400"
like "$body" 'no scenario rule matched' "no match is explained"
wait "$FAKE_PID"
is "$?" 0 "--max-requests: the server exits by itself with 0"

# ---- student mode ----
cat >"$T/student.json" <<'EOF'
{"seed": 42, "rules": [{"student": {"marker": "## Skill:",
  "p_with": 0.85, "p_without": 0.5,
  "answers": {"capital of France": {"good": "Paris", "bad": "Lyon"}},
  "default": {"good": "GOOD", "bad": "BAD"}}}]}
EOF
plain=$(umsg hello)
skilled='{"model":"m1","messages":[{"role":"system","content":"## Skill: greet\nSay GOOD"},{"role":"user","content":"hello"}]}'
fake_start "$T/student.json"
good1=$(curl -s -H 'content-type: application/json' --data-binary "$plain" \
    $(urls 200) | count '"content":"GOOD"')
between "$good1" 70 130 "p_without 0.5: about half of 200 are good"
goods=$(curl -s -H 'content-type: application/json' \
    --data-binary "$skilled" $(urls 200) | count '"content":"GOOD"')
between "$goods" 150 195 "p_with 0.85 when the marker is present"
oai "$(umsg 'What is the capital of France?')"
ok $(printf '%s' "$body" | grep -q '"content":"\(Paris\|Lyon\)"' &&
    echo 0 || echo 1) "answers: the pair for the user's text"
like "$hdr" "x-fake-student: " "x-fake-student header"
kill "$FAKE_PID"
fake_start "$T/student.json"
again=$(curl -s -H 'content-type: application/json' --data-binary "$plain" \
    $(urls 200) | count '"content":"GOOD"')
is "$again" "$good1" "the same seed gives the same answers"
kill "$FAKE_PID"

# ---- seeded transient failures ----
cat >"$T/flaky.json" <<'EOF'
[{"fail_rate": 0.3, "fail_with": ["error_500", "retry_after"],
  "reply": {"text": "fine"}}]
EOF
fake_start "$T/flaky.json" --seed 5
codes=$(curl -s -w '\ncode=%{http_code}\n' -H 'content-type: application/json' \
    --data-binary "$plain" $(urls 200))
fails=$(printf '%s\n' "$codes" | grep '^code=' | grep -vc '^code=200$')
between "$fails" 30 90 "fail_rate 0.3: about 60 of 200 fail"
ok $(printf '%s\n' "$codes" | grep -q '^code=500$' &&
    printf '%s\n' "$codes" | grep -q '^code=429$' && echo 0 || echo 1) \
    "both listed fault kinds occur"
kill "$FAKE_PID"

# ---- concurrency: 128 requests must be in flight at once ----
printf '[{"barrier": 128, "reply": {"text": "together"}}]' >"$T/barrier.json"
fake_start "$T/barrier.json"
codes=$(curl -s --no-progress-meter --parallel --parallel-immediate \
    --parallel-max 128 -w '\ncode=%{http_code}\n' \
    -H 'content-type: application/json' --data-binary "$plain" $(urls 128))
is "$(printf '%s\n' "$codes" | grep -c '^code=200$')" 128 \
    "128 concurrent connections meet at a barrier"

# ---- SIGTERM ----
kill "$FAKE_PID"
wait "$FAKE_PID"
is "$?" 0 "SIGTERM: clean exit 0"

done_testing
