/* Unit tests for the run store: write, load back, compare, CSV. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/store/store_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/upskill.h"

static char *mkroot(void)
{
    char tmpl[] = "/tmp/upskill-store.XXXXXX";

    cr_assert_not_null(mkdtemp(tmpl));
    return strdup(tmpl);
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove the scratch folder of mkroot and free its name. */
static void rmroot(char *root)
{
    nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    free(root);
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
    rmroot(root);
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
    cr_assert_eq(up_store_csv(csv.data, got, n, NULL, 0, NULL, 0, &err),
                 UP_ENOTFOUND, "a missing folder is not created");
    cr_assert(strstr(err.msg, "no such folder"), "%s", err.msg);
    up_buf_reset(&csv);
    up_fs_join(&csv, root, "results.csv");
    cr_assert_eq(up_store_csv(csv.data, got, n, NULL, 0, NULL, 0, &err), 0);
    cr_assert_eq(up_fs_read(&text, csv.data, 1 << 20, &err), 0);
    cr_assert(strstr(text.data, "\"write, \"\"quoted\"\" task\""));
    cr_assert(strstr(text.data, ",baseline,git-commit-messages,"));
    /* issue 25: Python's csv module ends rows with CRLF, and upstream
     * writes a stored "Z" stamp back as isoformat() does */
    cr_assert(strstr(text.data, "cost_usd\r\n"), "%s", text.data);
    cr_assert_null(strstr(text.data, ",\n"));
    cr_assert(strstr(text.data, ",2026-11-29T18:00:00+00:00,"), "%s",
              text.data);
    up_store_free(got, n);
    for (int i = 0; i < 2; i++)
        up_run_record_release(&w[i]);
    up_buf_release(&dir);
    up_buf_release(&id);
    up_buf_release(&csv);
    up_buf_release(&text);
    rmroot(root);
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
    cr_assert_str_eq(cmp[0].base_batch, "2026_01_01_00_00",
                     "and named, as upstream would show none (issue 25)");
    free(cmp);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, NULL, 0, 1);
    cr_assert_float_eq(cmp[0].with_rate, 1.0, 1e-9, "best is kept");
    cr_assert_null(cmp[0].base_batch, "its own batch's baseline");
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
    rmroot(root);
}

/* ---- batch folders: parents, locks, leftovers --------------------------- */

Test(store, batch_new_needs_the_parent)
{
    char *root = mkroot();
    up_buf runs = UP_BUF_INIT, d = UP_BUF_INIT, id = UP_BUF_INIT;
    up_error err;

    up_fs_join(&runs, root, "missing/runs");
    cr_assert_eq(up_store_batch_new(&d, &id, runs.data, &err), UP_ENOTFOUND);
    cr_assert(strstr(err.msg, "/missing': no such folder"), "%s", err.msg);
    cr_assert_not(up_fs_is_dir(runs.data), "nothing was created");
    up_buf_reset(&runs);
    up_fs_join(&runs, root, "runs");
    cr_assert_eq(up_store_batch_new(&d, &id, runs.data, &err), 0, "%s",
                 err.msg);
    up_buf_release(&runs);
    up_buf_release(&d);
    up_buf_release(&id);
    rmroot(root);
}

Test(store, batch_lock_is_exclusive_and_names_the_holder)
{
    char *root = mkroot();
    int a = -1, b = -1;
    up_error err;

    cr_assert_eq(up_store_batch_lock(&a, root, &err), 0, "%s", err.msg);
    cr_assert_eq(up_store_batch_lock(&b, root, &err), UP_EIO);
    cr_assert_eq(b, -1);
    cr_assert(strstr(err.msg, "the batch is in use by pid "), "%s", err.msg);
    cr_assert(strstr(err.msg, " on host "), "%s", err.msg);
    up_store_batch_unlock(a);
    cr_assert_eq(up_store_batch_lock(&b, root, &err), 0, "%s", err.msg);
    up_store_batch_unlock(b);
    rmroot(root);
}

static void touch(const char *dir, const char *name)
{
    up_buf p = UP_BUF_INIT;
    up_error err;

    up_fs_join(&p, dir, name);
    cr_assert_eq(up_fs_write_atomic(p.data, "x", 1, 0644, &err), 0, "%s",
                 err.msg);
    up_buf_release(&p);
}

Test(store, batch_clean_removes_temp_leftovers_only)
{
    char *root = mkroot();
    up_buf run = UP_BUF_INIT;
    char **names = NULL;
    size_t n = 0;
    up_error err;

    up_fs_join(&run, root, "run_1/cases");
    cr_assert_eq(up_fs_mkdir_p(run.data, 0755, &err), 0);
    touch(root, "batch_summary.json.tmp.Ab12Cd");
    touch(root, "journal.jsonl");
    touch(root, "notes.tmp.long-name");
    touch(run.data, "case_0001_r1.json.tmp.QwErTy");
    touch(run.data, "case_0001_r1.json");
    cr_assert_eq(up_store_batch_clean(root), 2);
    cr_assert_eq(up_fs_list(&names, &n, run.data, &err), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(names[0], "case_0001_r1.json");
    up_strv_free(names);
    cr_assert_eq(up_fs_list(&names, &n, root, &err), 0);
    cr_assert_eq(n, 3, "journal, notes.tmp.long-name and run_1 stay");
    up_strv_free(names);
    up_buf_release(&run);
    rmroot(root);
}

/* ---- case artifacts ------------------------------------------------------ */

static json_t *msg(const char *role, const char *text)
{
    return json_pack("{s:s, s:s}", "role", role, "content", text);
}

static const char *content(json_t *a, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(a, "messages"), i), "content"));
}

static int cut(json_t *a, size_t i, const char *key)
{
    json_t *m = json_array_get(json_object_get(a, "messages"), i);

    return json_is_true(json_object_get(m, key));
}

Test(store, case_cap_keeps_short_texts_and_splits_the_rest)
{
    char big[3001];
    json_t *a, *call;

    memset(big, 'x', 3000);
    big[3000] = '\0';
    big[999] = (char)0xC3; /* a two-byte character across the cut */
    big[1000] = (char)0xA9;
    call = json_pack("{s:s, s:s, s:s}", "id", "c1", "name", "write_file",
                     "arguments", big);
    a = json_pack("{s:[o, o, o, {s:s, s:n, s:[o]}]}", "messages",
                  msg("user", "short"), msg("assistant", big), msg("tool", big),
                  "role", "assistant", "content", "tool_calls", call);
    up_store_case_cap(a, 2005);
    cr_assert_str_eq(content(a, 0), "short");
    cr_assert_not(cut(a, 0, "content_cut"));
    /* 2000 left for three long texts: 666 or 667 each */
    cr_assert(cut(a, 1, "content_cut"));
    cr_assert(strlen(content(a, 1)) == 666 || strlen(content(a, 1)) == 667);
    cr_assert(strlen(content(a, 2)) == 666 || strlen(content(a, 2)) == 667);
    cr_assert_eq(json_integer_value(json_object_get(
                     json_array_get(json_object_get(a, "messages"), 1),
                     "content_bytes")),
                 3000);
    cr_assert(json_is_true(json_object_get(call, "arguments_cut")));
    cr_assert_eq(json_integer_value(json_object_get(call, "arguments_bytes")),
                 3000);
    json_decref(a);

    /* the cut never splits a character */
    a = json_pack("{s:[o]}", "messages", msg("assistant", big));
    up_store_case_cap(a, 1000);
    cr_assert_eq(strlen(content(a, 0)), 999);
    json_decref(a);
}

/* run_N/cases/transcripts.jsonl with the given lines. */
static void cases_file(const char *batch, int run, const char *const *lines)
{
    up_store_cases w;
    up_error err;

    cr_assert_eq(up_store_cases_open(&w, batch, run, &err), 0, "%s", err.msg);
    for (; *lines; lines++)
        cr_assert_eq(up_store_cases_add(&w, *lines, &err), 0);
    cr_assert_eq(up_store_cases_close(&w, &err), 0, "%s", err.msg);
}

Test(store, case_load_reads_a_case_in_run_order)
{
    static const char *const r2[] = {"{\"case_index\":0,\"r\":2}",
                                     "{\"case_index\":1,\"r\":2}", NULL};
    static const char *const r10[] = {"{\"case_index\":1,\"r\":10}", NULL};
    static const char *const bad[] = {"{\"case_index\":1}", "[1]", NULL};
    char *root = mkroot();
    json_t *v = NULL;
    up_buf id = UP_BUF_INIT, batch = UP_BUF_INIT, path = UP_BUF_INIT;
    char **names = NULL;
    size_t n = 0;
    up_error err;

    up_fs_join(&batch, root, "2026_11_29_18_40_12");
    cr_assert_eq(up_fs_mkdir_p(batch.data, 0755, &err), 0);
    cases_file(batch.data, 10, r10);
    cases_file(batch.data, 2, r2);
    up_buf_addf(&path, "%s/run_2/cases", batch.data);
    cr_assert_eq(up_fs_list(&names, &n, path.data, &err), 0);
    cr_assert_eq(n, 1, "no temporary file is left");
    cr_assert_str_eq(names[0], "transcripts.jsonl");
    up_strv_free(names);
    cr_assert_eq(up_store_case_load(&v, batch.data, 1, &err), 0);
    cr_assert_eq(json_array_size(v), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(v, 0), "r")),
                 2, "run_2 before run_10");
    json_decref(v);
    cr_assert_eq(up_store_case_load(&v, batch.data, 7, &err), 0);
    cr_assert_eq(json_array_size(v), 0, "a case with no artifact: none");
    json_decref(v);
    cases_file(batch.data, 3, bad);
    cr_assert_eq(up_store_case_load(&v, batch.data, 1, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "run_3/cases/transcripts.jsonl':2:"), "%s",
              err.msg);
    json_decref(v);

    cr_assert_eq(up_store_batch_latest(&id, root, &err), 0);
    cr_assert_str_eq(id.data, "2026_11_29_18_40_12");
    up_buf_release(&id);
    up_buf_release(&batch);
    up_fs_join(&batch, root, "2026_11_30_08_00_00");
    cr_assert_eq(up_fs_mkdir_p(batch.data, 0755, &err), 0);
    cr_assert_eq(up_store_batch_latest(&id, root, &err), 0);
    cr_assert_str_eq(id.data, "2026_11_30_08_00_00");
    up_buf_release(&id);
    up_buf_release(&batch);
    up_buf_release(&path);
    rmroot(root);
}

/* ---- the eval journal ---------------------------------------------------- */

struct jplan {
    up_skill skill;
    up_suite suite;
    up_eval_plan p;
};

static void jplan_init(struct jplan *j, int runs)
{
    static const char tests[] =
        "[{\"input\": \"first\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"second\", \"expected\": {\"contains\": [\"ok\"]}}]";
    const char *models[] = {"m"};

    up_skill_init(&j->skill);
    j->skill.name = up_xstrdup("s");
    up_suite_init(&j->suite);
    cr_assert_eq(up_suite_parse(&j->suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&j->p, &j->skill, &j->suite, models, 1, runs, 1,
                      UP_INJECT_UPSKILL);
}

static void jplan_release(struct jplan *j)
{
    up_eval_plan_release(&j->p);
    up_suite_release(&j->suite);
    up_skill_release(&j->skill);
}

static void answer(up_eval_plan *p, size_t i, const char *text)
{
    p->jobs[i].done = 1;
    up_eval_keep_answer(p, &p->jobs[i], text, strlen(text));
}

static off_t file_size(const char *dir, const char *name)
{
    up_buf p = UP_BUF_INIT;
    struct stat st;

    up_fs_join(&p, dir, name);
    cr_assert_eq(stat(p.data, &st), 0);
    up_buf_release(&p);
    return st.st_size;
}

Test(journal, torn_last_line_is_cut_before_appending)
{
    char *root = mkroot();
    struct jplan a, b;
    up_journal jl;
    up_buf path = UP_BUF_INIT;
    size_t restored = 0;
    off_t whole;
    FILE *f;
    up_error err;

    jplan_init(&a, 1);
    answer(&a.p, 0, "ok one");
    up_journal_init(&jl);
    cr_assert_eq(up_journal_open(&jl, root, &err), 0, "%s", err.msg);
    cr_assert_eq(up_journal_append(&jl, &a.p, &a.p.jobs[0], &err), 0);
    cr_assert_eq(up_journal_close(&jl, &err), 0);
    whole = file_size(root, "journal.jsonl");
    up_fs_join(&path, root, "journal.jsonl");
    f = fopen(path.data, "a");
    fputs("{\"model\":\"m\",\"arm\":\"bas", f); /* a crash mid-line */
    fclose(f);
    cr_assert_eq(up_journal_open(&jl, root, &err), 0, "%s", err.msg);
    cr_assert_eq(file_size(root, "journal.jsonl"), whole, "torn tail cut");
    answer(&a.p, 1, "ok two");
    cr_assert_eq(up_journal_append(&jl, &a.p, &a.p.jobs[1], &err), 0);
    cr_assert_eq(up_journal_close(&jl, &err), 0);
    jplan_init(&b, 1);
    cr_assert_eq(up_journal_replay(&b.p, root, &restored, &err), 0);
    cr_assert_eq(restored, 2, "both whole lines are read back");
    cr_assert_str_eq(up_eval_job_live_view(&b.p.jobs[1])->answer, "ok two");
    jplan_release(&a);
    jplan_release(&b);
    up_buf_release(&path);
    rmroot(root);
}

/* A job's tokens and latency are narrow (up_eval_job): what the journal
 * held is read back as written, and a line saying more than fits (an
 * older or edited journal) saturates rather than wraps. */
Test(journal, narrow_counts_read_back_and_saturate)
{
    char *root = mkroot();
    struct jplan a, b;
    up_journal jl;
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT, out = UP_BUF_INIT;
    up_usage u = {UINT32_MAX, 7, 3, 0, 2, 0};
    size_t restored = 0;
    const char *at;
    up_error err;

    jplan_init(&a, 1);
    answer(&a.p, 0, "ok one");
    up_eval_job_set_usage(&a.p.jobs[0], &u);
    a.p.jobs[0].latency_ms = 1234;
    up_journal_init(&jl);
    cr_assert_eq(up_journal_open(&jl, root, &err), 0, "%s", err.msg);
    cr_assert_eq(up_journal_append(&jl, &a.p, &a.p.jobs[0], &err), 0);
    cr_assert_eq(up_journal_close(&jl, &err), 0);
    up_fs_join(&path, root, "journal.jsonl");
    cr_assert_eq(up_fs_read(&text, path.data, 1 << 20, &err), 0);
    cr_assert(strstr(text.data, "\"input\":4294967295,\"output\":7,"), "%s",
              text.data);
    cr_assert(strstr(text.data, "\"latency_ms\":1234.0,"), "%s", text.data);
    jplan_init(&b, 1);
    cr_assert_eq(up_journal_replay(&b.p, root, &restored, &err), 0);
    cr_assert_eq(restored, 1);
    cr_assert_eq(b.p.jobs[0].usage.input, UINT32_MAX);
    cr_assert_eq(b.p.jobs[0].usage.output, 7);
    cr_assert_eq(b.p.jobs[0].usage.cached, 3);
    cr_assert_eq(b.p.jobs[0].usage.reasoning, 2);
    cr_assert_eq(b.p.jobs[0].latency_ms, 1234);
    jplan_release(&b);
    /* the same line with more than 32 bits of input and a latency past
     * UINT32_MAX ms, output negative */
    at = strstr(text.data, "4294967295");
    up_buf_add(&out, text.data, (size_t)(at - text.data));
    up_buf_adds(&out, "9000000000000,\"output\":-4,");
    at = strstr(at, "\"cached\"");
    up_buf_add(&out, at, (size_t)(strstr(at, "1234.0") - at));
    up_buf_adds(&out, "1e13");
    up_buf_adds(&out, strstr(at, "1234.0") + 6);
    cr_assert_eq(up_fs_write_atomic(path.data, out.data, out.len, 0644, &err),
                 0);
    jplan_init(&b, 1);
    cr_assert_eq(up_journal_replay(&b.p, root, &restored, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(restored, 1, "%s", out.data);
    cr_assert_eq(b.p.jobs[0].usage.input, UINT32_MAX);
    cr_assert_eq(b.p.jobs[0].usage.output, 0);
    cr_assert_eq(b.p.jobs[0].usage.cached, 3);
    cr_assert_eq(b.p.jobs[0].latency_ms, UINT32_MAX);
    jplan_release(&a);
    jplan_release(&b);
    up_buf_release(&path);
    up_buf_release(&text);
    up_buf_release(&out);
    rmroot(root);
}

Test(journal, a_failed_append_leaves_whole_lines)
{
    char *root = mkroot();
    struct jplan a;
    up_journal jl;
    struct rlimit rl = {1000, 1000};
    char big[400];
    int rc = 0, n = 0;
    up_error err;

    signal(SIGXFSZ, SIG_IGN);
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    jplan_init(&a, 1);
    answer(&a.p, 0, big);
    up_journal_init(&jl);
    cr_assert_eq(up_journal_open(&jl, root, &err), 0, "%s", err.msg);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    while (!rc && n < 10) {
        rc = up_journal_append(&jl, &a.p, &a.p.jobs[0], &err);
        n++;
    }
    cr_assert_eq(rc, UP_EIO, "the file-size limit is hit");
    cr_assert(strstr(err.msg, "journal.jsonl': cannot append: File too large"),
              "%s", err.msg);
    cr_assert_gt(file_size(root, "journal.jsonl"), 0);
    cr_assert_lt(file_size(root, "journal.jsonl"), 1000);
    up_journal_close(&jl, &err);
    {
        struct jplan b;
        size_t restored = 0;

        jplan_init(&b, 1);
        cr_assert_eq(up_journal_replay(&b.p, root, &restored, &err), 0);
        cr_assert_eq(restored, 1, "the one whole line is read back");
        jplan_release(&b);
    }
    jplan_release(&a);
    rmroot(root);
}

Test(journal, answers_are_cut_at_a_character)
{
    struct jplan a;
    /* 1020 ASCII bytes, then a 3-byte character across the 1024 cap */
    char text[1100];

    memset(text, 'a', 1022);
    memcpy(text + 1022, "\xe2\x82\xac tail", 9);
    jplan_init(&a, 1);
    a.p.max_answer = 1024;
    answer(&a.p, 0, text);
    cr_assert(a.p.jobs[0].cut);
    cr_assert_eq(up_eval_job_live_view(&a.p.jobs[0])->answer_bytes, 1030);
    cr_assert_eq(strlen(up_eval_job_live_view(&a.p.jobs[0])->answer), 1022,
                 "not inside the euro sign");
    answer(&a.p, 1, "short");
    cr_assert_not(a.p.jobs[1].cut);
    cr_assert_str_eq(up_eval_job_live_view(&a.p.jobs[1])->answer, "short");
    jplan_release(&a);
}

Test(journal, resume_needs_the_same_plan)
{
    char *root = mkroot();
    struct jplan a, b;
    up_error err;

    jplan_init(&a, 2);
    jplan_init(&b, 3);
    cr_assert_eq(up_eval_batch_match(&a.p, root, &err), 0,
                 "a batch without a plan file matches, and gets one");
    cr_assert_eq(up_eval_batch_match(&a.p, root, &err), 0);
    cr_assert_eq(up_eval_batch_match(&b.p, root, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "number of runs (--runs)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "batch: 2, now: 3"), "%s", err.msg);
    cr_assert_eq(up_eval_batch_mark(&b.p, root, &err), 0);
    cr_assert_eq(up_eval_batch_match(&b.p, root, &err), 0);
    jplan_release(&a);
    jplan_release(&b);
    rmroot(root);
}

/* Upstream's benchmark mode restarts metadata.run_number per model; the
 * folder keeps our number (issue 25). */
Test(store, meta_run_number)
{
    char *root = mkroot();
    up_buf dir = UP_BUF_INIT, id = UP_BUF_INIT, path = UP_BUF_INIT,
           text = UP_BUF_INIT;
    up_run_record w;
    up_error err;

    cr_assert_eq(up_store_batch_new(&dir, &id, root, &err), 0);
    fill(&w, id.data, 3, "with_skill", "m2", 4, 5);
    w.meta_run_number = 1;
    cr_assert_eq(up_store_run_write(dir.data, &w, &err), 0, "%s", err.msg);
    up_fs_join(&path, dir.data, "run_3/run_metadata.json");
    cr_assert_eq(up_fs_read(&text, path.data, 1 << 20, &err), 0, "%s", err.msg);
    cr_assert(strstr(text.data, "\"run_number\": 1,"), "%s", text.data);
    up_buf_reset(&text);
    up_buf_reset(&path);
    up_fs_join(&path, dir.data, "run_3/run_result.json");
    cr_assert_eq(up_fs_read(&text, path.data, 1 << 20, &err), 0);
    cr_assert(strstr(text.data, "\"run_number\": 1,"), "%s", text.data);
    up_run_record_release(&w);
    up_buf_release(&dir);
    up_buf_release(&id);
    up_buf_release(&path);
    up_buf_release(&text);
    rmroot(root);
}
