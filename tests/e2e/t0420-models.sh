#!/bin/sh
# upskill models: list an endpoint's models; ping models on both providers.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
KEY=sk-PLANTED-models-0420
printf '%s\n' '{"models": ["qwen3-4b", "glm-4.7-flash"], "rules": [{"reply": {"text": "ok", "usage": {"input_tokens": 9, "output_tokens": 1}}}]}' > "$T/s.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"

run "$UPSKILL" models --base-url "$FAKE_URL/v1"
is "$rc" 0 "listing a compatible endpoint exits 0"
like "$out" "glm-4.7-flash" "it prints the model ids"

n0=$(grep -c . "$T/rec.jsonl")
run "$UPSKILL" models -m local-model --base-url "$FAKE_URL/v1"
is "$rc" 0 "pinging a model exits 0 (a local server needs no key)"
since() { tail -n +$((n0 + 1)) "$T/rec.jsonl"; }
is "$(since | grep -o '"method":"[A-Z]*","path":"[^"]*"' | tr '\n' ' ')" \
    '"method":"POST","path":"/v1/chat/completions" "method":"GET","path":"/v1/models" ' \
    "the ping, then the listing of the served models"
is "$(since | grep -o '"conn":[0-9]*' | sort -u | grep -c .)" 1 \
    "both on one connection: the listing runs on the command's loop"
like "$out" "local-model -> generic.local-model" "the resolved id is shown"
like "$out" "9 in / 1 out tokens" "tokens are shown"

MY_KEY=$KEY run "$UPSKILL" models -m local-model --base-url "$FAKE_URL/v1" \
    --api-key-env MY_KEY --json
like "$out" '"ok": true' "json ping result"
unlike "$out$err" "$KEY" "the key is never printed"
like "$(tail -n 1 "$T/rec.jsonl")" "Bearer $KEY" "the key went in the Authorization header"

ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=$KEY run "$UPSKILL" models \
    -m anthropic.claude-haiku-4-5
is "$rc" 0 "pinging an Anthropic model exits 0"
like "$(cat "$T/rec.jsonl")" '"path":"/v1/messages"' "Anthropic's Messages API was called"

run "$UPSKILL" models -m local-model --base-url "$FAKE_URL/v1" --api-key-env MY_UNSET_KEY
is "$rc" 4 "a named key variable that is unset is an error"
like "$out" "set MY_UNSET_KEY" "which names the variable"

run "$UPSKILL" models -m local --base-url "http://127.0.0.1:1/v1"
is "$rc" 4 "an unreachable endpoint exits 4"
like "$out" "failed:" "and says it failed"

done_testing
