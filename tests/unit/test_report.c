/*
 * Unit tests for upskill report: escaping, and a batch loaded from its
 * case artifacts pooled per model and case.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/fs.h"
#include "upskill/report.h"

Test(report, escapes_markup)
{
    up_buf b = UP_BUF_INIT;

    up_report_esc(&b, "<a href=\"x\" title='y'>&</a>");
    cr_assert_str_eq(b.data, "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;"
                             "&amp;&lt;/a&gt;");
    up_report_esc(&b, NULL);
    up_buf_release(&b);
}

static void line(FILE *f, const char *model, const char *arm, int ci, int pass)
{
    fprintf(
        f,
        "{\"case\":%d,\"case_index\":%d,\"repeat\":1,\"arm\":\"%s\","
        "\"model\":\"%s\",\"run_number\":1,\"passed\":%s,\"error\":null,"
        "\"usage\":{\"input_tokens\":10,\"output_tokens\":5},"
        "\"messages\":[{\"role\":\"assistant\",\"content\":\"<i>zz</i>\"}]}\n",
        ci + 1, ci, arm, model, pass ? "true" : "false");
}

/* A model seen first at a later case still gets every case's cell. */
Test(report, pools_cases_per_model)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    up_buf_addf(&p, "%s/run_1/cases", dir);
    cr_assert_eq(up_fs_mkdir_p(p.data, 0755, &err), 0);
    up_buf_adds(&p, "/transcripts.jsonl");
    f = fopen(p.data, "w");
    line(f, "a", "baseline", 0, 0);
    line(f, "a", "with_skill", 0, 1);
    line(f, "a", "baseline", 2, 1);
    line(f, "a", "with_skill", 2, 1);
    line(f, "b<x>", "with_skill", 1, 1);
    line(f, "b<x>", "baseline", 1, 0);
    fclose(f);
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(b.ncases, 3);
    cr_assert_eq(b.nmodels, 2);
    cr_assert_eq(b.models[0].cmp.skill.successes, 2);
    cr_assert_eq(b.models[0].cmp.base.successes, 1);
    cr_assert_eq(b.models[1].cells[1].c.skill_pass, 1);
    cr_assert_eq(b.models[1].cells[0].c.skill_runs, 0);
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert(strstr(page.data, "b&lt;x&gt;"));
    cr_assert_null(strstr(page.data, "b<x>"));
    cr_assert_null(strstr(page.data, "<i>zz"));
    cr_assert(strstr(page.data, "&lt;i&gt;zz"));
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

/* One artifact of a generate batch's attempt. */
static void attempt_line(FILE *f, int attempt, int ci, int pass)
{
    fprintf(f,
            "{\"case\":%d,\"case_index\":%d,\"repeat\":1,"
            "\"arm\":\"with_skill\",\"model\":\"a\",\"run_number\":%d,"
            "\"attempt\":%d,\"passed\":%s,\"error\":null,\"usage\":{}}\n",
            ci + 1, ci, attempt, attempt, pass ? "true" : "false");
}

static FILE *open_cases(up_buf *p, const char *dir, int run)
{
    up_error err;

    up_buf_reset(p);
    up_buf_addf(p, "%s/run_%d/cases", dir, run);
    cr_assert_eq(up_fs_mkdir_p(p->data, 0755, &err), 0);
    up_buf_adds(p, "/transcripts.jsonl");
    return fopen(p->data, "w");
}

/* A generate batch: only the kept attempt's runs count, not all pooled
 * (attempt 1 failed both cases, the kept attempt 2 passed both). */
Test(report, generate_batch_reads_the_kept_attempt)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    for (int run = 1; run <= 2; run++) {
        f = open_cases(&p, dir, run);
        attempt_line(f, run, 0, run == 2);
        attempt_line(f, run, 1, run == 2);
        fclose(f);
    }
    up_buf_reset(&p);
    up_buf_addf(&p, "%s/batch_summary.json", dir);
    f = fopen(p.data, "w");
    fputs("{\"results\": [], \"stats\": {\"generate\": "
          "{\"attempts\": 2, \"kept_attempt\": 2}}}",
          f);
    fclose(f);
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(b.kept_attempt, 2);
    cr_assert_eq(b.models[0].cmp.skill.trials, 2, "attempt 1 is not pooled");
    cr_assert_eq(b.models[0].cmp.skill.successes, 2);
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert(strstr(page.data, "id=\"t-0-2-1\""), "the kept transcripts");
    cr_assert_null(strstr(page.data, "id=\"t-0-1-1\""), "not attempt 1's");
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
    up_buf p = UP_BUF_INIT;
    FILE *f;

    up_buf_addf(&p, "%s/%s", dir, rel);
    f = fopen(p.data, "w");
    cr_assert(f, "%s", p.data);
    fputs(text, f);
    fclose(f);
    up_buf_release(&p);
}

/* The strings this page took on from a batch (a compare batch's skill
 * names and versions, the case text, the system prompt) stay inert; an
 * arm whose every conversation errored is "not measured", with its count. */
Test(report, new_strings_inert_and_errored_arm_unmeasured)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;

    cr_assert(mkdtemp(dir));
    up_buf_addf(&p, "%s/run_1/cases", dir);
    cr_assert_eq(up_fs_mkdir_p(p.data, 0755, &err), 0);
    write_file(dir, "run_1/cases/transcripts.jsonl",
               "{\"case\":1,\"case_index\":0,\"repeat\":1,\"arm\":\"baseline\","
               "\"model\":\"m\",\"run_number\":1,\"passed\":true,\"error\":"
               "null,\"input\":\"<svg onload=x>\",\"messages\":[{\"role\":"
               "\"system\",\"content\":null,\"content_file\":"
               "\"cases/system_prompt.md\"}],\"usage\":{}}\n"
               "{\"case\":1,\"case_index\":0,\"repeat\":1,\"arm\":"
               "\"with_skill\",\"model\":\"m\",\"run_number\":1,\"passed\":"
               "false,\"error\":\"http 500\",\"usage\":{}}\n");
    write_file(dir, "run_1/cases/system_prompt.md", "<script>p</script>");
    write_file(dir, "run_1/run_result.json",
               "{\"run_type\":\"baseline\",\"metadata\":{\"model\":\"m\"},"
               "\"compare\":{\"arm\":\"A\",\"skill_name\":\"<b>a</b>\","
               "\"version\":\"<i>1</i>\"},\"stats\":{},\"cost_usd\":0}");
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_str_eq(b.arm_name[0], "A: <b>a</b> <i>1</i>");
    cr_assert_eq(b.models[0].errors[1], 1);
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert_null(strstr(page.data, "<b>a"));
    cr_assert_null(strstr(page.data, "<i>1"));
    cr_assert_null(strstr(page.data, "<svg onload"));
    cr_assert_null(strstr(page.data, "<script>p"));
    cr_assert(
        strstr(page.data, "A: &lt;b&gt;a&lt;/b&gt; &lt;i&gt;1&lt;/i&gt;"));
    cr_assert(strstr(page.data, "&lt;script&gt;p&lt;/script&gt;"));
    cr_assert(strstr(page.data, "not measured: its 1 conversation errored"));
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

/* 1 when s is well-formed UTF-8 (lead bytes followed by their
 * continuation bytes, no stray continuation byte). */
static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        size_t n = *p < 0x80             ? 0
                   : (*p & 0xE0) == 0xC0 ? 1
                   : (*p & 0xF0) == 0xE0 ? 2
                   : (*p & 0xF8) == 0xF0 ? 3
                                         : 9;

        if (n == 9)
            return 0;
        p++;
        for (size_t i = 0; i < n; i++, p++)
            if ((*p & 0xC0) != 0x80)
                return 0;
    }
    return 1;
}

/* A long name is cut to fit a chart's label, never inside a UTF-8
 * character: the cost chart's label "NAME (base)" is cut at 34 bytes,
 * here between the two bytes of the 'é' at bytes 33-34. */
Test(report, labels_cut_on_a_character_boundary)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    const char *model = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9tude";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    f = open_cases(&p, dir, 1);
    line(f, model, "baseline", 0, 1);
    line(f, model, "with_skill", 0, 1);
    fclose(f);
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert(strstr(page.data, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"),
              "the label is cut before the 'é'");
    cr_assert(valid_utf8(page.data), "the page is valid UTF-8");
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

/* A sweep's view of one skill, without the caller's table of the runs'
 * skills: the loader reads each run's skill itself and pools only that
 * skill's runs. */
Test(report, skill_view_reads_its_runs_alone)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    up_buf p = UP_BUF_INIT;
    up_report_opts o = {1, 1, 0.05, 1, NULL, 0};
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    for (int run = 1; run <= 2; run++) {
        f = open_cases(&p, dir, run);
        line(f, "m", "with_skill", 0, run == 2);
        fclose(f);
    }
    write_file(dir, "run_1/run_result.json", "{\"skill_name\":\"x\"}");
    write_file(dir, "run_2/run_result.json", "{\"skill_name\":\"y\"}");
    cr_assert_eq(up_report_batch_load_skill(&b, dir, "y", &o, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(b.models[0].cmp.skill.trials, 1, "run_1 is x's");
    cr_assert_eq(b.models[0].cmp.skill.successes, 1);
    cr_assert(!up_report_run_in(&b, 1));
    cr_assert(up_report_run_in(&b, 2));
    up_report_batch_release(&b);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

/* A measured arm with some errored conversations: its rate over the
 * answered ones, the errored counted inside its cell. */
Test(report, rate_cell_counts_the_errored)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    f = open_cases(&p, dir, 1);
    line(f, "m", "baseline", 0, 1);
    line(f, "m", "with_skill", 0, 1);
    fputs("{\"case\":2,\"case_index\":1,\"repeat\":1,\"arm\":\"baseline\","
          "\"model\":\"m\",\"run_number\":1,\"passed\":false,\"error\":"
          "\"http 500\",\"usage\":{}}\n",
          f);
    fclose(f);
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert(
        strstr(page.data, "(1/1) <span class=\"mut\">1 errored</span></td>"));
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}

/* A model's name in the CSS that names a card's cells on a narrow
 * screen (docs/report.md "Layout") is a CSS string: a quote, a
 * backslash or a '<' is escaped, so the name never ends the string or
 * the <style>. */
Test(report, card_heads_escape_the_name)
{
    char dir[] = "/tmp/upskill-report-test.XXXXXX";
    const char *bad = "m\\\"}</style><script>alert(1)</script>";
    up_buf p = UP_BUF_INIT, page = UP_BUF_INIT;
    up_report_batch b;
    up_error err;
    FILE *f;

    cr_assert(mkdtemp(dir));
    up_buf_addf(&p, "%s/run_1/cases", dir);
    cr_assert_eq(up_fs_mkdir_p(p.data, 0755, &err), 0);
    up_buf_adds(&p, "/transcripts.jsonl");
    f = fopen(p.data, "w");
    cr_assert(f);
    line(f, bad, "baseline", 0, 1);
    line(f, bad, "with_skill", 0, 1);
    fclose(f);
    cr_assert_eq(up_report_batch_load(&b, dir, 1, &err), 0, "%s", err.msg);
    cr_assert_str_eq(b.models[0].model,
                     "m\"}</style><script>alert(1)</script>");
    cr_assert_eq(up_report_html(&page, &b, 1, &err), 0);
    cr_assert_null(strstr(page.data, "<script>alert"));
    cr_assert(strstr(page.data,
                     "#matrix-0 td:nth-child(2)::before{content:\"m\\22 }"
                     "\\3c /style>\\3c script>alert(1)\\3c /script> "
                     "baseline\"}"),
              "the name, escaped, heads its cell");
    up_report_batch_release(&b);
    up_buf_release(&page);
    up_buf_release(&p);
    up_fs_rm_tree(dir);
}
