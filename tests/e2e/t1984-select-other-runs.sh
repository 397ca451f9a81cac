#!/bin/sh
# upskill select after `eval --runs 5` (issue 34 item 6): select at its
# default --runs 1 cannot reuse the batch (another --runs), and used to
# re-run everything without a word.  It now says which finished batch
# covers the model at which --runs, and the flag that reuses it; with
# that flag it is reused and nothing is sent.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1984 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
printf 'prices:\n  mid: {input: 3, output: 15}\n' > "$T/config.yaml"
cat > "$T/s.json" <<'JSON'
{"rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
printf '[{"input": "q1", "expected": {"contains": ["GOOD"]}}, {"input": "q2", "expected": {"contains": ["GOOD"]}}, {"input": "q3", "expected": {"contains": ["GOOD"]}}]\n' > "$T/t.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"
nreq() { wc -l < "$T/rec.jsonl" | tr -d ' '; }

run "$UPSKILL" eval --no-cache "$T/sk" -t "$T/t.json" -m mid \
    --base-url "$FAKE_URL/v1" --runs 5 --runs-dir "$T/runs"
is "$rc" 0 "eval --runs 5"
batch=$(ls "$T/runs")
before=$(nreq)

run "$UPSKILL" select --no-cache "$T/sk" -t "$T/t.json" -m mid \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" --target 0.5
like "$err" "a finished batch covers generic.mid at --runs 5: '$T/runs/$batch' (this select asks for --runs 1); add --runs 5 to reuse it instead of running it now" \
    "select says a batch at another --runs covers the model, and how to reuse it"
like "$err" "running generic.mid now" "(it runs it now, as asked)"
ran=$(nreq)
ok "$([ "$ran" -gt "$before" ] && echo 0 || echo 1)" "(requests were sent)"

run "$UPSKILL" select --no-cache "$T/sk" -t "$T/t.json" -m mid \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" --target 0.5 --runs 5
like "$err" "reused $T/runs/$batch for generic.mid" "with --runs 5 the batch is reused"
is "$(nreq)" "$ran" "and nothing is sent"

run "$UPSKILL" select --no-cache "$T/sk" -t "$T/t.json" -m mid \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" --target 0.5 --fresh
unlike "$err" "a finished batch covers" "--fresh: no such note"

done_testing
