#!/bin/sh
# The response cache: a repeated eval sends nothing and says so; the
# repeat index, --no-cache, cache.enabled and cache.path do what they say;
# `upskill cache stats|clear`; the API key never reaches the cache file.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-PLANTED-cache-0700
export CACHE_KEY="$KEY" UPSKILL_CONFIG="$T/none.yaml"
DB="$XDG_CACHE_HOME/upskill/cache.sqlite"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 0.8, "p_without": 0.3,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

sent() { wc -l < "$T/rec.jsonl" | tr -d ' '; }

# json_num KEY TEXT N: the Nth number after "KEY": in pretty JSON text.
json_num() {
    printf '%s\n' "$2" | grep "\"$1\":" | sed -n "${3:-1}p" |
        sed 's/.*: *\([-0-9.eE+]*\).*/\1/'
}

ev() { # ev ARGS...: eval the student skill against the fake server
    run "$UPSKILL" eval "$SKILL" -m local --base-url "$FAKE_URL/v1" \
        --api-key-env CACHE_KEY "$@"
}

# --- first run fills the cache, the second is served from it -------------
ev --json --no-log-runs
is "$rc" 0 "first eval exits 0"
is "$(sent)" 60 "first eval sends 30 cases x 2 arms"
is "$(json_num cached "$out" 1)" 0 "nothing from the cache the first time"
passed1=$(json_num passed "$out" 1)
ok $([ -f "$DB" ] && echo 0 || echo 1) "the cache is created under XDG_CACHE_HOME"

ev --json --no-log-runs
is "$rc" 0 "second eval exits 0"
is "$(sent)" 60 "an identical eval sends no request"
is "$(json_num cached "$out" 1)" 30 "with-skill answers all cached"
is "$(json_num cached "$out" 2)" 30 "baseline answers all cached"
is "$(json_num passed "$out" 1)" "$passed1" "cached answers grade the same"

CACHE_KEY=sk-PLANTED-another-key ev --no-log-runs -v
is "$(sent)" 60 "another API key value still hits: the key is not in it"
like "$out" "60 of 60 answers from the cache (--no-cache to bypass)" \
    "the text report says how many answers were cached"
like "$out" "(cached)" "verbose lines mark cached answers"

# --- cost: the answers' price, and what this run paid -----------------------
printf 'prices:\n  local:\n    input: 3\n    output: 15\n' > "$T/priced.yaml"
UPSKILL_CONFIG="$T/priced.yaml" ev --json --no-log-runs
is "$(sent)" 60 "a priced rerun is still served from the cache"
cost=$(json_num cost_usd "$out" 1)
# 30 answers x (40 input x 3 + 10 output x 15) / 1e6 = 0.0081
is "$(printf '%.6f' "$cost")" 0.008100 \
    "cost_usd prices the cached answers as answered"
is "$(json_num paid_usd "$out" 1)" 0.0 "paid_usd: this run paid nothing"
wp=$(json_num passed "$out" 1)
is "$(printf '%.8f' "$(json_num cost_per_pass "$out" 1)")" \
    "$(awk -v p="$wp" 'BEGIN { printf "%.8f", 0.0081 / p }')" \
    "cost_per_pass is the arm's cost over its passed cases"
UPSKILL_CONFIG="$T/priced.yaml" ev --no-log-runs
like "$out" "60 of 60 answers from the cache (--no-cache to bypass); this run paid \$0.00" \
    "the text report says what this run paid"
like "$out" "cost: \$0.00810 (\$0.000324 per passed case)" "the text report gives the cost with the skill"
like "$out" "per passed case) baseline" "and the baseline's, per passed case"

# --- the repeat index is part of the key -----------------------------------
ev --runs 2 --json --runs-dir "$T/runs"
is "$(sent)" 120 "--runs 2 sends only the new repeat's 60 requests"
is "$(json_num cached "$out" 1)" 30 "and serves the first repeat from the cache"
batch=$(ls "$T/runs")
is "$(grep -c '"from_cache":true' "$T/runs/$batch/journal.jsonl")" 60 \
    "the journal marks the cached answers"

# --- --no-cache and cache.enabled: false bypass it -------------------------
ev --no-cache --json --no-log-runs
is "$(sent)" 180 "--no-cache sends every request again"
is "$(json_num cached "$out" 1)" 0 "and reports none cached"
printf 'cache:\n  enabled: false\n' > "$T/off.yaml"
UPSKILL_CONFIG="$T/off.yaml" ev --no-log-runs
is "$(sent)" 240 "cache.enabled: false sends every request"
unlike "$out" "from the cache" "and says nothing about the cache"

# --- cache stats -----------------------------------------------------------
run "$UPSKILL" cache stats
is "$rc" 0 "cache stats exits 0"
like "$out" "entries  120" "stats counts both repeats' answers"
like "$out" "$DB" "stats names the file"
run "$UPSKILL" cache stats --json
like "$out" '"entries": 120' "stats --json"
like "$out" '"ttl_days": 30' "the default expiry is 30 days"

# --- the key never reaches the cache --------------------------------------
grep -rqa "sk-PLANTED" "$XDG_CACHE_HOME"
ok $((1 - $?)) "no API key in the cache files"
grep -qa "GOOD ANSWER" "$DB"
ok $? "(the grep can see the cached answers)"

# --- cache.path from the config -------------------------------------------
printf 'cache:\n  path: %s/elsewhere/c.sqlite\n' "$T" > "$T/path.yaml"
UPSKILL_CONFIG="$T/path.yaml" ev --no-log-runs
is "$(sent)" 300 "a fresh cache.path starts empty"
ok $([ -f "$T/elsewhere/c.sqlite" ] && echo 0 || echo 1) \
    "cache.path is where the answers go"
run env UPSKILL_CONFIG="$T/path.yaml" "$UPSKILL" cache stats --json
like "$out" '"entries": 60' "cache stats reads cache.path"

# --- cache clear -----------------------------------------------------------
run "$UPSKILL" cache clear --older-than 1
is "$rc" 0 "cache clear --older-than exits 0"
like "$out" "removed 0 entries" "nothing is a day old yet"
run "$UPSKILL" cache clear
like "$out" "removed 120 entries" "clear removes everything"
run "$UPSKILL" cache stats
like "$out" "entries  0" "the cache is empty"
ev --no-log-runs
is "$(sent)" 360 "after clear the eval sends again"

# --- usage and a cache that does not exist yet ----------------------------
run env XDG_CACHE_HOME="$T/nowhere" "$UPSKILL" cache stats
is "$rc" 0 "stats of a missing cache exits 0"
like "$out" "entries  0" "and shows it empty"
ok $([ ! -e "$T/nowhere" ] && echo 0 || echo 1) "without creating it"
run "$UPSKILL" cache frob
is "$rc" 2 "an unknown action is a usage error"
run "$UPSKILL" cache stats --older-than 3
is "$rc" 2 "--older-than goes with clear only"
run "$UPSKILL" cache
is "$rc" 2 "an action is required"

# --- a broken cache file warns and the eval goes on ------------------------
mkdir -p "$T/bad"
printf 'not a database %0400d\n' 0 > "$T/bad/c.sqlite"
printf 'cache:\n  path: %s/bad/c.sqlite\n' "$T" > "$T/bad.yaml"
UPSKILL_CONFIG="$T/bad.yaml" ev --no-log-runs
is "$rc" 0 "an unreadable cache does not fail the eval"
like "$err" "running without the response cache" "it warns"
is "$(sent)" 420 "and sends the requests"

# --- cached answers land first, in plan order, before any request -------
printf 'cache:\n  path: %s/order/c.sqlite\n' "$T" > "$T/order.yaml"
cases() { # cases STEP: cases 1..6 by STEP as a suite
    awk -v s="$1" 'BEGIN { printf "["; for (i = s; i <= 6; i += s)
        printf "%s{\"input\": \"order question %d\", \"expected\": " \
            "{\"contains\": \"good\"}}", (i > s ? "," : ""), i; print "]" }'
}
cases 2 > "$T/even.json"
cases 1 > "$T/six.json"
UPSKILL_CONFIG="$T/order.yaml" ev -t "$T/even.json" --no-log-runs
is "$rc" 0 "the even cases' answers go to a fresh cache"
UPSKILL_CONFIG="$T/order.yaml" ev -t "$T/six.json" -j 1 --runs-dir "$T/order"
is "$rc" 0 "an eval of all six exits 0"
journal=$(ls "$T"/order/*/journal.jsonl)
is "$(head -n 6 "$journal" | grep -c '"from_cache":true')" 6 \
    "the 6 cached answers (cases 2, 4, 6 x 2 arms) are journalled first"
is "$(grep -c '"case":[024],.*"from_cache":true' "$journal")" 0 \
    "no odd case was served from the cache"
is "$(tail -n 6 "$journal" | grep -c '"from_cache":false')" 6 \
    "the 6 answers sent follow"

done_testing
