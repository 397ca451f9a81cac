#!/bin/sh
# Provider faults and input that must not get through: streaming by
# default with a non-stream fallback, the output cap (flag, config, cut
# answers), keys and headers with control characters, what `models` says
# answered, masked keys in error bodies, empty flags and model strings.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1
unset GENERIC_API_KEY GENERIC_BASE_URL

# A two-case suite on the student fixture's skill.
SKILL="$TOP/tests/fixtures/eval/student"
printf '%s\n' '[{"input": "question number 1", "expected": {"contains": "good"}},
 {"input": "question number 2", "expected": {"contains": "good"}}]' > "$T/tests.json"

# ev ARGS...: eval the two cases once, baseline off, on the fake server.
ev() {
    run "$UPSKILL" eval "$SKILL" -t "$T/tests.json" --no-cache \
        --no-baseline --runs-dir "$T/runs" -j 1 "$@"
}
nreq() { wc -l < "$T/rec.jsonl" | tr -d ' '; }
req() { sed -n "${1}p" "$T/rec.jsonl"; }

# --- streaming by default, usage from the final chunk ----------------------
printf '%s\n' '{"rules": [{"reply": {"text": "good answer",
  "usage": {"input_tokens": 41, "output_tokens": 7}}}]}' > "$T/ok.json"
fake_start "$T/ok.json" --record "$T/rec.jsonl"
ev -m local --base-url "$FAKE_URL/v1" --json
is "$rc" 0 "eval against a streaming server exits 0"
like "$(req 1)" '"stream":true' "the request asks for a stream"
like "$(req 1)" '"stream_options":{"include_usage":true}' "with the usage chunk"
like "$out" '"input_tokens": 82' "input tokens are the server's exact sum"
like "$out" '"tokens_estimated": false' "and not estimated"

# --- a server that refuses stream_options: once, then remembered ----------
printf '%s\n' '{"rules": [
 {"match": {"body": "stream_options"}, "reply": {"status": 400,
  "error_message": "Unrecognized request argument supplied: stream_options"}},
 {"reply": {"text": "good answer", "usage": {"input_tokens": 41, "output_tokens": 7}}}]}' \
    > "$T/nostream.json"
rm -f "$T/rec.jsonl"
fake_start "$T/nostream.json" --record "$T/rec.jsonl"
ev -m local --base-url "$FAKE_URL/v1" --json
is "$rc" 0 "eval against a server that refuses streaming exits 0"
is "$(nreq)" 3 "one refused request, then one per case"
unlike "$(req 2)$(req 3)" '"stream"' "the later requests do not stream"
like "$out" '"input_tokens": 82' "token counts stay exact without a stream"

# --- the output cap: flag, config keys, answers cut at the cap ------------
printf '%s\n' '{"rules": [{"reply": {"text": "good but cut", "finish_reason": "length",
  "usage": {"input_tokens": 41, "output_tokens": 77}}}]}' > "$T/cut.json"
rm -f "$T/rec.jsonl"
fake_start "$T/cut.json" --record "$T/rec.jsonl"
ev -m local --base-url "$FAKE_URL/v1" --max-tokens 77
is "$rc" 0 "eval --max-tokens exits 0"
like "$(req 1)" '"max_tokens":77' "the flag's cap is sent"
like "$err" "2 answer(s) were cut at max_tokens 77" "cut answers are counted"
like "$err" "--max-tokens" "with how to raise the cap"
for i in 1 2; do # the second run is answered by the cache
    run "$UPSKILL" eval "$SKILL" -t "$T/tests.json" -m local --no-baseline \
        --runs-dir "$T/runs" --base-url "$FAKE_URL/v1" --max-tokens 77
done
is "$(nreq)" 4 "the second run was answered by the cache"
like "$err" "2 answer(s) were cut at max_tokens 77" "cached cut answers are counted too"
printf 'max_tokens: 555\nproviders:\n  generic:\n    max_tokens: 333\n' > "$T/cap.yaml"
UPSKILL_CONFIG="$T/cap.yaml" GENERIC_BASE_URL="$FAKE_URL/v1" ev -m generic.local
like "$(tail -n 1 "$T/rec.jsonl")" '"max_tokens":333' "a provider's max_tokens beats the top-level key"
UPSKILL_CONFIG="$T/cap.yaml" GENERIC_BASE_URL="$FAKE_URL/v1" ev -m generic.local --max-tokens 99
like "$(tail -n 1 "$T/rec.jsonl")" '"max_tokens":99' "and the flag beats both"
ev -m local --base-url "$FAKE_URL/v1" --max-tokens 0
is "$rc" 2 "--max-tokens 0 is a usage error"
like "$err" "--max-tokens must be 1 to" "which says the range"

# generate: the test writer's reply is cut, the repair turn is refused
# for its size; the message must name the cap.
rm -f "$T/rec.jsonl"
fake_start "$TOP/tests/fixtures/gen/cut.json" --record "$T/rec.jsonl"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write commit messages" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    -o "$T/g/commit-helper" --runs-dir "$T/g-runs" --max-tokens 77 --json
is "$rc" 4 "generate stops with exit 4"
like "$err" "a reply was cut at max_tokens 77" "the message names the cap"
like "$err" "exceeds the available context size" "and the server's complaint"
like "$out" '"tokens_estimated": false' "the rejected request added no estimated tokens"

# --- keys and headers with control characters ------------------------------
rm -f "$T/rec.jsonl"
fake_start "$T/ok.json" --record "$T/rec.jsonl"
BADKEY=$(printf 'sk-planted-1030\r\nX-Injected: yes')
GENERIC_BASE_URL="$FAKE_URL/v1" GENERIC_API_KEY="$BADKEY" run "$UPSKILL" \
    models -m generic.local
is "$rc" 3 "a key with CR/LF is bad input"
like "$out$err" "'GENERIC_API_KEY': the key in this variable contains a control character" \
    "the message names the variable"
unlike "$out$err" "sk-planted-1030" "and never prints the key"
GENERIC_BASE_URL="$FAKE_URL/v1" GENERIC_API_KEY="$BADKEY" ev -m generic.local
is "$rc" 3 "eval refuses it too"
like "$err" "GENERIC_API_KEY" "naming the variable"
MY_KEY="$BADKEY" ev -m local --base-url "$FAKE_URL/v1" --api-key-env MY_KEY
is "$rc" 3 "a --api-key-env variable is checked the same way"
printf 'providers:\n  generic:\n    headers:\n      X-Team: "a\\r\\nX-Injected: yes"\n' > "$T/hdr.yaml"
UPSKILL_CONFIG="$T/hdr.yaml" GENERIC_BASE_URL="$FAKE_URL/v1" ev -m generic.local
is "$rc" 3 "a config header with CR/LF is bad input"
like "$err" "header 'X-Team'" "the message names the header"
[ ! -s "$T/rec.jsonl" ]; ok $? "nothing reached the server"

# --- models: who answered, cut on a character boundary --------------------
printf '%s\n' '{"models": ["qwen3-4b-q4.gguf"], "rules": [{"reply": {"model": "qwen3-4b-q4.gguf",
  "text": "ok ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé"}}]}' \
    > "$T/one.json"
fake_start "$T/one.json"
run "$UPSKILL" models -m gpt-5-mini --base-url "$FAKE_URL/v1"
is "$rc" 0 "pinging a single-model server exits 0"
like "$out" "answered by qwen3-4b-q4.gguf" "the model that answered is shown"
like "$out" "warning:" "with a warning that it is not the one asked for"
printf '%s' "$out" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1
ok $? "the shortened reply is valid UTF-8"
run "$UPSKILL" models -m qwen3-4b-q4.gguf --base-url "$FAKE_URL/v1"
unlike "$out" "warning:" "no warning when the names agree"

# llama-server lists its one model and echoes whatever name it is given
printf '%s\n' '{"models": ["qwen3-4b-q4.gguf"], "rules": [{"reply": {"text": "ok"}}]}' \
    > "$T/echo.json"
fake_start "$T/echo.json"
run "$UPSKILL" models -m gpt-5-mini --base-url "$FAKE_URL/v1"
is "$rc" 0 "pinging an echoing single-model server exits 0"
like "$out" "answered by gpt-5-mini" "the echoed name is shown"
like "$out" "the server serves only 'qwen3-4b-q4.gguf'" "with a warning naming the one it serves"
run "$UPSKILL" models -m gpt-5-mini --base-url "$FAKE_URL/v1" --json
like "$out" '"served": "qwen3-4b-q4.gguf"' "--json carries it too"

# --- a masked key in an error body is scrubbed ----------------------------
printf '%s\n' '{"rules": [{"reply": {"status": 401, "error_message":
  "Incorrect API key provided: sk-proj-PL************************abcd. You can find your key online."}}]}' \
    > "$T/401.json"
fake_start "$T/401.json"
run "$UPSKILL" models -m local --base-url "$FAKE_URL/v1"
is "$rc" 4 "a 401 exits 4"
like "$out" "[redacted]" "the masked key is redacted"
unlike "$out$err" "sk-proj-PL" "and never printed"

# --- empty flags and model strings ----------------------------------------
for f in --base-url --api-key-env; do
    ev -m local "$f" ''
    is "$rc" 2 "$f '' is a usage error"
    like "$err" "$f needs a non-empty value" "that names $f"
done
for m in generic.. .high; do
    run "$UPSKILL" models -m "$m" --base-url "$FAKE_URL/v1"
    is "$rc" 3 "model string '$m' is bad input"
    like "$out" "'$m': a part of the model string is empty" "which names it"
done

done_testing
