#!/bin/sh
# A student cannot remove its failures from the rates (issue 37 item 4,
# docs/statistics.md "Errors are not evidence"): a stand-in CLI right on
# half the cases in both arms that, in the skill arm, exits 1 where it
# would answer wrong.  Before, each exit was "agent failed", left out of
# the rates: baseline 50% (4/8), with skill 100% (4/4), a lift of +50.
# Now each is that conversation's failure: 50% and 50%, no lift, and the
# text and --json say how many failed so.  A CLI that is not installed
# (the host's) is still left out.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
if ! bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
    fake_skip_all "bubblewrap cannot run here"
fi
echo '[{"reply": {"text": "unused"}}]' >"$T/none.json"
fake_start "$T/none.json" || fake_skip_all "fake-llm did not start"
SKILL=$TOP/examples/skills/incident-report
mkdir -p "$T/bin"
# right on the odd cases; on the even ones wrong, or exit 1 with the skill
cat >"$T/bin/half" <<'SH'
#!/bin/sh
case "$1" in
*"case 1"* | *"case 3"* | *"case 5"* | *"case 7"*) echo RIGHT; exit 0 ;;
esac
[ -f .agents/skills/incident-report/SKILL.md ] && { echo gave up >&2; exit 1; }
echo wrong
SH
chmod +x "$T/bin/half"
{
    printf '{"cases": ['
    for i in 1 2 3 4 5 6 7 8; do
        [ "$i" = 1 ] || printf ','
        printf '{"input": "Answer case %s.", "expected": {"contains": ["RIGHT"]}}' "$i"
    done
    printf ']}\n'
} >"$T/tests.json"
run env UPSKILL_CLI_COMMAND="$T/bin/half {prompt}" "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.command --base-url "$FAKE_URL" \
    --runs-dir "$T/runs" --json
j=$out
run env UPSKILL_CLI_COMMAND="$T/bin/half {prompt}" "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.command --base-url "$FAKE_URL" \
    --no-log-runs
like "$out" "baseline   ██████████░░░░░░░░░░    50%" "the baseline passes half"
like "$out" "with skill ██████████░░░░░░░░░░    50%" \
    "so does the skill arm: its exits count as failures, not as no evidence"
like "$out" "lift +0 points" "no lift"
like "$out" "with skill: 4 of 8 conversations failed by the student's own doing: its CLI exited non-zero" \
    "the text says how many failed by the student's doing"
unlike "$out" "errored, excluded" "none is excluded"
like "$err" "the CLI failed (exit 1" "each exit is still named on stderr"
v=$(printf '%s' "$j" | python3 -c 'import json,sys
d=json.load(sys.stdin); m=d["models"][0] if "models" in d else d[0]
w=m["with_skill"] if "with_skill" in m else m["arms"]["with_skill"]
print(w["passed"], w["answered"], w["errors"], w["own_failures"])' 2>&1)
is "$v" "4 8 0 4" "--json: 4 of 8 answered passed, 0 errors, 4 own failures"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl 2>/dev/null)
like "$arts" '"own_failure":true' "the case artifacts mark them"

# upskill runs, from the run files, counts them as failed too
run "$UPSKILL" runs -d "$T/runs"
like "$out" "SkillsBench view: with 50.0%, without 50.0%, +0.0 points, g = 0.00, 95% CI +/-0.0 points over 8 tasks" \
    "upskill runs reads them from the run files as failures (over all 8 tasks)"

# --resume keeps them: a student's failure is a result, never run again
# (before, every errored line was, so a student could resume until it
# passed); the CLI that would pass now is not asked
printf '#!/bin/sh\necho RIGHT\n' >"$T/bin/right"
chmod +x "$T/bin/right"
batch=$(ls "$T/runs")
run env UPSKILL_CLI_COMMAND="$T/bin/right {prompt}" "$UPSKILL" eval "$SKILL" \
    --tests "$T/tests.json" -m cli.command --base-url "$FAKE_URL" \
    --runs-dir "$T/runs" --resume "$batch"
like "$out" "with skill ██████████░░░░░░░░░░    50%" \
    "--resume keeps the student's failures: still 50% with the skill"

# a CLI that fails after the provider answered 500: outside the
# student's reach, so left out of the rates (and retried), not its failure
printf '[{"reply": {"status": 500, "text": "overloaded"}}]\n' >"$T/down.json"
fake_start "$T/down.json" --record "$T/rec-down.jsonl" ||
    fake_skip_all "fake-llm did not start"
printf '#!/bin/sh\ncase "$1" in *DOWN*) curl -s -o /dev/null -d "{}" -H "content-type: application/json" "$2/v1/chat/completions"; exit 1;; esac\necho RIGHT\n' \
    >"$T/bin/down"
chmod +x "$T/bin/down"
printf '{"cases": [{"input": "Answer.", "expected": {"contains": ["RIGHT"]}}, {"input": "DOWN", "expected": {"contains": ["RIGHT"]}}]}\n' \
    >"$T/one.json"
run env UPSKILL_CLI_COMMAND="$T/bin/down {prompt} {base_url}" "$UPSKILL" \
    eval "$SKILL" --tests "$T/one.json" -m cli.command --no-baseline \
    --base-url "$FAKE_URL" --no-log-runs
like "$out" "with skill: 1 of 2 conversations errored, excluded from the rates and the verdict (the provider's or the host's errors, outside the student's reach)" \
    "a CLI failing on the provider's 500 is left out, as a provider error"
like "$err" "the provider answered HTTP 500, and the CLI then failed (exit 1)" \
    "said so"
done_testing
