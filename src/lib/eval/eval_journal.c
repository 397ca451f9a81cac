/*
 * The eval journal (see include/upskill/eval.h): an append-only JSONL
 * record of finished jobs, the basis of Ctrl-C safety and --resume.
 *
 * Invariant: the file holds whole lines only, each ending in '\n', except
 * after a crash mid-append; the next open cuts such a torn tail away
 * before appending.  Writers hold the batch's lock, so one process at a
 * time appends.  Also here: the batch's identity (batch_plan.json), which
 * a resume must match, and the per-answer size cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "util/json.h"
#include "util/sha256.h"

static const char *const arm_names[] = {"baseline", "with_skill"};

/* FNV-1a, 64 bits, as hex: identifies a user message in the journal. */
static void hash_text(char out[17], const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    for (int i = 15; i >= 0; i--, h >>= 4)
        out[i] = "0123456789abcdef"[h & 15];
    out[16] = '\0';
}

void up_journal_init(up_journal *j)
{
    j->fd = -1;
    j->path = NULL;
    j->lock_fd = -1;
}

/* Offset just after the last '\n' before end (0 when none). */
static off_t last_newline_end(int fd, off_t end)
{
    char buf[4096];

    while (end > 0) {
        size_t n = end < (off_t)sizeof(buf) ? (size_t)end : sizeof(buf);
        ssize_t got = pread(fd, buf, n, end - (off_t)n);

        if (got != (ssize_t)n)
            return -1;
        for (size_t i = n; i-- > 0;)
            if (buf[i] == '\n')
                return end - (off_t)n + (off_t)i + 1;
        end -= (off_t)n;
    }
    return 0;
}

/* A crash mid-append leaves a line without its newline: cut it away, so
 * the next line does not land on its tail. */
static int repair_tail(int fd, const char *path, up_error *err)
{
    struct stat st;
    off_t keep;

    if (fstat(fd, &st) || st.st_size == 0)
        return 0;
    keep = last_newline_end(fd, st.st_size);
    if (keep == st.st_size)
        return 0;
    if (keep < 0 || ftruncate(fd, keep))
        return up_error_set(err, UP_EIO, "'%s': cannot repair a torn line: %s",
                            path, strerror(errno));
    return 0;
}

int up_journal_open(up_journal *j, const char *batch_dir, up_error *err)
{
    up_buf path = UP_BUF_INIT;
    int rc = up_store_batch_lock(&j->lock_fd, batch_dir, err);

    if (rc)
        goto out;
    up_fs_join(&path, batch_dir, "journal.jsonl");
    j->fd = open(path.data, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot open: %s", path.data,
                          strerror(errno));
        goto out;
    }
    j->path = up_buf_detach(&path);
    rc = repair_tail(j->fd, j->path, err);
out:
    up_buf_release(&path);
    return rc;
}

static json_t *job_json(const up_eval_plan *p, const up_eval_job *job)
{
    char h[17];

    hash_text(h, p->user[job->kase]);
    return json_pack(
        "{s:s, s:s, s:I, s:i, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:b}, s:f, "
        "s:i, s:b, s:i, s:o}",
        "model", p->models[job->model], "arm", arm_names[job->arm], "case",
        (json_int_t)job->kase, "repeat", job->repeat, "input_hash", h, "answer",
        up_json_str_or_null(up_eval_job_live_view(job)->answer), "usage",
        "input", (json_int_t)job->usage.input, "output",
        (json_int_t)job->usage.output, "cached", (json_int_t)job->usage.cached,
        "reasoning", (json_int_t)job->usage.reasoning, "estimated",
        job->usage.estimated, "latency_ms", (double)job->latency_ms, "attempts",
        job->attempts, "from_cache", job->from_cache, "error", job->error,
        "error_message", up_json_str_or_null(job->error_msg));
}

static json_t *entry_json(const up_eval_plan *p, const up_eval_job *job)
{
    json_t *o = job_json(p, job);

    if (job->cut) {
        json_object_set_new(o, "answer_cut", json_true());
        json_object_set_new(
            o, "answer_bytes",
            json_integer((json_int_t)up_eval_job_live_view(job)->answer_bytes));
    }
    return o;
}

int up_journal_append(up_journal *j, const up_eval_plan *p,
                      const up_eval_job *job, up_error *err)
{
    json_t *o = entry_json(p, job);
    char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    up_buf b = UP_BUF_INIT;
    off_t start = lseek(j->fd, 0, SEEK_END);
    int rc = 0;

    json_decref(o);
    up_buf_adds(&b, line ? line : "{}");
    up_buf_addc(&b, '\n');
    free(line);
    if (up_fs_write_all(j->fd, b.data, b.len)) {
        int e = errno;

        /* Leave whole lines only: the journal stays readable and a
         * resume appends after the last complete one. */
        if (start >= 0 && ftruncate(j->fd, start))
            e = e ? e : errno;
        rc = up_error_set(err, UP_EIO, "'%s': cannot append: %s", j->path,
                          strerror(e));
    }
    up_buf_release(&b);
    return rc;
}

int up_journal_close(up_journal *j, up_error *err)
{
    int rc = 0;

    if (j->fd >= 0 && (fsync(j->fd) || close(j->fd)))
        rc = up_error_set(err, UP_EIO, "'%s': cannot write: %s", j->path,
                          strerror(errno));
    j->fd = -1;
    free(j->path);
    j->path = NULL;
    up_store_batch_unlock(j->lock_fd);
    j->lock_fd = -1;
    return rc;
}

static up_eval_job *find_job(up_eval_plan *p, const json_t *o)
{
    const char *model = up_json_str(o, "model"), *arm = up_json_str(o, "arm");
    const char *hash = up_json_str(o, "input_hash");
    long kase = up_json_long(o, "case", -1);
    int repeat = (int)up_json_long(o, "repeat", 0);
    char h[17];

    if (!model || !arm || !hash || kase < 0 || (size_t)kase >= p->suite->ncases)
        return NULL;
    hash_text(h, p->user[kase]);
    if (strcmp(h, hash))
        return NULL;
    for (size_t i = 0; i < p->njobs; i++) {
        up_eval_job *j = &p->jobs[i];

        if (j->kase == (size_t)kase && j->repeat == repeat &&
            !strcmp(arm_names[j->arm], arm) &&
            !strcmp(p->models[j->model], model))
            return j;
    }
    return NULL;
}

static void restore(const up_eval_plan *p, up_eval_job *j, const json_t *o)
{
    const json_t *u = json_object_get(o, "usage");
    const json_t *answer = json_object_get(o, "answer");
    const char *msg = up_json_str(o, "error_message");
    up_usage usage = {.input = up_json_long(u, "input", 0),
                      .output = up_json_long(u, "output", 0),
                      .cached = up_json_long(u, "cached", 0),
                      .reasoning = up_json_long(u, "reasoning", 0),
                      .estimated =
                          json_is_true(json_object_get(u, "estimated"))};

    j->done = 1;
    if (json_is_string(answer))
        up_eval_keep_answer(p, j, json_string_value(answer),
                            json_string_length(answer));
    if (json_is_true(json_object_get(o, "answer_cut"))) {
        j->cut = 1;
        up_eval_job_live_of(j)->answer_bytes =
            (size_t)up_json_long(o, "answer_bytes", 0);
    }
    up_eval_job_set_usage(j, &usage);
    j->latency_ms = up_eval_latency(up_json_num(o, "latency_ms", 0));
    j->attempts = up_eval_attempts(up_json_long(o, "attempts", 0));
    j->from_cache = json_is_true(json_object_get(o, "from_cache"));
    j->error = up_eval_error_code(up_json_long(o, "error", 0));
    j->error_msg = msg ? up_xstrdup(msg) : NULL;
}

/* Restore the job line names, when it is one of p's and not done. */
static int replay_line(up_eval_plan *p, const char *line, size_t len)
{
    json_t *o = json_loadb(line, len, 0, NULL);
    up_eval_job *j = o ? find_job(p, o) : NULL;
    int hit = j && !j->done && !json_integer_value(json_object_get(o, "error"));

    if (hit)
        restore(p, j, o);
    json_decref(o);
    return hit;
}

int up_journal_replay(up_eval_plan *p, const char *batch_dir, size_t *restored,
                      up_error *err)
{
    up_buf path = UP_BUF_INIT;
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;

    *restored = 0;
    up_fs_join(&path, batch_dir, "journal.jsonl");
    f = fopen(path.data, "re");
    if (!f && errno != ENOENT)
        rc = up_error_set(err, UP_EIO, "'%s': cannot open: %s", path.data,
                          strerror(errno));
    /* A line at a time: memory follows the longest line, not the file. */
    while (f && (n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] != '\n')
            break; /* a torn last line: the job re-runs */
        *restored += (size_t)replay_line(p, line, (size_t)n - 1);
    }
    if (f && ferror(f))
        rc = up_error_set(err, UP_EIO, "'%s': cannot read: %s", path.data,
                          strerror(errno));
    if (f)
        fclose(f);
    free(line);
    up_buf_release(&path);
    return rc;
}

void up_eval_keep_answer(const up_eval_plan *p, up_eval_job *j,
                         const char *text, size_t len)
{
    size_t cap = p->max_answer ? p->max_answer : UP_EVAL_MAX_ANSWER;
    size_t keep = len;
    up_eval_job_live *lv;

    if (len > cap) {
        keep = cap;
        while (keep && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--; /* not inside a UTF-8 character */
    }
    lv = up_eval_job_live_of(j);
    free(lv->answer);
    lv->answer = up_xmalloc(keep + 1);
    memcpy(lv->answer, text, keep);
    lv->answer[keep] = '\0';
    lv->answer_bytes = len;
    j->cut = keep < len;
}

/* ---- what a batch was made for -------------------------------------- */

json_t *up_eval_batch_identity(const up_eval_plan *p)
{
    char suite_hash[65], skill_hash[65];
    json_t *models = json_array(), *o;

    up_suite_sha256(p->suite, suite_hash);
    up_sha256_hex(skill_hash, p->system_skill, strlen(p->system_skill));
    for (size_t i = 0; i < p->nmodels; i++)
        json_array_append_new(models, json_string(p->models[i]));
    o = json_pack("{s:s, s:s, s:o, s:i, s:b, s:b, s:i, s:I}", "suite_sha256",
                  suite_hash, "skill_sha256", skill_hash, "models", models,
                  "runs", p->runs, "baseline", p->baseline, "agent", p->agent,
                  "agent_inject", (int)p->agent_inject, "seed",
                  (json_int_t)p->seed);
    if (p->skill_base) { /* compare: skill A in the baseline arm */
        up_sha256_hex(skill_hash, p->system_base, strlen(p->system_base));
        json_object_set_new(o, "base_sha256", json_string(skill_hash));
    }
    if (p->shard_count) /* a partial batch (docs/sharding.md) */
        json_object_set_new(o, "shard",
                            json_pack("{s:i, s:i}", "index", p->shard_index,
                                      "count", p->shard_count));
    return o;
}

int up_eval_batch_mark(const up_eval_plan *p, const char *batch_dir,
                       up_error *err)
{
    up_buf path = UP_BUF_INIT;
    json_t *o = up_eval_batch_identity(p);
    int rc;

    up_fs_join(&path, batch_dir, UP_EVAL_BATCH_PLAN);
    rc = up_json_write_file(path.data, o, err);
    json_decref(o);
    up_buf_release(&path);
    return rc;
}

/* What each identity key stands for, in a refusal message; a key added
 * later (LATER) is absent from older batches, which then stand for its
 * default (false or 0); one that was not recorded before (UNRECORDED)
 * matches any value when absent on either side. */
enum { ALWAYS = 0, LATER, UNRECORDED };

static const struct {
    const char *key, *what;
    int later;
} identity_keys[] = {
    {"suite_sha256", "test suite", ALWAYS},
    {"skill_sha256", "skill", ALWAYS},
    {"models", "models (-m)", ALWAYS},
    {"runs", "number of runs (--runs)", ALWAYS},
    {"baseline", "baseline setting (--no-baseline)", ALWAYS},
    {"agent", "agent mode (--agent)", LATER},
    {"agent_inject", "skill injection in agent mode (--inject)", LATER},
    {"shard", "shard (--shard)", LATER},
    {"base_sha256", "compared skill (compare's SKILL_A)", LATER},
    {"seed", "statistics seed (--seed)", UNRECORDED},
};

/* An absent key of an older batch against its default now. */
static int absent_default(const json_t *now, int later)
{
    return later == UNRECORDED ||
           (later == LATER &&
            (json_is_false(now) ||
             (json_is_integer(now) && !json_integer_value(now))));
}

const char *up_eval_batch_differs(const json_t *had, const json_t *now,
                                  int with_shard, char **va, char **vb)
{
    *va = *vb = NULL;
    for (size_t i = 0; i < sizeof(identity_keys) / sizeof(identity_keys[0]);
         i++) {
        const json_t *a = json_object_get(had, identity_keys[i].key);
        const json_t *b = json_object_get(now, identity_keys[i].key);

        if ((!with_shard && !strcmp(identity_keys[i].key, "shard")) ||
            (identity_keys[i].later == UNRECORDED && (!a || !b)) ||
            (a ? json_equal(a, b)
               : !b || absent_default(b, identity_keys[i].later)))
            continue;
        *va = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        *vb = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        return identity_keys[i].what;
    }
    return NULL;
}

static int compare_identity(const json_t *had, const json_t *now,
                            const char *batch_dir, up_error *err)
{
    char *sa, *sb;
    const char *what = up_eval_batch_differs(had, now, 1, &sa, &sb);
    int rc = 0;

    if (what)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': cannot resume: this run's %s differs from the "
                          "batch's (batch: %.80s, now: %.80s); start a new "
                          "batch instead",
                          batch_dir, what, sa ? sa : "none", sb ? sb : "?");
    free(sa);
    free(sb);
    return rc;
}

int up_eval_batch_match(const up_eval_plan *p, const char *batch_dir,
                        up_error *err)
{
    up_buf path = UP_BUF_INIT;
    json_t *had = NULL, *now = up_eval_batch_identity(p);
    int rc;

    up_fs_join(&path, batch_dir, UP_EVAL_BATCH_PLAN);
    rc = up_json_load_file(&had, path.data, err);
    if (rc == UP_ENOTFOUND)
        rc = up_json_write_file(path.data, now, err); /* an older batch */
    else if (!rc)
        rc = compare_identity(had, now, batch_dir, err);
    json_decref(had);
    json_decref(now);
    up_buf_release(&path);
    return rc;
}
