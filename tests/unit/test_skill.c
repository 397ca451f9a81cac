/* Unit tests for the skill model (src/lib/skill/skill.c, skill_io.c). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/skill/skill_lib.h"
#include "lib/skill/skill_int.h"
#include "upskill/upskill.h"

static int parse_str(up_skill *s, const char *text, up_error *err)
{
    return up_skill_parse(s, text, strlen(text), "x/SKILL.md", err);
}

/* Values that a naive writer would corrupt. */
static const char *const tricky[] = {
    "plain words",
    "a:b",
    "key: value",
    "ends with colon:",
    "say \"hi\"",
    "it's",
    "'single'",
    "\"double\"",
    "#hash",
    "a #comment",
    "a#b",
    "- dash",
    "-x",
    "> folded",
    "| literal",
    "*star",
    "&amp",
    "!bang",
    "%percent",
    "@at",
    "`tick`",
    "?q",
    ",comma",
    "[list]",
    "{map}",
    "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80 \xe4\xb8\xad\xe6\x96\x87",
    "line one\nline two\n\nfour",
    "tab\there",
    "back\\slash",
    "  leading",
    "trailing  ",
    " ",
    "true",
    "False",
    "yes",
    "no",
    "on",
    "null",
    "~",
    "123",
    "1.5",
    "1e3",
    "0x1f",
    "-1",
    ".inf",
    "2024-01-01",
    "12:30",
    "bell\x07 and del\x7f",
    "nel\xc2\x85 ls\xe2\x80\xa8",
    "",
};

static void roundtrip_value(const char *v)
{
    up_skill s, t;
    up_buf out = UP_BUF_INIT;
    up_error err = {0};
    int rc;

    up_skill_init(&s);
    up_skill_init(&t);
    s.name = up_xstrdup("n");
    s.description = up_xstrdup(v);
    s.license = up_xstrdup(v);
    s.allowed_tools = up_xstrdup(v);
    s.metadata = up_xcalloc(1, sizeof(up_kv));
    s.metadata[0].key = up_xstrdup(*v ? v : "k");
    s.metadata[0].value = up_xstrdup(v);
    s.nmetadata = 1;
    s.extra = up_xcalloc(1, sizeof(up_kv));
    s.extra[0].key = up_xstrdup("x-extra");
    s.extra[0].value = up_xstrdup(v);
    s.nextra = 1;
    s.body = up_xstrdup("Body.");
    up_skill_render(&s, &out);
    rc = up_skill_parse(&t, out.data, out.len, "r/SKILL.md", &err);
    cr_assert_eq(rc, 0, "value [%s]: %s\n%s", v, err.msg, out.data);
    cr_assert_str_eq(t.description, v, "rendered:\n%s", out.data);
    cr_assert_str_eq(t.license, v);
    cr_assert_str_eq(t.allowed_tools, v);
    cr_assert_eq(t.nmetadata, 1);
    cr_assert_str_eq(t.metadata[0].key, s.metadata[0].key);
    cr_assert_str_eq(t.metadata[0].value, v);
    cr_assert_eq(t.nextra, 1, "rendered:\n%s", out.data);
    cr_assert_str_eq(t.extra[0].value, v);
    cr_assert_str_eq(t.body, "Body.");
    up_skill_release(&s);
    up_skill_release(&t);
    up_buf_release(&out);
}

Test(skill, render_parse_roundtrip_table)
{
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++)
        roundtrip_value(tricky[i]);
}

Test(skill, render_quotes_only_when_needed)
{
    up_skill s;
    up_buf out = UP_BUF_INIT;

    up_skill_init(&s);
    s.name = up_xstrdup("pdf-tools");
    s.description = up_xstrdup("Fill PDF forms, e.g. tax.pdf \xe2\x9c\x93");
    s.compatibility = up_xstrdup("true");
    s.body = up_xstrdup("# Title\n\nText");
    up_skill_render(&s, &out);
    cr_assert_str_eq(out.data, "---\nname: pdf-tools\n"
                               "description: Fill PDF forms, e.g. tax.pdf "
                               "\xe2\x9c\x93\n"
                               "compatibility: \"true\"\n---\n\n"
                               "# Title\n\nText\n");
    up_skill_release(&s);
    up_buf_release(&out);
}

/* Upstream keeps quotes: a name YAML reads as text is never quoted. */
Test(skill, render_name_plain_for_upstream)
{
    static const struct {
        const char *name, *line;
    } rows[] = {
        {"1st-step", "name: 1st-step\n"},
        {"3d-printing", "name: 3d-printing\n"},
        {"2024-01-01-notes", "name: 2024-01-01-notes\n"},
        {"123", "name: \"123\"\n"},
        {"on", "name: \"on\"\n"},
        {"2024-01-01", "name: \"2024-01-01\"\n"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
        up_skill s;
        up_buf out = UP_BUF_INIT;

        up_skill_init(&s);
        s.name = up_xstrdup(rows[i].name);
        s.description = up_xstrdup("d");
        up_skill_render(&s, &out);
        cr_assert(strstr(out.data, rows[i].line), "%s rendered:\n%s",
                  rows[i].name, out.data);
        up_skill_release(&s);
        up_buf_release(&out);
    }
}

Test(skill, render_long_key)
{
    up_skill s, t;
    up_buf out = UP_BUF_INIT;
    char key[1100];

    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    up_skill_init(&s);
    up_skill_init(&t);
    s.extra = up_xcalloc(1, sizeof(up_kv));
    s.extra[0].key = up_xstrdup(key);
    s.extra[0].value = up_xstrdup("v");
    s.nextra = 1;
    up_skill_render(&s, &out);
    cr_assert_eq(up_skill_parse(&t, out.data, out.len, "f", NULL), 0);
    cr_assert_eq(t.nextra, 1);
    cr_assert_str_eq(t.extra[0].key, key);
    cr_assert_str_eq(t.name, "");
    up_skill_release(&s);
    up_skill_release(&t);
    up_buf_release(&out);
}

Test(skill, parse_fields_and_body)
{
    up_skill s;
    up_error err = {0};
    const char *text =
        "---\nname: pdf\ndescription: >-\n  Fill forms\n"
        "  and more.\nallowed-tools:\n  - Read\n  - Bash(git:*)\n"
        "metadata:\n  author: me\n  version: \"1.0\"\n"
        "model: opus\nhooks:\n  a: b\nuser-invocable: false\n"
        "---\n\n\n  # Body\n\nend  \n\n";

    up_skill_init(&s);
    cr_assert_eq(parse_str(&s, text, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.name, "pdf");
    cr_assert_str_eq(s.description, "Fill forms and more.");
    cr_assert_str_eq(s.allowed_tools, "Read Bash(git:*)");
    cr_assert_eq(s.nmetadata, 2);
    cr_assert_str_eq(s.metadata[1].key, "version");
    cr_assert_str_eq(s.metadata[1].value, "1.0");
    cr_assert_eq(s.nextra, 2);
    cr_assert_str_eq(s.extra[0].key, "model");
    cr_assert_str_eq(s.extra[1].key, "user-invocable");
    cr_assert_str_eq(s.extra[1].value, "false");
    cr_assert_null(s.license);
    cr_assert_str_eq(s.body, "# Body\n\nend");
    cr_assert_eq(s.body_line, 19);
    up_skill_release(&s);
}

Test(skill, parse_crlf)
{
    up_skill s;
    up_error err = {0};

    up_skill_init(&s);
    cr_assert_eq(parse_str(&s,
                           "---  \r\nname: a\r\ndescription: b c\r\n---\r\n"
                           "\r\nline 1\r\r\nline\r2\r\n",
                           &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(s.name, "a");
    cr_assert_str_eq(s.description, "b c");
    cr_assert_str_eq(s.body, "line 1\nline\r2");
    cr_assert_eq(s.body_line, 6);
    up_skill_release(&s);
}

/* Upstream reads "description: {a: b}" line by line: the text "{a: b}". */
Test(skill, parse_flow_value_as_upstream_text)
{
    static const struct {
        const char *text, *description;
    } rows[] = {
        {"---\nname: a\ndescription: {Use when: x}\n---\n", "{Use when: x}"},
        {"---\nname: a\ndescription: [PRs, notes]  \n---\n", "[PRs, notes]"},
        {"---\r\nname: a\r\ndescription: [x]\r\n---\r\n", "[x]"},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
        up_skill s;
        up_error err;

        up_skill_init(&s);
        cr_assert_eq(up_skill_parse(&s, rows[i].text, strlen(rows[i].text),
                                    "x/SKILL.md", &err),
                     0, "row %zu: %s", i, err.msg);
        cr_assert_str_eq(s.description, rows[i].description);
        cr_assert_eq(s.nwarnings, 1, "row %zu", i);
        cr_assert(strstr(s.warnings[0], "'x/SKILL.md':3: YAML reads "
                                        "description as a "),
                  "%s", s.warnings[0]);
        up_skill_release(&s);
    }
}

static const struct {
    const char *text;
    const char *msg;
} bad_cases[] = {
    {"# no frontmatter\n", "'x/SKILL.md':1: no frontmatter"},
    {"", "'x/SKILL.md':1: no frontmatter"},
    {"----\nname: a\n---\n", "'x/SKILL.md':1: no frontmatter"},
    {"---\nname: a\n", "'x/SKILL.md':1: frontmatter is not closed"},
    {"---\nname: a\ndescription: b\n  c: d\n---\n", "'x/SKILL.md':4: "},
    {"---\nname: a\ndescription: \"open\n---\n", "'x/SKILL.md':"},
    {"---\n- a\n- b\n---\n", "'x/SKILL.md':2: frontmatter must be a mapping"},
    {"---\nname:\n  - a\n---\n", "'x/SKILL.md':3: 'name' must be a string"},
    {"---\nname: [a]\n---\n", "'x/SKILL.md':2: 'name' must be a string"},
    {"---\ndescription:\n  a: b\n---\n",
     "'x/SKILL.md':3: 'description' must be a string"},
    {"---\nmetadata: x\n---\n", "'x/SKILL.md':2: 'metadata' must be a map"},
    {"---\nmetadata:\n  k: [1]\n---\n", "'x/SKILL.md':3: 'k' must be"},
    {"---\nallowed-tools:\n  a: b\n---\n", "'x/SKILL.md':3: 'allowed-tools'"},
    {"\xef\xbb\xbf---\nname: a\n---\n", "'x/SKILL.md':1: file starts with a "
                                        "byte order mark"},
    {"---\nname: a\n---\nbad \xff\n", "'x/SKILL.md':4: invalid utf-8"},
    {"---\nname: a\xed\xa0\x80\n---\n", "'x/SKILL.md':2: invalid utf-8"},
};

Test(skill, parse_errors)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        up_skill s;
        up_error err = {0};

        up_skill_init(&s);
        cr_assert_eq(parse_str(&s, bad_cases[i].text, &err), UP_EPARSE,
                     "case %zu", i);
        cr_assert_eq(
            strncmp(err.msg, bad_cases[i].msg, strlen(bad_cases[i].msg)), 0,
            "case %zu: %s", i, err.msg);
        cr_assert_null(s.name, "case %zu left fields behind", i);
        up_skill_release(&s);
    }
}

Test(skill, parse_nul_byte)
{
    up_skill s;
    up_error err = {0};

    up_skill_init(&s);
    cr_assert_eq(up_skill_parse(&s, "---\nname: a\n---\na\0b", 19, "f", &err),
                 UP_EPARSE);
    cr_assert_str_eq(err.msg, "'f':4: nul byte in text");
    up_skill_release(&s);
}

Test(skill, tokens_estimate)
{
    const char *t = "one two\tthree\n\nfour five six seven eight nine ten";

    cr_assert_eq(up_tokens_estimate(t, strlen(t)), 13);
    cr_assert_eq(up_tokens_estimate("", 0), 0);
    cr_assert_eq(up_tokens_estimate("  a  ", 5), 1);
    cr_assert_eq(up_tokens_estimate("a b c", 5), 3); /* 3.9 truncated */
}

/* ---- folders ---- */

static char tmp[64];

static void mk_tmp(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/upskill-skill.XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

static void put(const char *rel, const char *text, mode_t mode)
{
    up_buf p = UP_BUF_INIT, d = UP_BUF_INIT;

    up_fs_join(&p, tmp, rel);
    up_fs_dirname(&d, p.data);
    cr_assert_eq(up_fs_mkdir_p(d.data, 0755, NULL), 0);
    cr_assert_eq(up_fs_write_atomic(p.data, text, strlen(text), mode, NULL), 0);
    up_buf_release(&p);
    up_buf_release(&d);
}

static char *path_in(const char *rel)
{
    up_buf p = UP_BUF_INIT;

    up_fs_join(&p, tmp, rel);
    return up_buf_detach(&p);
}

static void add_file(up_skill *s, const char *path, const char *data, int x)
{
    s->files = up_xrealloc(s->files, (s->nfiles + 1) * sizeof(*s->files));
    s->files[s->nfiles].path = up_xstrdup(path);
    s->files[s->nfiles].data = up_xstrdup(data);
    s->files[s->nfiles].len = strlen(data);
    s->files[s->nfiles++].executable = x;
}

/* What upstream's pydantic models accept (issue 38, breaking 7). */
Test(skill, load_meta_as_pydantic, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};

    put("SKILL.md", "---\nname: demo\ndescription: d\n---\n# Hi\n", 0644);
    put("skill_meta.json",
        "{\"metadata\": {\"generated_by\": \"a\", \"generated_by\": \"b\", "
        "\"generated_at\": 1769087430, \"test_pass_rate\": \" 0.5 \"}, "
        "\"tests\": []}",
        0644);
    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.meta.generated_by, "b", "the last duplicate wins");
    cr_assert_str_eq(s.meta.generated_at, "2026-01-22T13:10:30Z");
    cr_assert(s.meta.has_test_pass_rate);
    cr_assert_float_eq(s.meta.test_pass_rate, 0.5, 1e-12);
    up_skill_release(&s);
    put("skill_meta.json",
        "{\"metadata\": {\"generated_at\": 1769087430123.0}}", 0644);
    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.meta.generated_at, "2026-01-22T13:10:30Z",
                     "milliseconds above 2e10");
    up_skill_release(&s);
    put("skill_meta.json", "{\"metadata\": {\"test_pass_rate\": \"half\"}}",
        0644);
    up_skill_init(&s);
    cr_assert_neq(up_skill_load(&s, tmp, &err), 0);
    cr_assert(strstr(err.msg, "metadata.test_pass_rate must be a number"), "%s",
              err.msg);
    up_skill_release(&s);
}

Test(skill, load_save_roundtrip, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s, t;
    up_error err = {0};
    char *out = path_in("out"), *run = path_in("out/scripts/run.sh");
    struct stat st;

    put("SKILL.md",
        "---\nname: demo\ndescription: \"Demo: things\"\n---\n# Hi\n", 0644);
    put("references/api.md", "API", 0644);
    put("references/deep/more.md", "more", 0644);
    put("scripts/run.sh", "#!/bin/sh\necho hi\n", 0755);
    put("assets/logo.txt", "", 0644);
    put("other/ignored.txt", "x", 0644);
    put("skill_meta.json",
        "{\"metadata\": {\"version\": \"1.0\", \"generated_by\": \"kimi\", "
        "\"generated_at\": \"2026-01-22T13:10:30Z\", \"source_task\": \"t\", "
        "\"test_pass_rate\": 0.75, \"license\": null, "
        "\"compatibility\": null}, \"tests\": [{\"input\": \"q\", "
        "\"expected\": {\"contains\": [\"a\"]}}]}",
        0644);
    up_skill_init(&s);
    up_skill_init(&t);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.description, "Demo: things");
    cr_assert_eq(s.nfiles, 4);
    cr_assert_str_eq(s.files[0].path, "assets/logo.txt");
    cr_assert_str_eq(s.files[1].path, "references/api.md");
    cr_assert_str_eq(s.files[2].path, "references/deep/more.md");
    cr_assert_str_eq(s.files[3].path, "scripts/run.sh");
    cr_assert(s.files[3].executable);
    cr_assert(!s.files[1].executable);
    cr_assert(s.has_meta);
    cr_assert_str_eq(s.meta.generated_by, "kimi");
    cr_assert(s.meta.has_test_pass_rate);
    cr_assert_float_eq(s.meta.test_pass_rate, 0.75, 1e-12);
    cr_assert_null(s.meta.license);
    cr_assert_str_eq(s.tests_json,
                     "[{\"input\":\"q\",\"expected\":{\"contains\":[\"a\"]}}]");

    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    cr_assert_eq(stat(run, &st), 0);
    cr_assert(st.st_mode & S_IXUSR);
    cr_assert_eq(up_skill_load(&t, out, &err), 0, "%s", err.msg);
    cr_assert_str_eq(t.description, s.description);
    cr_assert_str_eq(t.body, "# Hi");
    cr_assert_eq(t.nfiles, 4);
    for (size_t i = 0; i < t.nfiles; i++) {
        cr_assert_str_eq(t.files[i].path, s.files[i].path);
        cr_assert_eq(t.files[i].len, s.files[i].len);
        cr_assert_eq(memcmp(t.files[i].data, s.files[i].data, t.files[i].len),
                     0);
        cr_assert_eq(t.files[i].executable, s.files[i].executable);
    }
    cr_assert_str_eq(t.tests_json, s.tests_json);
    cr_assert_str_eq(t.meta.generated_at, "2026-01-22T13:10:30Z");
    cr_assert_float_eq(t.meta.test_pass_rate, 0.75, 1e-12);
    up_skill_release(&s);
    up_skill_release(&t);
    free(out);
    free(run);
}

Test(skill, save_meta_json_layout, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_buf got = UP_BUF_INIT;
    char *meta = path_in("skill_meta.json");

    up_skill_init(&s);
    s.name = up_xstrdup("a");
    s.description = up_xstrdup("b");
    s.meta.generated_by = up_xstrdup("kimi");
    s.meta.has_test_pass_rate = 1;
    s.meta.test_pass_rate = 2.0 / 3.0;
    cr_assert_eq(up_skill_save(&s, tmp, NULL), 0);
    cr_assert_eq(up_fs_read(&got, meta, 10000, NULL), 0);
    cr_assert_str_eq(got.data, "{\n"
                               "  \"metadata\": {\n"
                               "    \"version\": \"1.0\",\n"
                               "    \"generated_by\": \"kimi\",\n"
                               "    \"generated_at\": null,\n"
                               "    \"source_task\": null,\n"
                               "    \"test_pass_rate\": 0.6666666666666666,\n"
                               "    \"license\": null,\n"
                               "    \"compatibility\": null\n"
                               "  },\n"
                               "  \"tests\": []\n"
                               "}\n");
    up_skill_release(&s);
    up_buf_release(&got);
    free(meta);
}

/* Generated tests go into an upstream skill_meta.json; nothing else moves. */
Test(skill, save_tests_keeps_every_other_key, .init = mk_tmp, .fini = rm_tmp)
{
    up_buf got = UP_BUF_INIT;
    char *meta = path_in("skill_meta.json");
    struct stat st;

    put("skill_meta.json",
        "{\"metadata\": {\"version\": \"1.0\", \"test_pass_rate\": 1.0, "
        "\"mine\": [1, 0.1]}, \"tests\": [], \"notes\": {\"a\": null}}",
        0600);
    cr_assert_eq(up_skill_save_tests(tmp, "[{\"input\":\"x\"}]", NULL), 0);
    cr_assert_eq(up_fs_read(&got, meta, 10000, NULL), 0);
    cr_assert_str_eq(got.data, "{\n"
                               "  \"metadata\": {\n"
                               "    \"version\": \"1.0\",\n"
                               "    \"test_pass_rate\": 1.0,\n"
                               "    \"mine\": [\n"
                               "      1,\n"
                               "      0.1\n"
                               "    ]\n"
                               "  },\n"
                               "  \"tests\": [\n"
                               "    {\n"
                               "      \"input\": \"x\"\n"
                               "    }\n"
                               "  ],\n"
                               "  \"notes\": {\n"
                               "    \"a\": null\n"
                               "  }\n"
                               "}\n");
    cr_assert_eq(stat(meta, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600, "the file keeps its mode");
    up_buf_release(&got);
    free(meta);
}

Test(skill, save_tests_creates_and_refuses, .init = mk_tmp, .fini = rm_tmp)
{
    up_buf got = UP_BUF_INIT;
    char *meta = path_in("skill_meta.json");
    up_error err;

    cr_assert_eq(up_skill_save_tests(tmp, "[]", NULL), 0);
    cr_assert_eq(up_fs_read(&got, meta, 10000, NULL), 0);
    cr_assert(strstr(got.data, "\"version\": \"1.0\""), "%s", got.data);
    cr_assert(strstr(got.data, "\"tests\": []"), "%s", got.data);
    put("skill_meta.json", "[1]", 0644);
    cr_assert_eq(up_skill_save_tests(tmp, "[]", &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "expected a json object"), "%s", err.msg);
    up_buf_reset(&got);
    cr_assert_eq(up_fs_read(&got, meta, 10000, NULL), 0);
    cr_assert_str_eq(got.data, "[1]", "a refused file is left as it was");
    up_buf_release(&got);
    free(meta);
}

static const char *const unsafe_paths[] = {"../x",
                                           "/abs",
                                           "references/a\x01b",
                                           "references/../x",
                                           "SKILL.md",
                                           "other/file",
                                           "references",
                                           "scripts/a\\b",
                                           "references/a/",
                                           "references//a",
                                           "assets/caf\xe9.txt",
                                           "references/\xc2\x9b.md"};

Test(skill, save_refuses_unsafe_paths, .init = mk_tmp, .fini = rm_tmp)
{
    for (size_t i = 0; i < sizeof(unsafe_paths) / sizeof(unsafe_paths[0]);
         i++) {
        up_skill s;
        up_error err = {0};
        char *out = path_in("out");

        up_skill_init(&s);
        s.name = up_xstrdup("a");
        add_file(&s, "references/ok.md", "ok", 0);
        add_file(&s, unsafe_paths[i], "bad", 0);
        cr_assert_eq(up_skill_save(&s, out, &err), UP_EUNSAFE, "case %zu", i);
        cr_assert_eq(access(out, F_OK), -1, "case %zu wrote files", i);
        up_skill_release(&s);
        free(out);
    }
}

Test(skill, save_refuses_file_and_folder, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};

    up_skill_init(&s);
    add_file(&s, "references/a", "x", 0);
    add_file(&s, "references/a-b", "x", 0);
    add_file(&s, "references/a/b", "x", 0);
    cr_assert_eq(up_skill_save(&s, tmp, &err), UP_EUNSAFE);
    cr_assert(strstr(err.msg, "both a file and a folder"), "%s", err.msg);
    up_skill_release(&s);
}

/* The new version replaces the old folder's references symlink by a real
 * folder: nothing is written through it, and its target stays. */
Test(skill, save_never_writes_through_a_symlink, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};
    char *out = path_in("out"), *link = path_in("out/references");
    char *outside = path_in("outside"), *evil = path_in("outside/evil.md");
    struct stat st;

    cr_assert_eq(mkdir(outside, 0755), 0);
    cr_assert_eq(mkdir(out, 0755), 0);
    cr_assert_eq(symlink(outside, link), 0);
    up_skill_init(&s);
    s.name = up_xstrdup("a");
    s.description = up_xstrdup("d");
    add_file(&s, "references/evil.md", "x", 0);
    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    cr_assert_eq(access(evil, F_OK), -1, "nothing written outside");
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISDIR(st.st_mode), "references is a folder now");
    cr_assert_eq(access(outside, F_OK), 0, "the link's target stays");
    up_skill_release(&s);
    free(out);
    free(link);
    free(outside);
    free(evil);
}

Test(skill, load_errors, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};
    char *md = path_in("SKILL.md"), *secret = path_in("secret");
    char *ref = path_in("skill/references/leak.md"), *skill = path_in("skill");
    int fd;

    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_ENOTFOUND);
    cr_assert(strstr(err.msg, "SKILL.md': no such file"), "%s", err.msg);

    cr_assert_eq(mkdir(md, 0755), 0);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "is a directory"), "%s", err.msg);
    cr_assert_eq(rmdir(md), 0);

    /* a sparse 50 MB file fails on its size, without reading it */
    fd = open(md, O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 50L * 1024 * 1024), 0);
    close(fd);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_ETOOBIG);
    cr_assert(strstr(err.msg, "larger than"), "%s", err.msg);

    put("SKILL.md", "---\nname: a\ndescription: b\n---\n", 0644);
    put("skill_meta.json", "{\n  \"metadata\": {,\n}", 0644);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "skill_meta.json':2:"), "%s", err.msg);
    cr_assert_null(s.name);

    put("skill_meta.json", "{\"metadata\": {\"version\": 1}}", 0644);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "metadata.version must be"), "%s", err.msg);
    put("skill_meta.json", "{}", 0644);

    put("secret", "s3cret", 0644);
    put("skill/SKILL.md", "---\nname: a\ndescription: b\n---\n", 0644);
    put("skill/references/ok.md", "ok", 0644);
    cr_assert_eq(symlink(secret, ref), 0);
    cr_assert_eq(up_skill_load(&s, skill, &err), UP_EUNSAFE);
    cr_assert(strstr(err.msg, "leak.md': symlink leads outside"), "%s",
              err.msg);
    free(skill);
    free(md);
    free(secret);
    free(ref);
    up_skill_release(&s);
}

Test(skill, load_symlink_inside_is_fine, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};
    char *ref = path_in("references/alias.md");

    put("SKILL.md", "---\nname: a\ndescription: b\n---\n", 0644);
    put("references/real.md", "data", 0644);
    cr_assert_eq(symlink("real.md", ref), 0);
    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_eq(s.nfiles, 2);
    cr_assert_str_eq(s.files[0].path, "references/alias.md");
    cr_assert_str_eq(s.files[0].data, "data");
    cr_assert(!s.has_meta);
    cr_assert_null(s.tests_json);
    up_skill_release(&s);
    free(ref);
}

/* ---- saving as a whole ---- */

/* A version of skill "out": SKILL.md says tag, one reference per name. */
static void version(up_skill *s, const char *tag, const char *const *refs)
{
    up_buf body = UP_BUF_INIT;

    up_skill_init(s);
    s->name = up_xstrdup("out");
    s->description = up_xstrdup("a skill saved whole");
    up_buf_addf(&body, "# %s", tag);
    s->body = up_buf_detach(&body);
    s->tests_json = up_xstrdup(tag[1] == '1' ? "[{\"input\": \"old\"}]"
                                             : "[{\"input\": \"new\"}]");
    for (; *refs; refs++)
        add_file(s, *refs, tag, 0);
}

static char *slurp(const char *rel)
{
    up_buf b = UP_BUF_INIT;
    char *p = path_in(rel);

    if (up_fs_read(&b, p, 1 << 20, NULL))
        up_buf_adds(&b, "(missing)");
    free(p);
    return up_buf_detach(&b);
}

/* Hidden save folders (".out.upskill-...") left in tmp. */
static int leftovers(void)
{
    char **names = NULL;
    int n = 0;

    cr_assert_eq(up_fs_list(&names, NULL, tmp, NULL), 0);
    for (char **p = names; *p; p++)
        n += !strncmp(*p, ".out.upskill-", 13);
    up_strv_free(names);
    return n;
}

static void assert_has(const char *rel, const char *needle)
{
    char *text = slurp(rel);

    cr_assert(strstr(text, needle), "%s: %s lacks %s", rel, text, needle);
    free(text);
}

static void save_twice(int no_exchange)
{
    static const char *const v1[] = {"references/a.md", "references/b.md",
                                     NULL};
    static const char *const v2[] = {"references/a.md", NULL};
    up_skill s;
    up_error err = {0};
    char *out = path_in("out"), *b = path_in("out/references/b.md");

    skill_swap_no_exchange = no_exchange;
    version(&s, "V1", v1);
    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    up_skill_release(&s);
    put("out/README.md", "the user's", 0644);
    put("out/.git/config", "[core]", 0644);
    version(&s, "V2", v2);
    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    up_skill_release(&s);
    assert_has("out/SKILL.md", "# V2");
    assert_has("out/skill_meta.json", "new");
    assert_has("out/references/a.md", "V2");
    cr_assert_eq(access(b, F_OK), -1, "the old version's extra file is gone");
    assert_has("out/README.md", "the user's");
    assert_has("out/.git/config", "[core]");
    cr_assert_eq(leftovers(), 0, "no hidden folder is left");
    skill_swap_no_exchange = 0;
    free(out);
    free(b);
}

Test(skill, save_replaces_the_version_whole, .init = mk_tmp, .fini = rm_tmp)
{
    save_twice(0);
}

Test(skill, save_without_exchange_renames_aside, .init = mk_tmp, .fini = rm_tmp)
{
    save_twice(1);
}

/* In a child whose files may not grow past 64 KiB (a full disk), save a
 * version with a 256 KiB reference; exit 0 when the save failed. */
static int save_on_full_disk(const char *out, int no_exchange)
{
    static const char *const none[] = {NULL};
    struct rlimit rl = {65536, 65536};
    pid_t pid = fork();
    int status = 0;

    cr_assert_neq(pid, -1);
    if (pid == 0) {
        up_skill s;
        up_error err = {0};
        char *big = up_xmalloc(262145);

        memset(big, 'x', 262144);
        big[262144] = '\0';
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        skill_swap_no_exchange = no_exchange;
        version(&s, "V2", none);
        add_file(&s, "references/big.md", big, 0);
        _exit(up_skill_save(&s, out, &err) != 0 &&
                      strstr(err.msg, "not saved, the old version is kept")
                  ? 0
                  : 1);
    }
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(skill, a_failed_save_keeps_the_old_version, .init = mk_tmp, .fini = rm_tmp)
{
    static const char *const v1[] = {"references/a.md", NULL};
    up_skill s;
    up_error err = {0};
    char *out = path_in("out");

    version(&s, "V1", v1);
    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    up_skill_release(&s);
    for (int no_exchange = 0; no_exchange < 2; no_exchange++) {
        cr_assert_eq(save_on_full_disk(out, no_exchange), 0,
                     "the save fails and says so");
        assert_has("out/SKILL.md", "# V1");
        assert_has("out/skill_meta.json", "old");
        assert_has("out/references/a.md", "V1");
        cr_assert_eq(leftovers(), 0, "the half-written version is removed");
    }
    free(out);
}

Test(skill, save_removes_what_dead_saves_left, .init = mk_tmp, .fini = rm_tmp)
{
    static const char *const v1[] = {NULL};
    up_skill s;
    up_error err = {0};
    char *out = path_in("out"), live[64];

    put(".out.upskill-new-999999999-aaaaaa/SKILL.md", "half", 0644);
    put(".out.upskill-old-999999999-bbbbbb/README.md", "set aside", 0644);
    snprintf(live, sizeof(live), ".out.upskill-new-%ld-cccccc/SKILL.md",
             (long)getppid());
    put(live, "another process is saving", 0644);
    version(&s, "V1", v1);
    cr_assert_eq(up_skill_save(&s, out, &err), 0, "%s", err.msg);
    up_skill_release(&s);
    assert_has("out/README.md", "set aside");
    cr_assert_eq(leftovers(), 1, "only the live process's folder stays");
    free(out);
}

Test(skill, save_refuses_what_load_would_refuse, .init = mk_tmp, .fini = rm_tmp)
{
    static const char *const none[] = {NULL};
    up_skill s;
    up_error err = {0};
    up_buf deep = UP_BUF_INIT;
    char *out = path_in("out");

    up_buf_adds(&deep, "references");
    for (int i = 0; i < 17; i++)
        up_buf_adds(&deep, "/d");
    up_buf_adds(&deep, ".md");
    version(&s, "V1", none);
    add_file(&s, deep.data, "x", 0);
    cr_assert_eq(up_skill_save(&s, out, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "nested deeper than 16"), "%s", err.msg);
    cr_assert_eq(access(out, F_OK), -1, "nothing is written");
    up_skill_release(&s);
    up_buf_release(&deep);
    free(out);
}

/* Issue 25: upstream's TestCase forbids unknown keys, so our extensions
 * are saved beside the tests and put back on load. */
Test(skill, meta_tests_split_and_joined, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err;
    char *meta;

    up_skill_init(&s);
    put("SKILL.md", "---\nname: x\ndescription: d\n---\nbody\n", 0644);
    cr_assert_eq(up_skill_save_tests(tmp,
                                     "[{\"input\":\"a\",\"expected\":{"
                                     "\"contains\":[\"k\"]},\"assert\":[{"
                                     "\"type\":\"contains\",\"value\":"
                                     "\"v\"}]},{\"input\":\"b\"}]",
                                     NULL),
                 0);
    meta = slurp("skill_meta.json");
    cr_assert(strstr(meta, "\"tests\": [\n    {\n      \"input\": \"a\",\n"
                           "      \"expected\": {\n"),
              "%s", meta);
    cr_assert(strstr(meta, "\"upskill_c\": {\n    \"tests\": [\n      {\n"
                           "        \"assert\": ["),
              "%s", meta);
    cr_assert(strstr(meta, "      },\n      {}\n    ]"), "%s", meta);
    free(meta);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.tests_json,
                     "[{\"input\":\"a\",\"expected\":{\"contains\":[\"k\"]},"
                     "\"assert\":[{\"type\":\"contains\",\"value\":\"v\"}]},"
                     "{\"input\":\"b\"}]");
    cr_assert_eq(s.nwarnings, 0);
    up_skill_release(&s);
    /* no extension: no upskill_c, even when the file had one */
    cr_assert_eq(up_skill_save_tests(tmp, "[{\"input\":\"c\"}]", NULL), 0);
    meta = slurp("skill_meta.json");
    cr_assert_null(strstr(meta, "upskill_c"), "%s", meta);
    free(meta);
}

Test(skill, meta_tests_unpaired_extensions_warn, .init = mk_tmp, .fini = rm_tmp)
{
    up_skill s;
    up_error err;

    up_skill_init(&s);
    put("SKILL.md", "---\nname: x\ndescription: d\n---\nbody\n", 0644);
    put("skill_meta.json",
        "{\"tests\": [{\"input\": \"a\"}], \"upskill_c\": {\"tests\": "
        "[{\"assert\": []}, {\"assert\": []}]}}",
        0644);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.tests_json, "[{\"input\":\"a\"}]");
    cr_assert_eq(s.nwarnings, 1);
    cr_assert(strstr(s.warnings[0], "upskill_c.tests has 2 entries for 1 "
                                    "tests"),
              "%s", s.warnings[0]);
    up_skill_release(&s);
}

/* A sparse file of size bytes at rel (nothing is written). */
static void sparse(const char *rel, off_t size)
{
    char *p = path_in(rel);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);

    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, size), 0);
    close(fd);
    free(p);
}

Test(skill, the_total_cap_names_the_skill_and_the_limit, .init = mk_tmp,
     .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};
    char name[32];

    put("SKILL.md", "---\nname: big\ndescription: b\n---\n", 0644);
    for (int i = 0; i < 5; i++) { /* 5 x 15 MiB: each fits, not together */
        snprintf(name, sizeof(name), "references/r%d.md", i);
        put(name, "", 0644);
        sparse(name, 15L << 20);
    }
    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), UP_ETOOBIG);
    cr_assert(strstr(err.msg, tmp), "%s", err.msg);
    cr_assert(strstr(err.msg, "UP_SKILL_MAX_TOTAL: 64 MiB"), "%s", err.msg);
}

Test(skill, dropped_files_are_read_back_and_checked, .init = mk_tmp,
     .fini = rm_tmp)
{
    up_skill s;
    up_error err = {0};
    up_buf b = UP_BUF_INIT;

    put("SKILL.md", "---\nname: drop\ndescription: b\n---\n", 0644);
    put("references/a.md", "alpha", 0644);
    up_skill_init(&s);
    cr_assert_eq(up_skill_load(&s, tmp, &err), 0, "%s", err.msg);
    up_skill_files_drop(&s, tmp);
    cr_assert_null(s.files[0].data, "the contents are not held");
    cr_assert_eq(s.files[0].len, 5, "the size is");
    cr_assert_eq(up_skill_file_read(&s, 0, &b, &err), 0, "%s", err.msg);
    cr_assert_str_eq(b.data, "alpha");
    put("references/a.md", "omega", 0644);
    cr_assert_eq(up_skill_file_read(&s, 0, &b, &err), UP_EIO);
    cr_assert(strstr(err.msg, "skill 'drop'") &&
                  strstr(err.msg, "references/a.md' changed since"),
              "%s", err.msg);
    up_buf_release(&b);
    up_skill_release(&s);
}

/* A key short in bytes but over YAML's 1024-character implicit-key
 * limit once escaped (fuzz_skill's abort, issue 36): rendered with "? ",
 * it parses back to the same fields. */
Test(skill, render_a_key_long_once_escaped)
{
    up_skill s, t;
    up_buf out = UP_BUF_INIT;
    up_error err = {0};
    char key[301];

    memset(key, '\x01', 300);
    key[300] = '\0';
    up_skill_init(&s);
    up_skill_init(&t);
    s.name = up_xstrdup("a");
    s.description = up_xstrdup("b");
    s.metadata = up_xcalloc(1, sizeof(*s.metadata));
    s.metadata[0].key = up_xstrdup(key);
    s.metadata[0].value = up_xstrdup("v");
    s.nmetadata = 1;
    s.extra = up_xcalloc(1, sizeof(*s.extra));
    s.extra[0].key = up_xstrdup(key);
    s.extra[0].value = up_xstrdup("w");
    s.nextra = 1;
    up_skill_render(&s, &out);
    cr_assert_eq(up_skill_parse(&t, out.data, out.len, "r", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(t.nmetadata, 1);
    cr_assert_str_eq(t.metadata[0].key, key);
    cr_assert_eq(t.nextra, 1);
    cr_assert_str_eq(t.extra[0].key, key);
    up_buf_release(&out);
    up_skill_release(&s);
    up_skill_release(&t);
}
