#!/bin/sh
# Agent mode (issue 11): the tool loop on both wires, streaming and not,
# a workspace per conversation (context files as files, the skill
# installed in the skill arm only, removed afterwards), progressive
# disclosure (the catalogue; the model reads SKILL.md itself), the
# activation report, upstream's tool fields in run_result.json, and the
# limits that end a conversation with a reason.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
SKILL="$FIX/eval/student"
KEY=sk-ant-PLANTED-e2e-1200
export ANTHROPIC_API_KEY="$KEY" UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

cat > "$T/t.json" <<'JSON'
{"cases": [
  {"input": "question one", "context": {"files": {"notes.txt": "NOTE-1"}},
   "expected": {"contains": []},
   "assert": [{"type": "file-contains", "file": "answer.txt", "value": "GOOD"}]},
  {"input": "question two", "expected": {"contains": ["good"]}}
]}
JSON

# The skill arm sees the catalogue, reads SKILL.md and the context file in
# one turn (parallel calls), writes the answer file, then answers; the
# baseline writes a bad file.
cat > "$T/s.json" <<'JSON'
{"seed": 3, "rules": [
  {"match": {"tools": false}, "reply": {"text": "chat reply, no tools"}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/student/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "read_file", "arguments": {"path": ".agents/skills/student/SKILL.md"}},
      {"name": "read_file", "arguments": {"path": "notes.txt"}},
      {"name": "list_files", "arguments": {}}],
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
   "reply": {"text": "GOOD ANSWER", "reasoning": "thinking hard",
     "usage": {"input_tokens": 80, "output_tokens": 5, "reasoning_tokens": 3}}},
  {"match": {"last_role": "tool"},
   "reply": {"text": "no idea", "usage": {"input_tokens": 50, "output_tokens": 5}}}
]}
JSON

# --- OpenAI wire, streaming ------------------------------------------------
fake_start "$T/s.json" --record "$T/rec.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --runs-dir "$T/runs" --json
is "$rc" 0 "an agent-mode eval exits 0"
like "$out" '"skill_read": 2' "SKILL.md was read in both skill-arm conversations"
like "$out" '"activation": 1' "activation is reported in --json"
like "$out" '"pass_rate": 1.0' "the skill arm passes through its tools"
like "$out" '"pass_rate": 0.0' "the baseline fails"
rec=$(cat "$T/rec.jsonl")
like "$rec" '"role":"tool"' "tool results go back as role tool"
like "$rec" '"tool_call_id"' "each result answers its call"
like "$rec" 'NOTE-1' "the context file is read through a tool"
unlike "$(grep -v '"role":"tool"' "$T/rec.jsonl" | grep 'NOTE-1')" 'question one' \
    "the context file is not pasted into the prompt in agent mode"
is "$(grep -c 'thinking hard' "$T/rec.jsonl")" 0 \
    "reasoning is not sent back and stays out of the answer"
batch=$(ls "$T/runs")
res="$T/runs/$batch/run_2/run_result.json"
like "$(cat "$res")" '"tool_calls": 8' "run_result counts the skill arm's tool calls"
like "$(cat "$res")" '"tool_errors": 1' "a missing file is a tool error"
like "$(cat "$res")" '"read_file": 4' "tool_call_map per tool"
like "$(cat "$res")" '"execute_calls": 8' "execute_calls: every call (none is MCP)"
like "$(cat "$res")" '"turns": 2' "turns keeps upstream's meaning: one per case"
like "$(cat "$res")" '"model_turns": 6' "model turns are counted apart"
like "$(cat "$res")" '"reasoning_tokens": 6' "reasoning is counted"
like "$(cat "$res")" '"input_tokens": 360' "tokens are summed over every turn"
is "$(ls "$T/tmp" | wc -l | tr -d ' ')" 0 "every workspace is removed after grading"
n0=$(wc -l < "$T/rec.jsonl")
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --runs-dir "$T/runs" --json --resume "$batch"
is "$rc" 0 "--resume of an agent batch exits 0"
like "$out" '"pass_rate": 1.0' "a restored workspace case passes, not failed"
is "$(($(wc -l < "$T/rec.jsonl") - n0))" 0 \
    "nothing is sent again: the journal holds the workspace case's verdicts"
like "$out" '"skill_read": 2' "restored conversations keep their activation"

# --- Anthropic wire, streaming ---------------------------------------------
ANTHROPIC_BASE_URL="$FAKE_URL" run "$UPSKILL" eval --no-cache "$SKILL" \
    -t "$T/t.json" -m anthropic.claude-haiku-4-5 --agent --no-log-runs -v
is "$rc" 0 "agent mode over the Anthropic wire exits 0"
like "$out" "skill read in 2 of 2 conversations (100%)" "activation in words"
like "$(cat "$T/rec.jsonl")" '"tool_result"' "tool results as tool_result blocks"
like "$(cat "$T/rec.jsonl")" '"tool_use_id"' "each answers its tool_use"

# --- OpenAI wire, one JSON body (a server that does not stream) -----------
sed 's/"usage"/"stream": false, "usage"/g' "$T/s.json" > "$T/s2.json"
fake_start "$T/s2.json" --record "$T/rec2.jsonl"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-log-runs --json
is "$rc" 0 "agent mode over unstreamed replies exits 0"
like "$out" '"skill_read": 2' "the unstreamed tool calls reach the tools"

# --- without --agent: chat for chat cases, a loop for workspace cases ------
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --json
is "$rc" 0 "a suite with a workspace assertion runs without --agent"
like "$out" '"conversations": 1' "only the workspace case ran as an agent"

# --- the catalogue only with --agent; preload puts the body in the prompt --
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --inject catalog
is "$rc" 2 "--inject catalog needs --agent"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --agent --inject preload --json
is "$rc" 0 "--inject preload runs"
like "$(cat "$T/rec2.jsonl")" '## Skill: student' "preload: the body is in the system prompt"

# --- limits end a conversation with a reason; the run goes on --------------
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --agent --max-turns 1 -v
is "$rc" 0 "a turn limit is no provider error"
like "$err$out" "turn limit: 1 model turns without a final answer" \
    "the limit is the case's failure reason"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --agent --token-budget 10 --json
like "$out" '"limited": 2' "a token budget ends conversations"
# a turn that takes 1.1 s against a 1 s limit: ended after that turn
sed 's/"usage"/"delay_ms": 1100, "usage"/' "$T/s.json" > "$T/slow.json"
fake_start "$T/slow.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --no-log-runs --agent --no-baseline \
    --time-limit 1 -j 4 -v
is "$rc" 0 "a time limit is no provider error"
like "$out" "time limit: " "the wall-clock limit ends a conversation with its reason"

# --- agent students: the lift and the activation rate through the tools ---
json_num() { # json_num KEY TEXT N: the Nth number after "KEY":
    printf '%s\n' "$2" | grep "\"$1\":" | sed -n "${3:-1}p" |
        sed 's/.*: *\([-0-9.eE+]*\).*/\1/'
}
within() { # within LO X HI
    awk -v lo="$1" -v x="$2" -v hi="$3" 'BEGIN { exit !(lo <= x && x <= hi) }'
}
wilson() { # wilson K N: the 95% Wilson interval "LO HI" of K in N
    awk -v k="$1" -v n="$2" 'BEGIN { z = 1.96; p = k / n; d = 1 + z*z/n;
        c = (p + z*z/(2*n)) / d; h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / d;
        print c - h, c + h }'
}
agent_student() { # agent_student P_REFERENCE SEED [REPLY-KEYS]
    cat > "$T/ag.json" <<JSON
{"seed": $2, "rules": [
  {"agent": {"skill": "student", "reference": "SKILL.md", "file": "answer.txt",
             "content": {"good": "GOOD ANSWER", "bad": "no idea"},
             "p_activate": 0.7, "p_reference": $1,
             "p_good": {"none": 0.2, "skill": 0.4, "reference": 0.9},
             "answer": "GOOD ANSWER"},
   "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}$3}}]}
JSON
}
{
    printf '{"cases": ['
    for i in $(seq 1 30); do
        [ "$i" = 1 ] || printf ','
        printf '{"input": "question %d", "expected": {"contains": []}, ' "$i"
        printf '"assert": [{"type": "file-contains", "file": "answer.txt", '
        printf '"value": "GOOD"}]}'
    done
    printf ']}\n'
} > "$T/t30.json"
# check_agent LABEL P_SKILL OUT: the arms' intervals and the activation
check_agent() {
    lo=$(json_num ci_low "$3" 1); hi=$(json_num ci_high "$3" 1)
    within "$lo" "$2" "$hi"; ok $? "$1: with-skill interval [$lo, $hi] holds $2"
    lo=$(json_num ci_low "$3" 2); hi=$(json_num ci_high "$3" 2)
    within "$lo" 0.2 "$hi"; ok $? "$1: baseline interval [$lo, $hi] holds 0.2"
    k=$(json_num skill_read "$3" 1); n=$(json_num conversations "$3" 2)
    set -- "$1" $(wilson "$k" "$n")
    within "$2" 0.7 "$3"; ok $? "$1: activation $k of $n, interval [$2, $3] holds 0.7"
}

# the reference makes the lift: 0.3 x 0.2 + 0.7 x 0.9 = 0.69 with it
agent_student 1 21
fake_start "$T/ag.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t30.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --runs 3 -j 8 --no-log-runs --json
is "$rc" 0 "an agent-student eval exits 0"
check_agent "openai, streamed" 0.69 "$out"

# SKILL.md alone helps less: 0.3 x 0.2 + 0.7 x 0.4 = 0.34 (unstreamed)
agent_student 0 12 ', "stream": false'
fake_start "$T/ag.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t30.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --runs 3 -j 8 --no-log-runs --json
check_agent "openai, one body, no reference" 0.34 "$out"

agent_student 1 13
fake_start "$T/ag.json"
ANTHROPIC_BASE_URL="$FAKE_URL" run "$UPSKILL" eval --no-cache "$SKILL" \
    -t "$T/t30.json" -m anthropic.claude-haiku-4-5 --agent --runs 3 -j 8 \
    --no-log-runs --json
check_agent "anthropic, streamed" 0.69 "$out"

# benchmark: activation per model
agent_student 1 14
fake_start "$T/ag.json"
run "$UPSKILL" benchmark "$SKILL" -t "$T/t.json" -m local -m local2 \
    --base-url "$FAKE_URL/v1" --agent --runs 2 -o "$T/bench-runs"
is "$rc" 0 "benchmark --agent exits 0"
is "$(printf '%s\n' "$out" | grep -c 'skill read in')" 2 \
    "benchmark reports activation per model"

# a skill never opened: the report says why in words
sed 's/"p_activate": 0.7/"p_activate": 0/' "$T/ag.json" > "$T/ag0.json"
fake_start "$T/ag0.json"
run "$UPSKILL" eval --no-cache "$SKILL" -t "$T/t.json" -m local \
    --base-url "$FAKE_URL/v1" --agent --no-log-runs
like "$out" "skill read in 0 of 2 conversations (0%): its description never made the model open SKILL.md" \
    "a skill never activated has a description problem, in words"

# --- generate evaluates its students through the same loop ----------------
rm -f "$T/rec-g.jsonl"
fake_start "$TOP/tests/fixtures/gen/plain.json" --record "$T/rec-g.jsonl"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write commit messages" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    -o "$T/g/commit-helper" --no-log-runs --agent --max-turns 3
is "$rc" 0 "generate --agent exits 0"
is "$(grep -c '"tools":\[' "$T/rec-g.jsonl")" 16 \
    "every student conversation is offered the tools"
like "$(cat "$T/rec-g.jsonl")" '<location>.agents/skills/' \
    "the skill arm sees the catalogue"
run "$UPSKILL" generate "x" --inject preload --no-eval
is "$rc" 2 "generate --inject needs --agent"

# --- make demo-agent: the example skill whose value is in its reference ---
HOME="$T" run sh "$TOP/scripts/demo-agent.sh"
is "$rc" 0 "the agent demo exits 0"
like "$out" "skill read in" "it reports activation"
like "$out" "a reference file in" "and the reference reads behind the lift"
like "$out" "verdict: beneficial" "the lift shows in agent mode"

done_testing
