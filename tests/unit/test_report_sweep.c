/*
 * Unit tests for a sweep batch's skills as the report reads them
 * (up_report_sweep_skills, docs/report.md "A sweep: the leaderboard"):
 * in order, each once, at most UP_REPORT_SWEEP_MAX, nothing for a batch
 * that is no sweep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "upskill/upskill.h"

static char dir[] = "/tmp/upskill-sweep-XXXXXX";

static void summary(const char *stats)
{
    char path[64];
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/upskill-sweep-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/batch_summary.json", dir);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"results\": [], \"stats\": %s}", stats);
    fclose(f);
}

static void cleanup(void)
{
    char path[64];

    snprintf(path, sizeof(path), "%s/batch_summary.json", dir);
    unlink(path);
    rmdir(dir);
}

Test(report_sweep, names_in_order_each_once)
{
    char **names = NULL;
    size_t n = 0;

    summary("{\"sweep\": {\"skills\": [\"b\", \"a\", \"b\", 7, \"c\"]}}");
    up_report_sweep_skills(&names, &n, dir);
    cleanup();
    cr_assert_eq(n, 3);
    cr_expect_str_eq(names[0], "b");
    cr_expect_str_eq(names[1], "a");
    cr_expect_str_eq(names[2], "c");
    cr_expect_null(names[3]);
    up_strv_free(names);
}

Test(report_sweep, at_most_the_cap)
{
    up_buf s = UP_BUF_INIT;
    char **names = NULL;
    size_t n = 0;

    up_buf_adds(&s, "{\"sweep\": {\"skills\": [");
    for (int i = 0; i < UP_REPORT_SWEEP_MAX + 10; i++)
        up_buf_addf(&s, "%s\"s%d\"", i ? ", " : "", i);
    up_buf_adds(&s, "]}}");
    summary(s.data);
    up_report_sweep_skills(&names, &n, dir);
    cleanup();
    cr_expect_eq(n, UP_REPORT_SWEEP_MAX);
    up_strv_free(names);
    up_buf_release(&s);
}

Test(report_sweep, no_sweep_no_names)
{
    char **names = NULL;
    size_t n = 0;

    summary("{\"generate\": {\"kept_attempt\": 1}}");
    up_report_sweep_skills(&names, &n, dir);
    cleanup();
    cr_expect_eq(n, 0);
    cr_expect_null(names);
}
