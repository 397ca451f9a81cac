/*
 * upskill merge: the shard batches of one `eval --shard I/N` run checked
 * for belonging together and combined into one new batch: their journal
 * lines and the plan without its shard mark (docs/sharding.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/eval.h"
#include "upskill/fs.h"
#include "upskill/merge.h"
#include "upskill/store.h"
#include "util/json.h"

#define JOURNAL "journal.jsonl"

/* shard.index and shard.count of a plan; 0 when it is no shard. */
static long shard_field(const json_t *plan, const char *key)
{
    return up_json_long(json_object_get(plan, "shard"), key, 0);
}

static int load_plan(json_t **plan, const char *batch, up_error *err)
{
    up_buf path = UP_BUF_INIT;
    int rc;

    up_fs_join(&path, batch, UP_EVAL_BATCH_PLAN);
    rc = up_json_load_file(plan, path.data, err);
    if (rc == UP_ENOTFOUND)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': no %s: not an eval batch (merge takes the "
                          "batch folders of 'eval --shard I/N' runs)",
                          batch, UP_EVAL_BATCH_PLAN);
    else if (!rc && (shard_field(*plan, "count") < 1 ||
                     shard_field(*plan, "index") < 1 ||
                     shard_field(*plan, "index") > shard_field(*plan, "count")))
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': not a shard: its %s has no \"shard\" "
                          "{index, count} (it was not run with --shard I/N)",
                          batch, UP_EVAL_BATCH_PLAN);
    up_buf_release(&path);
    return rc;
}

/* Refuse plan against first (of batch first_dir) where a shared key
 * differs, naming both batches and both values. */
static int check_same(const json_t *first, const char *first_dir,
                      const json_t *plan, const char *dir, up_error *err)
{
    char *sa, *sb;
    const char *what = up_eval_batch_differs(first, plan, 0, &sa, &sb);
    int rc = 0;

    if (what)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': not a shard of the same run as '%s': its %s "
                          "differs (%.80s, not %.80s)",
                          dir, first_dir, what, sb ? sb : "none",
                          sa ? sa : "none");
    free(sa);
    free(sb);
    if (rc)
        return rc;
    if (shard_field(plan, "count") != shard_field(first, "count"))
        return up_error_set(err, UP_EPARSE,
                            "'%s': not a shard of the same run as '%s': it is "
                            "one of %ld shards, not of %ld",
                            dir, first_dir, shard_field(plan, "count"),
                            shard_field(first, "count"));
    return 0;
}

/* The missing indices of seen[0..count) as "2, 4" into out. */
static void list_missing(up_buf *out, const size_t *seen, long count)
{
    for (long i = 0; i < count; i++)
        if (!seen[i])
            up_buf_addf(out, "%s%ld", out->len ? ", " : "", i + 1);
}

/* Each index 1..N exactly once. */
static int check_cover(json_t *const *plans, char *const *batches, size_t n,
                       up_error *err)
{
    long count = shard_field(plans[0], "count");
    size_t *seen = up_xcalloc((size_t)count, sizeof(*seen));
    up_buf missing = UP_BUF_INIT;
    int rc = 0;

    for (size_t i = 0; i < n && !rc; i++) {
        long at = shard_field(plans[i], "index") - 1;

        if (seen[at])
            rc = up_error_set(err, UP_EPARSE,
                              "'%s' and '%s' are both shard %ld of %ld: give "
                              "each shard once",
                              batches[seen[at] - 1], batches[i], at + 1, count);
        seen[at] = i + 1;
    }
    if (!rc)
        list_missing(&missing, seen, count);
    if (!rc && missing.len)
        rc = up_error_set(err, UP_EPARSE,
                          "shard%s %s of %ld missing: merge needs every shard "
                          "1..%ld of the run",
                          strchr(missing.data, ',') ? "s" : "", missing.data,
                          count, count);
    up_buf_release(&missing);
    free(seen);
    return rc;
}

/* A shard's journal as copied: lines, and of them errored jobs. */
struct shard_count {
    size_t lines, errored;
};

/* Count line (len bytes) into c. */
static void count_line(struct shard_count *c, const char *line, size_t len)
{
    json_t *o = json_loadb(line, len, 0, NULL);

    c->lines++;
    c->errored += json_integer_value(json_object_get(o, "error")) != 0;
    json_decref(o);
}

/* Append batch's complete journal lines to fd (a torn last line of an
 * interrupted shard is left out; a shard without jobs may have none),
 * counted into c. */
static int copy_journal(int fd, const char *batch, struct shard_count *c,
                        up_error *err)
{
    up_buf path = UP_BUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    FILE *fp;
    int rc = 0;

    up_fs_join(&path, batch, JOURNAL);
    fp = fopen(path.data, "r");
    if (!fp && errno != ENOENT)
        rc = up_error_set(err, UP_EIO, "'%s': cannot read: %s", path.data,
                          strerror(errno));
    while (fp && !rc && (len = getline(&line, &cap, fp)) > 0) {
        if (line[len - 1] != '\n')
            continue;
        count_line(c, line, (size_t)len);
        if (up_fs_write_all(fd, line, (size_t)len))
            rc = up_error_set(err, UP_EIO,
                              "cannot write the merged journal: "
                              "%s",
                              strerror(errno));
    }
    if (fp && !rc && ferror(fp))
        rc = up_error_set(err, UP_EIO, "'%s': cannot read", path.data);
    if (fp)
        fclose(fp);
    free(line);
    up_buf_release(&path);
    return rc;
}

/* A note on each shard whose every conversation errored: merged, they
 * stay errors (the finishing --resume sends nothing). */
static void note_errored(up_buf *notes, char *const *batches,
                         json_t *const *plans, const struct shard_count *c,
                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].lines && c[i].errored == c[i].lines)
            up_buf_addf(notes,
                        "shard %ld of %ld ('%s'): all %zu of its "
                        "conversations errored; they stay errors in the "
                        "merged batch (its --resume sends nothing): run that "
                        "shard again (--resume it) before merging to measure "
                        "them\n",
                        shard_field(plans[i], "index"),
                        shard_field(plans[i], "count"), batches[i], c[i].lines);
}

static int write_journal(const char *dir, char *const *batches, size_t n,
                         struct shard_count *c, up_error *err)
{
    up_buf path = UP_BUF_INIT;
    int fd, rc = 0;

    up_fs_join(&path, dir, JOURNAL);
    fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        rc = up_error_set(err, UP_EIO, "'%s': cannot create: %s", path.data,
                          strerror(errno));
    for (size_t i = 0; i < n && !rc; i++)
        rc = copy_journal(fd, batches[i], &c[i], err);
    if (fd >= 0 && !rc && fsync(fd))
        rc = up_error_set(err, UP_EIO, "'%s': cannot write: %s", path.data,
                          strerror(errno));
    if (fd >= 0)
        close(fd);
    up_buf_release(&path);
    return rc;
}

/* The new batch: the journals, then the plan without its shard mark but
 * marked merged (a resume then re-sends no errored job). */
static int write_merged(const char *dir, const json_t *plan,
                        char *const *batches, size_t n, struct shard_count *c,
                        up_error *err)
{
    up_buf path = UP_BUF_INIT;
    json_t *whole = json_deep_copy(plan);
    int rc = write_journal(dir, batches, n, c, err);

    json_object_set_new(whole, UP_EVAL_MERGED,
                        json_pack("{s:I}", "shards", (json_int_t)n));
    json_object_del(whole, "shard");
    up_fs_join(&path, dir, UP_EVAL_BATCH_PLAN);
    if (!rc)
        rc = up_json_write_file(path.data, whole, err);
    json_decref(whole);
    up_buf_release(&path);
    return rc;
}

int up_merge_shards(up_buf *dir, up_buf *id, up_buf *notes,
                    const char *runs_dir, char *const *batches, size_t n,
                    up_error *err)
{
    json_t **plans = up_xcalloc(n ? n : 1, sizeof(*plans));
    struct shard_count *c = up_xcalloc(n ? n : 1, sizeof(*c));
    int rc = n ? 0 : up_error_set(err, UP_EUSAGE, "no shard batch given");

    for (size_t i = 0; i < n && !rc; i++)
        rc = load_plan(&plans[i], batches[i], err);
    for (size_t i = 1; i < n && !rc; i++)
        rc = check_same(plans[0], batches[0], plans[i], batches[i], err);
    if (!rc)
        rc = check_cover(plans, batches, n, err);
    if (!rc)
        rc = up_store_batch_new(dir, id, runs_dir, err);
    if (!rc)
        rc = write_merged(dir->data, plans[0], batches, n, c, err);
    if (!rc)
        note_errored(notes, batches, plans, c, n);
    if (rc && dir->len)
        up_fs_rm_tree(dir->data);
    free(c);
    for (size_t i = 0; i < n; i++)
        json_decref(plans[i]);
    free(plans);
    return rc;
}
