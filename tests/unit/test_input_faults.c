/*
 * Unit tests for input that must not get through quietly: paths that are
 * neither files nor folders (never opened so a FIFO cannot block), and
 * run files the store cannot read (reported, not skipped silently).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/upskill.h"

static void put(const char *dir, const char *rel, const char *text)
{
    up_buf path = UP_BUF_INIT, parent = UP_BUF_INIT;
    up_error err;

    up_fs_join(&path, dir, rel);
    up_fs_dirname(&parent, path.data);
    cr_assert_eq(up_fs_mkdir_p(parent.data, 0755, &err), 0, "%s", err.msg);
    cr_assert_eq(up_fs_write_atomic(path.data, text, strlen(text), 0644, &err),
                 0);
    up_buf_release(&path);
    up_buf_release(&parent);
}

static void remove_tree(const char *dir)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(input_faults, check_input_names_what_a_path_is)
{
    char dir[] = "/tmp/upskill-unit.XXXXXX";
    up_buf fifo = UP_BUF_INIT, got = UP_BUF_INIT;
    up_error err;

    cr_assert_not_null(mkdtemp(dir));
    up_fs_join(&fifo, dir, "pipe");
    cr_assert_eq(mkfifo(fifo.data, 0600), 0);
    cr_assert_eq(up_fs_check_input(dir, &err), 0);
    cr_assert_eq(up_fs_check_input(fifo.data, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "is a FIFO, not a file or folder"), "%s",
              err.msg);
    cr_assert_eq(up_fs_check_input("/dev/null", &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "is a character device"), "%s", err.msg);
    cr_assert_eq(up_fs_check_input("/nonexistent/x", &err), UP_ENOTFOUND);
    cr_assert(strstr(err.msg, "no such file or folder"), "%s", err.msg);
    /* reading a FIFO with no writer returns at once, naming it */
    cr_assert_eq(up_fs_read(&got, fifo.data, 100, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "is a FIFO, not a file"), "%s", err.msg);
    cr_assert(up_fs_exists(fifo.data));
    cr_assert_not(up_fs_exists("/nonexistent/x"));
    remove(fifo.data);
    rmdir(dir);
    up_buf_release(&fifo);
    up_buf_release(&got);
}

Test(input_faults, store_reports_each_skipped_file)
{
    char dir[] = "/tmp/upskill-unit.XXXXXX";
    up_run_record *runs = NULL;
    char **skipped = NULL;
    size_t n = 0;
    up_error err;

    cr_assert_not_null(mkdtemp(dir));
    put(dir, "a/run_1/run_result.json",
        "{\"run_type\": \"with_skill\", \"skill_name\": \"s\"}");
    put(dir, "a/run_2/run_result.json", "{\"truncated\": ");
    put(dir, "a/run_3/run_result.json", "[1, 2]");
    put(dir, "b/batch_summary.json", "{\"results\": [{}, 7]}");
    put(dir, "c/batch_summary.json", "{\"no\": \"results\"}");
    put(dir, "d/run_1/run_metadata.json", "{}");
    cr_assert_eq(up_store_load(&runs, &n, &skipped, dir, &err), 0);
    cr_assert_eq(n, 3, "one run from a, one from b, d's metadata-only run");
    cr_assert_str_eq(runs[2].error_message, "No result file found");
    cr_assert_not_null(skipped);
    cr_assert_not_null(skipped[0]);
    cr_assert(strstr(skipped[0], "a/run_2/run_result.json"), "%s", skipped[0]);
    cr_assert(strstr(skipped[1], "a/run_3/run_result.json': expected a run"),
              "%s", skipped[1]);
    cr_assert(strstr(skipped[2], "b/batch_summary.json': results[1]"), "%s",
              skipped[2]);
    cr_assert(strstr(skipped[3], "c/batch_summary.json': no \"results\""), "%s",
              skipped[3]);
    cr_assert_null(skipped[4], "a metadata-only run is upstream's CSV row");
    up_strv_free(skipped);
    up_store_free(runs, n);
    remove_tree(dir);
}
