#!/bin/sh
# `eval --inject both --json` (docs/eval.md "Skill discovery vs
# preloading"): stdout is one JSON document, both evals' --json documents
# and the comparison per model, with the numbers the text mode prints.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v jq >/dev/null 2>&1 || fake_skip_all "jq not found"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor"

# As t1720: the student solves a task only with SKILL.md's body in its
# system prompt; discovery +0, preloading +100 points.
cat > "$T/inj.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "system": "The answer is 42."},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "42\n"}}]}},
  {"match": {"assistant_turns": 0, "system": "Write the line as `lines=N bytes=M`"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "out/report.txt", "content": "lines=3 bytes=14\n"}}]}},
  {"match": {"assistant_turns": 0, "user": "answer.txt"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "7\n"}}]}},
  {"match": {"assistant_turns": 0}, "reply": {"text": "I will not do it."}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done."}}
]}
JSON
fake_start "$T/inj.json"
both() { # both RUNS_DIR ARGS...
    _d=$1
    shift
    "$UPSKILL" eval --no-cache --tasks "$H" -m qwen2.5-coder-7b-instruct \
        --base-url "$FAKE_URL/v1" --seed 3 --runs-dir "$_d" --inject both "$@"
}
run both "$T/text"
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    fake_skip_all "bubblewrap cannot run here: $err"
fi
is "$rc" 0 "--inject both exits 0"
text=$out
run both "$T/json" --json
is "$rc" 0 "--inject both --json exits 0 (it was a usage error)"
printf '%s\n' "$out" >"$T/out.json"
is "$(jq -s length "$T/out.json")" 1 "stdout is one JSON document"
is "$(jq -r 'keys_unsorted | join(",")' "$T/out.json")" \
    "catalog,preload,comparison" "the two evals and the comparison"
unlike "$out" "== skill" "the headings are not on stdout"
like "$err" "== skill preloaded (--inject preload), the baseline above ==" \
    "but on stderr, beside the notes"

# each eval's document, as eval --json gives it
ids=$(ls "$T/json" | sort | tr '\n' ' ')
is "$(jq -r '[.catalog.batch_id, .preload.batch_id] | sort | join(" ") + " "' "$T/out.json")" \
    "$ids" "each names its batch"
is "$(jq -c '[.catalog.baseline, .preload.baseline]' "$T/out.json")" \
    "[true,false]" "the preloaded eval has no baseline of its own"
"$UPSKILL" eval --no-cache --tasks "$H" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --seed 3 --runs-dir "$T/one" --inject catalog \
    --json >"$T/one.json" 2>/dev/null
same='del(.batch_id) | walk(if type == "object" then del(.latency_ms) else . end)'
is "$(jq -cS ".catalog | $same" "$T/out.json")" \
    "$(jq -cS "$same" "$T/one.json")" \
    "catalog: the document of eval --inject catalog --json (but its batch and timing)"
is "$(jq -c '.catalog.models[0] | [.lift, .lift_ci, .p_value, .verdict]' "$T/out.json")" \
    "$(jq -c '.comparison[0].discovered_vs_baseline | [.lift, .lift_ci, .p_value, .verdict]' "$T/out.json")" \
    "discovered - baseline is the catalogue eval's own lift"

# the comparison: the numbers the text mode prints
pct='. * 100 | round'
sgn='if . >= 0 then "+\(.)" else "\(.)" end'
like "$text" "$(jq -r ".comparison[0].pass_rates | \"pass rates: baseline \(.baseline | $pct)%, discovered (catalog) \(.discovered | $pct)%, preloaded \(.preloaded | $pct)%\"" "$T/out.json")" \
    "the pass rates"
for k in discovered_vs_baseline preloaded_vs_baseline preloaded_vs_discovered; do
    label=$(printf '%s' "$k" | sed 's/_vs_/ - /')
    want=$(jq -r ".comparison[0].$k | \"\(.lift | $pct | $sgn) points, 95% CI [\(.lift_ci[0] | $pct | $sgn), \(.lift_ci[1] | $pct | $sgn)], p = \(.p_value * 1000 | round / 1000): \(.verdict_text)\"" "$T/out.json")
    like "$text" "$(printf '  %-24s %s' "$label:" "$want")" \
        "$label: lift, interval, p and verdict"
done
is "$(jq -r '.comparison[0].preloaded_vs_discovered.lift' "$T/out.json")" 1 \
    "preloading passes every case discovery fails"

# docs/eval.md's example: each line it shows is what jq finds in the output
DOC="$TOP/docs/eval.md"
for f in '.comparison[] | {model, pass_rates}' \
    '.comparison[0] | to_entries[2:][] | "\(.key): \(.value.lift) \(.value.verdict)"'; do
    grep -qF -- "jq -rc '$f' both.json" "$DOC"
    ok $? "docs/eval.md shows jq -rc '$f'"
    jq -rc "$f" "$T/out.json" >"$T/ex"
    while IFS= read -r want; do
        grep -qF -- "$want" "$DOC"
        ok $? "docs/eval.md shows '$want'"
    done <"$T/ex"
done

# the exit code is the first eval's: a gate that fails
run both "$T/gate" --json --fail-under 0.9
is "$rc" 1 "a gate of the first eval fails the run"
is "$(printf '%s\n' "$out" | jq -c '.comparison | length')" 1 \
    "and the document is printed all the same"
done_testing
