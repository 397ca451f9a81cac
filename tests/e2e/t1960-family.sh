#!/bin/sh
# Claims controlled over a batch's family (docs/statistics.md, "Many
# comparisons at once"): a sweep of 4 skills x 3 models is one family of
# 12 comparisons; the text, --json, the report and the leaderboard say
# how many and how they were controlled; an independent script
# (tests/family_check.py, Python's standard library) recomputes the
# adjusted p-values, the claims and the family's level from --json and
# agrees, for fdr and holm; eval over several models and compare over
# several models are families too; a comparison alone is untouched.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v python3 >/dev/null || fake_skip_all "python3 is not installed"
export UPSKILL_CONFIG="$T/none.yaml"
cd "$T" || exit 1

# mk NAME: a skill whose body says NAME-MARK, with 8 cases of its own
mk() {
    mkdir -p "$T/reg/$1"
    printf -- '---\nname: %s\ndescription: The %s skill of the family test. Use when asked about %s.\n---\n\n# %s\n\nSay %s-MARK.\n' \
        "$1" "$1" "$1" "$1" "$1" >"$T/reg/$1/SKILL.md"
    _c=
    for i in 1 2 3 4 5 6 7 8; do
        _c="$_c${_c:+, }{\"input\": \"$1 q$i\", \"expected\": {\"contains\": [\"GOOD\"]}}"
    done
    printf '{"tests": [%s]}\n' "$_c" >"$T/reg/$1/skill_meta.json"
}
for s in alpha beta gamma delta; do mk "$s"; done
# alpha helps a lot, beta a little, gamma nothing, delta hurts
st() { printf '{"match": {"user": "%s"}, "student": {"marker": "%s-MARK", "p_with": %s, "p_without": %s, "default": {"good": "GOOD", "bad": "meh"}}}' "$1" "$1" "$2" "$3"; }
cat >"$T/s.json" <<JSON
{"seed": 3, "rules": [
 $(st alpha 1 0.1), $(st beta 0.7 0.4), $(st gamma 0.5 0.5), $(st delta 0.1 0.9),
 {"reply": {"text": "meh"}}]}
JSON
fake_start "$T/s.json"

ev() { # ev ARGS...: the sweep of the registry on three models
    "$UPSKILL" eval "$T"/reg/*/ -m a -m b -m c --no-cache \
        --base-url "$FAKE_URL/v1" --runs-dir "$T/runs" "$@"
}

run ev --json
is "$rc" 0 "the sweep exits 0"
printf '%s\n' "$out" >"$T/fdr.json"
is "$(jq -r .leaderboard.family.text "$T/fdr.json")" \
    "12 comparisons; claims hold at a 5% false discovery rate (Benjamini-Hochberg: 5 significant, intervals at 97.9%)" \
    "--json says the family: 12 comparisons at a 5% false discovery rate"
is "$(jq -r '.leaderboard.family | "\(.comparisons) \(.control) \(.rate)"' "$T/fdr.json")" \
    "12 fdr 0.05" "the leaderboard's family object"
is "$(jq -r '.skills[0].models[0].family.comparisons' "$T/fdr.json")" 12 \
    "each model of each skill names its family"
ok "$(jq -e '[.leaderboard.rows[].cells[] | select(.verdict == "beneficial")] | length >= 2' "$T/fdr.json" >/dev/null; echo $?)" \
    "the strong skill is still claimed beneficial"
ok "$(jq -e '[.leaderboard.rows[] | select(.skill == "gamma") | .cells[] | select(.verdict == "beneficial" or .verdict == "harmful")] | length == 0' "$T/fdr.json" >/dev/null; echo $?)" \
    "the skill that does nothing is claimed nowhere"
run python3 "$TOP/tests/family_check.py" "$T/fdr.json"
is "$rc" 0 "an independent recomputation agrees with the fdr adjustment"
like "$out" "ok: 12 comparisons" "... over all 12 comparisons"

run ev --json --family-control holm
printf '%s\n' "$out" >"$T/holm.json"
is "$(jq -r .leaderboard.family.control "$T/holm.json")" holm "--family-control holm"
like "$(jq -r .leaderboard.family.text "$T/holm.json")" \
    "12 comparisons; claims hold at a 5% family-wise error rate (Holm" \
    "holm says it controls the family-wise rate"
run python3 "$TOP/tests/family_check.py" "$T/holm.json"
is "$rc" 0 "an independent recomputation agrees with Holm's"

run ev --json --family-control none
printf '%s\n' "$out" >"$T/none.json"
like "$(jq -r .leaderboard.family.text "$T/none.json")" \
    "12 comparisons; no family control (--family-control none): each claim holds at 5% on its own" \
    "none says no family control"
run python3 "$TOP/tests/family_check.py" "$T/none.json"
is "$rc" 0 "none: the claims are the unadjusted p < 0.05"

run ev --family-control sometimes
is "$rc" 2 "an unknown --family-control is a usage error"
like "$err" "--family-control: 'sometimes' is not fdr, holm or none" "... saying which"

# the text: the leaderboard, then its family line
run ev
is "$rc" 0 "the text sweep exits 0"
like "$out" "Leaderboard: the lift with each skill, points [CI at the family's level]" \
    "the leaderboard header says the intervals are at the family's level"
like "$out" "12 comparisons; claims hold at a 5% false discovery rate (Benjamini-Hochberg:" \
    "the text says how many comparisons and how they were controlled"
like "$out" "adjusted over 12 comparisons) over 8 cases" \
    "each lift line gives its adjusted p"
# the example of docs/statistics.md ("Many comparisons at once")
like "$out" "lift +62 points, 98.3% CI [-5.3, +89], p = 0.0253 (0.0507 adjusted over 12 comparisons) over 8 cases" \
    "docs: a lift significant alone is not claimed in the family"
like "$out" "verdict: inconclusive: the lift could be anywhere from -5.3 to +89 points" \
    "docs: ... and its verdict agrees with its interval"
like "$out" "│ alpha │ +100 [+17, +100] beneficial  │ +88 [+9, +98] beneficial    │ +62 [-5.3, +89] inconclusive │" \
    "docs: the leaderboard row"
like "$out" "12 comparisons; claims hold at a 5% false discovery rate (Benjamini-Hochberg: 4 significant, intervals at 98.3%)" \
    "docs: the family line"

# the report: the leaderboard and each view say the family
b=$(ls -t "$T/runs" | head -1)
"$UPSKILL" report "$T/runs/$b" -o "$T/r.html" >/dev/null
page=$(cat "$T/r.html")
like "$page" '<p class="mut family">12 comparisons; claims hold at a 5% false discovery rate' \
    "the report's leaderboard says the family"
like "$page" "<caption>Pass rates and lift (12 comparisons; claims hold" \
    "each skill's lift table says it"
ev --resume "$b" --json >"$T/last.json" 2>/dev/null # a finished batch: offline
jq -r '.leaderboard.rows[].cells[] | .verdict' "$T/last.json" >"$T/json.v"
tr -d '\n' <"$T/r.html" | sed 's|.*<table class="board">||; s|</table>.*||' |
    grep -o '<span class="verdict">[^<]*' | sed 's/.*>//; s/no meaningful effect/no_effect/' >"$T/page.v"
is "$(cat "$T/page.v")" "$(cat "$T/json.v")" \
    "the report's leaderboard verdicts are the adjusted ones of --json"

# eval of one skill over three models: a family of 3
run "$UPSKILL" eval "$T/reg/beta" -m a -m b -m c --no-cache \
    --base-url "$FAKE_URL/v1" --no-log-runs --json
printf '%s\n' "$out" >"$T/three.json"
is "$(jq -r '.family | "\(.comparisons) \(.control)"' "$T/three.json")" "3 fdr" \
    "eval over three models is a family of 3"
run python3 "$TOP/tests/family_check.py" "$T/three.json"
is "$rc" 0 "... and the recomputation agrees"

# compare over two models: a family of 2
run "$UPSKILL" compare "$T/reg/gamma" "$T/reg/alpha" -m a -m b --no-cache \
    --base-url "$FAKE_URL/v1" --runs-dir "$T/cmp"
like "$out" "2 comparisons; claims hold at a 5% false discovery rate" \
    "compare over two models says its family"

# a comparison alone: no family anywhere
run "$UPSKILL" eval "$T/reg/alpha" -m a --no-cache --base-url "$FAKE_URL/v1" \
    --no-log-runs --json
is "$(printf '%s' "$out" | jq -r '[.family, .models[0].family, .models[0].p_adjusted] | map(. == null) | all')" \
    true "one comparison: no family, no adjusted p in --json"
run "$UPSKILL" eval "$T/reg/alpha" -m a --no-cache --base-url "$FAKE_URL/v1" \
    --no-log-runs
like "$out" "95% CI" "one comparison: a 95% interval"
unlike "$out" "comparisons" "one comparison: no family line"

done_testing
