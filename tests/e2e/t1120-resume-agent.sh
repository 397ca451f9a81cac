#!/bin/sh
# --resume of an agent-mode batch (issue 22 items 10 and 11): a landed
# conversation's verdicts (file assertions, a command check and its
# output), its tool and activation counts and its artifact come back from
# the journal, so a resume sends only the missing conversations' requests;
# an answer cut at max_tokens (finish_reason length) is recorded per
# conversation in the journal, --json and the artifact, and survives it.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [
  {"input": "question one", "context": {"files": {"notes.txt": "NOTE-1"}},
   "expected": {"contains": []},
   "assert": [{"type": "file-contains", "file": "answer.txt", "value": "GOOD"},
              {"type": "command", "value": "grep GOOD answer.txt"}]},
  {"input": "question two", "expected": {"contains": ["good"]}},
  {"input": "question three", "expected": {"contains": ["cut"]}}
]}
JSON

# The skill arm reads SKILL.md and writes the good file (3 requests), the
# baseline writes a bad one (2 requests); case three is answered at once
# by a reply cut at the output cap (1 request).
cat > "$T/s.json" <<'JSON'
{"rules": [
  {"match": {"user": "question three"},
   "reply": {"text": "cut short", "finish_reason": "length",
     "usage": {"input_tokens": 20, "output_tokens": 77}}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/student/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "read_file", "arguments": {"path": ".agents/skills/student/SKILL.md"}},
      {"name": "read_file", "arguments": {"path": "notes.txt"}}],
     "usage": {"input_tokens": 40, "output_tokens": 10}}},
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "no idea"}}],
     "usage": {"input_tokens": 30, "output_tokens": 10}}},
  {"match": {"assistant_turns": 1, "tool_result": "Answer with the words GOOD ANSWER"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "GOOD ANSWER"}}],
     "usage": {"input_tokens": 60, "output_tokens": 10}}},
  {"match": {"assistant_turns": 2},
   "reply": {"text": "GOOD ANSWER", "usage": {"input_tokens": 80, "output_tokens": 5}}},
  {"match": {"last_role": "tool"},
   "reply": {"text": "no idea", "usage": {"input_tokens": 50, "output_tokens": 5}}}
]}
JSON

fake_start "$T/s.json" --record "$T/rec.jsonl"
ev() {
    run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
        --base-url "$FAKE_URL/v1" --agent --sandbox none -j 1 --max-tokens 77 \
        --runs-dir "$T/runs" --json "$@"
}
# the "agent" object of the arm named $2 in --json output $1, one line
agent_of() {
    printf '%s\n' "$1" | tr -d ' \n' | sed 's/"\(with_skill\|baseline\)":{/\n&/g' |
        grep "^\"$2\"" | head -1 | sed 's/.*"agent":\({[^}]*}\).*/\1/'
}

# --- a whole batch: the reference ---------------------------------------
ev
is "$rc" 0 "the agent-mode eval exits 0"
is "$(wc -l < "$T/rec.jsonl" | tr -d ' ')" 12 "12 requests for 6 conversations"
full=$out
skill_agent=$(agent_of "$full" with_skill)
base_agent=$(agent_of "$full" baseline)
like "$skill_agent" '"skill_read":2' "SKILL.md was read in two skill-arm conversations"
like "$full" '"cut_answers": 1' "each arm counts its cut answer"
like "$(printf '%s' "$full" | tr -d ' \n')" \
    '"cut_conversations":[{"case":3,"arm":"baseline","repeat":1,"cut_at":77},{"case":3,"arm":"with_skill","repeat":1,"cut_at":77}]' \
    "--json lists the cut conversations"
batch=$(ls "$T/runs")
B="$T/runs/$batch"
like "$(grep '"case":2,' "$B/journal.jsonl")" '"cut_at":77' "the journal records the cut"
like "$(grep '"case":0,' "$B/journal.jsonl" | grep with_skill)" '"verdicts":[' \
    "the journal keeps a workspace case's verdicts"
art="$B/run_2/cases/transcripts.jsonl"
like "$(sed -n 3p "$art")" '"cut_at":77' "the artifact records the cut"
like "$(sed -n 1p "$art")" '"output":"--- stdout ---' "the check's output is in the artifact"
like "$(sed -n 1p "$art")" '"cut_at":null' "an answer not cut says null"
cp "$art" "$T/skill-art.jsonl"

# --- interrupted: the baseline's first two conversations never landed ------
# (as a Ctrl-C leaves a batch: no run folders, no summary, a journal cut short)
grep -v -e '"arm":"baseline","case":0,' -e '"arm":"baseline","case":1,' \
    "$B/journal.jsonl" > "$T/j" && mv "$T/j" "$B/journal.jsonl"
rm -rf "$B"/run_* "$B/batch_summary.json"
n0=$(wc -l < "$T/rec.jsonl")
ev --resume "$batch"
is "$rc" 0 "--resume of the agent batch exits 0"
is "$(($(wc -l < "$T/rec.jsonl") - n0))" 4 \
    "only the two missing conversations are sent (2 + 2 requests)"
is "$(agent_of "$out" with_skill)" "$skill_agent" \
    "the skill arm's activation and tool counts cover the restored conversations"
is "$(agent_of "$out" baseline)" "$base_agent" \
    "the baseline's cover restored and re-run ones"
like "$out" '"pass_rate": 1.0' "the restored workspace case passes from its verdicts"
like "$out" '"checks_passed": 1' "the restored command check counts"
like "$out" '"cut_answers": 1' "the restored cut answers are counted"
like "$(printf '%s' "$out" | tr -d ' \n')" '"cut_conversations":[{"case":3,"arm":"baseline"' \
    "--json lists the restored cut conversation"
like "$err" "answer(s) were cut at max_tokens 77" "the warning counts the restored cuts"
ok "$(cmp -s "$art" "$T/skill-art.jsonl"; echo $?)" \
    "the restored conversations' artifacts are rebuilt as they were"
like "$(grep -c '"cut_at":77' "$B/journal.jsonl")" 2 "the journal keeps the cuts"

# --- verdicts that do not fit the case (one too many): it runs again -------
sed -e '/"arm":"with_skill","case":0,/s/"verdicts":\[/&{"status":1,"message":"x"},/' \
    "$B/journal.jsonl" > "$T/j" && mv "$T/j" "$B/journal.jsonl"
rm -rf "$B"/run_* "$B/batch_summary.json"
n0=$(wc -l < "$T/rec.jsonl")
ev --resume "$batch"
is "$rc" 0 "--resume with verdicts that do not fit exits 0"
is "$(($(wc -l < "$T/rec.jsonl") - n0))" 3 \
    "a line whose verdicts do not fit its case runs it again (3 requests)"
is "$(agent_of "$out" with_skill)" "$skill_agent" \
    "the re-run conversation is counted once"
n0=$(wc -l < "$T/rec.jsonl")
ev --resume "$batch"
is "$(($(wc -l < "$T/rec.jsonl") - n0))" 0 \
    "then its later line, with verdicts that fit, restores it"

# --- an older journal (no verdicts): the workspace case runs again -------
sed -e 's/,"agent":{.*}$/}/' "$B/journal.jsonl" > "$T/j" && mv "$T/j" "$B/journal.jsonl"
rm -rf "$B"/run_* "$B/batch_summary.json"
n0=$(wc -l < "$T/rec.jsonl")
ev --resume "$batch"
is "$rc" 0 "--resume of an older journal exits 0"
is "$(($(wc -l < "$T/rec.jsonl") - n0))" 5 \
    "entries without verdicts re-run their workspace case (3 + 2 requests)"
like "$out" '"pass_rate": 1.0' "and it passes again"

# --- the other wires' cut: stop_reason max_tokens, status incomplete -----
printf '%s\n' '{"cases": [{"input": "question three", "expected": {"contains": ["cut"]}}]}' \
    > "$T/t3.json"
export ANTHROPIC_API_KEY=sk-ant-PLANTED-e2e-1120 OPENAI_API_KEY=sk-PLANTED-e2e-1120
for m in anthropic.claude-haiku-4-5 responses.gpt-5.1.high; do
    url=$FAKE_URL/v1
    [ "$m" = responses.gpt-5.1.high ] || url=
    ANTHROPIC_BASE_URL="$FAKE_URL" run "$UPSKILL" eval --no-cache "$SKILL" \
        -t "$T/t3.json" -m "$m" ${url:+--base-url "$url"} --agent \
        --max-tokens 77 --runs-dir "$T/runs-$m" --json
    is "$rc" 0 "$m: the eval exits 0"
    like "$out" '"cut_answers": 1' "$m: the cut answer is counted per arm"
    like "$(cat "$T/runs-$m"/*/journal.jsonl)" '"cut_at":77' \
        "$m: the journal records the cut"
done

like "$(cat "$T/rec.jsonl")" '"path":"/v1/messages"' "the Anthropic wire was asked"
like "$(cat "$T/rec.jsonl")" '"path":"/v1/responses"' "the Responses wire was asked"
done_testing
