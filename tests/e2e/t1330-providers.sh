#!/bin/sh
# Providers upstream's aliases point at: the OpenAI Responses API as a
# wire of its own (eval against fake-llm's /v1/responses, streamed and
# whole, reasoning effort and usage as that API defines them), a hosted
# preset aimed at the fake server (upskill models -m), the errors that
# name the alternative, and fake-llm's Responses shapes with tool calls.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-PLANTED-providers-1330
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 5, "rules": [
 {"match": {"last_role": "tool", "tool_result": "alpha", "assistant_turns": 1},
  "reply": {"text": "saw alpha"}},
 {"match": {"tools": true}, "reply": {"text": "Reading.", "reasoning": "hm",
   "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
   "chunk_size": 3}},
 {"match": {"user": "whole"}, "reply": {"text": "Whole answer", "stream": false,
   "usage": {"input_tokens": 7, "output_tokens": 5, "reasoning_tokens": 2}}},
 {"match": {"user": "capped"}, "reply": {"text": "Half", "finish_reason": "length"}},
 {"student": {"p_with": 1, "p_without": 0,
   "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"reasoning": "thinking", "usage": {"input_tokens": 40,
   "output_tokens": 10, "reasoning_tokens": 4, "cached_tokens": 8}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

# --- eval on the Responses API -------------------------------------------
run "$UPSKILL" eval --no-cache "$SKILL" -m responses.gpt-5.1.high \
    --base-url "$FAKE_URL/v1" --json --runs-dir "$T/runs"
is "$rc" 0 "eval of a responses. model against /v1/responses exits 0"
rec=$(grep '"path":"/v1/responses"' "$T/rec.jsonl" | head -n 1)
like "$rec" '"input":[' "the conversation went as input items"
like "$rec" '"max_output_tokens":' "the cap went as max_output_tokens"
like "$rec" '"reasoning":{"effort":"high"}' "the effort went as reasoning.effort"
like "$rec" '"stream":true' "the request streamed"
unlike "$(cat "$T/rec.jsonl")" '/chat/completions' "Chat Completions was not used"
like "$out" '"model": "responses.gpt-5.1.high"' "the resolved id is responses.*"
batch=$(ls "$T/runs")
res=$(cat "$T/runs/$batch/run_1/run_result.json")
like "$res" '"reasoning_tokens": 120' "reasoning tokens as the API counted them"
like "$res" '"cached_tokens": 240' "cached input tokens as the API counted them"
like "$(cat "$T/runs/$batch/run_1/run_metadata.json")" \
    '"model": "responses.gpt-5.1.high"' "the run records the responses model"

# --- whole replies, the cap, tool calls from fake-llm ----------------------
body='{"model":"m","input":[{"role":"user","content":"whole please"}],"stream":true}'
out=$(curl -s "$FAKE_URL/v1/responses" -d "$body")
like "$out" '"object":"response"' "a forced non-stream reply is one response object"
like "$out" '"output_tokens_details":{"reasoning_tokens":2}' "with the API's usage"
body='{"model":"m","input":"capped","stream":false}'
out=$(curl -s "$FAKE_URL/v1/responses" -d "$body")
like "$out" '"status":"incomplete"' "finish length is status incomplete"
like "$out" '"reason":"max_output_tokens"' "cut at max_output_tokens"
body='{"model":"m","input":[{"role":"user","content":"read"}],"tools":[{"type":"function","name":"read_file","parameters":{}}],"stream":true}'
out=$(curl -s "$FAKE_URL/v1/responses" -d "$body")
like "$out" 'event: response.function_call_arguments.delta' "streamed call arguments"
like "$out" '"call_id":"call_fake' "calls carry a call_id"
like "$out" 'event: response.completed' "the stream ends with response.completed"
unlike "$out" '[DONE]' "no [DONE] sentinel"
body='{"model":"m","input":[{"role":"user","content":"read"},{"type":"function_call","call_id":"c1","name":"read_file","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"alpha"}],"tools":[{"type":"function","name":"read_file"}]}'
out=$(curl -s "$FAKE_URL/v1/responses" -d "$body")
like "$out" '"text":"saw alpha"' \
    "function_call_output items are the tool results rules match on"
body='{"model":"m","instructions":"Be terse.","input":[{"role":"user","content":[{"type":"input_text","text":"read"}]},{"type":"function_call","call_id":"c1","name":"read_file","arguments":"{}"}],"tools":[{"type":"function","name":"read_file"}]}'
out=$(curl -s "$FAKE_URL/v1/responses" -d "$body")
like "$out" '"type":"function_call"' "a whole reply has function_call items"
like "$out" '"name":"read_file"' "named as scripted"

# --- a preset aimed at the fake server -----------------------------------
printf 'providers:\n  groq:\n    base_url: %s/v1\n' "$FAKE_URL" > "$T/groq.yaml"
GROQ_API_KEY=$KEY UPSKILL_CONFIG="$T/groq.yaml" run "$UPSKILL" models \
    -m groq.openai/gpt-oss-20b
is "$rc" 0 "models -m on the groq preset exits 0"
like "$out" "groq.openai/gpt-oss-20b" "the resolved id names the preset"
rec=$(grep '"model":"openai/gpt-oss-20b"' "$T/rec.jsonl")
like "$rec" '"path":"/v1/chat/completions"' "groq speaks Chat Completions"
like "$rec" "Bearer $KEY" "with GROQ_API_KEY as the bearer"
unlike "$out$err" "$KEY" "the key is never printed"
XAI_BASE_URL="$FAKE_URL/v1" XAI_API_KEY=$KEY run "$UPSKILL" models -m grok-4-fast
is "$rc" 0 "an upstream xai alias reaches XAI_BASE_URL"
like "$out" "xai.grok-4-fast-non-reasoning" "and resolves as upstream's table says"

AZURE_OPENAI_ENDPOINT="$FAKE_URL" AZURE_OPENAI_API_KEY=$KEY run "$UPSKILL" \
    models -m azure.my-deployment
is "$rc" 0 "models -m on the azure preset exits 0"
rec=$(grep '"path":"/openai/deployments/my-deployment/chat/completions"' "$T/rec.jsonl")
like "$rec" '"method":"POST"' "azure posts to the deployment's path"
like "$rec" "\"api-key\":\"$KEY\"" "with the key in an api-key header"
unlike "$rec" '"authorization"' "and no Authorization header"
like "$(grep '"path":"/openai/models"' "$T/rec.jsonl")" '"method":"GET"' \
    "azure lists models under /openai/models"

# --- errors that name the alternative --------------------------------------
run "$UPSKILL" models -m codexplan
like "$out$err" "use 'responses.gpt-5.3-codex' instead" \
    "codexresponses names the responses alternative"
DEEPSEEK_API_KEY= run "$UPSKILL" models -m deepseek
like "$out$err" "DEEPSEEK_API_KEY" "a hosted preset without a key names its variable"
run "$UPSKILL" models -m azure.my-deployment
like "$out$err" "AZURE_OPENAI_ENDPOINT" "azure without a resource URL says where to set it"

done_testing
