#!/bin/sh
# Real servers (issue 22): what comes back must be an answer.  llama.cpp's
# in-band streaming errors (an "error:" line, or data with "error", then
# [DONE], under HTTP 200) and a stream with nothing in it are errors with
# the server's code and message, never empty answers, and are never
# cached; an empty answer an older upskill cached is purged; tools with
# streaming refused by an old llama-server fall back to no streaming,
# remembered; a refusal that stays says how to fix it; a prompt count far
# below the estimate is warned about; the idle timeout names itself.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1
unset GENERIC_API_KEY GENERIC_BASE_URL

SKILL="$TOP/tests/fixtures/eval/student"
printf '%s\n' '[{"input": "question number 1", "expected": {"contains": "good"}},
 {"input": "question number 2", "expected": {"contains": "good"}}]' > "$T/tests.json"
CACHE="$XDG_CACHE_HOME/upskill/cache.sqlite"

# ev ARGS...: eval the two cases once, baseline off, cache on.
ev() {
    run "$UPSKILL" eval "$SKILL" -t "$T/tests.json" --no-baseline \
        --runs-dir "$T/runs" -j 1 -m local --base-url "$FAKE_URL/v1" "$@"
}
nreq() { if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi; }

printf '%s\n' '{"rules": [{"reply": {"text": "good answer",
  "usage": {"input_tokens": 41, "output_tokens": 7}}}]}' > "$T/ok.json"
printf '%s\n' '{"rules": [{"reply": {"text": "good answer",
  "usage": {"input_tokens": 3100, "output_tokens": 7}}}]}' > "$T/long-ok.json"

# --- 7: in-band errors, both forms, and a stream with nothing in it -------
# Each broken server is then "fixed" on the same port (the cache key holds
# the URL): the next run asks it again, nothing of the failed run was cached.
# on_port SCENARIO [ARGS...]: the server on the previous one's port.
on_port() {
    _s=$1
    shift
    kill "$FAKE_PID" && wait "$FAKE_PID" 2>/dev/null
    fake_start "$_s" --port "$FAKE_PORT" "$@"
}
printf '{"rules": [{"reply": {"fault": "empty_stream"}}]}\n' > "$T/empty_stream.json"
# An in-band error in either form with the server's own words (here a
# model that failed to load, 500) is an error naming them; llama.cpp's
# in-band context overflow (the faults' default message) is the arm's
# failure, as a 400 saying so is (t1215): counted, named, never cached.
for f in sse_error_line sse_error_data empty_stream; do
    [ "$f" = empty_stream ] ||
        printf '{"rules": [{"reply": {"fault": "%s", "status": 500, "error_message": "failed to load model"}}]}\n' "$f" > "$T/$f.json"
    fake_start "$T/$f.json"
    ev
    is "$rc" 4 "$f: no answer, exit 4"
    if [ "$f" = empty_stream ]; then
        like "$err" "the stream ended without an answer: no choices, no finish reason, no usage" \
            "$f: which says what was missing"
    else
        like "$err" "stream error 500: failed to load model" \
            "$f: the server's code and message are shown"
    fi
    on_port "$T/ok.json" --record "$T/rec-$f.jsonl"
    ev --json
    is "$rc" 0 "$f, then fixed: the eval exits 0"
    is "$(nreq "$T/rec-$f.jsonl")" 2 "$f: both cases asked again, not served empty from the cache"
    like "$out" '"pass_rate": 1.0' "$f: and pass"
    [ "$f" = empty_stream ] && continue
    printf '{"rules": [{"reply": {"fault": "%s"}}]}\n' "$f" > "$T/$f-ctx.json"
    on_port "$T/$f-ctx.json"
    rm -f "$CACHE"
    ev --json
    like "$out" '"outgrew_context": 2' "$f: an in-band context overflow is the arm's failure"
    like "$out" '"pass_rate": 0.0' "$f: counted in its pass rate"
    ev
    like "$out" "2 of 2 conversations failed: the request outgrew the context" \
        "$f: and named"
    on_port "$T/ok.json" --record "$T/rec2-$f.jsonl"
    ev --json
    is "$(nreq "$T/rec2-$f.jsonl")" 2 "$f: the overflow was not cached: both asked again"
done
ev
is "$(nreq "$T/rec-empty_stream.jsonl")" 2 "the good answers were cached"

# --- 7: a cache poisoned by an older upskill heals ------------------------
if command -v sqlite3 >/dev/null 2>&1; then
    # every stored answer made empty, as the bug stored them (the rows of
    # the servers on other ports too: this run reads only its two)
    sqlite3 "$CACHE" "UPDATE responses SET text = '', reasoning = '',
        stop_reason = '', estimated = 1"
    empty() { sqlite3 "$CACHE" "SELECT count(*) FROM responses WHERE text = ''"; }
    before=$(empty)
    [ "$before" -ge 2 ]
    ok $? "the cache holds empty answers ($before)"
    ev --json
    is "$rc" 0 "an eval over the poisoned cache exits 0"
    is "$(nreq "$T/rec-empty_stream.jsonl")" 4 "the empty answers were not served: asked again"
    like "$out" '"pass_rate": 1.0' "and the fresh answers pass"
    is "$(empty)" "$((before - 2))" "the two poisoned entries read were purged"
    ev
    is "$(nreq "$T/rec-empty_stream.jsonl")" 4 "the fresh answers were cached in their place"
else
    ok 0 "# SKIP sqlite3 not found"
fi

# --- 8: tools with streaming refused (llama.cpp before May 2025) ---------
cat > "$T/notools.json" <<'JSON'
{"rules": [
  {"match": {"tools": true, "stream": true},
   "reply": {"status": 500, "error_message": "Cannot use tools with stream"}},
  {"reply": {"text": "good answer", "usage": {"input_tokens": 41, "output_tokens": 7}}}
]}
JSON
fake_start "$T/notools.json" --record "$T/rec-tools.jsonl"
ev --agent --no-cache
is "$rc" 0 "an agent eval against a server that cannot stream with tools exits 0"
is "$(nreq "$T/rec-tools.jsonl")" 3 "one refusal, not retried, then one request per case"
like "$(sed -n 1p "$T/rec-tools.jsonl")" '"stream":true' "the first request streamed"
unlike "$(sed -n '2,3p' "$T/rec-tools.jsonl")" '"stream"' \
    "the next ones do not: asked again without, and remembered"

# Two conversations at once: both first requests may be refused before
# the first refusal is remembered; each is asked again, none fails.
fake_start "$T/notools.json" --record "$T/rec-tools2.jsonl"
ev --agent --no-cache -j 2
is "$rc" 0 "two at once against that server: exit 0"
n=$(nreq "$T/rec-tools2.jsonl")
[ "$n" -ge 3 ] && [ "$n" -le 4 ]
ok $? "each refused request asked again once ($n requests)"

# The same server without --jinja: no fallback helps; the server's words
# and the fix are shown, and the refusal is not retried.
cat > "$T/nojinja.json" <<'JSON'
{"rules": [
  {"match": {"tools": true},
   "reply": {"status": 500, "error_message": "tools param requires --jinja flag"}}
]}
JSON
fake_start "$T/nojinja.json" --record "$T/rec-jinja.jsonl"
ev --agent --no-cache
is "$rc" 4 "without --jinja no conversation is answered: exit 4"
like "$err" "tools param requires --jinja flag" "the server's words are shown"
like "$err" "start llama-server with --jinja" "with the fix"
is "$(nreq "$T/rec-jinja.jsonl")" 2 "one request per case: a refusal is not retried"

# --- 9: a prompt the server seems to have cut ------------------------------
LONG=$(awk 'BEGIN { for (i = 0; i < 400; i++) printf "word%03d of a long question. ", i }')
printf '[{"input": "%s one", "expected": {"contains": "good"}},
 {"input": "%s two", "expected": {"contains": "good"}}]\n' "$LONG" "$LONG" > "$T/long.json"
printf '%s\n' '{"rules": [{"reply": {"text": "good answer",
  "usage": {"input_tokens": 894, "output_tokens": 7}}}]}' > "$T/cut.json"
fake_start "$T/cut.json"
run "$UPSKILL" eval "$SKILL" -t "$T/long.json" --no-baseline --no-cache \
    --runs-dir "$T/runs" -j 1 -m local --base-url "$FAKE_URL/v1"
is "$rc" 0 "an eval whose prompts were cut still exits 0"
like "$err" "warning: 'local' at $FAKE_URL/v1 counted 894 prompt tokens for a request of about" \
    "the short prompt count is warned about"
like "$err" "raise its context (llama-server -c)" "naming the likely cause and the fix"
is "$(printf '%s\n' "$err" | grep -c 'counted 894 prompt tokens')" 1 "once per endpoint"
fake_start "$T/long-ok.json"
run "$UPSKILL" eval "$SKILL" -t "$T/long.json" --no-baseline --no-cache \
    --runs-dir "$T/runs" -j 1 -m local --base-url "$FAKE_URL/v1"
unlike "$err" "prompt tokens for a request of about" "no warning when the count is plausible"

# --- 10: the idle timeout names itself -------------------------------------
printf '%s\n' '{"rules": [{"reply": {"text": "good answer", "fault": "stall",
  "chunk_delay_ms": 30000}}]}' > "$T/stall.json"
printf 'providers:\n  generic:\n    idle_timeout: 1\n' > "$T/idle.yaml"
fake_start "$T/stall.json"
printf '%s\n' '[{"input": "question number 1", "expected": {"contains": "good"}}]' > "$T/one.json"
UPSKILL_CONFIG="$T/idle.yaml" run "$UPSKILL" eval "$SKILL" -t "$T/one.json" \
    --no-baseline --no-cache --runs-dir "$T/runs" -j 1 -m local \
    --base-url "$FAKE_URL/v1"
is "$rc" 4 "a stream that stalls: exit 4"
like "$err" "once the reply had begun (idle_timeout)" "the idle timeout is named as the cause"

done_testing
