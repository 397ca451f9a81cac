/*
 * The eval journal (see include/upskill/eval.h): an append-only JSONL
 * record of finished jobs, the basis of Ctrl-C safety and --resume.  A
 * tool loop's line also holds what grading took from its workspace,
 * which is removed as the job lands (verdicts, counters, artifact
 * trees): a resume restores it graded instead of running it again.
 *
 * Invariant: the file holds whole lines only, each ending in '\n', except
 * after a crash mid-append; the next open cuts such a torn tail away
 * before appending.  Writers hold the batch's lock, so one process at a
 * time appends.  Also here: the batch's identity (batch_plan.json), which
 * a resume must match, and the per-answer size cap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "lib/store/store_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "lib/agent/workspace.h"
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

/* v, a borrowed tree, as a new reference; null for none. */
static json_t *or_null(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

/* The tool rows x used: {"read_file": [calls, errors], ...}. */
static json_t *tool_rows_json(const up_eval_agent_job *x)
{
    json_t *o = json_object();

    for (size_t i = 0; i < UP_TOOL_ROWS && up_tool_stat_name(i); i++)
        if (x->tool_count[i].calls || x->tool_count[i].errors)
            json_object_set_new(o, up_tool_stat_name(i),
                                json_pack("[I, I]",
                                          (json_int_t)x->tool_count[i].calls,
                                          (json_int_t)x->tool_count[i].errors));
    return o;
}

/* A tool-loop conversation's counters and its artifact's trees. */
static json_t *agent_json(const up_eval_agent_job *x)
{
    json_t *o = json_pack(
        "{s:I, s:I, s:I, s:f, s:i, s:I, s:o, s:o}", "turns",
        (json_int_t)x->turns, "tool_calls", (json_int_t)x->tool_calls,
        "tool_errors", (json_int_t)x->tool_errors, "llm_ms", x->llm_ms,
        "skill_read", (int)x->skill_read, "refs_read", (json_int_t)x->refs_read,
        "limit", up_json_str_or_null(x->limit), "tools", tool_rows_json(x));

    json_object_set_new(o, "transcript", or_null(x->transcript));
    json_object_set_new(o, "workspace", or_null(x->workspace_json));
    json_object_set_new(o, "tool_table", or_null(x->tools_json));
    return o;
}

/* Each assertion's verdict as grading left it: status, message and a
 * check's output (bytes that are not UTF-8 kept as U+FFFD). */
static json_t *verdicts_json(const up_eval_job_live *lv)
{
    json_t *v = json_array();

    for (size_t i = 0; i < lv->asserts.n; i++) {
        const up_assert_result *r = &lv->results[i];
        json_t *e = json_pack("{s:i, s:o}", "status", r->status, "message",
                              up_json_textn(r->message.data, r->message.len));

        if (e && r->check)
            json_object_set_new(e, "output",
                                up_json_textn(r->output.data, r->output.len));
        json_array_append_new(v, e ? e : json_null());
    }
    return v;
}

static json_t *entry_json(const up_eval_plan *p, const up_eval_job *job)
{
    json_t *o = job_json(p, job);
    const up_eval_job_live *lv = up_eval_job_live_view(job);

    if (job->cut) {
        json_object_set_new(o, "answer_cut", json_true());
        json_object_set_new(o, "answer_bytes",
                            json_integer((json_int_t)lv->answer_bytes));
    }
    if (job->cut_at)
        json_object_set_new(o, "cut_at", json_integer(job->cut_at));
    if (lv->not_utf8)
        json_object_set_new(o, "not_utf8_bytes",
                            json_integer((json_int_t)lv->not_utf8));
    /* A tool loop's workspace is gone once it lands: what grading took
     * from it goes here, so a resume need not run it again. */
    if (job->agent && job->ag && !job->error && lv->results) {
        json_object_set_new(o, "agent", agent_json(job->ag));
        json_object_set_new(o, "verdicts", verdicts_json(lv));
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

/* o's key as a count in [0, max] (a journal read back might say
 * anything). */
static long json_count(const json_t *o, const char *key, long max)
{
    long n = up_json_long(o, key, 0);

    return n < 0 ? 0 : n > max ? max : n;
}

/* The row of tool name (up_tool_stat_name), or UP_TOOL_ROWS. */
static size_t tool_row(const char *name)
{
    size_t i = 0;

    while (i < UP_TOOL_ROWS && up_tool_stat_name(i) &&
           strcmp(up_tool_stat_name(i), name))
        i++;
    return i < UP_TOOL_ROWS && up_tool_stat_name(i) ? i : UP_TOOL_ROWS;
}

/* A tree of o the job keeps (a new reference), when of the type. */
static json_t *keep_tree(const json_t *o, const char *key, json_type type)
{
    json_t *v = json_object_get(o, key);

    return v && json_typeof(v) == type ? json_incref(v) : NULL;
}

/* agent_json's object a into j's agent part. */
static void restore_agent(up_eval_job *j, const json_t *a)
{
    up_eval_agent_job *x = up_eval_job_agent(j);
    const char *lim = up_json_str(a, "limit"), *name;
    long read = up_json_long(a, "skill_read", -1);
    double ms = up_json_num(a, "llm_ms", 0);
    json_t *v;

    x->turns = up_eval_count32(up_json_long(a, "turns", 0));
    x->tool_calls = up_eval_count32(up_json_long(a, "tool_calls", 0));
    x->tool_errors = up_eval_count32(up_json_long(a, "tool_errors", 0));
    x->llm_ms = ms > 0 ? ms : 0;
    x->skill_read = (signed char)(read > 0 ? 1 : read == 0 ? 0 : -1);
    x->refs_read =
        up_eval_count16((size_t)json_count(a, "refs_read", LONG_MAX));
    x->limit = lim ? up_xstrdup(lim) : NULL;
    json_object_foreach((json_t *)json_object_get(a, "tools"), name, v)
    {
        size_t row = tool_row(name);

        if (row < UP_TOOL_ROWS)
            x->tool_count[row] = (up_eval_tool_count){
                up_eval_count32((long)json_integer_value(json_array_get(v, 0))),
                up_eval_count32(
                    (long)json_integer_value(json_array_get(v, 1)))};
    }
    x->transcript = keep_tree(a, "transcript", JSON_ARRAY);
    x->workspace_json = keep_tree(a, "workspace", JSON_OBJECT);
    x->tools_json = keep_tree(a, "tool_table", JSON_OBJECT);
    j->agent = 1;
}

/* Verdict o (verdicts_json's) over r, which grading the answer again
 * filled: a pending llm-rubric stays pending, its judge prompt rebuilt;
 * -1 when o does not fit. */
static int restore_verdict(up_assert_result *r, const json_t *o)
{
    long st = up_json_long(o, "status", -1);
    const char *msg = up_json_str(o, "message");
    const json_t *out = json_object_get(o, "output");

    if (st == UP_ASSERT_PENDING)
        return r->status == UP_ASSERT_PENDING ? 0 : -1;
    if (!msg || (st != UP_ASSERT_PASS && st != UP_ASSERT_FAIL &&
                 st != UP_ASSERT_UNGRADABLE))
        return -1;
    r->status = (int)st;
    up_buf_reset(&r->message);
    up_buf_adds(&r->message, msg);
    if (json_is_string(out)) {
        up_buf_reset(&r->output);
        up_buf_add(&r->output, json_string_value(out), json_string_length(out));
    }
    return 0;
}

/* The verdicts v of job j's assertions into its results; -1 when they
 * do not fit the case's assertions. */
static int restore_verdicts(const up_eval_plan *p, up_eval_job *j,
                            const json_t *v)
{
    const up_assert_list *l = up_eval_job_asserts(p, j);
    up_assert_usage u = {j->usage.estimated ? -1 : (long long)j->usage.output,
                         NULL, p->suite->cases[j->kase].output_file};
    up_assert_result *r;

    if (!json_is_array(v) || json_array_size(v) != l->n)
        return -1;
    r = up_assert_results_new(l->n);
    up_assert_check(l, up_eval_job_live_view(j)->answer, &u, r);
    for (size_t i = 0; i < l->n; i++)
        if (restore_verdict(&r[i], json_array_get(v, i))) {
            up_assert_results_free(r, l->n);
            return -1;
        }
    up_eval_job_live_of(j)->results = r;
    return 0;
}

/* A tool loop's grading (entry_json's "agent" and "verdicts") into j:
 * 0 when restored or the entry has none (a chat job); -1 when it has a
 * part only, or one that does not fit. */
static int restore_graded(const up_eval_plan *p, up_eval_job *j,
                          const json_t *o)
{
    const json_t *a = json_object_get(o, "agent");
    const json_t *v = json_object_get(o, "verdicts");

    if (!a && !v)
        return 0;
    if (!json_is_object(a) || j->error)
        return -1;
    restore_agent(j, a);
    return restore_verdicts(p, j, v);
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
    if (up_json_long(o, "not_utf8_bytes", 0) > 0)
        up_eval_job_live_of(j)->not_utf8 =
            (size_t)up_json_long(o, "not_utf8_bytes", 0);
    up_eval_job_set_usage(j, &usage);
    j->latency_ms = up_eval_latency(up_json_num(o, "latency_ms", 0));
    j->attempts = up_eval_attempts(up_json_long(o, "attempts", 0));
    j->from_cache = json_is_true(json_object_get(o, "from_cache"));
    j->error = up_eval_error_code(up_json_long(o, "error", 0));
    free(j->error_msg); /* a job restored again (open_to_line) */
    j->error_msg = msg ? up_xstrdup(msg) : NULL;
    j->cut_at = (int)json_count(o, "cut_at", INT_MAX);
    if (restore_graded(p, j, o)) { /* an older entry, or one not whole */
        up_eval_job_agent_free(j);
        up_eval_job_results_free(j);
        j->agent = 0;
    }
}

/* 1 when job j may take a line: not restored yet, or restored as an
 * answer only where its case grades a workspace (it would run again: a
 * later line, written when it did, holds its verdicts). */
static int open_to_line(const up_eval_plan *p, const up_eval_job *j)
{
    return !j->done || (!j->agent && up_eval_case_needs_workspace(p, j->kase));
}

/* Restore the job line names, when it is one of p's and open to it (an
 * errored line only with keep_errors, a student's own failure always;
 * an answered line also over an errored one); 1 when that job was not
 * done before. */
static int replay_line(up_eval_plan *p, const char *line, size_t len,
                       int keep_errors)
{
    json_t *o = json_loadb(line, len, 0, NULL);
    up_eval_job *j = o ? find_job(p, o) : NULL;
    int was = j && j->done;
    json_int_t code = json_integer_value(json_object_get(o, "error"));
    /* a failure the student caused (up_eval_job_own_failure) is a
     * result, kept: run again, a student could resume until it passes */
    int errored = code != 0 && code != UP_EAGENT && code != UP_ECONTEXT;

    if (j && (open_to_line(p, j) || (j->error && !errored)) &&
        (!errored || keep_errors))
        restore(p, j, o);
    json_decref(o);
    return j && !was && j->done;
}

/* 1 when batch_dir is a merge of shards (its plan says so). */
static int is_merged(const char *batch_dir)
{
    up_buf path = UP_BUF_INIT;
    json_t *plan = NULL;
    int merged;

    up_fs_join(&path, batch_dir, UP_EVAL_BATCH_PLAN);
    merged = !up_json_load_file(&plan, path.data, NULL) &&
             json_object_get(plan, UP_EVAL_MERGED) != NULL;
    json_decref(plan);
    up_buf_release(&path);
    return merged;
}

int up_journal_replay(up_eval_plan *p, const char *batch_dir, size_t *restored,
                      up_error *err)
{
    up_buf path = UP_BUF_INIT;
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0, keep_errors = is_merged(batch_dir);

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
        *restored += (size_t)replay_line(p, line, (size_t)n - 1, keep_errors);
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
    /* the verdict's margin, for the report; no identity key (a batch
     * resumed or merged at another margin is the same batch) */
    json_object_set_new(o, "margin", json_real(p->margin));
    if (p->family) /* how several comparisons' claims were controlled */
        json_object_set_new(
            o, "family_control",
            json_string(up_stats_family_id((up_family_control)p->family)));
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
