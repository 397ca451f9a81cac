/*
 * The run store (see include/upskill/store.h for the layout).
 *
 * Writing: one batch folder per command, created with an exclusive mkdir
 * so two commands never share one; every file goes through an atomic
 * write.  Reading: tolerant, since the folder may hold upstream's files
 * or a run cut short; a file that does not parse is skipped and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/store.h"
#include "upskill/version.h"
#include "util/json.h"

void up_run_record_init(up_run_record *r)
{
    memset(r, 0, sizeof(*r));
    r->cost_usd = -1;
}

void up_run_record_release(up_run_record *r)
{
    free(r->batch_id);
    free(r->model);
    free(r->task);
    free(r->timestamp);
    free(r->run_type);
    free(r->skill_name);
    free(r->arm_skill);
    free(r->arm_version);
    free(r->error_message);
    free(r->tool_call_map);
    free(r->tool_error_map);
    up_run_record_init(r);
}

int up_store_batch_new(up_buf *dir, up_buf *id, const char *runs_dir,
                       up_error *err)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int created;
    int rc = up_fs_mkdir_in(runs_dir, 0755, &created, err);

    if (rc)
        return rc;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y_%m_%d_%H_%M_%S", &tm);
    for (int n = 1; n < 10000; n++) {
        up_buf_reset(id);
        up_buf_adds(id, stamp);
        if (n > 1)
            up_buf_addf(id, "_%d", n);
        up_buf_reset(dir);
        up_fs_join(dir, runs_dir, id->data);
        if (mkdir(dir->data, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return up_error_set(err, UP_EIO, "'%s': cannot create: %s",
                                dir->data, strerror(errno));
    }
    return up_error_set(err, UP_EIO, "'%s': too many batches this second",
                        runs_dir);
}

static json_t *metadata_json(const up_run_record *r)
{
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:i, s:o, s:s}", "model",
        up_json_str_or_null(r->model), "task", up_json_str_or_null(r->task),
        "batch_id", up_json_str_or_null(r->batch_id), "run_number",
        r->meta_run_number ? r->meta_run_number : r->run_number, "timestamp",
        up_json_str_or_null(r->timestamp), "upskill_version", UPSKILL_VERSION);

    if (o && r->sandbox) /* ours: only when the run tool was offered */
        json_object_set_new(o, "sandbox", json_string(r->sandbox));
    return o;
}

/* A {tool: count} map from its JSON text (NULL or bad: {}). */
static json_t *count_map(const char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;

    if (json_is_object(o))
        return o;
    json_decref(o);
    return json_object();
}

static json_t *stats_json(const up_run_record *r)
{
    double tool = r->tool_time_ms;
    json_t *o = json_pack(
        "{s:f, s:f, s:f, s:I, s:I, s:I, s:i, s:I, s:o, s:o, s:I, s:I, "
        "s:I, s:[], s:[], s:I, s:I}",
        "conversation_span_ms", r->span_ms, "llm_time_ms", r->llm_time_ms,
        "tool_time_ms", tool, "turns", (json_int_t)r->turns, "tool_calls",
        (json_int_t)r->tool_calls, "tool_errors", (json_int_t)r->tool_errors,
        "mcp_calls", 0, "execute_calls", (json_int_t)r->execute_calls,
        "tool_call_map", count_map(r->tool_call_map), "tool_error_map",
        count_map(r->tool_error_map), "input_tokens",
        (json_int_t)r->input_tokens, "output_tokens",
        (json_int_t)r->output_tokens, "total_tokens",
        (json_int_t)r->total_tokens, "usage_summaries", "timing_summaries",
        "cached_tokens", (json_int_t)r->cached_tokens, "reasoning_tokens",
        (json_int_t)r->reasoning_tokens);

    if (o && r->agent_convs) { /* ours, agent mode only */
        json_object_set_new(o, "model_turns", json_integer(r->model_turns));
        json_object_set_new(o, "agent_conversations",
                            json_integer(r->agent_convs));
        json_object_set_new(o, "skill_reads", json_integer(r->skill_reads));
    }
    return o;
}

json_t *up_store_sb_json(const up_sbview *v)
{
    json_t *o = json_pack("{s:I}", "tasks", (json_int_t)v->n);

    if (!v->n)
        return o;
    json_object_set_new(o, "with", json_real(v->with));
    json_object_set_new(o, "without", json_real(v->without));
    json_object_set_new(o, "difference", json_real(v->diff));
    json_object_set_new(o, "g", v->has_g ? json_real(v->g) : json_null());
    json_object_set_new(o, "ci95_with",
                        v->has_ci ? json_real(v->ci_with) : json_null());
    json_object_set_new(o, "ci95_without",
                        v->has_ci ? json_real(v->ci_without) : json_null());
    json_object_set_new(o, "ci95_difference",
                        v->has_ci ? json_real(v->ci_diff) : json_null());
    return o;
}

static json_t *result_json(const up_run_record *r)
{
    json_t *o = json_pack(
        "{s:o, s:o, s:b, s:I, s:I, s:o, s:n, s:n, s:o, s:o}", "metadata",
        metadata_json(r), "stats", stats_json(r), "passed", r->passed,
        "assertions_passed", (json_int_t)r->assertions_passed,
        "assertions_total", (json_int_t)r->assertions_total, "error_message",
        up_json_str_or_null(r->error_message), "session_id",
        "session_history_file", "run_type", up_json_str_or_null(r->run_type),
        "skill_name", up_json_str_or_null(r->skill_name));

    json_object_set_new(o, "all_cases_passed", json_boolean(r->all_passed));
    json_object_set_new(o, "cases_passed", json_integer(r->cases_passed));
    json_object_set_new(o, "cases_total", json_integer(r->cases_total));
    json_object_set_new(o, "cases_errored", json_integer(r->cases_errored));
    json_object_set_new(o, "repeat", json_integer(r->repeat));
    if (r->attempt > 0)
        json_object_set_new(o, "attempt", json_integer(r->attempt));
    json_object_set_new(
        o, "cost_usd", r->cost_usd >= 0 ? json_real(r->cost_usd) : json_null());
    if (r->compare_arm) { /* ours: a compare batch (docs/compare.md) */
        json_t *c = json_pack("{s:s, s:s}", "arm", r->compare_arm, "skill_name",
                              r->arm_skill ? r->arm_skill : "");

        if (r->arm_version)
            json_object_set_new(c, "version", json_string(r->arm_version));
        json_object_set_new(o, "compare", c);
    }
    if (r->has_sb)
        json_object_set_new(o, "skillsbench", up_store_sb_json(&r->sb));
    return o;
}

static void run_dir(up_buf *out, const char *batch_dir, int run_number)
{
    char name[32];

    snprintf(name, sizeof(name), "run_%d", run_number);
    up_fs_join(out, batch_dir, name);
}

static int write_json_in(const char *dir, const char *name, json_t *v,
                         up_error *err)
{
    up_buf path = UP_BUF_INIT;
    int rc = up_fs_mkdir_p(dir, 0755, err);

    if (!rc) {
        up_fs_join(&path, dir, name);
        rc = up_json_write_file(path.data, v, err);
    }
    json_decref(v);
    up_buf_release(&path);
    return rc;
}

int up_store_run_write(const char *batch_dir, const up_run_record *r,
                       up_error *err)
{
    up_buf dir = UP_BUF_INIT;
    int rc;

    run_dir(&dir, batch_dir, r->run_number);
    rc = write_json_in(dir.data, "run_metadata.json", metadata_json(r), err);
    if (!rc)
        rc = write_json_in(dir.data, "run_result.json", result_json(r), err);
    up_buf_release(&dir);
    return rc;
}

/*
 * batch_summary.json's "model": upstream joins every model of a
 * multi-model batch with ", "; one model is given as it is.
 */
static json_t *summary_model(const char *model, const up_run_record *runs,
                             size_t n)
{
    up_buf b = UP_BUF_INIT;
    size_t distinct = 0;
    json_t *v;

    for (size_t i = 0; i < n; i++) {
        size_t j = 0;

        if (!runs[i].model)
            continue;
        while (j < i &&
               !(runs[j].model && !strcmp(runs[j].model, runs[i].model)))
            j++;
        if (j < i)
            continue;
        up_buf_addf(&b, "%s%s", distinct++ ? ", " : "", runs[i].model);
    }
    v = distinct > 1 ? json_string(b.data) : up_json_str_or_null(model);
    up_buf_release(&b);
    return v;
}

int up_store_summary_write(const char *batch_dir, const char *batch_id,
                           const char *model, const char *task,
                           const up_run_record *runs, size_t n,
                           const char *stats_json_text, up_error *err)
{
    json_t *results = json_array(), *o;
    long passed = 0;

    for (size_t i = 0; i < n; i++) {
        json_array_append_new(results, result_json(&runs[i]));
        passed += runs[i].passed != 0;
    }
    o = json_pack("{s:s, s:o, s:o, s:I, s:I, s:o}", "batch_id", batch_id,
                  "model", summary_model(model, runs, n), "task",
                  up_json_str_or_null(task), "total_runs", (json_int_t)n,
                  "passed_runs", (json_int_t)passed, "results", results);
    if (stats_json_text) {
        json_t *s = json_loads(stats_json_text, 0, NULL);

        if (s)
            json_object_set_new(o, "stats", s);
    }
    return write_json_in(batch_dir, "batch_summary.json", o, err);
}

/* The holder's line in the lock file: who, where, since when. */
static void lock_note(int fd)
{
    char host[256] = "unknown", stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    up_buf b = UP_BUF_INIT;
    int ok;

    if (gethostname(host, sizeof(host)))
        snprintf(host, sizeof(host), "unknown");
    host[sizeof(host) - 1] = '\0';
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    up_buf_addf(&b, "pid %ld on host %s since %s\n", (long)getpid(), host,
                stamp);
    /* Only a note for the next comer: the flock is the lock, so a note
     * that cannot be written (a full disk) costs nothing. */
    ok =
        ftruncate(fd, 0) == 0 && pwrite(fd, b.data, b.len, 0) == (ssize_t)b.len;
    (void)ok;
    up_buf_release(&b);
}

/* The holder's note from the lock file, for the refusal message. */
static void lock_holder(up_buf *out, int fd)
{
    char line[512];
    ssize_t n = pread(fd, line, sizeof(line) - 1, 0);

    line[n > 0 ? n : 0] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    up_buf_adds(out, *line ? line : "another process (no note)");
}

int up_store_batch_lock(int *fd, const char *batch_dir, up_error *err)
{
    up_buf path = UP_BUF_INIT, who = UP_BUF_INIT;
    int rc = 0;

    up_fs_join(&path, batch_dir, UP_STORE_LOCK_FILE);
    *fd = open(path.data, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot open: %s", path.data,
                          strerror(errno));
        goto out;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
        lock_note(*fd);
        goto out;
    }
    if (errno == EWOULDBLOCK)
        lock_holder(&who, *fd);
    rc = up_error_set(
        err, UP_EIO,
        errno == EWOULDBLOCK ? "'%s': the batch is in use by %s (lock '%s')"
                             : "'%s': cannot lock: %s (lock '%s')",
        batch_dir, errno == EWOULDBLOCK ? who.data : strerror(errno),
        path.data);
    close(*fd);
    *fd = -1;
out:
    up_buf_release(&path);
    up_buf_release(&who);
    return rc;
}

void up_store_batch_unlock(int fd)
{
    /* The file stays: removing it would let a late opener lock an
     * unlinked file while a third locks a new one. */
    if (fd >= 0)
        close(fd);
}

/* 1 for an atomic write's leftover: NAME.tmp.XXXXXX. */
static int is_tmp_name(const char *name)
{
    const char *t = strstr(name, ".tmp.");

    return t && t != name && strlen(t + 5) == 6 && !strchr(t + 5, '.');
}

static size_t clean_in(const char *dir, int depth)
{
    char **names = NULL;
    size_t n = 0, removed = 0;

    if (up_fs_list(&names, &n, dir, NULL))
        return 0;
    for (size_t i = 0; i < n; i++) {
        up_buf path = UP_BUF_INIT;

        up_fs_join(&path, dir, names[i]);
        if (is_tmp_name(names[i]) && up_fs_is_file(path.data))
            removed += unlink(path.data) == 0;
        else if (depth > 0 && up_fs_is_dir(path.data))
            removed += clean_in(path.data, depth - 1);
        up_buf_release(&path);
    }
    up_strv_free(names);
    return removed;
}

size_t up_store_batch_clean(const char *batch_dir)
{
    return clean_in(batch_dir, 2); /* batch, run_N, run_N/cases */
}

int up_store_run_file_write(const char *batch_dir, int run_number,
                            const char *name, const char *data, size_t len,
                            up_error *err)
{
    up_buf dir = UP_BUF_INIT, path = UP_BUF_INIT;
    int rc;

    run_dir(&dir, batch_dir, run_number);
    up_fs_join(&path, dir.data, name);
    up_buf_reset(&dir);
    up_fs_dirname(&dir, path.data); /* name may hold a folder: cases/ */
    rc = up_fs_mkdir_p(dir.data, 0755, err);
    if (!rc)
        rc = up_fs_write_atomic(path.data, data, len, 0644, err);
    up_buf_release(&dir);
    up_buf_release(&path);
    return rc;
}

/* ---- the cap on a case artifact's texts ------------------------------ */

/* One capped text: obj[key], a string of len bytes. */
typedef struct cap_item {
    json_t *obj;
    const char *key;
    size_t len;
} cap_item;

static void cap_add(cap_item **v, size_t *n, json_t *obj, const char *key)
{
    json_t *s = json_object_get(obj, key);

    if (!json_is_string(s))
        return;
    *v = up_xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[*n].obj = obj;
    (*v)[*n].key = key;
    (*v)[(*n)++].len = json_string_length(s);
}

static int cap_cmp(const void *a, const void *b)
{
    size_t x = ((const cap_item *)a)->len, y = ((const cap_item *)b)->len;

    return (x > y) - (x < y);
}

/* Cut item to keep bytes (at a character boundary) and mark it: KEY_cut,
 * and KEY_bytes the size before any cut (an earlier one may have set it). */
static void cap_cut(const cap_item *it, size_t keep)
{
    const char *s = json_string_value(json_object_get(it->obj, it->key));
    char mark[64];
    json_t *before;

    while (keep && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--;
    snprintf(mark, sizeof(mark), "%s_bytes", it->key);
    before = json_object_get(it->obj, mark);
    if (!json_is_integer(before))
        json_object_set_new(it->obj, mark, json_integer((json_int_t)it->len));
    json_object_set_new(it->obj, it->key, json_stringn(s, keep));
    snprintf(mark, sizeof(mark), "%s_cut", it->key);
    json_object_set_new(it->obj, mark, json_true());
}

/* Every message's content and every tool call's arguments. */
static void cap_collect(cap_item **v, size_t *n, json_t *artifact)
{
    json_t *msgs = json_object_get(artifact, "messages"), *m, *c;
    size_t i, k;

    json_array_foreach(msgs, i, m)
    {
        cap_add(v, n, m, "content");
        json_array_foreach(json_object_get(m, "tool_calls"), k, c)
            cap_add(v, n, c, "arguments");
    }
}

size_t up_store_case_cap(json_t *artifact, size_t cap)
{
    cap_item *v = NULL;
    size_t n = 0, left = cap;

    cap_collect(&v, &n, artifact);
    /* Shortest first, each taking at most an equal share of what is left:
     * short texts stay whole and the long ones split the rest. */
    if (n)
        qsort(v, n, sizeof(*v), cap_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t share = left / (n - i);
        size_t keep = v[i].len < share ? v[i].len : share;

        if (keep < v[i].len)
            cap_cut(&v[i], keep);
        left -= keep;
    }
    free(v);
    return cap - left;
}

/* ---- run_N/cases/transcripts.jsonl
 * ----------------------------------------------- */

static void cases_reset(up_store_cases *w)
{
    w->fd = -1;
    up_buf_init(&w->tmp);
    up_buf_init(&w->path);
}

int up_store_cases_open(up_store_cases *w, const char *batch_dir,
                        int run_number, up_error *err)
{
    up_buf dir = UP_BUF_INIT;
    int rc;

    cases_reset(w);
    run_dir(&dir, batch_dir, run_number);
    up_fs_join(&w->path, dir.data, UP_STORE_CASES_FILE);
    up_buf_addf(&w->tmp, "%s.tmp.XXXXXX", w->path.data);
    up_buf_reset(&dir);
    up_fs_dirname(&dir, w->path.data); /* run_N/cases */
    rc = up_fs_mkdir_p(dir.data, 0755, err);
    if (!rc && (w->fd = mkstemp(w->tmp.data)) < 0)
        rc = up_error_set(err, UP_EIO, "'%s': cannot create: %s", w->path.data,
                          strerror(errno));
    up_buf_release(&dir);
    if (rc)
        up_store_cases_abort(w);
    return rc;
}

int up_store_cases_add(up_store_cases *w, const char *json, up_error *err)
{
    int rc = up_store_cases_add_line(w, json, strlen(json), err);

    return rc ? rc : up_store_cases_add_line(w, "\n", 1, err);
}

int up_store_cases_add_line(up_store_cases *w, const char *line, size_t len,
                            up_error *err)
{
    if (up_fs_write_all(w->fd, line, len))
        return up_error_set(err, UP_EIO, "'%s': cannot write: %s", w->path.data,
                            strerror(errno));
    return 0;
}

int up_store_cases_close(up_store_cases *w, up_error *err)
{
    int rc = 0, fd = w->fd, bad;

    w->fd = -1;
    bad = fchmod(fd, 0644) || fsync(fd);
    bad = close(fd) || bad;
    if (bad || rename(w->tmp.data, w->path.data)) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot write: %s", w->path.data,
                          strerror(errno));
        unlink(w->tmp.data);
    } else {
        up_fs_sync_parent(w->path.data);
    }
    up_buf_release(&w->tmp);
    up_buf_release(&w->path);
    return rc;
}

void up_store_cases_abort(up_store_cases *w)
{
    if (w->fd >= 0) {
        close(w->fd);
        unlink(w->tmp.data);
    }
    w->fd = -1;
    up_buf_release(&w->tmp);
    up_buf_release(&w->path);
}
