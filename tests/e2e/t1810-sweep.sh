#!/bin/sh
# eval SKILL... (a sweep, docs/eval.md "Many skills in one batch"): three
# skills, each with its own tests, on two models run as ONE batch: each
# case's skill arm gets its own skill, the run files are each skill's,
# the text and --json end in a skill x model leaderboard, `runs` shows a
# skill x model matrix, and the report a sortable leaderboard.  Four
# shards merged and finished by --resume give the unsharded leaderboard
# byte for byte (--json), and the report's leaderboard equals too.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# mk NAME MARK CASES: a skill whose body says MARK, with its own tests
mk() {
    mkdir -p "$T/reg/$1"
    printf -- '---\nname: %s\ndescription: The %s skill of the sweep test. Use when asked about %s.\n---\n\n# %s\n\nSay %s.\n' \
        "$1" "$1" "$1" "$1" "$2" >"$T/reg/$1/SKILL.md"
    printf '{"tests": [%s]}\n' "$3" >"$T/reg/$1/skill_meta.json"
}
c() { printf '{"input": "%s", "expected": {"contains": ["GOOD"]}}' "$1"; }
mk alpha ALPHA-MARK "$(c 'alpha q1'), $(c 'alpha q2'), $(c 'alpha q3')"
mk beta BETA-MARK "$(c 'beta q1'), $(c 'beta q2')"
mk gamma GAMMA-MARK "$(c 'gamma q1'), $(c 'gamma q2'), $(c 'gamma q3')"
# alpha helps model a only; beta does nothing; gamma breaks both models
cat >"$T/s.json" <<'JSON'
{"rules": [
 {"name": "alpha-a", "match": {"model": "a", "user": "alpha", "system": "ALPHA-MARK"}, "reply": {"text": "GOOD"}},
 {"name": "gamma-skill", "match": {"user": "gamma", "system": "GAMMA-MARK"}, "reply": {"text": "meh"}},
 {"name": "gamma-base", "match": {"user": "gamma"}, "reply": {"text": "GOOD"}},
 {"name": "other", "reply": {"text": "meh"}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

ev() { # ev RUNS_DIR ARGS...: the sweep of the registry on two models
    _d=$1
    shift
    "$UPSKILL" eval "$T"/reg/*/ -m a -m b --no-cache --base-url "$FAKE_URL/v1" \
        --runs 2 --seed 7 --runs-dir "$_d" --family-control none "$@"
}
jobs() { # the journals' jobs as sorted "model arm case repeat answer"
    cat "$@" | jq -r '[.model, .arm, .case, .repeat, .answer] | @tsv' | sort
}

run ev "$T/full" --json
is "$rc" 0 "the sweep exits 0"
printf '%s\n' "$out" >"$T/full.json"
like "$err" "tests: 8 cases from 3 skills: alpha 3 from" \
    "stderr names each skill's tests"
is "$(jq -r '[.skills[].name] | join(",")' "$T/full.json")" "alpha,beta,gamma" \
    "--json has every skill, in order"
is "$(jq -r '[.leaderboard.rows[] | .skill + ":" + ([.cells[].verdict // "none"] | join("/"))] | join(" ")' "$T/full.json")" \
    "alpha:beneficial/inconclusive beta:inconclusive/inconclusive gamma:harmful/harmful" \
    "the leaderboard: skill x model verdicts"
is "$(jq -r '.leaderboard.models | join(",")' "$T/full.json")" \
    "generic.a,generic.b" "the leaderboard names the models"
is "$(jq -r '.skills[0].models[0].verdict' "$T/full.json")" beneficial \
    "each skill's own report has eval's model keys"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 64 \
    "one batch of 8 cases x 2 models x 2 arms x 2 runs"
# every skill-arm request of a case carries its own skill and no other
wrong=$(jq -r '.body.messages as $m | ($m[0].content) as $s | ($m[-1].content | split(" ")[0]) as $k
    | select(($s | test("-MARK")) and ($s | test(($k | ascii_upcase) + "-MARK") | not)) | $k' \
    "$T/rec.jsonl" | wc -l | tr -d ' ')
is "$wrong" 0 "each case's skill arm runs its own skill"
is "$(jq -r 'select(.body.messages[0].content | test("-MARK")) | .n' "$T/rec.jsonl" | wc -l | tr -d ' ')" 32 \
    "half of the requests carry a skill (the baselines carry none)"
b=$(ls "$T/full")
is "$(cat "$T"/full/"$b"/run_*/run_result.json | jq -r .skill_name | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
    " 8 alpha; 8 beta; 8 gamma;" "each skill has its own run files (model x repeat x arm)"
is "$(jq -c .stats.sweep.skills "$T/full/$b/batch_summary.json")" \
    '["alpha","beta","gamma"]' "batch_summary.json names the sweep's skills"

# the text: each skill's report, then the leaderboard (a resume of the
# finished batch sends nothing)
run ev "$T/full" --resume "$b"
is "$rc" 0 "a resume of the finished sweep exits 0"
like "$out" "== beta (" "the text has each skill's report"
like "$out" "Leaderboard: the lift with each skill" "the text ends in the leaderboard"
like "$out" "│ alpha │ +100 [+18, +100] beneficial" "a leaderboard row: lift, interval, verdict"
is "$(wc -l <"$T/rec.jsonl" | tr -d ' ')" 64 "the resume sent nothing"

run "$UPSKILL" runs -d "$T/full"
like "$out" "│ gamma │ 100%→0%" "upskill runs shows the sweep as a skill x model matrix"

# a skill of the sweep gives what its own eval gives
"$UPSKILL" eval "$T/reg/beta" -m a -m b --no-cache --base-url "$FAKE_URL/v1" \
    --runs 2 --seed 7 --runs-dir "$T/alone" --family-control none --json \
    >"$T/alone.json" 2>/dev/null
jq -S '.models | map(del(.with_skill.latency_ms, .baseline.latency_ms, .family))' \
    "$T/alone.json" >"$T/alone.models"
jq -S '.skills[1].models | map(del(.answered, .with_skill.latency_ms, .baseline.latency_ms, .family))' \
    "$T/full.json" >"$T/swept.models"
ok "$(cmp -s "$T/alone.models" "$T/swept.models"; echo $?)" \
    "a skill's --json in the sweep equals its own eval's (but timings)"

# four shards, merged and finished: the unsharded leaderboard
pids=
for i in 1 2 3 4; do
    ev "$T/s$i" --shard "$i/4" >"$T/o$i" 2>&1 &
    pids="$pids $!"
done
for p in $pids; do wait "$p"; done
jobs "$T"/full/*/journal.jsonl >"$T/full.tsv"
jobs "$T"/s*/*/journal.jsonl >"$T/shards.tsv"
ok "$(cmp -s "$T/full.tsv" "$T/shards.tsv"; echo $?)" \
    "the shards ran each job of the sweep once, with its answers"
id=$("$UPSKILL" merge "$T"/s*/* -o "$T/merged" 2>"$T/merge.err")
is "$?" 0 "merge takes the sweep's shards"
kill "$FAKE_PID" # finishing sends nothing
run ev "$T/merged" --resume "$id" --json
is "$rc" 0 "the merged sweep finishes offline"
printf '%s\n' "$out" >"$T/merged.json"
jq .leaderboard "$T/full.json" >"$T/full.board"
jq .leaderboard "$T/merged.json" >"$T/merged.board"
ok "$(cmp -s "$T/full.board" "$T/merged.board"; echo $?)" \
    "the merged leaderboard equals the unsharded one byte for byte (--json)"

# the report: a view per skill and the leaderboard, equal for both
board() { # the leaderboard's table of page $1
    tr -d '\n' <"$1" | sed -n 's|.*\(<table class="board">.*</table></section>\)<script>.*|\1|p' |
        sed 's|</table>.*|</table>|'
}
"$UPSKILL" report "$T/full/$b" -o "$T/full.html" --seed 7 >/dev/null
is "$?" 0 "report writes the sweep's page"
"$UPSKILL" report "$T/merged/$id" -o "$T/merged.html" --seed 7 >/dev/null
is "$(board "$T/full.html")" "$(board "$T/merged.html")" \
    "the merged report's leaderboard equals the unsharded one"
page=$(cat "$T/full.html")
like "$page" '<td data-v="gamma">gamma</td><td data-v="-1.000000">-100 points <span class="mut">[-100, -18]</span> <span class="verdict">harmful</span>' \
    "the page's leaderboard: lift, interval and verdict"
# the page's figures are the JSON's: lift and bounds in points
want=$(jq -r '.leaderboard.rows[].cells[] | [.lift, .lift_ci[0], .lift_ci[1]] | map(. * 100) | @tsv' "$T/full.json" |
    awk '{printf "%+.0f points [%+.0f, %+.0f]\n", $1, $2, $3}')
got=$(board "$T/full.html" | sed 's|<td data-v="[-0-9.]*">|\n|g; s|<span class="mut">||g; s|</span>||g' |
    sed -n 's|^\([-+][0-9]* points \[[-+0-9]*, [-+0-9]*\]\).*|\1|p')
is "$got" "$want" "every leaderboard figure on the page equals --json's"
is "$(printf '%s' "$page" | grep -o '<section id="batch-[0-9]*"><h2>[a-z]*' | sed 's/.*<h2>//' | tr '\n' ' ')" \
    "alpha beta gamma " "the page shows each skill of the sweep as its own section"
like "$page" "t.querySelectorAll('th')" "the leaderboard sorts on a header click"
unlike "$page" "http" "the page references nothing outside"

# sorting, in a real browser: a click on generic.a's header, then again
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "# SKIP browser checks: chromium is not installed (scripts/deps.sh)"
    done_testing
    exit
fi
order() { # order COLUMN CLICKS: the skills' order after CLICKS clicks on
    # the header of COLUMN (1 skill, 2 generic.a)
    sed "s|</body>|<script>for(var i=0;i<$2;i++)document.querySelector('table.board th:nth-child($1)').click();</script></body>|" \
        "$T/full.html" >"$T/click.html"
    HOME="$T" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --no-first-run --user-data-dir="$T/chrome" --dump-dom \
        "file://$T/click.html" 2>"$T/chrome.err" | tr -d '\n' |
        sed 's|.*<table class="board">||; s|</table>.*||' |
        grep -o '<tr><td data-v="[a-z]*"' | sed 's/.*="//; s/"//' | tr '\n' ' '
}
is "$(order 2 0)" "alpha beta gamma " "the leaderboard lists the skills in order"
is "$(order 1 1)" "gamma beta alpha " "a click on 'skill' sorts by name (Z to A)"
is "$(order 2 2)" "gamma beta alpha " "two on a model sort by its lift, lowest first"
is "$(order 2 3)" "alpha beta gamma " "three: highest first again"
done_testing
