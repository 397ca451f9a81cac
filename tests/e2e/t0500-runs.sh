#!/bin/sh
# upskill runs on upstream's run folder format: bars, tokens, JSON, CSV.
. "$TOP/tests/e2e/lib.sh"
R="$FIX/runs/upstream"

run "$UPSKILL" runs -d "$R"
is "$rc" 0 "runs exits 0"
like "$out" "Evaluation History: write-good-pr" "one skill gives a history panel"
like "$out" "baseline" "baseline line shown"
like "$out" "60%" "baseline rate from upstream's batch summary"
like "$out" "100%  (+40%)" "with-skill rate and lift"

run "$UPSKILL" runs -d "$R" --metric tokens
like "$out" "2800  (-10%)" "token metric shows the change"

run "$UPSKILL" runs -d "$R" --json
like "$out" '"with_skill_rate": 1.0' "json has the with-skill rate"

run "$UPSKILL" runs -d "$R" -m nope
like "$out" "No results match the specified filters." "filters that match nothing"

mkdir -p "$T/out" # --csv needs its folder to exist
run "$UPSKILL" runs -d "$R" --csv "$T/out/results.csv"
is "$rc" 0 "csv export exits 0"
head=$(head -n 1 "$T/out/results.csv")
like "$head" "batch_id,run_number,model,task,timestamp,passed" "csv has upstream's columns first"
like "$head" "run_type,skill_name" "csv adds run_type and skill_name"
is "$(wc -l < "$T/out/results.csv" | tr -d ' ')" 3 "one csv row per run"

run "$UPSKILL" runs -d "$T/missing"
is "$rc" 2 "a missing -d folder is a usage error (exit 2, as upstream's click)"
like "$err" "-d/--dir '$T/missing' does not exist" "missing folder is named"
mkdir -p "$T/nocfg" && (cd "$T/nocfg" && UPSKILL_CONFIG="$T/none.yaml" \
    "$UPSKILL" runs >/dev/null 2>"$T/nocfg.err"; echo $? > "$T/nocfg.rc")
is "$(cat "$T/nocfg.rc")" 3 "a missing default runs folder exits 3 (upstream 1)"
like "$(cat "$T/nocfg.err")" "no runs folder found at" "and is named"

run "$UPSKILL" runs -d "$R" --metric speed
is "$rc" 2 "bad metric is a usage error"

M="$FIX/runs/matrix"
run "$UPSKILL" runs -d "$M"
is "$rc" 0 "several skills and models give a matrix"
like "$out" "Skill Performance Matrix" "matrix title"
like "$out" "│ sql-query-review    │ 40%→80%" "one row per skill, a cell per model" 
like "$out" "40%→20%" "a harmful skill shows its drop"
run "$UPSKILL" runs -d "$M" -m generic.qwen3
like "$out" "Evaluation History: generic.qwen3" "one model gives its history"

mkdir -p "$T/proj"
printf 'runs_dir: %s\n' "$R" > "$T/proj/upskill.config.yaml"
(cd "$T/proj" && UPSKILL_CONFIG= "$UPSKILL" runs > "$T/cfg.out" 2>&1)
is "$?" 0 "runs without -d uses the config's runs_dir"
like "$(cat "$T/cfg.out")" "write-good-pr" "and reads that folder"

done_testing
