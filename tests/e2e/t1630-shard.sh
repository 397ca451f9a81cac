#!/bin/sh
# --shard I/N (docs/sharding.md): eval runs one deterministic slice of the
# job matrix, keyed on the resolved model id, the case's content and the
# repeat (not on indices), with both arms of a model x case x repeat in one
# shard; the batch is marked as a shard in batch_plan.json.  Four shards
# run in parallel cover the unsharded run's jobs exactly once, with the
# same answers (the scenario's answers depend only on the request).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat > "$T/tests.json" <<'JSON'
[{"input": "case one good", "expected": {"contains": ["GOOD"]}},
 {"input": "case two", "expected": {"contains": ["GOOD"]}},
 {"input": "case three good", "expected": {"contains": ["GOOD"]}},
 {"input": "case four", "expected": {"contains": ["GOOD"]}},
 {"input": "case five good", "expected": {"contains": ["GOOD"]}},
 {"input": "case six", "expected": {"contains": ["GOOD"]}}]
JSON
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"name": "good", "match": {"user": "good"}, "reply": {"text": "GOOD ANSWER"}},
  {"name": "bad", "reply": {"text": "meh"}}]}
JSON
fake_start "$T/s.json"

ev() { # ev RUNS_DIR ARGS...: eval of the suite on two models
    _d=$1
    shift
    "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" \
        --base-url "$FAKE_URL/v1" --runs 2 --seed 7 --runs-dir "$_d" "$@"
}
# jobs DIR...: the journals' jobs as sorted "model arm case repeat answer"
jobs() {
    cat "$@" | jq -r '[.model, .arm, .case, .repeat, .answer] | @tsv' | sort
}

ev "$T/full" -m b -m a >/dev/null 2>&1
is "$?" 0 "the unsharded run exits 0"
pids=
for i in 1 2 3 4; do # models in the other order: the slice does not move
    ev "$T/s$i" -m b -m a --shard "$i/4" >"$T/o$i" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do # not a bare wait: the fake server runs in the background
    wait "$p"
done
n=0
for i in 1 2 3 4; do
    [ -s "$T"/s$i/*/journal.jsonl ] && n=$((n + 1))
done
is "$n" 4 "the four shards each ran jobs"
jobs "$T"/full/*/journal.jsonl >"$T/full.tsv"
jobs "$T"/s*/*/journal.jsonl >"$T/shards.tsv"
is "$(wc -l <"$T/full.tsv" | tr -d ' ')" 48 "the unsharded run has 48 jobs"
ok "$(cmp -s "$T/full.tsv" "$T/shards.tsv"; echo $?)" \
    "the shards together ran each job once, with the unsharded answers"
is "$(jq -c .shard "$T"/s3/*/batch_plan.json)" '{"index":3,"count":4}' \
    "batch_plan.json marks the shard"
is "$(jq -c .shard "$T"/full/*/batch_plan.json)" null \
    "an unsharded batch has no shard mark"
# both arms of each model x case x repeat in the same shard
split=0
for i in 1 2 3 4; do
    jq -r '[.model, .case, .repeat] | @tsv' "$T"/s$i/*/journal.jsonl |
        sort | uniq -c | grep -qv '^ *2 ' && split=1
done
is "$split" 0 "both arms of a case stay in one shard"
ev "$T/again" -m a -m b --shard 3/4 >/dev/null 2>&1
is "$(jobs "$T"/again/*/journal.jsonl | cut -f1-4)" \
    "$(jobs "$T"/s3/*/journal.jsonl | cut -f1-4)" \
    "the same shard of the same suite is the same slice"

# upskill merge (docs/sharding.md): the shards' journals in a new batch
# with the unsharded batch_plan.json, finished by --resume, which sends
# nothing (the server is gone) and writes the unsharded batch
run "$UPSKILL" merge "$T"/s4/* "$T"/s2/* "$T"/s1/* "$T"/s3/* -o "$T/m"
is "$rc" 0 "merge of the four shards exits 0"
mid=$out
is "$(ls "$T/m")" "$mid" "it prints the new batch's id"
like "$err" "--resume $mid" "and says how to finish it"
is "$(jq -c .shard "$T/m/$mid/batch_plan.json")" null \
    "the merged plan has no shard mark"
is "$(jobs "$T/m/$mid/journal.jsonl")" "$(cat "$T/full.tsv")" \
    "the merged journal holds every job once"
run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m b -m a \
    --base-url "http://127.0.0.1:1/v1" --runs 2 --seed 7 \
    --runs-dir "$T/m" --resume "$mid"
is "$rc" 0 "the merged shards finish without a request"
# content: without batch ids, timestamps and timings, lines in any order,
# and the plan's mark of a merge
norm() {
    jq -cS 'walk(if type == "object" then del(.batch_id, .latency_ms, .timestamp,
                 .conversation_span_ms, .llm_time_ms, .merged)
             else . end)' "$1" | sort
}
F=$(ls -d "$T"/full/*)
diffs=0
for f in $(cd "$F" && find . -name '*.json' -o -name '*.jsonl' | sort); do
    [ "$(norm "$F/$f")" = "$(norm "$T/m/$mid/$f")" ] || {
        echo "# differs: $f"
        diffs=$((diffs + 1))
    }
done
is "$diffs" 0 "the merged batch equals the unsharded one in content"

# merge refuses shards that do not belong together, and leaves no batch
refuse() { # refuse PATTERN NAME BATCH...: merge exits 3 saying PATTERN
    rf_p=$1 rf_n=$2
    shift 2
    run "$UPSKILL" merge "$@" -o "$T/bad"
    is "$rc" 3 "merge refuses $rf_n"
    like "$err" "$rf_p" "naming it ($rf_n)"
}
refuse "shards 2, 4 of 4 missing" "a gap" "$T"/s1/* "$T"/s3/*
refuse "shard 4 of 4 missing" "a missing shard" "$T"/s1/* "$T"/s2/* "$T"/s3/*
refuse "are both shard 3 of 4" "a shard twice" \
    "$T"/s1/* "$T"/s2/* "$T"/s3/* "$T"/s3/* "$T"/s4/*
refuse "not a shard: " "a batch that is not a shard" \
    "$T"/full/* "$T"/s1/* "$T"/s2/* "$T"/s3/* "$T"/s4/*
sed 's/case two/case deux/' "$T/tests.json" >"$T/tests2.json"
"$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests2.json" -m b -m a \
    --base-url "$FAKE_URL/v1" --runs 2 --seed 7 --shard 2/4 \
    --runs-dir "$T/other" >/dev/null 2>&1
refuse "its test suite differs" "a shard of another suite" \
    "$T"/s1/* "$T"/other/* "$T"/s3/* "$T"/s4/*
is "$(ls "$T/bad" 2>/dev/null | wc -l | tr -d ' ')" 0 \
    "a refused merge leaves no batch"

# the seed is recorded: shards of another --seed are refused, naming it
"$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m b -m a \
    --base-url "$FAKE_URL/v1" --runs 2 --seed 8 --shard 4/4 \
    --runs-dir "$T/seed8" >/dev/null 2>&1
is "$(jq .seed "$T"/seed8/*/batch_plan.json)" 8 "batch_plan.json records --seed"
refuse "its statistics seed (--seed) differs (8, not 7)" \
    "a shard of another seed" "$T"/s1/* "$T"/s2/* "$T"/s3/* "$T"/seed8/*
# a shard written before the seed was recorded matches any seed
cp -R "$T/seed8" "$T/noseed"
nf=$(ls "$T"/noseed/*/batch_plan.json)
jq -c 'del(.seed)' "$nf" >"$nf.new" && mv "$nf.new" "$nf"
sid=$("$UPSKILL" merge "$T"/s1/* "$T"/s2/* "$T"/s3/* "$T"/noseed/* \
    -o "$T/ms" 2>/dev/null)
ok $? "a shard without a recorded seed merges with the others"

# a torn last line of an interrupted shard is left out of the merge
cp -R "$T/s2" "$T/torn"
printf '{"model": "generic.a", "ar' >>"$(ls "$T"/torn/*/journal.jsonl)"
tid=$("$UPSKILL" merge "$T"/s1/* "$T"/torn/* "$T"/s3/* "$T"/s4/* \
    -o "$T/mt" 2>/dev/null)
is "$(jobs "$T/mt/$tid/journal.jsonl")" "$(cat "$T/full.tsv")" \
    "a torn journal line is not merged"

# a shard batch resumes only as the same shard
b3=$(basename "$(ls -d "$T"/s3/*)")
run ev "$T/s3" -m b -m a --shard 2/4 --resume "$b3"
is "$rc" 3 "resuming shard 3 as shard 2 is refused"
like "$err" "shard (--shard) differs" "naming the shard"
run ev "$T/s3" -m b -m a --resume "$b3"
is "$rc" 3 "resuming a shard without --shard is refused"
like "$err" "shard (--shard) differs" "naming the shard again"
run ev "$T/s3" -m b -m a --shard 3/4 --resume "$b3"
is "$rc" 0 "resuming it as the same shard works"
run ev "$T/s3" -m b -m a --shard 3/4 --resume "$b3" --seed 9
is "$rc" 3 "resuming it with another --seed is refused"
like "$err" "statistics seed (--seed) differs from the batch's (batch: 7, now: 9)" "naming both seeds"
# an older batch, without the seed in its plan, still resumes
b4=$(basename "$(ls -d "$T"/noseed/*)")
run ev "$T/noseed" -m b -m a --shard 4/4 --resume "$b4" --seed 3
is "$rc" 0 "a batch without a recorded seed resumes with any --seed"
is "$(jq .seed "$T/noseed/$b4/batch_plan.json")" null "and its plan is kept as it was"

for bad in 0/4 5/4 4 1/0 x/2 2/4x; do
    run "$UPSKILL" eval "$T/sk" -t "$T/tests.json" -m a --shard "$bad"
    is "$rc" 2 "--shard $bad is a usage error"
done
like "$err" "expected I/N with 1 <= I <= N" "and says what was expected"

done_testing
