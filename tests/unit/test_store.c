/* Unit tests for the run store: write, load back, compare, CSV. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upskill/upskill.h"

static char *mkroot(void)
{
    char tmpl[] = "/tmp/upskill-store.XXXXXX";

    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

static void fill(up_run_record *r, const char *batch, int num, const char *type,
                 const char *model, long passed, long total)
{
    up_run_record_init(r);
    r->batch_id = up_xstrdup(batch);
    r->run_number = num;
    r->model = up_xstrdup(model);
    r->task = up_xstrdup("write, \"quoted\" task");
    r->timestamp = up_xstrdup("2026-11-29T18:00:00Z");
    r->run_type = up_xstrdup(type);
    r->skill_name = up_xstrdup("git-commit-messages");
    r->assertions_passed = passed;
    r->assertions_total = total;
    r->total_tokens = 100 * passed + 10;
    r->repeat = 1;
}

Test(store, batch_ids_never_collide)
{
    char *root = mkroot();
    up_buf d1 = UP_BUF_INIT, i1 = UP_BUF_INIT, d2 = UP_BUF_INIT,
           i2 = UP_BUF_INIT;
    up_error err;

    cr_assert_eq(up_store_batch_new(&d1, &i1, root, &err), 0);
    cr_assert_eq(up_store_batch_new(&d2, &i2, root, &err), 0);
    cr_assert_str_neq(i1.data, i2.data);
    cr_assert(up_fs_is_dir(d1.data) && up_fs_is_dir(d2.data));
    up_buf_release(&d1);
    up_buf_release(&d2);
    up_buf_release(&i1);
    up_buf_release(&i2);
    free(root);
}

Test(store, write_load_compare_csv)
{
    char *root = mkroot();
    up_buf dir = UP_BUF_INIT, id = UP_BUF_INIT, csv = UP_BUF_INIT,
           text = UP_BUF_INIT;
    up_run_record w[2], *got = NULL;
    up_compare *cmp = NULL;
    size_t n = 0, ncmp = 0;
    char **skipped = NULL;
    up_error err;

    cr_assert_eq(up_store_batch_new(&dir, &id, root, &err), 0);
    fill(&w[0], id.data, 1, "baseline", "m1", 2, 5);
    fill(&w[1], id.data, 2, "with_skill", "m1", 4, 5);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(up_store_run_write(dir.data, &w[i], &err), 0, "%s",
                     err.msg);
    /* Without a summary the loader falls back to run_N/run_result.json. */
    cr_assert_eq(up_store_load(&got, &n, &skipped, root, &err), 0);
    cr_assert_eq(n, 2);
    cr_assert_null(skipped[0], "%s", skipped[0]);
    up_strv_free(skipped);
    cr_assert_str_eq(got[1].run_type, "with_skill");
    cr_assert_eq(got[1].assertions_passed, 4);
    up_store_compare(&cmp, &ncmp, got, n, NULL, 0, NULL, 0, 0);
    cr_assert_eq(ncmp, 1);
    cr_assert(cmp[0].has_baseline);
    cr_assert_float_eq(cmp[0].with_rate, 0.8, 1e-9);
    cr_assert_float_eq(cmp[0].base_rate, 0.4, 1e-9);
    free(cmp);
    up_fs_join(&csv, root, "out/results.csv");
    cr_assert_eq(up_store_csv(csv.data, got, n, NULL, 0, NULL, 0, &err), 0);
    cr_assert_eq(up_fs_read(&text, csv.data, 1 << 20, &err), 0);
    cr_assert(strstr(text.data, "\"write, \"\"quoted\"\" task\""));
    cr_assert(strstr(text.data, ",baseline,git-commit-messages,"));
    up_store_free(got, n);
    for (int i = 0; i < 2; i++)
        up_run_record_release(&w[i]);
    up_buf_release(&dir);
    up_buf_release(&id);
    up_buf_release(&csv);
    up_buf_release(&text);
    free(root);
}

Test(store, latest_versus_best)
{
    up_run_record r[4];
    up_compare *cmp = NULL;
    size_t ncmp = 0;

    fill(&r[0], "2026_01_01_00_00", 1, "baseline", "m", 1, 5);
    fill(&r[1], "2026_01_01_00_00", 2, "with_skill", "m", 5, 5);
    fill(&r[2], "2026_02_01_00_00", 1, "with_skill", "m", 3, 5);
    fill(&r[3], "2026_02_01_00_00", 2, "with_skill", "other", 3, 5);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, NULL, 0, 0);
    cr_assert_eq(ncmp, 2);
    cr_assert_float_eq(cmp[0].with_rate, 0.6, 1e-9, "latest is kept");
    cr_assert(cmp[0].has_baseline, "earlier baseline is used");
    free(cmp);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, NULL, 0, 1);
    cr_assert_float_eq(cmp[0].with_rate, 1.0, 1e-9, "best is kept");
    free(cmp);
    {
        const char *only[] = {"other"};

        up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, only, 1, 0);
        cr_assert_eq(ncmp, 1);
        cr_assert_str_eq(cmp[0].model, "other");
        cr_assert_not(cmp[0].has_baseline);
        free(cmp);
    }
    for (int i = 0; i < 4; i++)
        up_run_record_release(&r[i]);
}

Test(store, generate_batches_show_the_kept_attempt)
{
    char *root = mkroot();
    up_buf dir = UP_BUF_INIT, path = UP_BUF_INIT;
    const char *json =
        "{\"batch_id\": \"b\", \"results\": ["
        "{\"metadata\": {\"model\": \"m\"}, \"run_type\": \"with_skill\","
        " \"skill_name\": \"s\", \"attempt\": 1, \"assertions_passed\": 1,"
        " \"assertions_total\": 4},"
        "{\"metadata\": {\"model\": \"m\"}, \"run_type\": \"with_skill\","
        " \"skill_name\": \"s\", \"attempt\": 2, \"assertions_passed\": 3,"
        " \"assertions_total\": 4}],"
        " \"stats\": {\"generate\": {\"kept_attempt\": 2}}}";
    up_run_record *got = NULL;
    up_compare *cmp = NULL;
    size_t n = 0, ncmp = 0;
    up_error err;

    up_fs_join(&dir, root, "b");
    cr_assert_eq(up_fs_mkdir_p(dir.data, 0755, &err), 0);
    up_fs_join(&path, dir.data, "batch_summary.json");
    cr_assert_eq(up_fs_write_atomic(path.data, json, strlen(json), 0644, &err),
                 0);
    cr_assert_eq(up_store_load(&got, &n, NULL, root, &err), 0);
    cr_assert_eq(n, 2);
    cr_assert(got[0].superseded);
    cr_assert_not(got[1].superseded);
    up_store_compare(&cmp, &ncmp, got, n, NULL, 0, NULL, 0, 0);
    cr_assert_eq(ncmp, 1);
    cr_assert_float_eq(cmp[0].with_rate, 0.75, 1e-9,
                       "only the kept attempt is pooled");
    free(cmp);
    up_store_free(got, n);
    up_buf_release(&dir);
    up_buf_release(&path);
    free(root);
}
