#!/bin/sh
# A sweep holds its skills' metadata, not their files (issue 36 item 6):
# each agent-mode job reads the references it installs from the skill's
# folder (checked against the SHA-256 taken at load), so a registry's
# size does not decide the sweep's memory (bench/README.md, "A sweep's
# memory"); a skill over the total cap (UP_SKILL_MAX_TOTAL) stops the
# sweep before anything is sent, naming the skill's folder and the limit.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T" || exit 1

for n in alpha beta gamma; do
    mkdir -p "$T/reg/$n/references"
    printf -- '---\nname: %s\ndescription: The %s skill of the sweep test.\n---\n\nRead the reference.\n' \
        "$n" "$n" >"$T/reg/$n/SKILL.md"
    printf 'REF-OF-%s\n' "$n" >"$T/reg/$n/references/r.md"
done
cat >"$T/t.json" <<'JSON'
[{"input": "q", "expected": {"contains": ["GOOD"]},
  "assert": [{"type": "command",
              "value": "cat .agents/skills/*/references/r.md | grep REF-OF-"}]}]
JSON
echo '{"rules": [{"reply": {"text": "GOOD"}}]}' >"$T/s.json"
fake_start "$T/s.json" --record "$T/rec.jsonl"

run "$UPSKILL" eval --no-cache "$T/reg/alpha" "$T/reg/beta" "$T/reg/gamma" \
    -t "$T/t.json" -m local --base-url "$FAKE_URL/v1" --agent --sandbox none \
    --runs-dir "$T/runs" --json
is "$rc" 0 "an agent-mode sweep exits 0"
arts=$(cat "$T"/runs/*/run_*/cases/transcripts.jsonl)
for n in alpha beta gamma; do
    like "$arts" "REF-OF-$n" "$n's reference is installed, read back from its folder"
done

# a skill whose references are over the cap together (sparse: 5 x 15 MiB)
mkdir -p "$T/reg/huge/references"
printf -- '---\nname: huge\ndescription: Too big.\n---\n\nBody.\n' >"$T/reg/huge/SKILL.md"
for i in 1 2 3 4 5; do truncate -s 15M "$T/reg/huge/references/r$i.md"; done
n0=$(wc -l <"$T/rec.jsonl")
run "$UPSKILL" eval --no-cache "$T/reg/alpha" "$T/reg/huge" -t "$T/t.json" \
    -m local --base-url "$FAKE_URL/v1" --runs-dir "$T/runs2"
is "$rc" 3 "a skill over the total cap stops the sweep (exit 3)"
like "$err" "'$T/reg/huge': resource files are larger than 67108864 bytes together (a skill's cap, UP_SKILL_MAX_TOTAL: 64 MiB)" \
    "the message names the skill's folder and the limit"
is "$(($(wc -l <"$T/rec.jsonl") - n0))" 0 "nothing was sent"
done_testing
