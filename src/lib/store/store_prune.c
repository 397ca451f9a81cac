/*
 * `upskill runs --prune`: remove the batch folders of a runs folder in
 * which nothing was answered, the leftovers of runs that failed at once
 * (a dead endpoint, a typo in the base URL) or were stopped before their
 * first answer.  A batch is a sub-folder holding batch_plan.json,
 * batch_summary.json, the lock or run_1.  Nothing was answered when every
 * run file it has says every case errored (or it has none) and no line
 * of its journal holds an answer (error 0).  A batch that a running
 * command holds (its lock) is left alone; other folders are never
 * touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/store/store_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/store.h"

static const char *const batch_marks[] = {
    "batch_plan.json", "batch_summary.json", UP_STORE_LOCK_FILE, "run_1"};

static int is_batch(const char *dir)
{
    up_buf p = UP_BUF_INIT;
    int yes = 0;

    for (size_t i = 0; !yes && i < sizeof(batch_marks) / sizeof(*batch_marks);
         i++) {
        up_buf_reset(&p);
        up_fs_join(&p, dir, batch_marks[i]);
        yes = up_fs_exists(p.data);
    }
    up_buf_release(&p);
    return yes;
}

/* 1 when some run file of dir has a case that did not error. */
static int runs_answered(const char *dir)
{
    up_run_record *runs = NULL;
    size_t n = 0;
    int yes = 0;

    up_store_load_batch(&runs, &n, NULL, dir);
    for (size_t i = 0; i < n && !yes; i++)
        yes =
            !runs[i].cases_total || runs[i].cases_errored < runs[i].cases_total;
    up_store_free(runs, n);
    return yes;
}

/* 1 when a line of dir's journal holds an answer (or cannot be read). */
static int journal_answered(const char *dir)
{
    up_buf p = UP_BUF_INIT;
    FILE *fp;
    char *line = NULL;
    size_t cap = 0;
    int yes = 0;

    up_fs_join(&p, dir, "journal.jsonl");
    fp = fopen(p.data, "r");
    while (fp && !yes && getline(&line, &cap, fp) > 0) {
        json_t *o = json_loads(line, JSON_DISABLE_EOF_CHECK, NULL);
        json_t *e = json_object_get(o, "error");

        yes = !o || !json_is_integer(e) || json_integer_value(e) == 0;
        json_decref(o);
    }
    if (fp)
        fclose(fp);
    free(line);
    up_buf_release(&p);
    return yes;
}

/* Remove dir when nothing in it was answered and no one holds it. */
static int prune_one(const char *dir)
{
    int fd = -1, gone = 0;
    up_error e;

    if (!is_batch(dir) || runs_answered(dir) || journal_answered(dir))
        return 0;
    if (up_store_batch_lock(&fd, dir, &e))
        return 0; /* a command is running in it */
    gone = up_fs_rm_tree(dir) == 0;
    up_store_batch_unlock(fd);
    return gone;
}

int up_store_prune(char ***removed, const char *runs_dir, up_error *err)
{
    char **names = NULL;
    size_t n = 0, k = 0;
    up_buf dir = UP_BUF_INIT;
    int rc = up_fs_list(&names, &n, runs_dir, err);

    *removed = up_xcalloc(n + 1, sizeof(**removed));
    for (size_t i = 0; !rc && i < n; i++) {
        up_buf_reset(&dir);
        up_fs_join(&dir, runs_dir, names[i]);
        if (names[i][0] != '.' && up_fs_is_dir(dir.data) && prune_one(dir.data))
            (*removed)[k++] = up_xstrdup(dir.data);
    }
    up_strv_free(names);
    up_buf_release(&dir);
    return rc;
}
