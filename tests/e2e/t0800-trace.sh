#!/bin/sh
# upskill trace summarize: every format, warnings, budget, JSON, exit codes,
# and a large trace whose decisive correction lies far past 4,000 bytes.
. "$TOP/tests/e2e/lib.sh"
TR="$FIX/traces"

# format name, fixture, a line the rendering must contain
while read -r fmt file want; do
    run "$UPSKILL" trace summarize "$TR/$file" </dev/null
    is "$rc" 0 "$file exits 0"
    like "$out" "($fmt)" "$file is detected as $fmt"
    like "$out" "$want" "$file keeps: $want"
    like "$out" " events kept" "$file has a size line"
    is "$err" "" "$file gives no warning"
done <<'EOF'
claude-code claude-code.jsonl ### Tool error Bash
codex codex.jsonl ### Tool error shell
openai openai.json ### Tool result run_shell
anthropic anthropic.json ### Tool error bash
fast-agent fast-agent.json ### Tool error github-list_issues
text session.md ## User
text notes.txt csv module
EOF

run "$UPSKILL" trace summarize "$TR/claude-code.jsonl"
like "$out" "TypeError: Cannot read properties of undefined" "the error text is kept"
like "$out" "I'll use optional chaining" "the correction after it is kept"
like "$out" "new_string: return user.profile?.name ?? 'anonymous';" \
    "the edit's arguments are shown"
like "$out" "~293 tokens, 10 of 10 events kept" "size line counts tokens and events"

run "$UPSKILL" trace summarize "$TR/malformed.jsonl"
is "$rc" 0 "a malformed line is not fatal"
like "$err" "'$TR/malformed.jsonl':3: skipped: invalid JSON" \
    "the malformed line is named on stderr"
unlike "$out" "skipped" "warnings stay off stdout"
like "$out" "Renamed timeout to timeout_s" "lines after the bad one are read"

run "$UPSKILL" trace summarize "$TR/unknown.json"
is "$rc" 0 "an unknown format is not fatal"
like "$err" "unknown trace format, read as text" "unknown format warns"
like "$out" "(unknown)" "unknown format is shown"
like "$out" '"status": "failed"' "unknown format is read as text"

run "$UPSKILL" trace summarize --json "$TR/malformed.jsonl"
is "$rc" 0 "--json exits 0"
like "$out" '"format": "claude-code"' "json has the format"
like "$out" '"events_kept": 3' "json has the kept events"
like "$out" '"warnings": [' "json lists warnings"
like "$out" ':3: skipped: invalid JSON' "json warning names the line"
like "$out" '"text": "## User\n\nRename' "json has the text"

run "$UPSKILL" trace summarize "$T/nope.jsonl"
is "$rc" 3 "missing file exits 3"
like "$err" "nope.jsonl" "missing file is named"

printf '  \n' >"$T/empty.md"
run "$UPSKILL" trace summarize "$T/empty.md"
is "$rc" 3 "empty trace exits 3"
like "$err" "trace is empty" "empty trace is explained"

run "$UPSKILL" trace summarize "$TR"
is "$rc" 3 "a folder is bad input"

run "$UPSKILL" trace summarize
is "$rc" 2 "missing FILE is a usage error"
run "$UPSKILL" trace summarize --budget 0 "$TR/notes.txt"
is "$rc" 2 "--budget 0 is a usage error"
run "$UPSKILL" trace summarize --budget lots "$TR/notes.txt"
is "$rc" 2 "--budget must be a number"
run "$UPSKILL" trace frobnicate
is "$rc" 2 "unknown subcommand is a usage error"
run "$UPSKILL" trace
is "$rc" 2 "missing subcommand is a usage error"
run "$UPSKILL" trace --help
is "$rc" 0 "trace --help exits 0"
like "$out" "summarize FILE" "trace --help lists summarize"
run "$UPSKILL" trace summarize --help
is "$rc" 0 "summarize --help exits 0"
like "$out" "--budget" "summarize --help shows --budget"

# A Claude Code session of > 200k bytes: 120 file reads with long outputs;
# at read 84 the tests fail with a TypeError and the assistant decides to
# use optional chaining; then more reads and a final answer.
big="$T/large.jsonl"
awk 'BEGIN {
    q = "\""
    print "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":" \
        "\"FIRST-REQUEST: make the dashboard widget render\"}}"
    for (i = 0; i < 120; i++) {
        printf "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\"," \
            "\"content\":[{\"type\":\"tool_use\",\"id\":\"r%d\",\"name\":" \
            "\"Read\",\"input\":{\"file_path\":\"src/part%d.js\"}}]}}\n", i, i
        printf "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":" \
            "[{\"type\":\"tool_result\",\"tool_use_id\":\"r%d\",\"content\":\"", i
        for (k = 0; k < 40; k++)
            printf "%d: export const part%d_%d = load(%d);\\n", k, i, k, k
        print "\"}]}}"
        if (i == 84) {
            print "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\"," \
                "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":" \
                "\"Bash\",\"input\":{\"command\":\"npm test\"}}]}}"
            print "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":" \
                "[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"is_error\":" \
                "true,\"content\":\"TypeError: x is undefined\\n    at render " \
                "(src/widget.js:12:9)\"}]}}"
            print "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\"," \
                "\"content\":[{\"type\":\"text\",\"text\":\"x is read before " \
                "the data arrives: use optional chaining (x?.value).\"}]}}"
        }
    }
    print "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\"," \
        "\"content\":[{\"type\":\"text\",\"text\":\"FINAL-ANSWER: widget " \
        "renders; src/widget.js uses x?.value.\"}]}}"
}' >"$big"
size=$(wc -c <"$big" | tr -d ' ')
ok "$([ "$size" -gt 200000 ] && echo 0 || echo 1)" "large trace is over 200k bytes ($size)"
at=$(grep -b -o 'TypeError: x is undefined' "$big" | head -n 1 | cut -d: -f1)
ok "$([ "$at" -gt 4000 ] && [ "$at" -gt $((size / 2)) ] && echo 0 || echo 1)" \
    "the error sits past 4,000 bytes, in the second half ($at)"

for budget in 24000 4000 1000; do
    run "$UPSKILL" trace summarize --budget "$budget" "$big"
    is "$rc" 0 "large trace at budget $budget exits 0"
    like "$out" "TypeError: x is undefined" "budget $budget keeps the error"
    like "$out" "use optional chaining" "budget $budget keeps the correction"
    like "$out" "FIRST-REQUEST" "budget $budget keeps the first request"
    like "$out" "FINAL-ANSWER" "budget $budget keeps the end"
    like "$out" "omitted ...]" "budget $budget drops from the middle"
    run "$UPSKILL" trace summarize --json --budget "$budget" "$big"
    tokens=$(printf '%s\n' "$out" | sed -n 's/^  "tokens": \([0-9]*\),$/\1/p')
    ok "$([ -n "$tokens" ] && [ "$tokens" -le "$budget" ] && echo 0 || echo 1)" \
        "budget $budget is respected (~$tokens tokens)"
done

done_testing
