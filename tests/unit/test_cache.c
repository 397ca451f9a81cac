/* Unit tests for the response cache: keys, round trips, expiry, clear,
 * concurrent handles on one file. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/cache.h"
#include "upskill/upskill.h"

static char tmp[64];

static void make_tmp(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/upskill-cache-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void remove_tmp(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

static void tmp_path(char *out, size_t n, const char *rel)
{
    snprintf(out, n, "%s/%s", tmp, rel);
}

/* A request and endpoint every key test starts from. */
struct req {
    up_endpoint ep;
    up_request rq;
    up_message msg[2];
};

static void base_req(struct req *r)
{
    up_endpoint_init(&r->ep, UP_WIRE_OPENAI);
    r->ep.base_url = "http://127.0.0.1:8080/v1";
    r->ep.api_key = "sk-SECRET-one";
    r->ep.model = "local";
    up_request_init(&r->rq);
    r->msg[0] = (up_message){"user", "what is 2+2?"};
    r->msg[1] = (up_message){"assistant", "4"};
    r->rq.system = "you are helpful";
    r->rq.messages = r->msg;
    r->rq.n_messages = 2;
}

static void key_of(char hex[65], const struct req *r, int repeat)
{
    up_cache_key(hex, &r->ep, &r->rq, repeat);
}

Test(cache, key_is_stable_hex)
{
    struct req a, b;
    char ka[65], kb[65];

    base_req(&a);
    base_req(&b);
    key_of(ka, &a, 1);
    key_of(kb, &b, 1);
    cr_assert_str_eq(ka, kb);
    cr_assert_eq(strlen(ka), 64);
    cr_assert_eq(strspn(ka, "0123456789abcdef"), 64);
}

/* Each mutation of the base request must change the key. */
static void m_model(struct req *r)
{
    r->ep.model = "other";
}
static void m_kind(struct req *r)
{
    r->ep.kind = UP_WIRE_ANTHROPIC;
}
static void m_url(struct req *r)
{
    r->ep.base_url = "http://127.0.0.1:8081/v1";
}
static void m_effort(struct req *r)
{
    r->ep.effort = "high";
}
static void m_max(struct req *r)
{
    r->ep.max_tokens = 100;
}
static void m_compat(struct req *r)
{
    r->ep.compat = -1;
}
static void m_system(struct req *r)
{
    r->rq.system = "you are terse";
}
static void m_nosys(struct req *r)
{
    r->rq.system = NULL;
}
static void m_content(struct req *r)
{
    r->msg[0].content = "what is 2+3?";
}
static void m_role(struct req *r)
{
    r->msg[1].role = "user";
}
static void m_count(struct req *r)
{
    r->rq.n_messages = 1;
}
static void m_temp(struct req *r)
{
    r->rq.temperature = 0.5;
}
static void m_schema(struct req *r)
{
    r->rq.schema = "{\"type\":\"object\"}";
}
static void m_repairs(struct req *r)
{
    r->rq.json_repairs = 0;
}

Test(cache, key_changes_with_every_field)
{
    static void (*const mut[])(struct req *) = {
        m_model, m_kind,    m_url,  m_effort, m_max,  m_compat, m_system,
        m_nosys, m_content, m_role, m_count,  m_temp, m_schema, m_repairs};
    enum { N = sizeof(mut) / sizeof(mut[0]) };
    char keys[N + 2][65];
    struct req r;

    base_req(&r);
    key_of(keys[0], &r, 1);
    key_of(keys[1], &r, 2);
    for (size_t i = 0; i < N; i++) {
        base_req(&r);
        mut[i](&r);
        key_of(keys[i + 2], &r, 1);
    }
    for (size_t i = 0; i < N + 2; i++)
        for (size_t j = i + 1; j < N + 2; j++)
            cr_assert_str_neq(keys[i], keys[j], "mutations %zu and %zu", i, j);
}

Test(cache, key_ignores_secrets_and_transport)
{
    static const char *const hdr[] = {"Authorization: Bearer sk-HDR", NULL};
    struct req r;
    char k0[65], k[65];
    up_buf canon = UP_BUF_INIT;

    base_req(&r);
    key_of(k0, &r, 1);
    r.ep.api_key = "sk-SECRET-two";
    key_of(k, &r, 1);
    cr_assert_str_eq(k, k0, "the API key value is not in the key");
    r.ep.api_key = NULL;
    r.ep.headers = hdr;
    r.ep.stream = 1;
    r.ep.total_timeout_ms = 5;
    r.ep.max_retries = 7;
    r.ep.base_url = "http://127.0.0.1:8080/v1/";
    key_of(k, &r, 1);
    cr_assert_str_eq(k, k0, "headers, streaming, timeouts, a trailing slash");
    r.ep.api_key = "sk-SECRET-one";
    up_cache_canonical(&canon, &r.ep, &r.rq, 1);
    cr_assert_null(strstr(canon.data, "SECRET"));
    cr_assert_null(strstr(canon.data, "sk-HDR"));
    cr_assert_not_null(strstr(canon.data, "\"model\":\"local\""));
    up_buf_release(&canon);
}

static void sample(up_response *r)
{
    up_response_init(r);
    r->text = strdup("the answer");
    r->reasoning = strdup("thought about it");
    r->stop_reason = strdup("end_turn");
    r->usage = (up_usage){40, 10, 3, 2, 5, 1};
    r->latency_ms = 1234;
    r->attempts = 2;
    r->turns = 1;
    r->http_status = 200;
    snprintf(r->request_id, sizeof(r->request_id), "req_1");
}

Test(cache, put_get_round_trip_across_handles, .init = make_tmp,
     .fini = remove_tmp)
{
    char path[128], key[65];
    up_cache *c = NULL;
    up_response in, out;
    up_error err = {0};
    struct req r;

    tmp_path(path, sizeof(path), "deep/er/cache.sqlite");
    base_req(&r);
    key_of(key, &r, 1);
    sample(&in);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(up_cache_get(c, key, &out), 0, "empty cache misses");
    up_response_release(&out);
    cr_assert_eq(up_cache_put(c, key, &in), 0);
    up_cache_close(c);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(up_cache_get(c, key, &out), 1);
    cr_assert_eq(out.code, 0);
    cr_assert_str_eq(out.text, "the answer");
    cr_assert_str_eq(out.reasoning, "thought about it");
    cr_assert_str_eq(out.stop_reason, "end_turn");
    cr_assert_eq(out.usage.input, 40);
    cr_assert_eq(out.usage.output, 10);
    cr_assert_eq(out.usage.cached, 3);
    cr_assert_eq(out.usage.cache_write, 2);
    cr_assert_eq(out.usage.reasoning, 5);
    cr_assert_eq(out.usage.estimated, 1);
    cr_assert_eq(out.latency_ms, 0, "a cached answer took no time");
    cr_assert_eq(out.attempts, 0);
    cr_assert_eq(out.turns, 1);
    cr_assert_eq(out.http_status, 200);
    cr_assert_str_eq(out.request_id, "req_1");
    up_response_release(&out);
    up_response_release(&in);
    up_cache_close(c);
}

Test(cache, stores_only_successes_and_counts, .init = make_tmp,
     .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_response bad, out;
    up_cache_info st;
    struct stat sb;

    tmp_path(path, sizeof(path), "c.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    cr_assert_eq(stat(path, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600, "the cache is private");
    sample(&bad);
    bad.code = UP_ESERVER;
    cr_assert_eq(up_cache_put(c, "k1", &bad), 0);
    cr_assert_eq(up_cache_get(c, "k1", &out), 0, "a failure is not stored");
    up_response_release(&out);
    bad.code = 0;
    cr_assert_eq(up_cache_put(c, "k1", &bad), 0);
    cr_assert_eq(up_cache_get(c, "k1", &out), 1);
    up_response_release(&out);
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.entries, 1);
    cr_assert_eq(st.hits, 1);
    cr_assert_eq(st.misses, 1);
    cr_assert_eq(st.puts, 1);
    cr_assert_eq(st.errors, 0);
    cr_assert_eq(st.bytes, (long long)strlen("the answer") +
                               (long long)strlen("thought about it"));
    cr_assert_gt(st.file_bytes, 0);
    cr_assert_eq(st.ttl_days, 30);
    up_response_release(&bad);
    up_cache_close(c);
}

static time_t fake_now(void *ud)
{
    return *(time_t *)ud;
}

#define DAYS(n) ((time_t)(n)*86400)

Test(cache, entries_expire, .init = make_tmp, .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_response in, out;
    up_cache_info st;
    time_t now = 1700000000;

    tmp_path(path, sizeof(path), "c.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    up_cache_set_clock(c, fake_now, &now);
    sample(&in);
    cr_assert_eq(up_cache_put(c, "k", &in), 0);
    now += DAYS(30) - 1;
    cr_assert_eq(up_cache_get(c, "k", &out), 1, "fresh a second before");
    up_response_release(&out);
    now += 1;
    cr_assert_eq(up_cache_get(c, "k", &out), 0, "expired after 30 days");
    cr_assert_null(out.text);
    up_response_release(&out);
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.oldest, 1700000000);
    cr_assert_eq(st.newest, 1700000000);
    up_cache_close(c);
    cr_assert_eq(up_cache_open(&c, path, 0, UP_CACHE_WAIT_MS, NULL), 0);
    up_cache_set_clock(c, fake_now, &now);
    now += DAYS(1000);
    cr_assert_eq(up_cache_get(c, "k", &out), 1, "ttl 0: never expires");
    up_response_release(&out);
    up_cache_close(c);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0,
                 "opening prunes");
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.entries, 0);
    up_response_release(&in);
    up_cache_close(c);
}

Test(cache, clear_by_age_and_all, .init = make_tmp, .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_response in;
    up_cache_info st;
    time_t now = 1700000000;
    size_t removed = 99;

    tmp_path(path, sizeof(path), "c.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 0, UP_CACHE_WAIT_MS, NULL), 0);
    up_cache_set_clock(c, fake_now, &now);
    sample(&in);
    cr_assert_eq(up_cache_put(c, "old", &in), 0);
    now += DAYS(10);
    cr_assert_eq(up_cache_put(c, "mid", &in), 0);
    now += DAYS(10);
    cr_assert_eq(up_cache_put(c, "new", &in), 0);
    cr_assert_eq(up_cache_clear(c, 15, &removed, NULL), 0);
    cr_assert_eq(removed, 1, "only the 20-day-old entry");
    cr_assert_eq(up_cache_clear(c, 10, &removed, NULL), 0);
    cr_assert_eq(removed, 1, "exactly 10 days old counts as older");
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.entries, 1);
    cr_assert_eq(up_cache_clear(c, -1, &removed, NULL), 0);
    cr_assert_eq(removed, 1);
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.entries, 0);
    cr_assert_eq(st.bytes, 0);
    cr_assert_eq(st.oldest, 0);
    up_response_release(&in);
    up_cache_close(c);
}

#define WRITERS    4
#define PER_WRITER 25

static void *writer(void *arg)
{
    const char *path = arg;
    up_cache *c = NULL;
    up_response in;
    static int ids;
    int id = __atomic_fetch_add(&ids, 1, __ATOMIC_SEQ_CST);
    long failed = 0;

    sample(&in);
    if (up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL))
        return (void *)1;
    for (int i = 0; i < PER_WRITER; i++) {
        char key[32];

        snprintf(key, sizeof(key), "w%d-%d", id, i);
        failed += up_cache_put(c, key, &in) != 0;
    }
    up_cache_close(c);
    up_response_release(&in);
    return (void *)failed;
}

Test(cache, concurrent_opens_of_one_file, .init = make_tmp, .fini = remove_tmp)
{
    char path[128];
    pthread_t t[WRITERS];
    up_cache *a = NULL, *b = NULL;
    up_response in, out;
    up_cache_info st;

    tmp_path(path, sizeof(path), "shared/c.sqlite");
    for (int i = 0; i < WRITERS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, writer, path), 0);
    for (int i = 0; i < WRITERS; i++) {
        void *failed = NULL;

        pthread_join(t[i], &failed);
        cr_assert_null(failed, "writer %d failed", i);
    }
    cr_assert_eq(up_cache_open(&a, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    cr_assert_eq(up_cache_open(&b, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    cr_assert_eq(up_cache_stats(a, &st, NULL), 0);
    cr_assert_eq(st.entries, WRITERS * PER_WRITER);
    sample(&in);
    cr_assert_eq(up_cache_put(a, "from-a", &in), 0);
    cr_assert_eq(up_cache_get(b, "from-a", &out), 1, "b sees a's write");
    up_response_release(&out);
    up_response_release(&in);
    up_cache_close(a);
    up_cache_close(b);
}

Test(cache, bad_files_are_clear_errors, .init = make_tmp, .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_error err = {0};
    sqlite3 *db = NULL;
    FILE *fp;

    tmp_path(path, sizeof(path), "junk.sqlite");
    fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs("this is not a database, not even close; it is plain text\n", fp);
    for (int i = 0; i < 100; i++)
        fputs("padding padding padding padding padding padding\n", fp);
    fclose(fp);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, &err), UP_EPARSE,
                 "a damaged file is bad input, not a lock");
    cr_assert_null(c);
    cr_assert_not_null(strstr(err.msg, "junk.sqlite"), "%s", err.msg);
    fp = fopen(path, "a");
    cr_assert_not_null(fp);
    fclose(fp);
    cr_assert_eq(up_cache_remove(path, &err), 0, "%s", err.msg);
    cr_assert_eq(access(path, F_OK), -1, "removed");
    cr_assert_eq(up_cache_remove(path, &err), 0, "a missing file is fine");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, &err), 0, "%s",
                 err.msg);
    up_cache_close(c);

    tmp_path(path, sizeof(path), "future.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    up_cache_close(c);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "UPDATE schema_version SET version = 99",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, &err),
                 UP_EPARSE);
    cr_assert_not_null(strstr(err.msg, "version 99"), "%s", err.msg);

    cr_assert_eq(
        up_cache_open(&c, "/dev/null/x/c.sqlite", 30, UP_CACHE_WAIT_MS, &err),
        UP_EIO);
    cr_assert_null(c);
}

/* The -wal and -shm files hold answers too: private like the database,
 * whatever the umask. */
Test(cache, wal_and_shm_are_private, .init = make_tmp, .fini = remove_tmp)
{
    static const char *const suffix[] = {"", "-wal", "-shm"};
    char path[128], file[160];
    up_cache *c = NULL;
    up_response in;
    struct stat sb;
    mode_t old = umask(022);

    tmp_path(path, sizeof(path), "c.sqlite");
    sample(&in);
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    cr_assert_eq(up_cache_put(c, "k", &in), 0);
    for (size_t i = 0; i < 3; i++) {
        snprintf(file, sizeof(file), "%s%s", path, suffix[i]);
        cr_assert_eq(stat(file, &sb), 0, "%s exists while open", file);
        cr_assert_eq(sb.st_mode & 0777, 0600, "%s has mode %o", file,
                     (unsigned)(sb.st_mode & 0777));
    }
    up_cache_close(c);
    up_response_release(&in);
    umask(old);
}

/* A raw connection holding the write lock of the cache at path. */
static sqlite3 *hold_lock(const char *path)
{
    sqlite3 *db = NULL;

    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
                 SQLITE_OK);
    return db;
}

Test(cache, a_held_lock_bounds_the_wait_at_open, .init = make_tmp,
     .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_error err = {0};
    sqlite3 *db;

    tmp_path(path, sizeof(path), "c.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    up_cache_close(c);
    db = hold_lock(path);
    cr_assert_eq(up_cache_open(&c, path, 30, 50, &err), UP_EIO);
    cr_assert_null(c);
    cr_assert_not_null(strstr(err.msg, "locked by another process"), "%s",
                       err.msg);
    cr_assert_not_null(strstr(err.msg, "c.sqlite"), "%s", err.msg);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    cr_assert_eq(up_cache_open(&c, path, 30, 50, &err), 0, "%s", err.msg);
    up_cache_close(c);
}

Test(cache, a_lock_during_the_run_turns_the_handle_off, .init = make_tmp,
     .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_response in, out;
    up_cache_info st;
    sqlite3 *db;

    tmp_path(path, sizeof(path), "c.sqlite");
    sample(&in);
    cr_assert_eq(up_cache_open(&c, path, 30, 50, NULL), 0);
    cr_assert_eq(up_cache_put(c, "before", &in), 0);
    cr_assert_eq(up_cache_locked(c), 0);
    db = hold_lock(path);
    cr_assert_eq(up_cache_put(c, "during", &in), UP_EIO);
    cr_assert_eq(up_cache_locked(c), 1, "the handle is off");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    cr_assert_eq(up_cache_get(c, "before", &out), 0,
                 "an off handle misses without asking the file");
    up_response_release(&out);
    cr_assert_eq(up_cache_put(c, "after", &in), UP_EIO, "and stores nothing");
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.locked, 1);
    cr_assert_eq(st.errors, 2);
    cr_assert_eq(st.entries, 1, "only the answer stored before the lock");
    up_cache_close(c);
    up_response_release(&in);
}

/* An empty "answer" with no stop reason and estimated counts (what an
   in-band error became before upskill read it as one) is not stored;
   one an older upskill stored is purged when read, and then misses. */
Test(cache, incomplete_answers_are_never_served, .init = make_tmp,
     .fini = remove_tmp)
{
    char path[128];
    up_cache *c = NULL;
    up_response r, out;
    sqlite3 *db = NULL;
    up_cache_info st;

    tmp_path(path, sizeof(path), "c.sqlite");
    cr_assert_eq(up_cache_open(&c, path, 30, UP_CACHE_WAIT_MS, NULL), 0);
    up_response_init(&r);
    r.text = strdup("");
    r.reasoning = strdup("");
    r.usage.input = 1850;
    r.usage.estimated = 1;
    cr_assert_eq(up_cache_put(c, "empty", &r), 0);
    cr_assert_eq(up_cache_get(c, "empty", &out), 0, "not stored");
    up_response_release(&out);
    r.stop_reason = strdup("stop");
    cr_assert_eq(up_cache_put(c, "stopped", &r), 0);
    cr_assert_eq(up_cache_get(c, "stopped", &out), 1,
                 "an empty answer with a stop reason is an answer");
    up_response_release(&out);
    up_response_release(&r);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "INSERT INTO responses VALUES ('poisoned', "
                              "strftime('%s','now'), '', '', '', 1850, 0, 0, "
                              "0, 0, 1, 1, 200, 'req_x')",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(up_cache_get(c, "poisoned", &out), 0, "never served");
    cr_assert_null(out.text);
    up_response_release(&out);
    cr_assert_eq(up_cache_stats(c, &st, NULL), 0);
    cr_assert_eq(st.entries, 1, "and purged: only 'stopped' is left");
    up_cache_close(c);
}
