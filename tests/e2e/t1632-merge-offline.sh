#!/bin/sh
# upskill merge, the awkward cases (issue 26, item 9; docs/sharding.md):
# a shard whose every conversation errored is merged with a warning that
# names it, and the documented finishing step, `eval --resume` of the
# merged batch, sends nothing -- not even for the errored jobs (a server
# recording every request gets none) -- and reports them as errors, as
# the unsharded run against the same servers would.  With prices, the
# merged batch's costs equal the unsharded run's to the last bit.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
# prices whose sums are not exact in binary: the order of the sum shows
cat >"$T/config.yaml" <<'YAML'
prices:
  a: {input: 0.1, output: 0.7}
  b: {input: 0.3, output: 1.1}
YAML
i=0
{
    printf '['
    for w in one two three four five six seven eight nine ten; do
        i=$((i + 1))
        [ $i -gt 1 ] && printf ','
        printf '{"input": "case %s", "expected": {"contains": ["GOOD"]}}' "$w"
    done
    printf ']\n'
} >"$T/tests.json"
# usage varies with the case, so the costs are many different numbers
cat >"$T/s.json" <<'JSON'
{"rules": [
  {"match": {"user": "e"}, "reply": {"text": "GOOD ANSWER",
   "usage": {"input_tokens": 1237, "output_tokens": 311}}},
  {"reply": {"text": "meh", "usage": {"input_tokens": 977, "output_tokens": 203}}}]}
JSON
cat >"$T/dead.json" <<'JSON'
{"rules": [{"reply": {"status": 400, "error_message": "no such model"}}]}
JSON
fake_start "$T/s.json"
GOOD=$FAKE_URL
fake_start "$T/dead.json"
DEAD=$FAKE_URL
fake_start "$T/s.json" --record "$T/rec.jsonl"
REC=$FAKE_URL

ev() { # ev URL RUNS_DIR ARGS...
    _u=$1 _d=$2
    shift 2
    "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m b -m a \
        --base-url "$_u/v1" --runs 3 --seed 7 --runs-dir "$_d" "$@"
}

# --- costs: merged equals unsharded, exactly --------------------------------
ev "$GOOD" "$T/full" >/dev/null 2>&1
is "$?" 0 "the unsharded run exits 0"
for s in 1 2 3 4; do
    ev "$GOOD" "$T/s$s" --shard "$s/4" >/dev/null 2>&1
done
run "$UPSKILL" merge "$T"/s3/* "$T"/s1/* "$T"/s4/* "$T"/s2/* -o "$T/m"
is "$rc" 0 "merge exits 0"
mid=$out
unlike "$err" "warning" "no warning when every shard answered"
run ev "$REC" "$T/m" --resume "$mid"
is "$rc" 0 "the merged batch is finished"
F=$(ls -d "$T"/full/*)
costs() { # costs BATCH: every cost_usd of its JSON files, as written
    (cd "$1" && grep -rho '"cost_usd": *[-0-9.e+]*' --include='*.json' . |
        sort)
}
is "$(costs "$T/m/$mid")" "$(costs "$F")" \
    "every cost the merged batch writes equals the unsharded one's, as text"
ok "$([ "$(costs "$F" | wc -l)" -gt 4 ]; echo $?)" "and there are costs to compare"

# --- a shard whose conversations all errored --------------------------------
for s in 1 3 4; do
    ev "$GOOD" "$T/e$s" --shard "$s/4" >/dev/null 2>&1
done
ev "$DEAD" "$T/e2" --shard 2/4 >"$T/e2.out" 2>&1
is "$?" 4 "shard 2 against a dead endpoint: every conversation errored"
run "$UPSKILL" merge "$T"/e1/* "$T"/e2/* "$T"/e3/* "$T"/e4/* -o "$T/me"
is "$rc" 0 "merge takes it"
like "$err" "warning: shard 2 of 4 ('$(ls -d "$T"/e2/*)'): all " \
    "and warns, naming the shard"
like "$err" "conversations errored" "saying that its conversations errored"
emid=$out
run ev "$REC" "$T/me" --resume "$emid"
is "$rc" 4 "the finishing step reports the errors (exit 4), as eval"
like "$err" "32 of 120 conversation(s) failed" "they are said"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 0 \
    "finishing both merges sent no request at all"

# --- the finishing step needs no API key ------------------------------------
# shards run with a key the model requires; the merged batch is finished
# without it (nothing is sent), while a batch with jobs left still asks
for s in 1 2 3 4; do
    UPSKILL_T1632_KEY=k1632 ev "$GOOD" "$T/k$s" --shard "$s/4" \
        --api-key-env UPSKILL_T1632_KEY >/dev/null 2>&1
done
run "$UPSKILL" merge "$T"/k1/* "$T"/k2/* "$T"/k3/* "$T"/k4/* -o "$T/mk"
kid=$out
unset UPSKILL_T1632_KEY
run ev "$REC" "$T/mk" --resume "$kid" --api-key-env UPSKILL_T1632_KEY
is "$rc" 0 "a merged batch is finished without the API key"
unlike "$err" "no API key" "and no key is asked for"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 0 "still no request sent"
cp -r "$T/full" "$T/cut"
C=$(ls -d "$T"/cut/*)
head -n 20 "$C/journal.jsonl" >"$T/j" && mv "$T/j" "$C/journal.jsonl"
run ev "$REC" "$T/cut" --resume "$(basename "$C")" --api-key-env UPSKILL_T1632_KEY
is "$rc" 4 "a batch with jobs left to send still needs the key"
like "$err" "no API key for" "saying so"
done_testing
