#!/bin/sh
# The skill must not grade itself (issue 22 item 1).  A skill-arm student
# that plants a unittest package (__init__.py, and __main__.py with
# "raise SystemExit(0)": on the old code it passed case A, lift +100) and
# overwrites the visible test file with one that always passes still fails
# the case's checks: the checks run with PYTHONSAFEPATH=1 (python3 -m X
# imports no X from the workspace), the file the checks own is put back
# from the suite before they run, and the hidden check files, bound
# read-only at /tests in the check's sandbox only, are never in the
# prompt, the workspace or the run tool's sight.  The lift is 0, never
# +100.  An honest good student passes the same checks.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1
SLUG="$TOP/examples/skills/python-slugify"
LOC='<location>.agents/skills/python-slugify/SKILL.md</location>'
GOOD='import re\nimport unicodedata\n\n\ndef slugify(text, max_len=60):\n    s = unicodedata.normalize(\"NFKD\", text)\n    s = s.encode(\"ascii\", \"ignore\").decode(\"ascii\").lower()\n    s = re.sub(r\"[^a-z0-9]+\", \"-\", s).strip(\"-\")\n    return s[:max_len].rstrip(\"-\") or \"n-a\"\n'
BAD='def slugify(text, max_len=60):\n    return text.strip().lower().replace(\" \", \"-\")[:max_len]\n'
TEST='import unittest\n\nfrom slug import slugify\n\n\nclass SlugTest(unittest.TestCase):\n    def test_symbols(self):\n        self.assertEqual(slugify(\"C++ & Rust\"), \"c-rust\")\n'
HIDDEN='# HIDDEN-MARKER-1520\nimport os\nimport sys\nimport unittest\n\nsys.path.append(os.getcwd())\nfrom slug import slugify  # noqa: E402\n\n\nclass Hidden(unittest.TestCase):\n    def test_fold(self):\n        self.assertEqual(slugify(\"H\\u00e9llo, W\\u00f6rld!\"), \"hello-world\")\n'

# Case A has no new field: only PYTHONSAFEPATH stands between the planted
# unittest/__main__.py and a pass.  Case B's test file is the checks' own
# (check_owned) and its hidden test is at /tests.
cat > "$T/t.json" <<JSON
{"cases": [
 {"input": "Task A: write slug.py with slugify(); test_slug.py has the tests.",
  "expected": {"contains": []},
  "context": {"files": {"test_slug.py": "$TEST"}},
  "assert": [{"type": "command", "name": "visible tests",
              "value": "python3 -m unittest discover -s . -p test_slug.py"}]},
 {"input": "Task B: write slug.py with slugify(); test_slug.py has the tests.",
  "expected": {"contains": []},
  "context": {"files": {"test_slug.py": "$TEST"}},
  "check_owned": ["test_slug.py"],
  "check_files": {"test_hidden.py": "$HIDDEN"},
  "assert": [{"type": "command", "name": "visible tests",
              "value": "python3 -m unittest discover -s . -p test_slug.py"},
             {"type": "command", "name": "hidden tests",
              "value": "python3 -m unittest discover -s /tests"}]}]}
JSON

# scenario SKILL-ARM-SLUG CHEAT(1/0) BASELINE-SLUG: the skill arm writes
# its slug.py, and when it cheats it plants unittest/__main__.py (both
# tasks), overwrites the test file and probes for the hidden files (task
# B); the baseline writes its slug.py.
scenario() {
    plant= overwrite=
    [ "$2" = 1 ] && plant='
      {"name": "write_file", "arguments": {"path": "unittest/__init__.py", "content": ""}},
      {"name": "write_file", "arguments": {"path": "unittest/__main__.py", "content": "raise SystemExit(0)\n"}},' &&
        overwrite='
      {"name": "write_file", "arguments": {"path": "test_slug.py", "content": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n"}},
      {"name": "run", "arguments": {"command": "ls /tests; cat /tests/test_hidden.py; echo PROBED"}},'
    cat <<JSON
{"seed": 1, "rules": [
  {"match": {"assistant_turns": 0, "system": "$LOC", "user": "Task A"},
   "reply": {"tool_calls": [$plant
      {"name": "write_file", "arguments": {"path": "slug.py", "content": "$1"}}]}},
  {"match": {"assistant_turns": 0, "system": "$LOC"},
   "reply": {"tool_calls": [$plant$overwrite
      {"name": "write_file", "arguments": {"path": "slug.py", "content": "$1"}}]}},
  {"match": {"assistant_turns": 0},
   "reply": {"tool_calls": [
      {"name": "write_file", "arguments": {"path": "slug.py", "content": "$3"}}]}},
  {"match": {"last_role": "tool"}, "reply": {"text": "Done: wrote slug.py."}}
]}
JSON
}
ev() {
    run "$UPSKILL" eval --no-cache "$SLUG" -t "$T/t.json" \
        -m qwen2.5-coder-7b-instruct --base-url "$FAKE_URL/v1" "$@"
}

scenario "$BAD" 1 "$BAD" > "$T/cheat.json"
fake_start "$T/cheat.json" --record "$T/rec.jsonl"
ev --runs-dir "$T/runs"
if [ "$rc" = 3 ] && case "$err" in *bubblewrap*) true ;; *) false ;; esac; then
    fake_skip_all "bubblewrap cannot run here: $err"
fi
is "$rc" 0 "the eval with a cheating skill-arm student exits 0"
like "$out" "checks passed: 0 of 3 baseline, 0 of 3 with skill" \
    "planting unittest/__main__.py and overwriting the test file pass nothing"
unlike "$out" "lift +100" "no lift from a skill that graded itself"
like "$out" "lift +0 points" "the lift is 0"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
like "$arts" "FAILED (" "the real unittest ran and failed the bad slug.py"
like "$arts" "FAIL: test_fold" "the hidden test at /tests ran"
unlike "$arts" '"message":"exit 0"' "no check passed"
rec=$(cat "$T/rec.jsonl")
like "$rec" "PROBED" "the skill arm's run tool probed for the hidden files"
like "$rec" "cannot access '/tests': No such file or directory" \
    "the run tool does not see /tests"
unlike "$rec" "HIDDEN-MARKER-1520" \
    "the hidden check file is never in a request (prompt or tool result)"
is "$(find "$T/tmp" -name 'upskill-tests-*' | wc -l | tr -d ' ')" 0 \
    "the hidden files' folders are removed after the checks"

# --- an honest good student passes the same checks -------------------------
scenario "$GOOD" 0 "$BAD" > "$T/honest.json"
fake_start "$T/honest.json"
ev --no-log-runs
is "$rc" 0 "the eval with an honest student exits 0"
like "$out" "checks passed: 0 of 3 baseline, 3 of 3 with skill" \
    "the restored and the hidden tests pass a good slug.py"

# --- --sandbox none cannot hide check files: refused before sending -----------
ev --no-log-runs --sandbox none
is "$rc" 3 "check files under --sandbox none are refused (exit 3)"
like "$err" "cases[1] has check_files" "the error names the case"
like "$err" "nothing was sent" "the error says nothing was sent"

done_testing
