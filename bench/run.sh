#!/bin/sh
# Eval throughput benchmark: 1,000 cases x 2 arms at -j 64 against the fake
# LLM server with 50 ms latency.  The physical limit is
# ceil(2000 / 64) x 50 ms = 1.6 s.  Prints wall time, CPU time and peak RSS.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
B="$TOP/bench/out"
rm -rf "$B" && mkdir -p "$B"
awk 'BEGIN { printf "{\"cases\": ["; for (i = 1; i <= 1000; i++)
    printf "%s{\"input\": \"question number %d\", \"expected\": {\"contains\": [\"good\", \"answer\"]}}", (i > 1 ? "," : ""), i;
    print "]}" }' > "$B/tests.json"
cat > "$B/s.json" <<'JSON'
{"seed": 1, "rules": [{"student": {"p_with": 0.9, "p_without": 0.4,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"delay_ms": 50, "usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
"$TOP/build/fake-llm" --scenario "$B/s.json" --port-file "$B/port" \
    --max-seconds 120 >/dev/null 2>&1 &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
i=0
while [ ! -s "$B/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$B/port")
/usr/bin/time -f 'wall %e s, user %U s, sys %S s, peak RSS %M KiB' \
    "$TOP/build/upskill" eval "$TOP/tests/fixtures/eval/student" \
    -t "$B/tests.json" -m local --base-url "http://127.0.0.1:$port/v1" \
    -j 64 --no-log-runs --no-cache --json > "$B/eval.json"
echo "physical limit: 1.60 s (ceil(2000/64) x 50 ms)"
/usr/bin/time -f 'upskill --version: wall %e s' "$TOP/build/upskill" --version
