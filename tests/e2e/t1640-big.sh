#!/bin/sh
# Case artifacts streamed as the jobs land (session_artifact.c; bench/
# README.md "Memory of large runs"): settled conversations are written to
# a scratch file at once and copied into their run folders at the end,
# the rest built then.  Whatever order the conversations finish in, each
# run folder holds a line per case in case order with its own run
# number; a line longer than the read-back window comes back whole; the
# scratch file leaves nothing behind.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
printf 'artifact_max_bytes: 2000000\nmax_answer_bytes: 2000000\n' > "$T/cfg.yaml"
export UPSKILL_CONFIG="$T/cfg.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
# 40 cases: every 7th answers late (lands after later cases), case 5
# fails, case 9 answers 600 KB (longer than the 256 KiB window).
awk 'BEGIN { printf "["; for (i = 1; i <= 40; i++) {
    w = i % 7 == 0 ? "slow" : i == 5 ? "boom" : i == 9 ? "huge" : "fast";
    printf "%s{\"input\": \"case %d %s\", \"expected\": {\"contains\": [\"GOOD\"]}}",
        (i > 1 ? "," : ""), i, w }
    print "]" }' > "$T/tests.json"
huge=$(head -c 600000 /dev/zero | tr '\0' x)
cat > "$T/s.json" <<JSON
{"rules": [
  {"name": "slow", "match": {"user": "slow"},
   "reply": {"text": "GOOD slow", "delay_ms": 300}},
  {"name": "boom", "match": {"user": "boom"},
   "reply": {"status": 400, "error_message": "bad request here"}},
  {"name": "huge", "match": {"user": "huge"}, "reply": {"text": "GOOD $huge"}},
  {"name": "fast", "reply": {"text": "GOOD fast"}}]}
JSON
fake_start "$T/s.json"

run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/tests.json" -m local \
    --base-url "$FAKE_URL/v1" --runs 2 -j 8 --runs-dir "$T/runs"
is "$rc" 4 "the eval ran to the end (exit 4: a conversation failed)"
batch=$(ls "$T/runs")
B="$T/runs/$batch"

order=0 numbers=0
for n in 1 2 3 4; do
    f="$B/run_$n/cases/transcripts.jsonl"
    got=$(sed 's/^{"case":\([0-9]*\),.*/\1/' "$f" | tr '\n' ' ')
    [ "$got" = "$(seq 1 40 | tr '\n' ' ')" ] || order=1
    [ "$(grep -c "\"run_number\":$n," "$f")" = 40 ] || numbers=1
done
is "$order" 0 "each run folder lists its 40 cases in case order"
is "$numbers" 0 "each artifact names its own run folder's number"
a=$(sed -n 7p "$B/run_2/cases/transcripts.jsonl")
like "$a" '"content":"GOOD slow"' "a late conversation's answer is in its artifact"
like "$a" '"passed":true' "and its verdict"
a=$(sed -n 5p "$B/run_1/cases/transcripts.jsonl")
like "$a" '"error":"' "the failed conversation's artifact has its error"
a=$(sed -n 9p "$B/run_4/cases/transcripts.jsonl")
like "$a" "GOOD $huge\"" "a line longer than the read-back window comes back whole"
like "$(sed -n 10p "$B/run_4/cases/transcripts.jsonl")" '"case":10,' \
    "and the line after it follows"
is "$(ls -A "$B" | grep -c '^\.cases')" 0 "no scratch file is left in the batch"
is "$(sed 's/"latency_ms":[0-9.e+-]*//' "$B/run_1/cases/transcripts.jsonl" |
    sort -u | wc -l | tr -d ' ')" 40 "no artifact is written twice"

done_testing
