#!/bin/sh
# Harbor tasks (issue 24, docs/harbor.md, docs/statistics.md): the eval
# shows SkillsBench's across-task view beside our verdict (text, --json's
# "skillsbench", the HTML report), and a sweep of the tasks x 2 arms runs
# under --shard I/N and merges like any other eval (the suite's hash of a
# --tasks suite is the same in every shard).
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
H="$FIX/harbor"

# the skill arm solves both runnable tasks; the baseline only the first
# (half-credit: 42 without the skill too), not report-app
cat > "$T/sc.json" <<'JSON'
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/report-writer/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "out/report.txt", "content": "lines=3 bytes=14\n"}}]}},
  {"match": {"assistant_turns": 0, "system": "<location>.agents/skills/answer-finder/SKILL.md</location>"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "42\n"}}]}},
  {"match": {"assistant_turns": 0, "user": "answer.txt"},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "answer.txt", "content": "42\n"}}]}},
  {"match": {"assistant_turns": 0}, "reply": {"text": "I will not do it."}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done."}}
]}
JSON
fake_start "$T/sc.json"
ev() { # ev RUNS_DIR ARGS...
    _d=$1
    shift
    "$UPSKILL" eval --no-cache --tasks "$H" -m qwen2.5-coder-7b-instruct \
        --base-url "$FAKE_URL/v1" --seed 3 --runs-dir "$_d" "$@"
}
run ev "$T/full"
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    fake_skip_all "bubblewrap cannot run here: $err"
fi
is "$rc" 0 "the eval of the Harbor tasks exits 0"
like "$out" "lift +50 points" "our lift"
like "$out" "SkillsBench view: with 100.0%, without 50.0%, +50.0 points, g = 1.00, 95% CI +/-98.0 points over 2 tasks" \
    "SkillsBench's across-task view beside it"
run ev "$T/json" --json
is "$rc" 0 "--json exits 0"
sb=$(printf '%s' "$out" | jq -c '.models[0].skillsbench | map_values(if type == "number" then (. * 1000 | round / 1000) else . end)')
is "$sb" '{"tasks":2,"with":1,"without":0.5,"difference":0.5,"g":1,"ci95_with":0,"ci95_without":0.98,"ci95_difference":0.98}' \
    "--json has the skillsbench object per model"

# --- the HTML report shows the view too ------------------------------------
id=$(ls "$T/full")
run "$UPSKILL" report "$T/full/$id" -o "$T/r.html"
is "$rc" 0 "report exits 0"
like "$(cat "$T/r.html")" "<td>2</td><td>100.0% &plusmn;0.0</td><td>50.0% &plusmn;98.0</td><td>+50.0 points &plusmn;98.0</td><td>1.00</td>" \
    "the report shows SkillsBench's view"

# --- upskill runs shows it from the run files --------------------------------
run "$UPSKILL" runs -d "$T/full"
is "$rc" 0 "runs exits 0"
like "$out" "SkillsBench view: with 100.0%, without 50.0%, +50.0 points, g = 1.00, 95% CI +/-98.0 points over 2 tasks" \
    "runs shows SkillsBench's view of the batch"
run "$UPSKILL" runs -d "$T/full" --json
is "$(printf '%s' "$out" | jq -c '.results[0].skillsbench | [.tasks, .with, .without, .g]')" \
    '[2,1,0.5,1]' "runs --json has it"
is "$(jq -c .skillsbench "$T"/full/*/run_1/run_result.json)" null \
    "a baseline run holds no view"
jq -c .skillsbench "$T"/full/*/run_2/run_result.json >"$T/sb.json"
like "$(cat "$T/sb.json")" '"tasks":2' "a with-skill run holds the batch's view"
# a run file whose view is not one is read without it, never trusted
mkdir -p "$T/bad" && cp -R "$T"/full/* "$T/bad/"
rm -f "$T"/bad/*/batch_summary.json
f=$(echo "$T"/bad/*/run_2/run_result.json)
jq '.skillsbench.with = 7' "$f" >"$T/x.json" && mv "$T/x.json" "$f"
run "$UPSKILL" runs -d "$T/bad"
is "$rc" 0 "runs reads the batch"
unlike "$out" "SkillsBench view" "a with rate of 7 is no view"

# --- a sweep under --shard I/N merges like any other eval -------------------
ev "$T/s1" --shard 1/2 >/dev/null 2>&1
is "$?" 0 "shard 1/2 exits 0"
ev "$T/s2" --shard 2/2 >/dev/null 2>&1
is "$?" 0 "shard 2/2 exits 0"
is "$(jq -r .suite_sha256 "$T"/s1/*/batch_plan.json)" \
    "$(jq -r .suite_sha256 "$T"/s2/*/batch_plan.json)" \
    "the --tasks suite has one hash in every shard"
is "$(jq -r .suite_sha256 "$T"/s1/*/batch_plan.json)" \
    "$(jq -r .suite_sha256 "$T"/full/*/batch_plan.json)" \
    "and the unsharded run's"
n=$(cat "$T"/s1/*/journal.jsonl "$T"/s2/*/journal.jsonl | wc -l | tr -d ' ')
is "$n" 4 "the two shards ran the 2 tasks x 2 arms once"
run "$UPSKILL" merge "$T"/s1/* "$T"/s2/* -o "$T/m"
is "$rc" 0 "merge of the shards exits 0"
mid=$out
run "$UPSKILL" eval --tasks "$H" -m qwen2.5-coder-7b-instruct \
    --base-url "http://127.0.0.1:9/v1" --seed 3 --runs-dir "$T/m" --resume "$mid"
is "$rc" 0 "the merged shards finish without a request"
like "$out" "SkillsBench view: with 100.0%, without 50.0%, +50.0 points" \
    "with the unsharded figures"
# --- --inject both: discovery vs preloading on the same tasks --------------
# The student solves a task only when the skill's body is in its system
# prompt (preloaded); from the catalogue it never opens SKILL.md, and the
# baseline answers wrong: discovery +0, preloading +100 points.
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
fake_start "$T/inj.json" --record "$T/inj.jsonl"
run "$UPSKILL" eval --no-cache --tasks "$H" -m qwen2.5-coder-7b-instruct \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/inj" --inject both
is "$rc" 0 "--inject both exits 0"
like "$out" "== skill discovery (--inject catalog) ==" "the catalogue eval first"
like "$out" "== skill preloaded (--inject preload), the baseline above ==" \
    "then the preloaded one"
like "$out" "pass rates: baseline 0%, discovered (catalog) 0%, preloaded 100%" \
    "each arm's pass rate"
like "$out" "discovered - baseline:   +0 points" "discovery's lift"
like "$out" "preloaded - baseline:    +100 points" "preloading's lift"
like "$out" "preloaded - discovered:  +100 points, 95% CI [" \
    "and the difference, paired per task"
is "$(ls "$T/inj" | wc -l | tr -d ' ')" 2 "each eval wrote its batch"
# half-credit's conversations: baseline, catalogue and preloaded (2 each)
is "$(grep -c 'The answer is 42' "$T/inj.jsonl")" 2 \
    "only the preloaded conversation's requests carry SKILL.md's body"
is "$(grep 'answer-finder/SKILL.md</location>' "$T/inj.jsonl" | grep -vc 'The answer is 42')" 2 \
    "the catalogue's name the skill's SKILL.md, without its body"
run "$UPSKILL" eval --tasks "$H" -m x --inject both --no-baseline
is "$rc" 2 "--inject both without the baseline is a usage error"
like "$err" "--inject both needs the baseline" "it says why"
run "$UPSKILL" eval "$FIX/harbor/half-credit/environment/skills/answer-finder" \
    -t "$T/none.json" --inject both
is "$rc" 2 "--inject both needs agent mode"
done_testing
