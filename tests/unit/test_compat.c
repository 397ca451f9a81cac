/* Unit tests for upstream compatibility: alias-named run history. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/store/store_lib.h"
#include "upskill/upskill.h"

static const struct {
    const char *logged, *key;
} keys[] = {
    {"sonnet", "anthropic.claude-sonnet-4-5"},
    {"anthropic.claude-sonnet-4-5", "anthropic.claude-sonnet-4-5"},
    {"claude-sonnet-4-5", "anthropic.claude-sonnet-4-5"},
    {"haiku", "anthropic.claude-haiku-4-5"},
    {"no-such-provider.x", "no-such-provider.x"},
    {"", ""},
};

Test(compat, model_keys_resolve_aliases)
{
    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
        char *k = up_store_model_key(keys[i].logged, NULL);

        cr_assert_str_eq(k, keys[i].key, "'%s'", keys[i].logged);
        free(k);
    }
}

static void fill(up_run_record *r, const char *batch, int num, const char *type,
                 const char *model, long passed)
{
    up_run_record_init(r);
    r->batch_id = up_xstrdup(batch);
    r->run_number = num;
    r->model = up_xstrdup(model);
    r->run_type = up_xstrdup(type);
    r->skill_name = up_xstrdup("pr-writer");
    r->assertions_passed = passed;
    r->assertions_total = 4;
    r->repeat = 1;
}

/* Upstream's "sonnet" history and our resolved id are one model. */
Test(compat, alias_and_resolved_runs_group_as_one_model)
{
    up_run_record r[4];
    up_compare *cmp = NULL;
    size_t ncmp = 0;
    char *only = up_store_model_key("sonnet", NULL);
    const char *filter[] = {only};

    fill(&r[0], "2026_01_20_10_00", 1, "baseline", "sonnet", 1);
    fill(&r[1], "2026_01_20_10_00", 2, "with_skill", "sonnet", 3);
    fill(&r[2], "2026_02_01_09_00_00", 1, "baseline",
         "anthropic.claude-sonnet-4-5", 2);
    fill(&r[3], "2026_02_01_09_00_00", 2, "with_skill",
         "anthropic.claude-sonnet-4-5", 4);
    up_store_key_models(r, 4, NULL);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, filter, 1, 0);
    cr_assert_eq(ncmp, 1);
    cr_assert_str_eq(cmp[0].model, "anthropic.claude-sonnet-4-5");
    cr_assert_float_eq(cmp[0].with_rate, 1.0, 1e-9, "latest batch is ours");
    free(cmp);
    up_store_compare(&cmp, &ncmp, r, 4, NULL, 0, NULL, 0, 0);
    cr_assert_eq(ncmp, 1, "one model, not two");
    {
        up_run_record *sel;
        size_t nsel = 0;

        r[0].model[0] = 'X'; /* no longer this model */
        sel = up_store_pick_models(r, 4, filter, 1, NULL, &nsel);
        cr_assert_eq(nsel, 3);
        cr_assert_eq(sel[0].model, r[1].model, "shallow copies");
        free(sel);
    }
    free(cmp);
    for (int i = 0; i < 4; i++)
        up_run_record_release(&r[i]);
    free(only);
}

/* ---- skill-creator's evals/evals.json ---- */

static char dir[64];

static void mk_dir(void)
{
    snprintf(dir, sizeof(dir), "/tmp/upskill-compat.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_dir(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void put(const char *rel, const char *text)
{
    up_buf p = UP_BUF_INIT, d = UP_BUF_INIT;

    up_fs_join(&p, dir, rel);
    up_fs_dirname(&d, p.data);
    cr_assert_eq(up_fs_mkdir_p(d.data, 0755, NULL), 0);
    cr_assert_eq(up_fs_write_atomic(p.data, text, strlen(text), 0644, NULL), 0);
    up_buf_release(&p);
    up_buf_release(&d);
}

static int load_evals(up_suite *s, up_error *err)
{
    up_buf p = UP_BUF_INIT;
    int rc;

    up_fs_join(&p, dir, "evals/evals.json");
    rc = up_suite_load_evals(s, p.data, dir, err);
    up_buf_release(&p);
    return rc;
}

Test(compat, evals_json_becomes_judged_cases, .init = mk_dir, .fini = rm_dir)
{
    up_suite s;
    up_error err = {0};

    put("evals/files/in.txt", "file text");
    put("evals/evals.json",
        "{\"skill_name\": \"x\", \"evals\": ["
        "{\"id\": 1, \"prompt\": \"p1\", \"expected_output\": \"o1\","
        " \"files\": [\"evals/files/in.txt\"], \"expectations\": [\"e1\"],"
        " \"extra\": 1},"
        "{\"id\": 2, \"prompt\": \"p2\", \"assertions\": [\"a1\", \"a2\"]},"
        "{\"id\": 3, \"prompt\": \"p3\", \"expected_output\": \"o3\"}]}");
    up_suite_init(&s);
    cr_assert_eq(load_evals(&s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.ncases, 3);
    cr_assert_str_eq(s.cases[0].input, "p1");
    cr_assert_eq(s.cases[0].nfiles, 1);
    cr_assert_str_eq(s.cases[0].files[0].name, "evals/files/in.txt");
    cr_assert_str_eq(s.cases[0].files[0].content, "file text");
    cr_assert_eq(s.cases[0].ncontains, 0);
    cr_assert_str_eq(s.cases[0].assert_json,
                     "[{\"type\":\"llm-rubric\",\"value\":\"e1\"}]");
    cr_assert(strstr(s.cases[1].assert_json, "\"a2\""), "assertions alias");
    cr_assert(
        strstr(s.cases[2].assert_json, "achieves this expected output: o3"));
    up_suite_release(&s);
}

static const struct {
    const char *json, *msg;
} bad_evals[] = {
    {"{\"evals\": [{\"id\": 1}]}", "evals[0].prompt: expected a string"},
    {"{\"evals\": [{\"prompt\": \"p\", \"expectations\": [1]}]}",
     "evals[0].expectations[0]: expected a string"},
    {"{\"evals\": [{\"prompt\": \"p\", \"files\": [\"../x\"]}]}",
     "evals[0].files[0]: "},
    {"{\"evals\": [{\"prompt\": \"p\", \"files\": [\"nope.txt\"]}]}",
     "evals[0].files[0]: "},
    {"{\"skill_name\": \"x\"}", "expected {\"skill_name\""},
    {"[{\"prompt\": \"p\", \"files\": \"a\"}]",
     "evals[0].files: expected a list of strings"},
};

Test(compat, bad_evals_json_names_the_place, .init = mk_dir, .fini = rm_dir)
{
    for (size_t i = 0; i < sizeof(bad_evals) / sizeof(*bad_evals); i++) {
        up_suite s;
        up_error err = {0};

        put("evals/evals.json", bad_evals[i].json);
        up_suite_init(&s);
        cr_assert_neq(load_evals(&s, &err), 0, "%zu", i);
        cr_assert(strstr(err.msg, bad_evals[i].msg), "%zu: %s", i, err.msg);
        cr_assert(strstr(err.msg, "evals.json'"), "%zu: %s", i, err.msg);
        cr_assert_eq(s.ncases, 0);
        up_suite_release(&s);
    }
}

/* -t wins, then skill_meta.json's tests, then evals.json. */
Test(compat, suite_source_order, .init = mk_dir, .fini = rm_dir)
{
    up_skill sk;
    up_suite s;
    up_buf note = UP_BUF_INIT;
    up_error err = {0};

    put("evals/evals.json", "{\"evals\": [{\"prompt\": \"from evals\"}]}");
    up_skill_init(&sk);
    sk.tests_json = up_xstrdup("[]"); /* upstream's "tests": [] */
    up_suite_init(&s);
    cr_assert_eq(up_suite_pick(&s, &note, NULL, &sk, dir, &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(s.cases[0].input, "from evals");
    cr_assert(strstr(note.data, "1 case from '"), "%s", note.data);
    cr_assert(strstr(note.data, "evals.json' (skill-creator format)"), "%s",
              note.data);
    up_suite_release(&s);
    up_buf_reset(&note);
    free(sk.tests_json);
    sk.tests_json = up_xstrdup(
        "[{\"input\": \"from meta\", \"expected\": {\"contains\": []}}]");
    cr_assert_eq(up_suite_pick(&s, &note, NULL, &sk, dir, &err), 0);
    cr_assert_str_eq(s.cases[0].input, "from meta");
    cr_assert(strstr(note.data, "skill_meta.json'"), "%s", note.data);
    up_suite_release(&s);
    up_buf_reset(&note);
    put("t.json",
        "[{\"input\": \"from -t\", \"expected\": {\"contains\": []}}]");
    {
        up_buf t = UP_BUF_INIT;

        up_fs_join(&t, dir, "t.json");
        cr_assert_eq(up_suite_pick(&s, &note, t.data, &sk, dir, &err), 0);
        cr_assert_str_eq(s.cases[0].input, "from -t");
        up_buf_release(&t);
    }
    up_suite_release(&s);
    up_skill_release(&sk);
    up_buf_release(&note);
}
