#!/bin/sh
# Executable checks (issue 12 items 3, 4, 5): the command assertion runs
# in the sandbox in the conversation's workspace after the agent stops;
# its output lands in the case artifact; "checks passed" beside the pass
# rate; a missing program makes the case not gradable (reported apart,
# out of the rates); upstream's validator "command" maps onto it; the two
# examples (Python unit tests everywhere, the H100 CUDA kernel compiled
# with nvcc where nvcc is installed) run offline against fake-llm agent
# students that write a good file after reading the reference and a bad
# one without the skill.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
EX="$TOP/examples"

# A deterministic student: reads SKILL.md and the reference, then writes
# the good file; without the skill it writes the bad one.
certain() {
    sed -e 's/"p_activate": 0.9/"p_activate": 1/' \
        -e 's/"p_reference": 0.95/"p_reference": 1/' \
        -e 's/"none": 0.1/"none": 0/' -e 's/"skill": 0.3/"skill": 1/' \
        -e 's/"reference": 0.9/"reference": 1/' "$1" > "$2"
}

# --- the Python example: unit tests run by python3 -m unittest ------------
certain "$EX/demo/slugify-scenario.json" "$T/py.json"
fake_start "$T/py.json" --record "$T/rec-py.jsonl"
SLUG="$EX/skills/python-slugify"
eval_slug() {
    run "$UPSKILL" eval --no-cache "$SLUG" -m qwen2.5-coder-7b-instruct \
        --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" "$@"
}
eval_slug
if [ "$rc" = 3 ]; then
    # No silent downgrade: no usable bubblewrap here, and the eval stopped
    # before sending; the rest runs with the explicit opt-out.
    like "$err" "bubblewrap" "no sandbox: the error names bubblewrap"
    eval_slug --sandbox none
else
    ok 0 "the sandbox is usable here (no-downgrade error not exercised)"
fi
PY=
for d in /usr/local/bin /usr/bin /bin; do
    [ -x "$d/python3" ] && PY=$d/python3 && break
done
if [ -z "$PY" ]; then
    echo "ok - # SKIP python3 is not on the sandbox's PATH"
    _n=$((_n + 1))
else
    is "$rc" 0 "the slugify example evaluates (exit 0)"
    like "$out" "checks passed: 0 of 2 baseline, 2 of 2 with skill" \
        "checks passed beside the pass rate"
    like "$out" "(+100%)" "the lift comes from checks that ran"
    cat "$T"/runs/*/run_*/cases/transcripts.jsonl > "$T/cmd.txt"
    like "$(cat "$T/cmd.txt")" '"output":"--- stderr ---' \
        "the check's output is kept in the case artifact"
    like "$(cat "$T/cmd.txt")" 'FAILED (' "the bad file's unittest failure"
    like "$(cat "$T/cmd.txt")" '"message":"exit 0"' "the good file passes"
fi

like "$(cat "$T/rec-py.jsonl")" '"name":"run"' \
    "a suite with checks offers the students the run tool"

# --- JSON: the counts per arm -------------------------------------------------
eval_slug --json
like "$out" '"checks_total": 2' "--json has checks_total"
like "$out" '"not_gradable": 0' "--json has not_gradable"

# --- the explicit opt-out is never silent ---------------------------------------
run "$UPSKILL" eval --no-cache "$SLUG" --sandbox none \
    -m qwen2.5-coder-7b-instruct --base-url "$FAKE_URL/v1" --no-log-runs
like "$out" "warning: the checks ran unsandboxed (--sandbox none)" \
    "--sandbox none warns in the report"

# --- issue 23 item 8: without --run-tool too, the opt-out is said at the
# start, recorded in run_metadata.json, and the students are not told of
# a sandbox they do not have ----------------------------------------------------
fake_start "$T/py.json" --record "$T/rec-none.jsonl"
run "$UPSKILL" eval --no-cache "$SLUG" --sandbox none \
    -m qwen2.5-coder-7b-instruct --base-url "$FAKE_URL/v1" \
    --runs-dir "$T/runs-none"
like "$err" "warning: --sandbox none: the suite's command checks" \
    "--sandbox none without --run-tool warns at the start"
like "$(cat "$T"/runs-none/*/run_1/run_metadata.json)" '"sandbox": "none"' \
    "run_metadata.json records the opt-out"
like "$(cat "$T/rec-none.jsonl")" '"name":"run"' \
    "the students still get the run tool"
unlike "$(cat "$T/rec-none.jsonl")" 'no network' \
    "nothing tells the students there is no network"
unlike "$(cat "$T/rec-none.jsonl")" 'in a sandbox' \
    "nor that they are in a sandbox"
like "$(cat "$T/rec-none.jsonl")" 'It is not sandboxed' \
    "the run tool says it is not sandboxed"

# --- a missing program: not gradable, named, out of the rates ------------------
cat > "$T/missing.json" <<'JSON'
{"cases": [{"input": "Write slug.py.", "expected": {"contains": []},
  "assert": [{"type": "command", "value": "no-such-compiler-x1 -c slug.py"}]}]}
JSON
eval_slug -t "$T/missing.json"
is "$rc" 0 "an eval with an ungradable check completes"
like "$out" "1 of 1 conversations not gradable, excluded from the rates" \
    "not gradable is reported apart"
like "$out" "'no-such-compiler-x1' is not installed" "the missing program is named"
unlike "$out" "checks passed: 0 of 1" "an ungradable check is not a failed one"
eval_slug -t "$T/missing.json" --json
like "$out" '"not_gradable": 1' "--json counts the ungradable conversation"
like "$out" '"not_gradable_reason": "not gradable:' "--json names why"

# --- issue 21: a check is its job's last phase, so workspaces follow -j -------
# Each check counts the workspaces alive beside its own (run unsandboxed,
# in the workspace, whose parent is the run's folder of workspaces).
cat > "$T/live.json" <<'JSON'
{"cases": [
 {"input": "Write slug.py.", "expected": {"contains": []},
  "assert": [{"type": "command", "value": "echo live=$(ls .. | wc -l)"}]},
 {"input": "Write slug.py.", "expected": {"contains": []},
  "assert": [{"type": "command", "value": "echo live=$(ls .. | wc -l)"}]},
 {"input": "Write slug.py.", "expected": {"contains": []},
  "assert": [{"type": "command", "value": "echo live=$(ls .. | wc -l)"}]},
 {"input": "Write slug.py.", "expected": {"contains": []},
  "assert": [{"type": "command", "value": "echo live=$(ls .. | wc -l)"}]}]}
JSON
run "$UPSKILL" eval --no-cache "$SLUG" -t "$T/live.json" --sandbox none -j 2 \
    --runs 2 -m qwen2.5-coder-7b-instruct --base-url "$FAKE_URL/v1" \
    --runs-dir "$T/runs-live"
is "$rc" 0 "16 conversations with a check each evaluate"
is "$(grep -o 'stdout ---\\nlive=[0-9]*' "$T"/runs-live/*/run_*/cases/transcripts.jsonl |
    wc -l)" 16 "every check ran and counted the workspaces"
peak=$(grep -o 'live=[0-9]*' "$T"/runs-live/*/run_*/cases/transcripts.jsonl |
    sed 's/.*=//' | sort -n | tail -1)
ok "$([ "${peak:-99}" -le 2 ]; echo $?)" \
    "at most -j (2) workspaces live while checks run (peak $peak of 16)"

# --- upstream's validator "command" --------------------------------------------
cat > "$T/validator.json" <<'JSON'
{"cases": [{"input": "Write slug.py.", "expected": {"contains": []},
  "validator": "command", "validator_config": {"command": "test -f slug.py"}}]}
JSON
eval_slug -t "$T/validator.json"
is "$rc" 0 "a validator case evaluates"
like "$out" "checks passed: 1 of 1 baseline, 1 of 1 with skill" \
    "validator command is a check run in the workspace"
cat > "$T/novalue.json" <<'JSON'
{"cases": [{"input": "x", "expected": {"contains": []}, "validator": "command"}]}
JSON
eval_slug -t "$T/novalue.json"
is "$rc" 3 "validator command without a command line is bad input"
like "$err" "validator 'command' needs validator_config.command" \
    "the error says what is missing"

# --- the flagship: the H100 CUDA kernel compiled with nvcc -arch=sm_90 ----------
NVCC=
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin \
    /usr/local/cuda/bin; do
    [ -x "$d/nvcc" ] && NVCC=$d/nvcc && break
done
if [ -z "$NVCC" ]; then
    for i in 1 2 3; do
        echo "ok - # SKIP nvcc is not installed (PATH, /usr/local/cuda/bin)"
        _n=$((_n + 1))
    done
else
    certain "$EX/demo/cuda-scenario.json" "$T/cu.json"
    fake_start "$T/cu.json"
    run "$UPSKILL" eval --no-cache "$EX/skills/h100-cuda-kernels" --agent \
        -m qwen2.5-coder-7b-instruct --base-url "$FAKE_URL/v1" \
        --runs-dir "$T/runs-cu"
    is "$rc" 0 "the CUDA example evaluates (exit 0)"
    like "$out" "checks passed: 0 of 2 baseline, 2 of 2 with skill" \
        "nvcc compiled the good kernels and rejected the bad ones"
    cat "$T"/runs-cu/*/run_*/cases/transcripts.jsonl > "$T/cu.txt"
    like "$(cat "$T/cu.txt")" 'no operator' "nvcc's error is in the artifact"
fi
# --- generate: the teacher writes a command check; the validation runs it ------
fake_start "$TOP/tests/fixtures/checks/gen-command.json" --record "$T/gen.jsonl"
GENERIC_BASE_URL="$FAKE_URL/v1" run "$UPSKILL" generate "write release notes" \
    -m generic.teacher --eval-model student --eval-base-url "$FAKE_URL/v1" \
    -o "$T/g/note-writer" --runs-dir "$T/runs-g"
is "$rc" 0 "generate with a teacher's command check exits 0"
like "$(sed -n 2p "$T/gen.jsonl")" 'Only these programs are installed: ' \
    "the test-gen prompt says which programs exist here"
like "$(sed -n 2p "$T/gen.jsonl")" '"enum":["command"]' \
    "the test-gen schema accepts command assertions"
like "$(cat "$T/g/note-writer/skill_meta.json")" '"type": "command"' \
    "the command check is saved with the tests"
like "$(cat "$T"/runs-g/*/run_*/cases/transcripts.jsonl)" '"message":"exit 0"' \
    "the validation run ran the checks in agent mode"
done_testing
