/* Unit tests for the generate module's pure parts: prompt templates,
 * teacher replies, draft checks, generated tests and refinement input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cases/suite_lib.h"
#include "lib/config/config_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/gen/gen_lib.h"
#include "lib/eval/eval_job.h"
#include "upskill/upskill.h"

static const char good_md[] =
    "---\nname: commit-helper\ndescription: Writes commit messages. Use "
    "when asked for one.\n---\n\n# Commits\n\nUse `feat:` {\"a\": 1}.\n";

/* ---- templates -------------------------------------------------------- */

Test(gen_expand, replaces_known_keeps_unknown_never_reexpands)
{
    up_gen_var v[] = {{"task", "do {{x}} at 100%s"}, {"x", "NO"}};
    up_buf out = UP_BUF_INIT;

    up_gen_expand(&out, "T: {{task}} / {{y}} / {{x}}{{", v, 2);
    cr_assert_str_eq(out.data, "T: do {{x}} at 100%s / {{y}} / NO{{");
    up_buf_release(&out);
}

Test(gen_prompt, every_builtin_exists_and_overrides_apply)
{
    char dir[] = "/tmp/upskill-gen-unit-XXXXXX";
    up_buf out = UP_BUF_INIT, path = UP_BUF_INIT;
    up_error err;

    for (const char *const *n = up_gen_prompt_names(); *n; n++) {
        up_buf_reset(&out);
        cr_assert_eq(up_gen_prompt(&out, *n, NULL, &err), 0, "%s", *n);
        cr_assert_gt(out.len, 20, "prompt %s is empty", *n);
    }
    cr_assert_eq(up_gen_prompt(&out, "nope", NULL, &err), UP_ENOTFOUND);
    cr_assert_not_null(mkdtemp(dir));
    up_fs_join(&path, dir, "refine.md");
    cr_assert_eq(up_fs_write_atomic(path.data, "MINE", 4, 0644, &err), 0);
    up_buf_reset(&out);
    cr_assert_eq(up_gen_prompt(&out, "refine", dir, &err), 0);
    cr_assert_str_eq(out.data, "MINE");
    up_buf_reset(&out);
    cr_assert_eq(up_gen_prompt(&out, "generate", dir, &err), 0);
    cr_assert(strstr(out.data, "{{task}}"), "built-in kept for others");
    unlink(path.data);
    rmdir(dir);
    up_buf_release(&out);
    up_buf_release(&path);
}

/* ---- replies ---------------------------------------------------------- */

static void parse_ok(const char *reply, enum up_gen_format fmt,
                     const char *md_start, size_t nfiles)
{
    up_gen_draft d;
    up_error err = {0, ""};

    up_gen_draft_init(&d);
    cr_assert_eq(up_gen_reply_parse(&d, reply, &err), 0, "%s: %s", reply,
                 err.msg);
    cr_assert_eq(d.format, fmt, "%s", reply);
    cr_assert_eq(strncmp(d.skill_md, md_start, strlen(md_start)), 0, "%s",
                 d.skill_md);
    cr_assert_eq(d.nfiles, nfiles);
    up_gen_draft_release(&d);
}

Test(gen_reply, reads_json_and_bare_forms)
{
    parse_ok("{\"files\": {\"SKILL.md\": \"---\\nname: a\\n---\\nx\", "
             "\"references/r.md\": \"R\"}}",
             UP_GEN_REPLY_JSON, "---\nname: a", 1);
    parse_ok("```json\n{\"files\": {\"SKILL.md\": \"---\\nx\"}}\n```",
             UP_GEN_REPLY_JSON, "---\nx", 0);
    parse_ok("Sure! Here it is:\n{\"files\": {\"SKILL.md\": \"---\\ny\"}}\n"
             "Anything else?",
             UP_GEN_REPLY_JSON, "---\ny", 0);
    parse_ok(good_md, UP_GEN_REPLY_BARE, "---\nname: commit-helper", 0);
    parse_ok("```markdown\n---\nname: b\n---\n\n```sh\nls\n```\n```",
             UP_GEN_REPLY_BARE, "---\nname: b", 0);
    parse_ok("Here you go:\n\n```markdown\n---\nname: c\n---\n\n```sh\nls\n"
             "```\n```\n\nHope this helps!",
             UP_GEN_REPLY_BARE, "---\nname: c", 0);
}

Test(gen_reply, bare_fenced_keeps_inner_fences_drops_outer)
{
    up_gen_draft d;

    up_gen_draft_init(&d);
    cr_assert_eq(up_gen_reply_parse(&d,
                                    "Text\n```md\n---\nname: c\n---\n\n```sh\n"
                                    "ls\n```\n```\nBye",
                                    NULL),
                 0);
    cr_assert_str_eq(d.skill_md, "---\nname: c\n---\n\n```sh\nls\n```");
    up_gen_draft_release(&d);
}

Test(gen_reply, rejects_with_reasons)
{
    static const struct {
        const char *reply, *msg;
    } rows[] = {
        {"{\"files\": {\"SKILL.md\": ", "not valid JSON"},
        {"{\"skill\": \"x\"}", "no \"files\" object"},
        {"{\"files\": {\"references/a.md\": \"x\"}}", "no SKILL.md"},
        {"{\"files\": {\"SKILL.md\": 3}}", "as a JSON string"},
        {"I cannot do that.", "neither the JSON object"},
        {"", "neither the JSON object"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
        up_gen_draft d;
        up_error err = {0, ""};

        up_gen_draft_init(&d);
        cr_assert_eq(up_gen_reply_parse(&d, rows[i].reply, &err), UP_EPARSE,
                     "%s", rows[i].reply);
        cr_assert(strstr(err.msg, rows[i].msg), "%s: %s", rows[i].reply,
                  err.msg);
        cr_assert_null(d.skill_md);
        up_gen_draft_release(&d);
    }
}

/* ---- checks ----------------------------------------------------------- */

static int check(const char *md, const char *path, up_buf *errors)
{
    up_gen_draft d;
    up_buf warn = UP_BUF_INIT;
    int n;

    up_gen_draft_init(&d);
    d.skill_md = up_xstrdup(md);
    if (path) {
        d.files = up_xcalloc(1, sizeof(*d.files));
        d.files[0].path = up_xstrdup(path);
        d.files[0].data = up_xstrdup("text\n");
        d.files[0].len = 5;
        d.nfiles = 1;
    }
    n = up_gen_draft_check(&d, errors, &warn, NULL);
    up_gen_draft_release(&d);
    up_buf_release(&warn);
    return n;
}

Test(gen_check, spec_errors_and_unsafe_paths)
{
    up_buf e = UP_BUF_INIT;

    cr_assert_eq(check(good_md, "references/a.md", &e), 0, "%s", e.data);
    cr_assert_gt(
        check("---\nname: Bad_Name\ndescription: d\n---\nb\n", NULL, &e), 0);
    cr_assert(strstr(e.data, "SKILL.md:2:"), "%s", e.data);
    cr_assert(strstr(e.data, "(name-not-lowercase)"), "%s", e.data);
    up_buf_reset(&e);
    cr_assert_eq(check(good_md, "../x.md", &e), 1);
    cr_assert(strstr(e.data, "inside the folder"), "%s", e.data);
    up_buf_reset(&e);
    cr_assert_eq(check(good_md, "notes.md", &e), 1);
    cr_assert(strstr(e.data, "go under references/"), "%s", e.data);
    up_buf_release(&e);
}

Test(gen_check, to_skill_sorts_files_and_marks_scripts)
{
    up_gen_draft d;
    up_skill s;

    up_gen_draft_init(&d);
    cr_assert_eq(
        up_gen_reply_parse(&d,
                           "{\"files\": {\"SKILL.md\": \"---\\nname: a\\n"
                           "description: b\\n---\\nbody\", \"scripts/run.sh\":"
                           " \"#!/bin/sh\\n\", \"references/x.md\": \"x\"}}",
                           NULL),
        0);
    up_skill_init(&s);
    cr_assert_eq(up_gen_draft_skill(&s, &d, NULL), 0);
    cr_assert_str_eq(s.name, "a");
    cr_assert_eq(s.nfiles, 2);
    cr_assert_str_eq(s.files[0].path, "references/x.md");
    cr_assert_eq(s.files[0].executable, 0);
    cr_assert_str_eq(s.files[1].path, "scripts/run.sh");
    cr_assert_eq(s.files[1].executable, 1);
    up_skill_release(&s);
    up_gen_draft_release(&d);
}

/* ---- generated tests -------------------------------------------------- */

Test(gen_tests, keeps_usable_cases_up_to_max)
{
    const char *json =
        "{\"cases\": ["
        "{\"input\": \"a\", \"expected\": {\"contains\": [\"x\", \"y\"]}},"
        "{\"input\": \"b\", \"expected\": {\"contains\": [\"x\", \" \"]}},"
        "{\"input\": \"c\", \"expected\": {\"contains\": [\"x\", \"y\"]}},"
        "{\"input\": \"d\", \"expected\": {\"contains\": []}, \"assert\": "
        "[{\"type\": \"regex\", \"value\": \"x\"}]},"
        "{\"input\": \"e\", \"expected\": {\"contains\": [\"x\", \"y\"]}}]}";
    up_suite s;
    up_buf notes = UP_BUF_INIT;
    up_error err = {0, ""};

    up_suite_init(&s);
    cr_assert_eq(up_gen_tests_read(&s, json, 2, 3, &notes, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(s.ncases, 3);
    cr_assert_str_eq(s.cases[0].input, "a");
    cr_assert_str_eq(s.cases[1].input, "c");
    cr_assert_str_eq(s.cases[2].input, "d");
    cr_assert(strstr(notes.data, "case 2 dropped"), "%s", notes.data);
    cr_assert(strstr(notes.data, "1 case(s) over the limit of 3"), "%s",
              notes.data);
    up_suite_release(&s);
    up_buf_release(&notes);
}

Test(gen_tests, too_few_or_bad_json_fail)
{
    up_suite s;
    up_buf notes = UP_BUF_INIT;
    up_error err = {0, ""};

    up_suite_init(&s);
    cr_assert_eq(up_gen_tests_read(&s,
                                   "[{\"input\": \"a\", \"expected\": "
                                   "{\"contains\": \"only one\"}}]",
                                   1, 8, &notes, &err),
                 UP_EINVALID);
    cr_assert(strstr(err.msg, "0 usable case(s), at least 1"), "%s", err.msg);
    cr_assert_eq(up_gen_tests_read(&s, "{\"cases\": [", 1, 8, &notes, &err),
                 UP_EPARSE);
    up_suite_release(&s);
    up_buf_release(&notes);
}

/* ---- refinement input ------------------------------------------------- */

static void set_job(up_eval_job *j, const char *answer)
{
    j->done = 1;
    up_eval_job_live_of(j)->answer = up_xstrdup(answer);
}

Test(gen_failures, all_failures_regressions_first_within_budget)
{
    static const char tests[] =
        "[{\"input\": \"first\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"second\", \"expected\": {\"contains\": [\"ok\"]}},"
        "{\"input\": \"third\", \"expected\": {\"contains\": [\"ok\"]}}]";
    const char *models[] = {"m"};
    up_skill skill;
    up_suite suite;
    up_eval_plan p;
    up_buf out = UP_BUF_INIT;
    size_t m = 0, shown, total;

    up_skill_init(&skill);
    skill.name = up_xstrdup("s");
    up_suite_init(&suite);
    cr_assert_eq(up_suite_parse(&suite, tests, strlen(tests), "t", "", NULL),
                 0);
    up_eval_plan_init(&p, &skill, &suite, models, 1, 1, 1, UP_INJECT_UPSKILL);
    cr_assert_eq(up_eval_prepare(&p, NULL, NULL), 0);
    /* jobs: baseline cases 0..2, then skill cases 0..2 */
    set_job(&p.jobs[0], "no");
    set_job(&p.jobs[1], "ok");
    set_job(&p.jobs[2], "no");
    set_job(&p.jobs[3], "no");
    set_job(&p.jobs[4], "no");
    set_job(&p.jobs[5], "ok");
    up_eval_grade(&p);
    up_gen_failures(&out, &p, &m, 1, 100000, &shown, &total);
    cr_assert_eq(total, 2);
    cr_assert_eq(shown, 2);
    cr_assert_lt(strstr(out.data, "case 2"), strstr(out.data, "case 1"),
                 "the regression comes first: %s", out.data);
    cr_assert(strstr(out.data, "without the skill it passed 1 of 1"));
    cr_assert_null(strstr(out.data, "third"));
    up_buf_reset(&out);
    up_gen_failures(&out, &p, &m, 1, 300, &shown, &total);
    cr_assert_eq(shown, 1);
    cr_assert(strstr(out.data, "(1 more failed case(s) not shown)"), "%s",
              out.data);
    up_buf_release(&out);
    up_eval_plan_release(&p);
    up_suite_release(&suite);
    up_skill_release(&skill);
}

/* ---- how many tests to ask for ---------------------------------------- */

static const struct {
    const char *yaml; /* config file, or NULL */
    int flag_min, flag_max;
    int rc, min, max;
} counts[] = {
    {NULL, 0, 0, 0, 3, 8},                           /* defaults */
    {"min_tests: 4\nmax_tests: 6\n", 0, 0, 0, 4, 6}, /* the config */
    {"min_tests: 4\nmax_tests: 6\n", 5, 0, 0, 5, 6}, /* a flag wins */
    {NULL, 12, 0, 0, 12, 12},          /* --min-tests above the default max */
    {NULL, 0, 2, 0, 2, 2},             /* --max-tests below the default min */
    {"max_tests: 5\n", 9, 0, 0, 9, 9}, /* the flag pulls the file's */
    {"min_tests: 10\n", 0, 0, 0, 10, 10}, /* the file pulls the default */
    {"max_tests: 5\n", 0, 0, 0, 3, 5},
    {NULL, 9, 4, UP_EUSAGE, 0, 0}, /* both flags, min > max */
};

Test(gen_counts, flags_then_config_then_defaults)
{
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        up_config cfg;
        up_gen_opts o;
        up_error err = {0};
        int min = 0, max = 0;

        up_config_init(&cfg);
        if (counts[i].yaml)
            cr_assert_eq(up_config_parse(&cfg, counts[i].yaml,
                                         strlen(counts[i].yaml), "c.yaml",
                                         &err),
                         0, "%s", err.msg);
        memset(&o, 0, sizeof(o));
        o.min_tests = counts[i].flag_min;
        o.max_tests = counts[i].flag_max;
        cr_assert_eq(up_gen_test_counts(&o, &cfg, &min, &max, &err),
                     counts[i].rc, "row %zu: %s", i, err.msg);
        if (!counts[i].rc) {
            cr_assert_eq(min, counts[i].min, "row %zu: min %d", i, min);
            cr_assert_eq(max, counts[i].max, "row %zu: max %d", i, max);
        }
        up_config_release(&cfg);
    }
}

/* The baseline of later attempts reuses the first's answers: counted once. */
Test(gen_counts, eval_cost_counts_the_baseline_once)
{
    up_eval_summary sums[2];
    up_gen_attempt att[2];
    up_gen g;
    up_gen_cost c;

    memset(sums, 0, sizeof(sums));
    memset(att, 0, sizeof(att));
    memset(&g, 0, sizeof(g));
    for (int i = 0; i < 2; i++) {
        for (int arm = 0; arm < 2; arm++) {
            sums[i].arm[arm].jobs = 4;
            sums[i].arm[arm].usage.input = 100;
            sums[i].arm[arm].usage.output = 10;
            sums[i].arm[arm].cost_usd = 0.5;
        }
        att[i].sums = &sums[i];
        att[i].evaluated = 1;
    }
    g.attempts = att;
    g.nattempts = 2;
    g.nmodels = 1;
    up_gen_eval_cost(&g, 0, &c);
    cr_assert_eq(c.calls, 12, "4 baseline + 2 x 4 with the skill");
    cr_assert_eq(c.usage.input, 300);
    cr_assert_eq(c.usage.output, 30);
    cr_assert_float_eq(c.cost_usd, 1.5, 1e-9);
    sums[1].arm[UP_ARM_SKILL].cost_usd = -1;
    up_gen_eval_cost(&g, 0, &c);
    cr_assert_lt(c.cost_usd, 0, "a model without a price has no total");
}
