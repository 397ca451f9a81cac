/* Unit tests for test-suite parsing (up_suite_*): one row per error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "lib/eval/eval_job.h"
#include "lib/cases/assert.h"
#include "upskill/upskill.h"

static const struct {
    const char *root;
    const char *json;
    const char *msg; /* the whole expected message */
} bad[] = {
    /* malformed JSON: file, line, column, jansson's text */
    {"", "[\n  {\"input\": }\n]",
     "'tests.json':2:13: unexpected token near '}'"},
    {"", "", "'tests.json':1:0: unexpected token near end of file"},
    {"",
     "[{\"input\":\"a\",\"input\":\"b\",\"expected\":{\"contains\":\"x\"}}]",
     "'tests.json':1:21: duplicate object key near '\"input\"'"},
    {"", "[{\"input\":\"a\\u0000b\",\"expected\":{\"contains\":\"x\"}}]",
     "'tests.json':1:20: a string holds \\u0000 (a NUL character), which "
     "is not accepted "
     "near '\"a\\u0000b\"'"},
    /* a bad text is read whole, not a case at a time: its first error
     * in the text's order, whatever case it is in */
    {"",
     "[{\"input\": 3, \"expected\": {\"contains\": \"x\"}},\n"
     " {\"input\": }]",
     "'tests.json':2:12: unexpected token near '}'"},
    {"", "[{\"input\": \"a\", \"expected\": {\"contains\": \"x\"}}] x",
     "'tests.json':1:49: end of file expected near 'x'"},
    {"",
     "{\"cases\": [{\"input\": 3, \"expected\": {\"contains\": \"x\"}}], "
     "\"cases\": []}",
     "'tests.json':1:64: duplicate object key near '\"cases\"'"},
    /* top level */
    {"", "42",
     "'tests.json': expected a list of test cases or an object with "
     "\"cases\""},
    {"", "{\"name\": \"x\", \"tests\": []}",
     "'tests.json': no \"cases\" field (expected a list of test cases or an "
     "object with \"cases\")"},
    {"", "{\"cases\": {}}",
     "'tests.json': cases: expected a list of test "
     "cases"},
    {"tests", "true",
     "'tests.json': tests: expected a list of test cases or an object with "
     "\"cases\""},
    {"tests", "{\"x\": 1}", "'tests.json': tests: no \"cases\" field"},
    /* a case */
    {"", "[\"hello\"]", "'tests.json': [0]: expected a test case object"},
    {"", "[{\"expected\": {\"contains\": \"x\"}}]",
     "'tests.json': [0]: missing required field \"input\""},
    {"", "[{\"input\": \"x\"}]",
     "'tests.json': [0]: missing required field \"expected\""},
    {"", "[{\"input\": 3, \"expected\": {\"contains\": \"x\"}}]",
     "'tests.json': [0].input: expected a string"},
    {"", "[{\"input\": null, \"expected\": {\"contains\": \"x\"}}]",
     "'tests.json': [0].input: expected a string"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"x\"}, \"inputs\": 1}]",
     "'tests.json': [0].inputs: unknown field (a case has input, context, "
     "expected, output_file, validator, validator_config, assert, "
     "check_files, check_owned)"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"x\"}, \"a b\": 1}]",
     "'tests.json': [0][\"a b\"]: unknown field"},
    /* expected */
    {"",
     "{\"cases\": [{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}}, "
     "{\"input\": \"x\", \"expected\": {\"contains\": 7}}]}",
     "'tests.json': cases[1].expected.contains: expected a string or a list "
     "of strings"},
    {"tests", "[{\"input\": \"x\", \"expected\": {\"contains\": [\"a\", 2]}}]",
     "'tests.json': tests[0].expected.contains[1]: expected a string"},
    {"", "[{\"input\": \"x\", \"expected\": \"a\"}]",
     "'tests.json': [0].expected: expected an object with \"contains\""},
    {"", "[{\"input\": \"x\", \"expected\": {}}]",
     "'tests.json': [0].expected: missing required field \"contains\""},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\", \"not\": 1}}]",
     "'tests.json': [0].expected.not: unknown field (expected has only "
     "\"contains\")"},
    {"", "[{\"input\": \"x\", \"expected\": {\"contains\": null}}]",
     "'tests.json': [0].expected.contains: expected a string or a list of "
     "strings"},
    /* context */
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"context\": []}]",
     "'tests.json': [0].context: expected an object with \"files\", or null"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"context\": {\"file\": {}}}]",
     "'tests.json': [0].context.file: unknown field (context has only "
     "\"files\")"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"context\": {\"files\": [\"a.py\"]}}]",
     "'tests.json': [0].context.files: expected an object of file name to "
     "content, or null"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"context\": {\"files\": {\"app.py\": 1}}}]",
     "'tests.json': [0].context.files[\"app.py\"]: expected a string (the "
     "file's content)"},
    /* optional strings */
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"output_file\": 1}]",
     "'tests.json': [0].output_file: expected a string or null"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"validator\": false}]",
     "'tests.json': [0].validator: expected a string or null"},
    /* validator_config */
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"validator_config\": [1]}]",
     "'tests.json': [0].validator_config: expected an object of settings, "
     "or null"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"validator_config\": {\"n\": 1, \"deep\": {\"a\": 1}}}]",
     "'tests.json': [0].validator_config.deep: expected a string, number or "
     "boolean"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"validator_config\": {\"n\": null}}]",
     "'tests.json': [0].validator_config.n: expected a string, number or "
     "boolean"},
    /* assert */
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"assert\": {\"type\": \"regex\"}}]",
     "'tests.json': [0].assert: expected a list of assertion objects"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"assert\": [{\"type\": \"regex\"}, \"regex\"]}]",
     "'tests.json': [0].assert[1]: expected an assertion object"},
    {"",
     "[{\"input\": \"x\", \"expected\": {\"contains\": \"a\"}, "
     "\"assert\": null}]",
     "'tests.json': [0].assert: expected a list of assertion objects"},
};

Test(suite, errors_name_file_and_path)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        up_suite s;
        up_error err = {0, ""};
        int rc;

        up_suite_init(&s);
        rc = up_suite_parse(&s, bad[i].json, strlen(bad[i].json), "tests.json",
                            bad[i].root, &err);
        cr_expect_eq(rc, UP_EPARSE, "row %zu: rc %d", i, rc);
        cr_expect_eq(err.code, UP_EPARSE, "row %zu", i);
        cr_expect(strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) == 0,
                  "row %zu:\n got: %s\nwant: %s", i, err.msg, bad[i].msg);
        cr_expect_eq(s.ncases, 0, "row %zu: a failed parse adds nothing", i);
        up_suite_release(&s);
    }
}

static up_suite parse_ok(const char *json, const char *root)
{
    up_suite s;
    up_error err = {0, ""};
    int rc;

    up_suite_init(&s);
    rc = up_suite_parse(&s, json, strlen(json), "t.json", root, &err);
    cr_assert_eq(rc, 0, "unexpected error: %s", err.msg);
    return s;
}

Test(suite, list_form_and_string_contains)
{
    up_suite s = parse_ok("[{\"input\": \"Write a commit\", "
                          "\"expected\": {\"contains\": \"feat\"}},"
                          "{\"input\": \"\", \"expected\": {\"contains\": []},"
                          "\"context\": null, \"output_file\": null,"
                          "\"validator\": null, \"validator_config\": null}]",
                          "");

    cr_assert_eq(s.ncases, 2);
    cr_assert_str_eq(s.cases[0].input, "Write a commit");
    cr_assert_eq(s.cases[0].ncontains, 1);
    cr_assert_str_eq(s.cases[0].contains[0], "feat");
    cr_assert_null(s.cases[0].output_file);
    cr_assert_null(s.cases[0].validator_config_json);
    cr_assert_null(s.cases[0].assert_json);
    cr_assert_str_eq(s.cases[1].input, "");
    cr_assert_eq(s.cases[1].ncontains, 0);
    cr_assert_eq(s.cases[1].nfiles, 0);
    up_suite_release(&s);
    cr_assert_eq(s.ncases, 0);
}

Test(suite, cases_form_files_in_order)
{
    up_suite s = parse_ok(
        "{\"cases\": [{\"input\": \"Refactor\", \"context\": {\"files\": "
        "{\"z.py\": \"def f(): pass\", \"a.py\": \"x = 1\", \"m\": \"\"}}, "
        "\"expected\": {\"contains\": [\"refactor\", \"def\"]}, "
        "\"output_file\": \"out.py\", \"validator\": \"python\", "
        "\"validator_config\": {\"strict\": true, \"n\": 3, \"r\": 0.5, "
        "\"s\": \"x\"}, \"assert\": [{\"type\": \"regex\", \"value\": "
        "\"^def\"}]}]}",
        "");
    up_case *c = &s.cases[0];

    cr_assert_eq(s.ncases, 1);
    cr_assert_eq(c->nfiles, 3);
    cr_assert_str_eq(c->files[0].name, "z.py");
    cr_assert_str_eq(c->files[0].content, "def f(): pass");
    cr_assert_str_eq(c->files[1].name, "a.py");
    cr_assert_str_eq(c->files[2].name, "m");
    cr_assert_str_eq(c->files[2].content, "");
    cr_assert_eq(c->ncontains, 2);
    cr_assert_str_eq(c->contains[1], "def");
    cr_assert_str_eq(c->output_file, "out.py");
    cr_assert_str_eq(c->validator, "python");
    cr_assert_str_eq(c->validator_config_json,
                     "{\"strict\":true,\"n\":3,\"r\":0.5,\"s\":\"x\"}");
    cr_assert_str_eq(c->assert_json,
                     "[{\"type\":\"regex\",\"value\":\"^def\"}]");
    up_suite_release(&s);
}

/* Upstream reads data["cases"] and ignores the rest (issue 38). */
Test(suite, fields_beside_cases_ignored)
{
    up_suite s = parse_ok("{\"name\": \"pr\", \"version\": 2, \"cases\": "
                          "[{\"input\": \"a\", \"expected\": {\"contains\": "
                          "\"b\"}}]}",
                          "");

    cr_assert_eq(s.ncases, 1);
    cr_assert_str_eq(s.cases[0].input, "a");
    cr_assert_eq(s.nignored, 2);
    up_suite_release(&s);
    s = parse_ok("{\"cases\": []}", "");
    cr_assert_eq(s.nignored, 0);
    up_suite_release(&s);
}

Test(suite, parse_appends)
{
    up_suite s = parse_ok("[{\"input\": \"a\", \"expected\": "
                          "{\"contains\": \"x\"}}]",
                          "");
    up_error err;
    const char *more = "{\"cases\": [{\"input\": \"b\", \"expected\": "
                       "{\"contains\": \"y\"}}]}";
    const char *broken = "[{\"input\": \"c\"}]";

    cr_assert_eq(up_suite_parse(&s, more, strlen(more), "m", "", &err), 0);
    cr_assert_eq(s.ncases, 2);
    cr_assert_str_eq(s.cases[0].input, "a");
    cr_assert_str_eq(s.cases[1].input, "b");
    cr_assert_eq(up_suite_parse(&s, broken, strlen(broken), "m", "", &err),
                 UP_EPARSE);
    cr_assert_eq(s.ncases, 2, "a failed parse keeps the earlier cases");
    up_suite_release(&s);
}

/* Cases of NCASE_BIG each, every fifth with a context file, one with a
 * 20,000 byte input (the case strings are blocks of the suite's arena;
 * two parses into one suite merge two arenas). */
#define NCASE_BIG 1500

static void big_suite_text(up_buf *b, size_t from)
{
    up_buf_adds(b, "[");
    for (size_t i = from; i < from + NCASE_BIG; i++) {
        up_buf_addf(b,
                    "%s{\"input\": \"question %zu\", \"expected\": "
                    "{\"contains\": [\"w%zu\", \"x\"]}",
                    i > from ? "," : "", i, i);
        if (i % 5 == 0)
            up_buf_addf(b, ", \"context\": {\"files\": {\"f%zu\": \"c%zu\"}}",
                        i, i);
        up_buf_adds(b, "}");
    }
    up_buf_adds(b, ",{\"input\": \"");
    for (int i = 0; i < 20000; i++)
        up_buf_addc(b, 'L');
    up_buf_adds(b, "\", \"expected\": {\"contains\": \"L\"}}]");
}

static void check_big_case(const up_case *c, size_t i)
{
    char want[64];

    snprintf(want, sizeof(want), "question %zu", i);
    cr_assert_str_eq(c->input, want);
    cr_assert_eq(c->ncontains, 2, "case %zu", i);
    snprintf(want, sizeof(want), "w%zu", i);
    cr_assert_str_eq(c->contains[0], want);
    cr_assert_str_eq(c->contains[1], "x");
    cr_assert_eq(c->nfiles, i % 5 == 0, "case %zu", i);
    if (!c->nfiles)
        return;
    snprintf(want, sizeof(want), "f%zu", i);
    cr_assert_str_eq(c->files[0].name, want);
    snprintf(want, sizeof(want), "c%zu", i);
    cr_assert_str_eq(c->files[0].content, want);
}

Test(suite, many_cases_keep_their_strings)
{
    up_buf a = UP_BUF_INIT, b = UP_BUF_INIT;
    up_suite s;

    big_suite_text(&a, 0);
    big_suite_text(&b, NCASE_BIG);
    s = parse_ok(a.data, "");
    cr_assert_eq(up_suite_parse(&s, b.data, b.len, "b.json", "", NULL), 0);
    cr_assert_eq(s.ncases, 2 * (NCASE_BIG + 1));
    for (size_t i = 0; i < NCASE_BIG; i++) {
        check_big_case(&s.cases[i], i);
        check_big_case(&s.cases[NCASE_BIG + 1 + i], NCASE_BIG + i);
    }
    cr_assert_eq(strlen(s.cases[NCASE_BIG].input), 20000);
    cr_assert_eq(strspn(s.cases[2 * NCASE_BIG + 1].input, "L"), 20000);
    up_suite_release(&s);
    cr_assert_null(s.mem.head);
    up_buf_release(&a);
    up_buf_release(&b);
}

/* A plain case is small (100,000 of them are a suite, issue 31): what
 * only Harbor tasks and check files use is apart, in up_case.task, made
 * only for a case that has some, and read as empty when absent. */
Test(suite, plain_case_keeps_no_task)
{
    up_suite s =
        parse_ok("[{\"input\": \"a\", \"expected\": {\"contains\": \"x\"}},"
                 " {\"input\": \"b\", \"expected\": {\"contains\": \"x\"},"
                 "  \"check_files\": {\"t.py\": \"T\"},"
                 "  \"check_owned\": []}]",
                 "");

    cr_expect_leq(sizeof(up_case), 80);
    cr_assert_eq(s.ncases, 2);
    cr_expect_null(s.cases[0].task);
    cr_expect_eq(up_case_task_of(&s.cases[0]), &up_case_task_none);
    cr_expect_eq(up_case_task_of(&s.cases[0])->ncheck_files, 0);
    cr_expect_null(up_case_task_of(&s.cases[0])->seed);
    cr_assert_not_null(s.cases[1].task);
    cr_expect_eq(s.cases[1].task->ncheck_files, 1);
    cr_expect_str_eq(s.cases[1].task->check_files[0].path, "t.py");
    cr_expect_eq(s.cases[1].task->ncheck_owned, 0);
    up_suite_release(&s);
}

/* "[{contains a} x n]": n assertions as JSON, in b. */
static void many_asserts(up_buf *b, size_t n)
{
    up_buf_adds(b, "[");
    for (size_t i = 0; i < n; i++)
        up_buf_adds(b, i ? ",{\"type\":\"contains\",\"value\":\"a\"}"
                         : "{\"type\":\"contains\",\"value\":\"a\"}");
    up_buf_adds(b, "]");
}

/* Parse a suite of one small case and then case c (JSON), and prepare a
 * plan of it as tests file "big.json"; err gets the message. */
static int prepare_cases(const char *c, up_error *err)
{
    const char *models[] = {"m"};
    up_buf b = UP_BUF_INIT;
    up_skill skill;
    up_suite s;
    up_eval_plan p;
    int rc;

    up_buf_addf(&b,
                "{\"cases\": [{\"input\": \"q\", \"expected\": "
                "{\"contains\": \"x\"}}, %s]}",
                c);
    up_skill_init(&skill);
    up_suite_init(&s);
    cr_assert_eq(up_suite_parse(&s, b.data, b.len, "big.json", "", err), 0,
                 "the loader takes any number: %s", err->msg);
    up_eval_plan_init(&p, &skill, &s, models, 1, 1, 1, UP_INJECT_UPSKILL);
    rc = up_eval_prepare(&p, "big.json", err);
    up_eval_plan_release(&p);
    up_suite_release(&s);
    up_skill_release(&skill);
    up_buf_release(&b);
    return rc;
}

/* An eval job counts a case's assertions in 16 bits: up_eval_prepare,
 * which sees a case's whole list (expected.contains, "assert", the
 * validator), refuses more than UP_ASSERT_LIST_MAX, naming the file and
 * the case; the limit itself is taken. */
Test(suite, a_case_takes_at_most_65535_assertions)
{
    /* each case: its text before and after the "assert" list */
    static const char *const cases[][2] = {
        {"{\"input\": \"q\", \"expected\": {\"contains\": \"x\"}, "
         "\"assert\": ",
         "}"},
        {"{\"input\": \"q\", \"expected\": {\"contains\": []}, "
         "\"assert\": ",
         ", \"validator\": \"command\", "
         "\"validator_config\": {\"command\": \"true\"}}"}};
    up_error err = {0, ""};

    for (size_t i = 0; i < 2; i++)
        for (size_t n = UP_ASSERT_LIST_MAX - 1; n <= UP_ASSERT_LIST_MAX; n++) {
            up_buf list = UP_BUF_INIT, c = UP_BUF_INIT;

            many_asserts(&list, n);
            up_buf_adds(&c, cases[i][0]);
            up_buf_adds(&c, list.data);
            up_buf_adds(&c, cases[i][1]);
            if (n < UP_ASSERT_LIST_MAX)
                cr_assert_eq(prepare_cases(c.data, &err), 0, "%s", err.msg);
            else {
                cr_assert_eq(prepare_cases(c.data, &err), UP_EPARSE);
                cr_assert_str_eq(err.msg, "'big.json': cases[1]: a case "
                                          "takes at most 65535 assertions "
                                          "(65536 given)");
            }
            up_buf_release(&list);
            up_buf_release(&c);
        }
}

/* expected.contains alone past the limit: the same refusal. */
Test(suite, contains_past_the_assertion_limit_is_refused)
{
    up_buf b = UP_BUF_INIT;
    up_error err = {0, ""};

    up_buf_adds(&b, "{\"input\": \"q\", \"expected\": {\"contains\": [\"a\"");
    for (size_t i = 1; i <= UP_ASSERT_LIST_MAX; i++)
        up_buf_adds(&b, ", \"a\"");
    up_buf_adds(&b, "]}}");
    cr_assert_eq(prepare_cases(b.data, &err), UP_EPARSE);
    cr_assert_str_eq(err.msg, "'big.json': cases[1]: a case takes at most "
                              "65535 assertions (65536 given)");
    up_buf_release(&b);
}

/* The usual shapes are read a case at a time, the others whole: all
 * give the same cases. */
Test(suite, shapes_read_alike)
{
    static const char *const texts[] = {
        "[{\"input\": \"a\", \"expected\": {\"contains\": \"x\"}},"
        " {\"input\": \"b\", \"expected\": {\"contains\": [\"y\"]}}]",
        " \r\n\t{ \"cases\" :\n[ {\"input\": \"a\", \"expected\": "
        "{\"contains\": \"x\"}} ,{\"input\": \"b\", \"expected\": "
        "{\"contains\": [\"y\"]}}\n]\n} \n",
        "{\"\\u0063ases\": [{\"input\": \"a\", \"expected\": {\"contains\": "
        "\"x\"}}, {\"input\": \"b\", \"expected\": {\"contains\": "
        "[\"y\"]}}]}",
    };

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        up_suite s = parse_ok(texts[i], "tests");

        cr_assert_eq(s.ncases, 2, "text %zu", i);
        cr_assert_str_eq(s.cases[0].input, "a");
        cr_assert_str_eq(s.cases[0].contains[0], "x");
        cr_assert_str_eq(s.cases[1].input, "b");
        cr_assert_str_eq(s.cases[1].contains[0], "y");
        up_suite_release(&s);
    }
}

/* jansson reads a NUL byte in a case alone otherwise than in the whole
 * text (here it accepts the case, and the whole text ends early): a
 * text with one is read whole (found by a fuzzer comparing the two). */
Test(suite, nul_byte_read_whole)
{
    static const char text[] =
        "{\"cases\":[{\"input\":\"\",\"expected\":{\"contains\":[]}, "
        "\"assert\":[{\"\": [{\"t\":1\0}, {\"\": 1\0}]}]}";
    up_suite s;
    up_error err;

    up_suite_init(&s);
    cr_assert_eq(up_suite_parse(&s, text, sizeof(text) - 1, "t", "", &err),
                 UP_EPARSE);
    cr_assert_str_eq(err.msg, "'t':1:86: ']' expected near end of file");
    cr_assert_eq(s.ncases, 0);
    up_suite_release(&s);
}

/* A case nested deeper than a case is read alone is read with the
 * whole text, within jansson's limit on the whole text's depth (2048
 * levels) and past it. */
Test(suite, deep_case_read_whole)
{
    up_buf b = UP_BUF_INIT;
    up_suite s;
    up_error err;
    const char *head = "{\"cases\": [{\"input\": \"a\", \"expected\": "
                       "{\"contains\": \"x\"}, \"assert\": [{\"v\": ";

    for (int levels = 1500; levels <= 2046; levels += 546) {
        up_buf_reset(&b);
        up_buf_adds(&b, head);
        for (int i = 0; i < levels; i++)
            up_buf_addc(&b, '[');
        for (int i = 0; i < levels; i++)
            up_buf_addc(&b, ']');
        up_buf_adds(&b, "}]}]}");
        up_suite_init(&s);
        if (levels == 1500) {
            cr_assert_eq(up_suite_parse(&s, b.data, b.len, "t", "", &err), 0,
                         "%s", err.msg);
            cr_assert_eq(s.ncases, 1);
        } else {
            cr_assert_eq(up_suite_parse(&s, b.data, b.len, "t", "", &err),
                         UP_EPARSE);
            cr_assert(strstr(err.msg, "maximum parsing depth"), "%s", err.msg);
            cr_assert_eq(s.ncases, 0);
        }
        up_suite_release(&s);
    }
    up_buf_release(&b);
}

Test(suite, empty_object_and_list)
{
    up_suite s = parse_ok("{}", "");

    cr_assert_eq(s.ncases, 0);
    up_suite_release(&s);
    s = parse_ok(" [ ] ", "tests");
    cr_assert_eq(s.ncases, 0);
    up_suite_release(&s);
}

Test(suite, null_err_is_fine)
{
    up_suite s;

    up_suite_init(&s);
    cr_assert_eq(up_suite_parse(&s, "[1]", 3, "t", "", NULL), UP_EPARSE);
    cr_assert_eq(up_suite_parse(&s, "[", 1, "t", NULL, NULL), UP_EPARSE);
    up_suite_release(&s);
}

Test(suite, to_json_shape_and_round_trip)
{
    const char *in =
        "[{\"input\":\"hi\",\"expected\":{\"contains\":\"a\"}},"
        "{\"input\":\"x\",\"context\":{\"files\":{\"b\":\"1\",\"a\":\"2\"}},"
        "\"expected\":{\"contains\":[\"p\",\"q\"]},\"output_file\":\"o\","
        "\"validator\":\"v\",\"validator_config\":{\"k\":false},"
        "\"assert\":[{\"type\":\"contains\",\"value\":\"p\"}]}]";
    const char *want =
        "[{\"input\":\"hi\",\"context\":null,\"expected\":{\"contains\":"
        "[\"a\"]},\"output_file\":null,\"validator\":null,"
        "\"validator_config\":null},"
        "{\"input\":\"x\",\"context\":{\"files\":{\"b\":\"1\",\"a\":\"2\"}},"
        "\"expected\":{\"contains\":[\"p\",\"q\"]},\"output_file\":\"o\","
        "\"validator\":\"v\",\"validator_config\":{\"k\":false},"
        "\"assert\":[{\"type\":\"contains\",\"value\":\"p\"}]}]";
    up_suite s = parse_ok(in, ""), again;
    up_buf out = UP_BUF_INIT, out2 = UP_BUF_INIT;

    up_suite_to_json(&s, &out);
    cr_assert_str_eq(out.data, want);
    again = parse_ok(out.data, "");
    up_suite_to_json(&again, &out2);
    cr_assert_str_eq(out2.data, out.data, "to_json is a fixed point");
    up_suite_release(&s);
    up_suite_release(&again);
    up_buf_release(&out);
    up_buf_release(&out2);
}

Test(suite, to_json_empty_and_bad_utf8)
{
    up_suite s;
    up_buf out = UP_BUF_INIT;
    up_case c = {0};
    char bad_input[] = "\xff", bad_word[] = "caf\xe9";
    char *contains[] = {bad_word};

    up_suite_init(&s);
    up_suite_to_json(&s, &out);
    cr_assert_str_eq(out.data, "[]");
    up_buf_reset(&out);
    c.input = bad_input;
    c.contains = contains;
    c.ncontains = 1;
    s.cases = &c;
    s.ncases = 1;
    up_suite_to_json(&s, &out);
    cr_assert(strstr(out.data, "\"input\":\"?\""), "%s", out.data);
    cr_assert(strstr(out.data, "[\"caf?\"]"), "%s", out.data);
    up_buf_release(&out);
}

Test(suite, load_reads_file_and_names_it)
{
    char dir[] = "/tmp/upskill-suite.XXXXXX";
    up_buf path = UP_BUF_INIT;
    up_suite s;
    up_error err;
    const char *good = "{\"cases\": [{\"input\": \"a\", \"expected\": "
                       "{\"contains\": [\"x\", \"y\"]}}]}\n";
    const char *bad_case = "[{\"input\": \"a\", \"expected\": {}}]";

    up_suite_init(&s);
    cr_assert_not_null(mkdtemp(dir));
    up_fs_join(&path, dir, "tests.json");
    cr_assert_eq(up_suite_load(&s, path.data, &err), UP_ENOTFOUND);
    cr_assert_eq(up_fs_write_atomic(path.data, good, strlen(good), 0644, &err),
                 0);
    cr_assert_eq(up_suite_load(&s, path.data, &err), 0, "%s", err.msg);
    cr_assert_eq(s.ncases, 1);
    cr_assert_eq(s.cases[0].ncontains, 2);
    cr_assert_eq(
        up_fs_write_atomic(path.data, bad_case, strlen(bad_case), 0644, &err),
        0);
    cr_assert_eq(up_suite_load(&s, path.data, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, path.data), "%s", err.msg);
    cr_assert(strstr(err.msg, ": [0].expected: missing"), "%s", err.msg);
    remove(path.data);
    rmdir(dir);
    up_suite_release(&s);
    up_buf_release(&path);
}

/* ---- check_files and check_owned (issue 22) ---------------------------- */

#define CASE_OPEN "[{\"input\": \"x\", \"expected\": {\"contains\": []}, "

static const struct {
    const char *json;
    const char *msg; /* the whole expected message */
} bad_checks[] = {
    {CASE_OPEN "\"check_files\": [\"t.py\"]}]",
     "'tests.json': [0].check_files: expected an object of file path to "
     "content, or null"},
    {CASE_OPEN "\"check_files\": {\"t.py\": 1}}]",
     "'tests.json': [0].check_files[\"t.py\"]: expected a string (the "
     "file's content)"},
    {CASE_OPEN "\"check_files\": {\"../t.py\": \"\"}}]",
     "'tests.json': [0].check_files[\"../t.py\"]: '../t.py': path must stay "
     "inside the folder (no '..', '.' or empty parts) (a check file's path "
     "is relative to /tests)"},
    {CASE_OPEN "\"check_files\": {\"/etc/t.py\": \"\"}}]",
     "'tests.json': [0].check_files[\"/etc/t.py\"]: '/etc/t.py': absolute "
     "path not allowed (a check file's path is relative to /tests)"},
    {CASE_OPEN "\"check_files\": {\"a//t.py\": \"\"}}]",
     "'tests.json': [0].check_files[\"a//t.py\"]: 'a//t.py': path must stay "
     "inside the folder"},
    {CASE_OPEN "\"check_files\": {\"\": \"\"}}]",
     "'tests.json': [0].check_files[\"\"]: empty file name"},
    {CASE_OPEN "\"check_files\": {\"a\\nb\": \"\"}}]",
     "'tests.json': [0].check_files[\"a\\x0ab\"]: 'a\nb': control character "
     "or backslash in file name"},
    {CASE_OPEN "\"check_files\": {\"a\": \"\", \"a/b\": \"\"}}]",
     "'tests.json': [0].check_files[\"a/b\"]: 'a' is both a file and a "
     "folder of the check files"},
    {CASE_OPEN "\"check_files\": {\"a/b/c\": \"\", \"a/b\": \"\"}}]",
     "'tests.json': [0].check_files[\"a/b\"]: 'a/b' is both a file and a "
     "folder of the check files"},
    /* a NUL in a path: the parser refuses it before the walk */
    {CASE_OPEN "\"check_files\": {\"a\\u0000b\": \"\"}}]", "'tests.json':1:"},
    {CASE_OPEN "\"check_owned\": \"t.py\"}]",
     "'tests.json': [0].check_owned: expected a list of context file names, "
     "or null"},
    {CASE_OPEN "\"check_owned\": [1]}]",
     "'tests.json': [0].check_owned[0]: expected a string (a file of "
     "context.files)"},
    {CASE_OPEN "\"check_owned\": [\"t.py\"], "
               "\"context\": {\"files\": {\"u.py\": \"\"}}}]",
     "'tests.json': [0].check_owned[0]: 't.py' is not a file of "
     "context.files (check_owned names the case's files that its checks "
     "own)"},
    {CASE_OPEN "\"check_file\": {}}]",
     "'tests.json': [0].check_file: unknown field (a case has input, "
     "context, expected, output_file, validator, validator_config, assert, "
     "check_files, check_owned)"},
};

Test(suite, check_files_errors_name_file_case_and_path)
{
    for (size_t i = 0; i < sizeof(bad_checks) / sizeof(bad_checks[0]); i++) {
        up_suite s;
        up_error err = {0, ""};
        const char *j = bad_checks[i].json;

        up_suite_init(&s);
        cr_expect_eq(up_suite_parse(&s, j, strlen(j), "tests.json", "", &err),
                     UP_EPARSE, "row %zu", i);
        cr_expect(
            !strncmp(err.msg, bad_checks[i].msg, strlen(bad_checks[i].msg)),
            "row %zu:\n got: %s\nwant: %s", i, err.msg, bad_checks[i].msg);
        cr_expect_eq(s.ncases, 0, "row %zu", i);
        up_suite_release(&s);
    }
}

/* A case with n check files of size bytes each, as JSON in b. */
static void many_check_files(up_buf *b, size_t n, size_t size)
{
    up_buf_adds(b, CASE_OPEN "\"check_files\": {");
    for (size_t i = 0; i < n; i++) {
        up_buf_addf(b, "%s\"f%zu\": \"", i ? ", " : "", i);
        for (size_t k = 0; k < size; k++)
            up_buf_addc(b, 'x');
        up_buf_addc(b, '"');
    }
    up_buf_adds(b, "}}]");
}

Test(suite, check_files_are_bounded)
{
    static const struct {
        size_t n, size;
        const char *msg;
    } rows[] = {
        {UP_CASE_CHECK_FILES_MAX, 1, NULL},
        {UP_CASE_CHECK_FILES_MAX + 1, 1,
         "'big.json': [0].check_files: a case takes at most 256 check "
         "files (257 given)"},
        {16, UP_CASE_CHECK_BYTES / 16, NULL},
        {17, UP_CASE_CHECK_BYTES / 16,
         "'big.json': [0].check_files.f16: a case's check files take at most "
         "16 MiB in all"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        up_buf b = UP_BUF_INIT;
        up_suite s;
        up_error err = {0, ""};
        int rc;

        many_check_files(&b, rows[i].n, rows[i].size);
        up_suite_init(&s);
        rc = up_suite_parse(&s, b.data, b.len, "big.json", "", &err);
        if (rows[i].msg) {
            cr_expect_eq(rc, UP_EPARSE, "row %zu", i);
            cr_expect_str_eq(err.msg, rows[i].msg, "row %zu: %s", i, err.msg);
        } else {
            cr_expect_eq(rc, 0, "row %zu: %s", i, err.msg);
            cr_expect_eq(up_case_task_of(&s.cases[0])->ncheck_files, rows[i].n,
                         "row %zu", i);
        }
        up_suite_release(&s);
        up_buf_release(&b);
    }
    {
        up_buf b = UP_BUF_INIT;
        up_suite s;
        up_error err = {0, ""};

        up_buf_adds(&b, CASE_OPEN "\"check_files\": {\"");
        for (size_t k = 0; k <= UP_CASE_CHECK_PATH_MAX; k++)
            up_buf_addc(&b, 'p');
        up_buf_adds(&b, "\": \"\"}}]");
        up_suite_init(&s);
        cr_expect_eq(up_suite_parse(&s, b.data, b.len, "p.json", "", &err),
                     UP_EPARSE);
        /* the message names the path first, so it is cut before the why */
        cr_expect(!strncmp(err.msg, "'p.json': [0].check_files.ppp", 29), "%s",
                  err.msg);
        up_suite_release(&s);
        up_buf_release(&b);
    }
}

Test(suite, check_files_and_owned_parse_and_round_trip)
{
    const char *in =
        "[{\"input\":\"x\",\"expected\":{\"contains\":[]},"
        "\"check_owned\":[\"test_a.py\"],"
        "\"context\":{\"files\":{\"test_a.py\":\"A1\",\"b.txt\":\"B\"}},"
        "\"check_files\":{\"test_h.py\":\"H\",\"data/in.txt\":\"IN\"}}]";
    const char *want =
        "[{\"input\":\"x\",\"context\":{\"files\":{\"test_a.py\":\"A1\","
        "\"b.txt\":\"B\"}},\"expected\":{\"contains\":[]},"
        "\"output_file\":null,\"validator\":null,\"validator_config\":null,"
        "\"check_files\":{\"test_h.py\":\"H\",\"data/in.txt\":\"IN\"},"
        "\"check_owned\":[\"test_a.py\"]}]";
    up_suite s = parse_ok(in, ""), again;
    const up_case *c = &s.cases[0];
    up_buf out = UP_BUF_INIT, out2 = UP_BUF_INIT;
    char sha[65], sha2[65];

    cr_assert_eq(up_case_task_of(c)->ncheck_files, 2);
    cr_expect_str_eq(up_case_task_of(c)->check_files[1].path, "data/in.txt");
    cr_expect_eq(up_case_task_of(c)->check_files[1].len, 2);
    cr_expect(!memcmp(up_case_task_of(c)->check_files[1].data, "IN", 2));
    cr_assert_eq(up_case_task_of(c)->ncheck_owned, 1);
    cr_expect_str_eq(up_case_task_of(c)->check_owned[0].path, "test_a.py");
    cr_expect_str_eq(up_case_task_of(c)->check_owned[0].data, "A1",
                     "an owned file's bytes are its context file's");
    cr_expect_eq(up_case_task_of(c)->check_owned[0].len, 2);
    up_suite_to_json(&s, &out);
    cr_assert_str_eq(out.data, want);
    again = parse_ok(out.data, "");
    up_suite_to_json(&again, &out2);
    cr_assert_str_eq(out2.data, out.data, "to_json is a fixed point");
    up_suite_sha256(&s, sha);
    up_suite_sha256(&again, sha2);
    cr_expect_str_eq(sha, sha2);
    up_suite_release(&s);
    up_suite_release(&again);
    up_buf_release(&out);
    up_buf_release(&out2);
}

Test(suite, check_files_null_is_none)
{
    up_suite s = parse_ok(CASE_OPEN "\"check_files\": null, "
                                    "\"check_owned\": null}]",
                          "");

    cr_expect_eq(up_case_task_of(&s.cases[0])->ncheck_files, 0);
    cr_expect_eq(up_case_task_of(&s.cases[0])->ncheck_owned, 0);
    up_suite_release(&s);
}
