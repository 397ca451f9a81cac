#!/bin/sh
# The response cache under faults: a cache another process holds locked
# costs a bounded wait and a warning, never a hang, and the eval's results
# are those of a run without it; `cache clear` replaces a damaged cache
# file by an empty one.  Issue 9, items 7 and 18.
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/fake/lib.sh"
fake_need_curl
command -v python3 >/dev/null 2>&1 || fake_skip_all "python3 not found"
SKILL="$FIX/eval/student"
DB="$T/c/cache.sqlite"
export CACHE_KEY=sk-PLANTED-cache-1025 UPSKILL_CONFIG="$T/cfg.yaml"
printf 'cache:\n  path: %s\n  lock_timeout: 0.2\n' "$DB" > "$T/cfg.yaml"
cd "$T" || exit 1

cat > "$T/s.json" <<'JSON'
{"seed": 7, "rules": [{"student": {"p_with": 1, "p_without": 0,
  "default": {"good": "GOOD ANSWER", "bad": "no idea"}},
  "reply": {"usage": {"input_tokens": 40, "output_tokens": 10}}}]}
JSON
fake_start "$T/s.json" --record "$T/rec.jsonl"

sent() { wc -l < "$T/rec.jsonl" | tr -d ' '; }
json_num() { # json_num KEY TEXT N: the Nth number after "KEY":
    printf '%s\n' "$2" | grep "\"$1\":" | sed -n "${3:-1}p" |
        sed 's/.*: *\([-0-9.eE+]*\).*/\1/'
}
ev() {
    run "$UPSKILL" eval "$SKILL" -m local --base-url "$FAKE_URL/v1" \
        --api-key-env CACHE_KEY --json --no-log-runs "$@"
}

run "$UPSKILL" config
like "$out" "cache.lock_timeout                   0.2  [$T/cfg.yaml:3]" \
    "upskill config shows the wait bound and where it comes from"

ev
is "$rc" 0 "a first eval fills the cache"
is "$(sent)" 60 "and sends every request"
is "$(json_num passed "$out" 1)" 30 "(every with-skill case passes)"
is "$(json_num passed "$out" 2)" 0 "(and no baseline case)"

# --- another process holds the cache's write lock ------------------------
# It says "locked" through a fifo once BEGIN EXCLUSIVE holds, and keeps the
# lock until it is killed.
mkfifo "$T/ready"
python3 - "$DB" > "$T/ready" <<'PY' &
import signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
signal.pause()
PY
holder=$!
read -r said < "$T/ready"
is "$said" locked "(the holder has the lock)"

ev
is "$rc" 0 "an eval beside a locked cache exits 0"
like "$err" "c/cache.sqlite': cannot lock the cache: the cache is locked by another process" \
    "it says the cache is locked, naming it"
like "$err" "running without the response cache" "and that it runs without it"
is "$(sent)" 120 "every request is sent"
is "$(json_num cached "$out" 1)" 0 "nothing comes from the cache"
is "$(json_num passed "$out" 1)" 30 "the with-skill results are right"
is "$(json_num passed "$out" 2)" 0 "the baseline results are right"
# SQLite gives -wal and -shm the database's mode: all three private.
is "$(cd "$T/c" && stat -c '%a %n' cache.sqlite*)" \
    "$(printf '600 cache.sqlite\n600 cache.sqlite-shm\n600 cache.sqlite-wal')" \
    "the cache and its -wal/-shm files are mode 0600"
kill "$holder"
wait "$holder" 2>/dev/null

ev
is "$(sent)" 120 "the lock gone, the cache serves again"
is "$(json_num cached "$out" 1)" 30 "every with-skill answer from it"

# --- clear replaces a damaged cache --------------------------------------
rm -f "$DB-wal" "$DB-shm"
awk 'BEGIN { for (i = 0; i < 200; i++) print "not a database at all" }' \
    > "$DB"
run "$UPSKILL" cache stats
is "$rc" 3 "stats of a damaged cache is bad input"
like "$err" "cache.sqlite" "naming the file"
run "$UPSKILL" cache clear
is "$rc" 0 "clear of a damaged cache exits 0"
like "$err" "removing it" "saying it removes the damaged file"
like "$out" "removed 0 entries" "and reporting an empty cache"
run "$UPSKILL" cache stats --json
is "$rc" 0 "the fresh cache reads"
like "$out" '"entries": 0' "and is empty"

done_testing
