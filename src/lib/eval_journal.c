/*
 * The eval journal (see include/upskill/eval.h): an append-only JSONL
 * record of finished jobs, the basis of Ctrl-C safety and --resume.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "util/json.h"

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

int up_journal_open(up_journal *j, const char *batch_dir, up_error *err)
{
    up_buf path = UP_BUF_INIT;

    up_fs_join(&path, batch_dir, "journal.jsonl");
    j->fd = open(path.data, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        int rc = up_error_set(err, UP_EIO, "'%s': cannot open: %s", path.data,
                              strerror(errno));

        up_buf_release(&path);
        return rc;
    }
    j->path = up_buf_detach(&path);
    return 0;
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
        up_json_str_or_null(job->answer), "usage", "input",
        (json_int_t)job->usage.input, "output", (json_int_t)job->usage.output,
        "cached", (json_int_t)job->usage.cached, "reasoning",
        (json_int_t)job->usage.reasoning, "estimated", job->usage.estimated,
        "latency_ms", job->latency_ms, "attempts", job->attempts, "from_cache",
        job->from_cache, "error", job->error, "error_message",
        up_json_str_or_null(job->error_msg));
}

int up_journal_append(up_journal *j, const up_eval_plan *p,
                      const up_eval_job *job, up_error *err)
{
    json_t *o = job_json(p, job);
    char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    up_buf b = UP_BUF_INIT;
    ssize_t n;

    json_decref(o);
    up_buf_adds(&b, line ? line : "{}");
    up_buf_addc(&b, '\n');
    free(line);
    n = write(j->fd, b.data, b.len);
    if (n < 0 || (size_t)n != b.len) {
        up_buf_release(&b);
        return up_error_set(err, UP_EIO, "'%s': cannot append: %s", j->path,
                            n < 0 ? strerror(errno) : "short write");
    }
    up_buf_release(&b);
    return 0;
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

static void restore(up_eval_job *j, const json_t *o)
{
    const json_t *u = json_object_get(o, "usage");
    const char *answer = up_json_str(o, "answer");
    const char *msg = up_json_str(o, "error_message");

    j->done = 1;
    j->answer = answer ? up_xstrdup(answer) : NULL;
    j->usage.input = up_json_long(u, "input", 0);
    j->usage.output = up_json_long(u, "output", 0);
    j->usage.cached = up_json_long(u, "cached", 0);
    j->usage.reasoning = up_json_long(u, "reasoning", 0);
    j->usage.estimated = json_is_true(json_object_get(u, "estimated"));
    j->latency_ms = up_json_num(o, "latency_ms", 0);
    j->attempts = (int)up_json_long(o, "attempts", 0);
    j->from_cache = json_is_true(json_object_get(o, "from_cache"));
    j->error = (int)up_json_long(o, "error", 0);
    j->error_msg = msg ? up_xstrdup(msg) : NULL;
}

int up_journal_replay(up_eval_plan *p, const char *batch_dir, size_t *restored,
                      up_error *err)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    char *line, *next;
    int rc;

    *restored = 0;
    up_fs_join(&path, batch_dir, "journal.jsonl");
    rc = up_fs_read(&text, path.data, (size_t)1 << 30, err);
    if (rc == UP_ENOTFOUND)
        rc = 0;
    for (line = text.data; !rc && *line; line = next) {
        json_t *o;
        up_eval_job *j;

        next = strchr(line, '\n');
        if (!next)
            break; /* a torn last line: the job re-runs */
        *next++ = '\0';
        o = json_loads(line, 0, NULL);
        j = o ? find_job(p, o) : NULL;
        if (j && !j->done && !json_integer_value(json_object_get(o, "error"))) {
            restore(j, o);
            ++*restored;
        }
        json_decref(o);
    }
    up_buf_release(&path);
    up_buf_release(&text);
    return rc;
}
