/* Unit tests for upskill merge: shard batches checked and combined. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/upskill.h"

static char root[] = "/tmp/upskill-merge.XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* A shard batch folder root/name with plan (shard index of count, suite)
 * and journal text; returns its path (static storage per name). */
static char *shard(const char *name, int index, int count, const char *suite,
                   const char *journal)
{
    static char paths[8][256];
    static int next;
    char *dir = paths[next++ % 8], plan[512];

    snprintf(dir, 256, "%s/%s", root, name);
    cr_assert_eq(mkdir(dir, 0755), 0);
    if (index)
        snprintf(plan, sizeof(plan),
                 "{\"suite_sha256\": \"%s\", \"skill_sha256\": \"k\", "
                 "\"models\": [\"a\"], \"runs\": 1, \"baseline\": true, "
                 "\"agent\": false, \"agent_inject\": 0, \"shard\": "
                 "{\"index\": %d, \"count\": %d}}",
                 suite, index, count);
    else
        snprintf(plan, sizeof(plan), "{\"suite_sha256\": \"%s\"}", suite);
    put(dir, "batch_plan.json", plan);
    if (journal)
        put(dir, "journal.jsonl", journal);
    return dir;
}

static void setup(void)
{
    cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
    nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static up_buf notes = UP_BUF_INIT; /* the last merge's */

static int merge(up_buf *dir, char **b, size_t n, up_error *err)
{
    up_buf id = UP_BUF_INIT, runs = UP_BUF_INIT;
    int rc;

    up_fs_join(&runs, root, "runs");
    up_buf_reset(&notes);
    rc = up_merge_shards(dir, &id, &notes, runs.data, b, n, err);
    up_buf_release(&id);
    up_buf_release(&runs);
    return rc;
}

TestSuite(merge, .init = setup, .fini = teardown);

Test(merge, journals_combined_torn_line_left_out_shard_mark_dropped)
{
    char *b[] = {shard("s2", 2, 2, "x", "{\"j\":2}\n{\"j\":"),
                 shard("s1", 1, 2, "x", "{\"j\":1}\n")};
    up_buf dir = UP_BUF_INIT, text = UP_BUF_INIT, path = UP_BUF_INIT;
    up_error err;

    cr_assert_eq(merge(&dir, b, 2, &err), 0, "%s", err.msg);
    up_fs_join(&path, dir.data, "journal.jsonl");
    cr_assert_eq(up_fs_read(&text, path.data, 1 << 20, &err), 0);
    cr_assert_str_eq(text.data, "{\"j\":2}\n{\"j\":1}\n");
    up_buf_reset(&path);
    up_buf_reset(&text);
    up_fs_join(&path, dir.data, "batch_plan.json");
    cr_assert_eq(up_fs_read(&text, path.data, 1 << 20, &err), 0);
    cr_assert_null(strstr(text.data, "\"shard\""));
    cr_assert_not_null(strstr(text.data, "\"merged\": {"), "%s", text.data);
    cr_assert_not_null(strstr(text.data, "\"suite_sha256\": \"x\""));
    up_buf_release(&dir);
    up_buf_release(&text);
    up_buf_release(&path);
}

/* Issue 26, item 9: a shard whose every conversation errored is merged
 * with a warning naming it; one with some answers is not. */
Test(merge, a_shard_all_errored_is_said)
{
    char *b[] = {shard("s1", 1, 2, "x", "{\"j\":1,\"error\":0}\n"),
                 shard("s2", 2, 2, "x",
                       "{\"j\":2,\"error\":3}\n{\"j\":3,\"error\":3}\n")};
    up_buf dir = UP_BUF_INIT;
    up_error err;

    cr_assert_eq(merge(&dir, b, 2, &err), 0, "%s", err.msg);
    cr_assert_not_null(strstr(notes.data, "shard 2 of 2 ("), "%s", notes.data);
    cr_assert_not_null(
        strstr(notes.data, "all 2 of its conversations errored"));
    cr_assert_null(strstr(notes.data, "shard 1 of 2"));
    up_buf_release(&dir);
    up_buf_release(&notes);
}

Test(merge, refusals_name_what_is_wrong_and_leave_no_batch)
{
    static const struct {
        int idx[3], count[3];
        const char *suite[3], *says;
    } cases[] = {
        {{1, 3, 0}, {4, 4, 0}, {"x", "x", NULL}, "shards 2, 4 of 4 missing"},
        {{1, 1, 2}, {2, 2, 2}, {"x", "x", "x"}, "are both shard 1 of 2"},
        {{1, 2, 0}, {2, 2, 0}, {"x", "y", NULL}, "its test suite differs"},
        {{1, 2, 0}, {2, 3, 0}, {"x", "x", NULL}, "one of 3 shards, not of 2"},
        {{1, 0, 0}, {2, 2, 0}, {"x", "x", NULL}, "not a shard: "},
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char *b[3], name[32];
        size_t n = 0;
        up_buf dir = UP_BUF_INIT;
        up_error err;

        for (; n < 3 && cases[c].suite[n]; n++) {
            snprintf(name, sizeof(name), "c%zu-%zu", c, n);
            b[n] = shard(name, cases[c].idx[n], cases[c].count[n],
                         cases[c].suite[n], NULL);
        }
        cr_assert_eq(merge(&dir, b, n, &err), UP_EPARSE, "case %zu", c);
        cr_assert_not_null(strstr(err.msg, cases[c].says), "case %zu: %s", c,
                           err.msg);
        cr_assert_eq(dir.len, 0, "case %zu made a batch", c);
        up_buf_release(&dir);
    }
}
