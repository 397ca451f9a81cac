/*
 * Case artifacts (docs/runs-format.md, "Case artifacts"): one JSON object
 * per conversation, a line of its run folder's run_N/cases/transcripts.jsonl,
 * written by the run log for every command that goes through the session.
 *
 * When: eval, benchmark and select stream them (session_stream_open):
 * a job whose verdicts are final as it lands (answered, graded, no
 * llm-rubric verdict or check waiting) has its artifact written at once
 * to an unlinked scratch file of the batch folder (buffered, no system
 * call per job), its offset kept (8 bytes a job), and its answer,
 * assertion results, grading and agent trees freed, so a large run's
 * memory does not hold them (bench/README.md, "Memory of large runs").
 * Its run folder's number is known then: the run log numbers model x
 * repeat x arm on from the session's earlier records.  Jobs that land
 * several at once (restored by --resume, answered from the cache) are
 * streamed the same way when the runner says so (progress without a
 * job).  The rest (failed conversations, verdicts settled later,
 * generate's attempts) are built with the run's records (up_session_log_runs),
 * after grading and the judge, as before.  Each run folder's file is
 * then written in case order from both: the scratch lines copied, the
 * rest built one at a time.  One file per run folder, not one per case:
 * creating 2,000 small files doubled the time of a 1,000
 * case eval (bench/README.md).  The system prompt (in the skill arm the whole
 * skill body) is written once per run folder, as UP_STORE_SYSTEM_FILE,
 * and the artifacts' system message names it instead of repeating it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/session.h"

#include "lib/eval/session_int.h"
#include "util/json.h"

static const char *const arm_names[] = {"baseline", "with_skill"};

static json_t *system_msg(const char *system)
{
    return json_pack("{s:s, s:n, s:s, s:I}", "role", "system", "content",
                     "content_file", UP_STORE_SYSTEM_FILE, "content_bytes",
                     (json_int_t)strlen(system));
}

/* Chat mode's answer: its cut at max_answer_bytes is marked as the
 * artifact's own cap marks it.  Chat mode keeps no reasoning text. */
static json_t *answer_msg(const up_eval_job *j)
{
    const up_eval_job_live *lv = up_eval_job_live_view(j);
    json_t *m =
        json_pack("{s:s, s:o, s:n, s:[]}", "role", "assistant", "content",
                  up_json_text(lv->answer), "reasoning", "tool_calls");

    if (j->cut) {
        json_object_set_new(m, "content_bytes",
                            json_integer((json_int_t)lv->answer_bytes));
        json_object_set_new(m, "content_cut", json_true());
    }
    return m;
}

static json_t *messages(const up_eval_plan *p, const up_eval_job *j)
{
    json_t *v = json_array();

    json_array_append_new(v, system_msg(up_eval_system(p, j)));
    if (j->ag && j->ag->transcript) { /* agent mode: the conversation */
        json_array_extend(v, j->ag->transcript);
        return v;
    }
    json_array_append_new(v, json_pack("{s:s, s:o}", "role", "user", "content",
                                       up_json_text(p->user[j->kase])));
    if (up_eval_job_live_view(j)->answer && !j->error)
        json_array_append_new(v, answer_msg(j));
    return v;
}

static json_t *assert_value(const up_assert *a)
{
    json_t *v;

    if (!a->nlist)
        return up_json_str_or_null(a->value);
    v = json_array();
    for (size_t i = 0; i < a->nlist; i++)
        json_array_append_new(v, up_json_text(a->list[i]));
    return v;
}

/* A verdict: passed true/false, null while pending; message says why. */
static json_t *verdict(const up_assert *a, const up_assert_result *r,
                       int failed_job)
{
    int st = failed_job || !r ? UP_ASSERT_FAIL : r->status;
    const char *why = failed_job ? "not graded: the conversation failed"
                      : r && r->message.len ? r->message.data
                                            : NULL;

    json_t *v =
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "type", a->type, "name",
                  up_json_str_or_null(a->name), "value", assert_value(a),
                  "file", up_json_str_or_null(a->file), "passed",
                  st == UP_ASSERT_PENDING || st == UP_ASSERT_CHECK ||
                          st == UP_ASSERT_UNGRADABLE
                      ? json_null()
                      : json_boolean(st == UP_ASSERT_PASS),
                  "message", up_json_str_or_null(why));

    if (r && !failed_job && r->check) /* an executable check's output */
        json_object_set_new(
            v, "output",
            up_json_textn(r->output.len ? r->output.data : "", r->output.len));
    return v;
}

/* Each assertion's verdict; a job never graded (not run, or the run was
 * stopped) lists its case's assertions, not judged. */
static json_t *verdicts(const up_eval_plan *p, const up_eval_job *j)
{
    const up_eval_job_live *lv = up_eval_job_live_view(j);
    const up_assert_result *r = lv->results;
    up_assert_list own;
    const up_assert_list *l = &lv->asserts;
    json_t *v = json_array();

    if (!r) {
        up_eval_case_asserts(p, j->kase, &own);
        l = &own;
    }
    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(
            v, verdict(&l->items[i], r ? &r[i] : NULL, j->error != 0));
    if (!r)
        up_assert_list_release(&own);
    return v;
}

static json_t *usage(const up_eval_job *j)
{
    up_usage u;

    up_eval_job_usage(j, &u);
    return json_pack("{s:I, s:I, s:I, s:I, s:b}", "input_tokens",
                     (json_int_t)u.input, "output_tokens", (json_int_t)u.output,
                     "reasoning_tokens", (json_int_t)u.reasoning,
                     "cached_tokens", (json_int_t)u.cached, "estimated",
                     u.estimated);
}

static json_t *or_null(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

/* The artifact of job j, logged in run folder run (attempt 0: none). */
static json_t *artifact(const up_eval_plan *p, const up_eval_job *j, int run,
                        int attempt)
{
    json_t *o =
        json_pack("{s:I, s:I, s:i, s:s, s:s, s:i, s:o, s:o, s:o}", "case",
                  (json_int_t)j->kase + 1, "case_index", (json_int_t)j->kase,
                  "repeat", j->repeat, "arm", arm_names[j->arm], "model",
                  p->models[j->model], "run_number", run, "attempt",
                  attempt > 0 ? json_integer(attempt) : json_null(), "input",
                  up_json_text(p->suite->cases[j->kase].input), "messages",
                  messages(p, j));

    json_object_set_new(
        o, "error",
        up_json_str_or_null(
            j->error ? (j->error_msg ? j->error_msg : "request failed")
                     : NULL));
    json_object_set_new(o, "outgrew_context",
                        json_boolean(up_eval_job_outgrew(j)));
    json_object_set_new(o, "own_failure",
                        json_boolean(up_eval_job_own_failure(j)));
    json_object_set_new(o, "assertions", verdicts(p, j));
    json_object_set_new(o, "assertions_passed",
                        json_integer(j->asserts_passed));
    json_object_set_new(o, "assertions_total", json_integer(j->asserts_total));
    json_object_set_new(o, "passed", json_boolean(j->passed));
    json_object_set_new(o, "usage", usage(j));
    json_object_set_new(o, "latency_ms", json_real(j->latency_ms));
    json_object_set_new(o, "attempts", json_integer(j->attempts));
    json_object_set_new(o, "from_cache", json_boolean(j->from_cache));
    json_object_set_new(o, "cut_at",
                        j->cut_at ? json_integer(j->cut_at) : json_null());
    json_object_set_new(o, "workspace",
                        or_null(up_eval_job_agent_view(j)->workspace_json));
    json_object_set_new(o, "tools",
                        or_null(up_eval_job_agent_view(j)->tools_json));
    if (up_eval_job_live_view(j)->not_utf8) /* stored as U+FFFD */
        json_object_set_new(
            o, "not_utf8_bytes",
            json_integer((json_int_t)up_eval_job_live_view(j)->not_utf8));
    return o;
}

/* Members an artifact still over the cap once its workspace listing and
 * its texts are cut loses, in this order (each set to null and named in
 * "artifact_cut"). */
static const char *const droppable[] = {"workspace", "tools", "assertions",
                                        "messages", "input"};

/* Bytes of v dumped. */
static size_t dumped_len(const json_t *v)
{
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t n = t ? strlen(t) : 0;

    free(t);
    return n;
}

/* Leave out the last files of o's snapshot, at least over bytes of them,
 * counting them in its "more"; 0 when it lists none.  The snapshot is
 * the job's (shared): o gets a new one. */
static int trim_files(json_t *o, size_t over)
{
    json_t *ws = json_object_get(o, "workspace");
    json_t *files = json_object_get(ws, "files"), *kept, *copy;
    size_t n = json_array_size(files), keep = n, freed = 0;
    json_int_t more = json_integer_value(json_object_get(ws, "more"));

    if (!n)
        return 0;
    while (keep && freed < over)
        freed += dumped_len(json_array_get(files, --keep)) + 1;
    kept = json_array();
    for (size_t i = 0; i < keep; i++)
        json_array_append(kept, json_array_get(files, i));
    copy = json_copy(ws);
    json_object_set_new(copy, "files", kept);
    json_object_set_new(copy, "more",
                        json_integer(more + (json_int_t)(n - keep)));
    json_object_set_new(copy, "truncated", json_true());
    json_object_set_new(o, "workspace", copy);
    return 1;
}

/* The line of o, over the cap by over bytes, made smaller (marked in
 * cut): the snapshot's listing, then the texts' share *texts, then a
 * member.  0 when nothing is left to cut. */
static int cut_more(json_t *o, json_t *cut, size_t over, size_t *texts,
                    size_t *next)
{
    if (trim_files(o, over))
        return 1;
    if (*texts) {
        *texts = *texts > over ? *texts - over : 0;
        up_store_case_cap(o, *texts);
        return 1;
    }
    if (*next >= sizeof(droppable) / sizeof(droppable[0]))
        return 0;
    json_object_set_new(o, droppable[*next], json_null());
    json_array_append_new(json_object_get(cut, "dropped"),
                          json_string(droppable[(*next)++]));
    return 1;
}

/* o's line (owned); a tree jansson cannot encode (every text is built
 * through up_json_text, so none should be) gives a line that says so,
 * never NULL. */
static char *dump_line(const json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);

    return text ? text
                : up_xstrdup("{\"error\":\"the artifact could not be "
                             "encoded as JSON\"}");
}

/* o (texts bytes of text left once cut to cap) dumped in at most cap
 * bytes where cuts can make it so, marked "artifact_cut": {bytes,
 * dropped} (owned). */
static char *fit_line(json_t *o, size_t cap, size_t texts)
{
    char *text = dump_line(o);
    size_t len = strlen(text), next = 0;
    json_t *cut = NULL;

    while (len > cap) {
        if (!cut) { /* the whole line's size, before any cut */
            cut = json_pack("{s:I, s:[]}", "bytes", (json_int_t)len, "dropped");
            json_object_set_new(o, "artifact_cut", cut);
        }
        if (!cut_more(o, cut, len - cap, &texts, &next))
            break;
        free(text);
        text = dump_line(o);
        len = strlen(text);
    }
    return text;
}

/* The artifact's line text (owned), cut to the configured cap: its texts
 * first, then, for a line still over, the parts droppable names. */
static char *artifact_text(const up_session *s, const up_eval_plan *p,
                           const up_eval_job *j, int run, int attempt)
{
    json_t *o = artifact(p, j, run, attempt);
    long cfg = s->cfg->artifact_max_bytes.value;
    size_t cap = cfg > 0 ? (size_t)cfg : UP_STORE_CASE_MAX;
    char *text;

    text = fit_line(o, cap, up_store_case_cap(o, cap));
    json_decref(o);
    return text;
}

static int write_one(const up_session *s, up_store_cases *w,
                     const up_eval_plan *p, const up_eval_job *j, int run,
                     int attempt, up_error *err)
{
    char *text = artifact_text(s, p, j, run, attempt);
    int rc = up_store_cases_add(w, text, err);

    free(text);
    return rc;
}

/* ---- the stream -------------------------------------------------------- */

/* Bytes gathered before one write to the scratch file. */
#define STREAM_FLUSH ((size_t)256 << 10)

struct session_stream {
    up_eval_plan *plan; /* borrowed */
    int fd;             /* the scratch file (unlinked), or -1 */
    up_buf pending;     /* lines not yet written */
    uint64_t size;      /* bytes written to fd */
    uint64_t *off;      /* per job: 1 + its line's offset; 0: not streamed */
    int base;           /* the session's records when it opened */
    char *win;          /* a window of the file, read back to log */
    size_t wcap, wlen;  /* its room and the bytes in it */
    uint64_t wat;       /* its offset in the file */
    up_error err;       /* the first write error (err.code 0: none) */
    /* the caller's progress hook, called first */
    void (*progress)(void *ud, const up_eval_plan *p, size_t done,
                     const up_eval_job *job);
    void *progress_ud;
};

/* The run folder's number up_session_log_runs gives model m, repeat and
 * arm of p: model, then repeat, then arm (baseline first when it runs),
 * numbered on from base. */
static int run_number(const up_eval_plan *p, int base, size_t m, int repeat,
                      enum up_arm arm)
{
    int narms = p->baseline ? 2 : 1;
    int a = p->baseline ? (int)arm : 0;

    return base + ((int)m * p->runs + repeat - 1) * narms + a + 1;
}

static int stream_flush(struct session_stream *st)
{
    if (!st->pending.len || st->err.code)
        return st->err.code;
    if (up_fs_write_all(st->fd, st->pending.data, st->pending.len))
        return up_error_set(&st->err, UP_EIO,
                            "the case artifacts' scratch file in the batch "
                            "folder: cannot write: %s",
                            strerror(errno));
    st->size += st->pending.len;
    up_buf_reset(&st->pending);
    return 0;
}

/* 1 when j's verdicts are final: answered, graded, nothing waiting. */
static int settled(const up_eval_job *j)
{
    const up_eval_job_live *lv = up_eval_job_live_view(j);
    const up_assert_result *r = lv->results;

    if (!j->done || j->error || !r || j->logged)
        return 0;
    for (size_t i = 0; i < lv->asserts.n; i++)
        if (r[i].status == UP_ASSERT_PENDING || r[i].status == UP_ASSERT_CHECK)
            return 0;
    return 1;
}

static void stream_job(const up_session *s, struct session_stream *st,
                       up_eval_job *j)
{
    up_eval_plan *p = st->plan;
    char *text;

    if (st->err.code || !settled(j))
        return;
    text = artifact_text(
        s, p, j, run_number(p, st->base, j->model, j->repeat, j->arm), 0);
    st->off[j - p->jobs] = st->size + st->pending.len + 1;
    up_buf_adds(&st->pending, text);
    up_buf_add(&st->pending, "\n", 1);
    free(text);
    up_eval_job_shed(p, j);
    if (st->pending.len >= STREAM_FLUSH)
        stream_flush(st);
}

/* up_eval_run_opts.progress: the caller's hook, then the job's artifact. */
static void stream_progress(void *ud, const up_eval_plan *p, size_t done,
                            const up_eval_job *job)
{
    const up_session *s = ud;
    struct session_stream *st = s->stream;

    if (st->progress)
        st->progress(st->progress_ud, p, done, job);
    if (p != st->plan || !p->prepared)
        return;
    if (job)
        stream_job(s, st, &st->plan->jobs[job - p->jobs]);
    else /* several landed at once: restored from the journal, cached */
        for (size_t i = 0; i < p->njobs; i++)
            stream_job(s, st, &st->plan->jobs[i]);
}

void session_stream_open(up_session *s, up_eval_plan *p)
{
    struct session_stream *st;
    up_buf path = UP_BUF_INIT;
    int fd;

    if (!s->batch_dir.len || s->stream)
        return;
    up_fs_join(&path, s->batch_dir.data, ".cases.tmp.XXXXXX");
    fd = mkstemp(path.data);
    if (fd >= 0)
        unlink(path.data); /* gone with the process, whatever happens */
    up_buf_release(&path);
    if (fd < 0)
        return; /* no stream: the artifacts are built at the end */
    st = up_xcalloc(1, sizeof(*st));
    st->plan = p;
    st->fd = fd;
    st->off = up_xcalloc(p->njobs ? p->njobs : 1, sizeof(*st->off));
    st->base = (int)s->nruns;
    s->stream = st;
}

void session_stream_hook(up_session *s, up_eval_run_opts *o)
{
    if (!s->stream)
        return;
    s->stream->progress = o->progress;
    s->stream->progress_ud = o->progress_ud;
    o->progress = stream_progress;
    o->progress_ud = s;
}

void session_stream_close(up_session *s)
{
    struct session_stream *st = s->stream;

    if (!st)
        return;
    close(st->fd);
    free(st->win);
    up_buf_release(&st->pending);
    free(st->off);
    free(st);
    s->stream = NULL;
}

/* The stream's error, if any, as err. */
static int stream_failed(const struct session_stream *st, up_error *err)
{
    return st->err.code ? up_error_set(err, st->err.code, "%s", st->err.msg)
                        : 0;
}

/* Read the window at offset at: at least want bytes when the file has
 * them.  Not a map: mapped pages would count in the peak memory. */
static int stream_read(struct session_stream *st, uint64_t at, size_t want,
                       up_error *err)
{
    ssize_t n;

    if (want > st->wcap) {
        st->win = up_xrealloc(st->win, want);
        st->wcap = want;
    }
    do
        n = pread(st->fd, st->win, st->wcap, (off_t)at);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return up_error_set(err, UP_EIO,
                            "the case artifacts' scratch file: cannot "
                            "read: %s",
                            strerror(errno));
    st->wat = at;
    st->wlen = (size_t)n;
    return 0;
}

/* Job i's streamed line (its newline included) into w.  Lines are read
 * through a window: the jobs of a run landed about in their order. */
static int copy_line(struct session_stream *st, up_store_cases *w, size_t i,
                     up_error *err)
{
    uint64_t at = st->off[i] - 1;
    size_t want = STREAM_FLUSH;

    for (;;) {
        int in = st->win && at >= st->wat && at < st->wat + st->wlen;
        const char *line = in ? st->win + (at - st->wat) : NULL;
        const char *nl =
            in ? memchr(line, '\n', st->wlen - (size_t)(at - st->wat)) : NULL;

        if (nl)
            return up_store_cases_add_line(w, line, (size_t)(nl - line) + 1,
                                           err);
        if (in && at == st->wat && st->wlen < st->wcap)
            return up_error_set(err, UP_EIO,
                                "the case artifacts' scratch file: a line "
                                "is cut short");
        if (in && at == st->wat)
            want = 2 * st->wcap; /* a line longer than the window */
        if (stream_read(st, at, want, err))
            return UP_EIO;
        if (!st->wlen) /* past the end: never so unless the file shrank */
            return up_error_set(err, UP_EIO,
                                "the case artifacts' scratch file: a line "
                                "is missing");
    }
}

int session_log_cases(const up_session *s, const up_eval_plan *p, size_t m,
                      int repeat, enum up_arm arm, int run, int attempt,
                      up_error *err)
{
    const char *system = arm == UP_ARM_SKILL ? p->system_skill : p->system_base;
    struct session_stream *st =
        s->stream && s->stream->plan == p ? s->stream : NULL;
    up_store_cases w;
    int rc =
        up_store_run_file_write(s->batch_dir.data, run, UP_STORE_SYSTEM_FILE,
                                system, strlen(system), err);

    if (!rc && st &&
        (attempt || run != run_number(p, st->base, m, repeat, arm)))
        rc = up_error_set(err, UP_EIO,
                          "run_%d: its case artifacts were streamed as "
                          "run_%d",
                          run, run_number(p, st->base, m, repeat, arm));
    if (!rc && st && stream_flush(st)) /* its message, not a bare code */
        rc = stream_failed(st, err);
    if (!rc)
        rc = up_store_cases_open(&w, s->batch_dir.data, run, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < p->njobs && !rc; i++) {
        const up_eval_job *j = &p->jobs[i];

        if (!j->done || j->model != m || j->repeat != repeat || j->arm != arm)
            continue;
        rc = st && st->off[i] ? copy_line(st, &w, i, err)
                              : write_one(s, &w, p, j, run, attempt, err);
    }
    if (rc)
        up_store_cases_abort(&w);
    return rc ? rc : up_store_cases_close(&w, err);
}
