#!/bin/sh
# Every skill_meta.json in the repository loads in upstream upskill's
# models (issue 31, item 2; issue 38, breaking 1): the shipped examples
# and the fixtures, not only the skills the tests save.  The checks are
# tests/fake/upstream_schema.py (pydantic's TestCase with extra="forbid",
# SkillMetadata, and the SKILL.md beside each file read as upstream reads
# it).  The one fixture made broken on purpose must keep failing there.
. "$TOP/tests/e2e/lib.sh"
command -v python3 >/dev/null 2>&1 || {
    echo "1..0 # SKIP python3 not found"
    exit 0
}
cd "$TOP" || exit 1
# Broken on purpose: `list` shows a skill whose tests do not load.
BROKEN="tests/fixtures/list/bad-tests/skill_meta.json"
if { [ -d .git ] || [ -f .git ]; } && command -v git >/dev/null 2>&1; then
    git ls-files '*skill_meta.json' > "$T/all.txt"
else
    find . -name skill_meta.json ! -path './build/*' | sed 's|^\./||' |
        sort > "$T/all.txt"
fi
n=$(wc -l < "$T/all.txt" | tr -d ' ')
[ "$n" -ge 12 ]
ok $? "the repository's skill_meta.json files are found ($n)"
while read -r f; do
    python3 tests/fake/upstream_schema.py "$f" > "$T/out.txt" 2>&1
    rc=$?
    if [ "$f" = "$BROKEN" ]; then
        is "$rc" 1 "$f is refused by upstream, as it is meant to be"
    else
        ok "$rc" "$f loads in upstream's models"
        [ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/out.txt" | head -10
    fi
done < "$T/all.txt"

# The examples keep their assertions, beside upstream's tests.
for s in h100-cuda-kernels incident-report python-slugify; do
    m="examples/skills/$s/skill_meta.json"
    python3 - "$m" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))
ext = root["upskill_c"]["tests"]
assert len(ext) == len(root["tests"])
assert all(e.get("assert") for e in ext)
PY
    ok $? "$s: every test's assertions are in upskill_c.tests"
    run "$UPSKILL" validate "examples/skills/$s"
    is "$rc" 0 "$s: validate passes here"
done

done_testing
