/*
 * The response cache (see include/upskill/cache.h): one SQLite table of
 * successful answers keyed by the SHA-256 of the canonical request.
 *
 * Invariants: only complete answers with code 0 are stored (see
 * complete(); an incomplete row an older upskill stored is deleted when
 * read, never served); a row's `created` is
 * the second it was stored, and a row is valid while
 * now - created < ttl_days days; nothing secret reaches the key or the
 * file (the canonical form leaves out the API key and every header).
 * WAL journalling lets readers and one writer work at once across
 * processes; a busy handler makes the rest wait instead of failing, but
 * never longer than the handle's wait bound: opening gives up after it
 * (the caller runs without the cache), and a get or put that still finds
 * the file locked after it turns the handle off for good (every later get
 * is a miss, every put skipped), so a lock held by another process costs
 * at most two waits, never one per request.
 * Database errors after open never fail an eval: a get that fails is a
 * miss, a put that fails is counted, and both show in the stats.
 * The file and its -wal/-shm companions (SQLite gives them the database's
 * mode) hold answers: the database is created 0600 before SQLite opens it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "upskill/alloc.h"
#include "upskill/cache.h"
#include "upskill/fs.h"
#include "upskill/http.h"
#include "util/sha256.h"
#include "util/json.h"

#define SCHEMA_VERSION 1
#define KEY_FORMAT     1
#define DAY            86400LL
#define MAX_DAYS       1000000L /* beyond this, "never" */

struct up_cache {
    sqlite3 *db;
    char *path;
    long ttl_days;           /* <= 0: entries never expire */
    time_t (*now)(void *ud); /* the clock (time() unless a test set it) */
    void *now_ud;
    long wait_ms;  /* the longest one wait for a lock may last */
    long deadline; /* up_http_now_ms: the current wait gives up */
    int locked;    /* a lock outlasted the wait: handle is off */
    size_t hits, misses, puts, errors;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS responses("
    " key TEXT PRIMARY KEY,"
    " created INTEGER NOT NULL,"
    " text TEXT NOT NULL,"
    " reasoning TEXT NOT NULL,"
    " stop_reason TEXT,"
    " input_tokens INTEGER NOT NULL,"
    " output_tokens INTEGER NOT NULL,"
    " cached_tokens INTEGER NOT NULL,"
    " cache_write_tokens INTEGER NOT NULL,"
    " reasoning_tokens INTEGER NOT NULL,"
    " estimated INTEGER NOT NULL,"
    " turns INTEGER NOT NULL,"
    " http_status INTEGER NOT NULL,"
    " request_id TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS responses_created ON responses(created);";

/* ---- the key ----------------------------------------------------------- */

/* Strings go in through up_json_text: a prompt with bad UTF-8 still gets
 * a key (its bad bytes as U+FFFD; prompts are UTF-8 by the time they get
 * here: tests files are checked, tool results repaired). */
static json_t *base_url_json(const char *url)
{
    size_t n = url ? strlen(url) : 0;

    while (n > 0 && url[n - 1] == '/')
        n--;
    return url ? up_json_textn(url, n) : json_null();
}

static json_t *messages_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->n_messages; i++) {
        json_t *m = json_object();

        json_object_set_new(m, "role",
                            up_json_str_or_null(rq->messages[i].role));
        json_object_set_new(m, "content",
                            up_json_str_or_null(rq->messages[i].content));
        json_array_append_new(a, m);
    }
    return a;
}

/* A tool conversation's turns, as the wire sees them. */
static json_t *msgs_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->nmsgs; i++) {
        const up_msg *m = &rq->msgs[i];
        json_t *calls = json_array();

        for (size_t k = 0; k < m->ncalls; k++)
            json_array_append_new(
                calls,
                json_pack("[o, o, o]", up_json_str_or_null(m->calls[k].id),
                          up_json_str_or_null(m->calls[k].name),
                          up_json_str_or_null(m->calls[k].args)));
        json_array_append_new(
            a, json_pack("{s:i, s:o, s:o, s:o, s:b, s:o}", "role", m->role,
                         "text", up_json_str_or_null(m->text), "calls", calls,
                         "call_id", up_json_str_or_null(m->call_id), "is_error",
                         m->is_error, "carry", up_json_str_or_null(m->carry)));
    }
    return a;
}

static json_t *tools_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->ntools; i++)
        json_array_append_new(
            a, json_pack("[o, o, o]", up_json_str_or_null(rq->tools[i].name),
                         up_json_str_or_null(rq->tools[i].description),
                         up_json_str_or_null(rq->tools[i].parameters)));
    return a;
}

static json_t *canonical_json(const up_endpoint *ep, const up_request *rq,
                              int repeat)
{
    json_t *o = json_object();

    json_object_set_new(o, "v", json_integer(KEY_FORMAT));
    json_object_set_new(o, "kind", json_string(up_wire_name(ep->kind)));
    json_object_set_new(o, "base_url", base_url_json(ep->base_url));
    json_object_set_new(o, "model", up_json_str_or_null(ep->model));
    json_object_set_new(o, "effort", up_json_str_or_null(ep->effort));
    json_object_set_new(o, "compat", json_integer(ep->compat));
    json_object_set_new(
        o, "max_tokens",
        json_integer(ep->max_tokens ? ep->max_tokens : UP_DEFAULT_MAX_TOKENS));
    json_object_set_new(o, "temperature",
                        rq->temperature < 0 ? json_null()
                                            : json_real(rq->temperature));
    json_object_set_new(o, "system", up_json_str_or_null(rq->system));
    json_object_set_new(o, "messages", messages_json(rq));
    if (rq->msgs) /* absent otherwise: single-turn keys stay as they were */
        json_object_set_new(o, "msgs", msgs_json(rq));
    if (rq->ntools)
        json_object_set_new(o, "tools", tools_json(rq));
    json_object_set_new(o, "schema", up_json_str_or_null(rq->schema));
    json_object_set_new(
        o, "schema_name",
        rq->schema
            ? up_json_str_or_null(rq->schema_name ? rq->schema_name : "result")
            : json_null());
    json_object_set_new(
        o, "json_repairs",
        json_integer(rq->json_repairs < 0 ? 2 : rq->json_repairs));
    json_object_set_new(o, "repeat", json_integer(repeat));
    return o;
}

void up_cache_canonical(up_buf *out, const up_endpoint *ep,
                        const up_request *rq, int repeat)
{
    json_t *o = canonical_json(ep, rq, repeat);
    char *s =
        json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));

    up_buf_adds(out, s ? s : "");
    free(s);
    json_decref(o);
}

void up_cache_key(char hex[65], const up_endpoint *ep, const up_request *rq,
                  int repeat)
{
    up_buf b = UP_BUF_INIT;

    up_cache_canonical(&b, ep, rq, repeat);
    up_sha256_hex(hex, b.data, b.len);
    up_buf_release(&b);
}

/* ---- opening ------------------------------------------------------------ */

static time_t real_now(void *ud)
{
    (void)ud;
    return time(NULL);
}

/* The `created` value at or before which an entry is days old. */
static long long cutoff(const up_cache *c, long days)
{
    return (long long)c->now(c->now_ud) -
           (days > MAX_DAYS ? MAX_DAYS : days) * DAY;
}

/* 1 when SQLite found the file to be no database, or a damaged one. */
static int is_corrupt(const up_cache *c)
{
    int rc = sqlite3_errcode(c->db) & 0xff;

    return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT;
}

/* Fail with what went wrong: a lock that outlasted the wait (UP_EIO), a
 * damaged file (UP_EPARSE), or SQLite's message (UP_EIO). */
static int db_fail(const up_cache *c, up_error *err, const char *what)
{
    if (c->locked)
        return up_error_set(err, UP_EIO,
                            "'%s': %s: the cache is locked by another "
                            "process (gave up after %ld ms)",
                            c->path, what, c->wait_ms);
    return up_error_set(err, is_corrupt(c) ? UP_EPARSE : UP_EIO, "'%s': %s: %s",
                        c->path, what, sqlite3_errmsg(c->db));
}

/* Start a wait bound: what follows may wait for locks until wait_ms from
 * now, and no longer. */
static void arm(up_cache *c)
{
    c->deadline = up_http_now_ms() + c->wait_ms;
}

/* SQLite's busy handler: back off (1, 2, ... 20 ms) until the deadline. */
static int on_busy(void *ud, int n)
{
    up_cache *c = ud;

    if (up_http_now_ms() >= c->deadline)
        return 0;
    sqlite3_sleep(n < 20 ? n + 1 : 20);
    return 1;
}

static int is_busy(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

/* Note a statement's result code: a lock that outlasted the wait turns
 * the handle off.  Returns rc. */
static int note(up_cache *c, int rc)
{
    if (is_busy(rc))
        c->locked = 1;
    return rc;
}

/* Run sql that returns no rows (pragmas included). */
static int exec(up_cache *c, const char *sql)
{
    return note(c, sqlite3_exec(c->db, sql, NULL, NULL, NULL)) == SQLITE_OK
               ? 0
               : UP_EIO;
}

/*
 * exec, for statements SQLite may refuse without waiting: when two
 * connections both hold a read lock and want to write (several processes
 * opening a new cache at once, all switching it to WAL), one is told
 * "busy" at once to avoid a deadlock.  Its locks are gone by then, so
 * backing off and trying again succeeds, until the armed deadline.
 */
static int exec_retry(up_cache *c, const char *sql)
{
    for (int i = 1;; i++) {
        int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

        if (!is_busy(rc))
            return rc == SQLITE_OK ? 0 : UP_EIO;
        if (up_http_now_ms() >= c->deadline) {
            note(c, rc);
            return UP_EIO;
        }
        sqlite3_sleep(i < 20 ? i : 20);
    }
}

/* The one integer sql returns, or -1. */
static long long query_ll(up_cache *c, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long v = -1;

    if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Create the tables in one write transaction, so that two first opens do
 * not race; refuse a schema newer than ours. */
static int init_schema(up_cache *c, up_error *err)
{
    long long version;
    int rc;

    if (exec_retry(c, "BEGIN IMMEDIATE"))
        return db_fail(c, err, "cannot lock the cache");
    rc = exec(c, schema_sql) ? db_fail(c, err, "cannot create the schema") : 0;
    version = rc ? 0 : query_ll(c, "SELECT max(version) FROM schema_version");
    if (!rc && version > SCHEMA_VERSION)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': cache schema version %lld is newer than "
                          "this upskill's (%d): use another cache.path",
                          c->path, version, SCHEMA_VERSION);
    if (!rc && version <= 0 && exec(c, "INSERT INTO schema_version VALUES (1)"))
        rc = db_fail(c, err, "cannot write the schema version");
    if (!rc && exec(c, "COMMIT"))
        rc = db_fail(c, err, "cannot commit the schema");
    if (rc)
        exec(c, "ROLLBACK");
    return rc;
}

/* Drop the expired rows; a failure here only leaves them for later. */
static void prune(up_cache *c)
{
    sqlite3_stmt *st = NULL;

    if (c->ttl_days <= 0)
        return;
    if (sqlite3_prepare_v2(c->db, "DELETE FROM responses WHERE created <= ?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, cutoff(c, c->ttl_days));
        if (sqlite3_step(st) != SQLITE_DONE)
            c->errors++;
    }
    sqlite3_finalize(st);
}

static int setup(up_cache *c, up_error *err)
{
    int rc;

    sqlite3_busy_handler(c->db, on_busy, c);
    arm(c);
    /* Where WAL is not possible SQLite keeps the old mode and says so
     * without failing: the cache still works, only with less overlap. */
    if (exec_retry(c, "PRAGMA journal_mode=WAL") ||
        exec(c, "PRAGMA synchronous=NORMAL"))
        return db_fail(c, err, "cannot open the cache");
    rc = init_schema(c, err);
    if (!rc)
        prune(c);
    return rc;
}

/*
 * Create the missing database file empty with mode 0600 before SQLite
 * opens it: SQLite creates -wal, -shm and -journal with the database's
 * mode, and an empty file is an empty database to it.
 */
static int create_private(const char *path, up_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    if (fd < 0 && errno != EEXIST)
        return up_error_set(err, UP_EIO, "'%s': cannot create the cache: %s",
                            path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return 0;
}

int up_cache_open(up_cache **out, const char *path, long ttl_days, long wait_ms,
                  up_error *err)
{
    up_cache *c = up_xcalloc(1, sizeof(*c));
    up_buf dir = UP_BUF_INIT;
    int rc;

    c->path = up_xstrdup(path);
    c->ttl_days = ttl_days;
    c->wait_ms = wait_ms > 0 ? wait_ms : 0;
    c->now = real_now;
    up_fs_dirname(&dir, path);
    rc = up_fs_mkdir_p(dir.data, 0700, err);
    if (!rc)
        rc = create_private(path, err);
    if (rc)
        goto out;
    if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE, NULL) !=
        SQLITE_OK) {
        rc = db_fail(c, err, "cannot open the cache");
        goto out;
    }
    rc = setup(c, err);
out:
    up_buf_release(&dir);
    if (rc) {
        up_cache_close(c);
        c = NULL;
    }
    *out = c;
    return rc;
}

int up_cache_remove(const char *path, up_error *err)
{
    static const char *const suffixes[] = {"-wal", "-shm", "-journal", ""};
    up_buf b = UP_BUF_INIT;
    int rc = 0;

    for (size_t i = 0; !rc && i < sizeof(suffixes) / sizeof(*suffixes); i++) {
        up_buf_reset(&b);
        up_buf_adds(&b, path);
        up_buf_adds(&b, suffixes[i]);
        if (unlink(b.data) && errno != ENOENT)
            rc = up_error_set(err, UP_EIO, "'%s': cannot remove: %s", b.data,
                              strerror(errno));
    }
    up_buf_release(&b);
    return rc;
}

int up_cache_locked(const up_cache *c)
{
    return c && c->locked;
}

void up_cache_close(up_cache *c)
{
    if (!c)
        return;
    sqlite3_close(c->db);
    free(c->path);
    free(c);
}

void up_cache_set_clock(up_cache *c, time_t (*now)(void *ud), void *ud)
{
    c->now = now ? now : real_now;
    c->now_ud = ud;
}

/* ---- get and put ----------------------------------------------------------
 */

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);

    return t ? up_xstrdup((const char *)t) : NULL;
}

/* Columns as selected by up_cache_get, in the table's order. */
static void fill(up_response *out, sqlite3_stmt *st)
{
    const unsigned char *rid = sqlite3_column_text(st, 11);

    out->text = col_dup(st, 0);
    out->reasoning = col_dup(st, 1);
    out->stop_reason = col_dup(st, 2);
    out->stop = up_stop_kind(out->stop_reason);
    out->usage.input = (long)sqlite3_column_int64(st, 3);
    out->usage.output = (long)sqlite3_column_int64(st, 4);
    out->usage.cached = (long)sqlite3_column_int64(st, 5);
    out->usage.cache_write = (long)sqlite3_column_int64(st, 6);
    out->usage.reasoning = (long)sqlite3_column_int64(st, 7);
    out->usage.estimated = sqlite3_column_int(st, 8);
    out->turns = sqlite3_column_int(st, 9);
    out->http_status = (long)sqlite3_column_int64(st, 10);
    snprintf(out->request_id, sizeof(out->request_id), "%s",
             rid ? (const char *)rid : "");
}

/*
 * A complete answer: text or reasoning, a stop reason, or token counts the
 * server gave.  What lacks all three is what a server's in-band error
 * looked like before upskill read it as one (an empty "answer" with
 * estimated counts): it is never stored, and read back it is purged.
 */
static int complete(const up_response *r)
{
    return (r->text && *r->text) || (r->reasoning && *r->reasoning) ||
           (r->stop_reason && *r->stop_reason) || !r->usage.estimated;
}

/* Delete key's row; a failure leaves it to be purged next time. */
static void purge(up_cache *c, const char *key)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(c->db, "DELETE FROM responses WHERE key = ?1", -1,
                           &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        if (note(c, sqlite3_step(st)) != SQLITE_DONE)
            c->errors++;
    }
    sqlite3_finalize(st);
}

int up_cache_get(up_cache *c, const char *key, up_response *out)
{
    sqlite3_stmt *st = NULL;
    int hit = 0, rc = SQLITE_DONE;

    up_response_init(out);
    if (c->locked)
        goto out;
    arm(c);
    if (sqlite3_prepare_v2(
            c->db,
            "SELECT text, reasoning, stop_reason, input_tokens, "
            "output_tokens, cached_tokens, cache_write_tokens, "
            "reasoning_tokens, estimated, turns, http_status, request_id "
            "FROM responses WHERE key = ?1 AND created > ?2",
            -1, &st, NULL) != SQLITE_OK) {
        c->errors++;
        goto out;
    }
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2,
                       c->ttl_days > 0 ? cutoff(c, c->ttl_days) : LLONG_MIN);
    rc = note(c, sqlite3_step(st));
    if (rc == SQLITE_ROW) {
        fill(out, st);
        hit = complete(out);
    } else if (rc != SQLITE_DONE) {
        c->errors++;
    }
out:
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW && !hit) { /* an older upskill stored it */
        up_response_release(out);
        purge(c, key);
    }
    *(hit ? &c->hits : &c->misses) += 1;
    return hit;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_STATIC);
}

int up_cache_put(up_cache *c, const char *key, const up_response *res)
{
    sqlite3_stmt *st = NULL;
    const long long v[] = {res->usage.input,     res->usage.output,
                           res->usage.cached,    res->usage.cache_write,
                           res->usage.reasoning, res->usage.estimated,
                           res->turns,           res->http_status};
    int rc = 0;

    /* a reply with tool calls or carried blocks is not stored: the table
       has no place for them, and a hit without them would be wrong */
    if (res->code || !res->text || res->ncalls || res->carry || !complete(res))
        return 0;
    if (c->locked) {
        rc = UP_EIO;
        goto out;
    }
    arm(c);
    if (sqlite3_prepare_v2(c->db,
                           "INSERT OR REPLACE INTO responses VALUES (?1, ?2, "
                           "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                           "?14)",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = UP_EIO;
        goto out;
    }
    bind_text(st, 1, key);
    sqlite3_bind_int64(st, 2, (long long)c->now(c->now_ud));
    bind_text(st, 3, res->text);
    bind_text(st, 4, res->reasoning);
    bind_text(st, 5, res->stop_reason);
    for (int i = 0; i < 8; i++)
        sqlite3_bind_int64(st, 6 + i, v[i]);
    bind_text(st, 14, res->request_id);
    rc = note(c, sqlite3_step(st)) == SQLITE_DONE ? 0 : UP_EIO;
out:
    sqlite3_finalize(st);
    *(rc ? &c->errors : &c->puts) += 1;
    return rc;
}

/* ---- stats and clear ------------------------------------------------------
 */

int up_cache_stats(up_cache *c, up_cache_info *st, up_error *err)
{
    sqlite3_stmt *q = NULL;
    int rc = 0;

    memset(st, 0, sizeof(*st));
    arm(c);
    if (sqlite3_prepare_v2(
            c->db,
            "SELECT count(*), coalesce(sum(length(CAST(text AS BLOB)) + "
            "length(CAST(reasoning AS BLOB))), 0), coalesce(min(created), 0), "
            "coalesce(max(created), 0) FROM responses",
            -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        rc = db_fail(c, err, "cannot read the cache");
        goto out;
    }
    st->entries = (size_t)sqlite3_column_int64(q, 0);
    st->bytes = sqlite3_column_int64(q, 1);
    st->oldest = (time_t)sqlite3_column_int64(q, 2);
    st->newest = (time_t)sqlite3_column_int64(q, 3);
    st->file_bytes =
        query_ll(c, "PRAGMA page_count") * query_ll(c, "PRAGMA page_size");
    st->hits = c->hits;
    st->misses = c->misses;
    st->puts = c->puts;
    st->errors = c->errors;
    st->ttl_days = c->ttl_days;
    st->locked = c->locked;
out:
    sqlite3_finalize(q);
    return rc;
}

int up_cache_clear(up_cache *c, long older_than_days, size_t *removed,
                   up_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = 0;

    arm(c);
    if (sqlite3_prepare_v2(c->db, "DELETE FROM responses WHERE created <= ?1",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = db_fail(c, err, "cannot clear the cache");
        goto out;
    }
    sqlite3_bind_int64(
        st, 1, older_than_days < 0 ? LLONG_MAX : cutoff(c, older_than_days));
    if (note(c, sqlite3_step(st)) != SQLITE_DONE) {
        rc = db_fail(c, err, "cannot clear the cache");
        goto out;
    }
    if (removed)
        *removed = (size_t)sqlite3_changes(c->db);
    /* Emptied: give the pages back; a busy reader only delays that. */
    if (older_than_days < 0)
        exec(c, "VACUUM");
out:
    sqlite3_finalize(st);
    return rc;
}
