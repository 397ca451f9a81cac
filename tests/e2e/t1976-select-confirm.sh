#!/bin/sh
# select --confirm (docs/select.md, "All candidates at once"): after the
# decision, the chosen candidate's and the runner-up's models run again
# on fresh repeats (no cache, no batch reused, the next seed) and the
# decision is made on those runs alone, saying so; the other models are
# not run again.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export OPENAI_API_KEY=sk-e2e-1976 UPSKILL_CONFIG="$T/config.yaml"
cd "$T" || exit 1

mkdir -p "$T/sk"
cp "$FIX/eval/student/SKILL.md" "$T/sk/"
cat >"$T/config.yaml" <<'YAML'
prices:
  big: {input: 15, output: 75}
  mid: {input: 3, output: 15}
  small: {input: 0.1, output: 0.4}
YAML
rule() { # rule MODEL P_WITH P_WITHOUT
    printf '{"match": {"model": "%s"}, "student": {"p_with": %s, "p_without": %s, "default": {"good": "GOOD ANSWER", "bad": "no idea"}}, "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}' "$1" "$2" "$3"
}
printf '{"rules": [%s, %s, %s]}\n' "$(rule big 1 1)" "$(rule mid 1 0)" "$(rule small 0 0)" >"$T/s.json"
{
    printf '['
    for i in $(seq 1 30); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"input": "question %s", "expected": {"contains": ["GOOD"]}}' "$i"
    done
    printf ']\n'
} >"$T/t30.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"
sel() {
    run "$UPSKILL" select "$T/sk" -t "$T/t30.json" --base-url "$FAKE_URL/v1" \
        -m big -m mid -m small --runs-dir "$T/runs" --target 0.8 "$@"
}

sel --confirm
is "$rc" 0 "select --confirm exits 0"
like "$out" "confirmation, decided on it alone (fresh repeats: no cache, seed 2; the first choice was generic.mid with the skill):" \
    "the confirmation says it decides alone, on fresh repeats"
is "$(printf '%s\n' "$out" | grep -c '^chosen: generic.mid with the skill')" 2 \
    "mid with the skill is chosen, and chosen again"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 300 \
    "3 models x 2 arms x 30 cases, then big and mid again: 180 + 120"
is "$(tail -n 120 "$T/rec.jsonl" | jq -r .body.model | sort -u | tr '\n' ' ')" "big mid " \
    "the confirmation runs the chosen's and the runner-up's models only"
like "$err" "running generic.mid now: --fresh" "no batch is reused for it"

: >"$T/rec.jsonl"
sel --confirm --json
is "$rc" 0 "--json --confirm exits 0"
is "$(printf '%s' "$out" | jq -r '.confirmation.first_choice')" "generic.mid with the skill" \
    "--json: one document, the confirmation's, naming the first choice"
is "$(printf '%s' "$out" | jq -r '.chosen.model')" generic.mid "--json: the confirmed choice"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 120 \
    "the first decision reused the runs folder; the confirmation sent all afresh"

done_testing
