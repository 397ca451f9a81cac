/* Unit tests for upstream's line-by-line frontmatter
 * (src/lib/skill/skill_legacy.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "lib/skill/skill_legacy.h"
#include "upskill/upskill.h"

/* Parse text, then fall back as the loader does. */
static int load_text(up_skill *s, const char *text, up_error *err)
{
    int rc = up_skill_parse(s, text, strlen(text), "x/SKILL.md", err);

    if (rc == UP_EPARSE)
        rc =
            up_skill_legacy_parse(s, text, strlen(text), "x/SKILL.md", rc, err);
    return rc;
}

static const struct {
    const char *text;
    const char *description; /* as upstream reads it */
    int line;                /* of the one warning */
} falls_back[] = {
    {"---\nname: pr\ndescription: Use when: writing a PR\n---\nBody\n",
     "Use when: writing a PR", 3},
    {"---\r\nname: pr\r\ndescription: Use when: x  \r\n---\r\nBody\r\n",
     "Use when: x", 3},
    {"---\n# upstream\n\nname: pr\ndescription: [draft] notes: a\n---\nB\n",
     "[draft] notes: a", 5},
    {"---\nname: pr\ndescription: \"Hi\" she said: go\n---\nB\n",
     "\"Hi\" she said: go", 3},
    {"---\ndescription: a: b\\c\tend\nname: pr\n---\nB\n", "a: b\\c\tend", 2},
};

Test(skill_legacy, upstream_lines_are_read_with_a_warning)
{
    for (size_t i = 0; i < sizeof(falls_back) / sizeof(*falls_back); i++) {
        up_skill s;
        up_error err = {0};
        char want[64];

        up_skill_init(&s);
        cr_assert_eq(load_text(&s, falls_back[i].text, &err), 0, "%zu: %s", i,
                     err.msg);
        cr_assert_str_eq(s.name, "pr", "%zu", i);
        cr_assert_str_eq(s.description, falls_back[i].description, "%zu", i);
        cr_assert_eq(s.nwarnings, 1, "%zu", i);
        snprintf(want, sizeof(want), "'x/SKILL.md':%d: invalid YAML (",
                 falls_back[i].line);
        cr_assert(!strncmp(s.warnings[0], want, strlen(want)), "%zu: %s", i,
                  s.warnings[0]);
        cr_assert(strstr(s.warnings[0], "quote the value: description: \""),
                  "%s", s.warnings[0]);
        cr_assert_null(s.warnings[1]);
        up_skill_release(&s);
    }
}

/* Not upstream's shape, or not a YAML failure: the error stands. */
static const char *const keeps_error[] = {
    "---\nname: pr\ndescription: a: b\n  more\n---\nB\n",
    "---\nname: pr\n  description: a: b\n---\nB\n",
    "---\nname: pr\n- a: b\n---\nB\n",
    "---\nname: pr\ndescription: ok\nmetadata:\n  a: b: c\n---\nB\n",
    "---\nname: pr\ndescription:\n  - a\n---\nB\n", /* [a, b]: test_skill.c */
    "name: pr\ndescription: a: b\n",
    "---\nname: pr\ndescription: a: b\n",
};

Test(skill_legacy, other_shapes_keep_their_error)
{
    for (size_t i = 0; i < sizeof(keeps_error) / sizeof(*keeps_error); i++) {
        up_skill s;
        up_error err = {0};

        up_skill_init(&s);
        cr_assert_eq(load_text(&s, keeps_error[i], &err), UP_EPARSE, "%zu", i);
        cr_assert_eq(s.nwarnings, 0, "%zu", i);
        cr_assert(strstr(err.msg, "'x/SKILL.md'"), "%zu: %s", i, err.msg);
        up_skill_release(&s);
    }
}

Test(skill_legacy, valid_yaml_never_falls_back)
{
    const char *t = "---\nname: pr\ndescription: \"Use when: x\"\n---\nB\n";
    up_skill s;
    up_error err = {0};

    up_skill_init(&s);
    cr_assert_eq(load_text(&s, t, &err), 0, "%s", err.msg);
    cr_assert_str_eq(s.description, "Use when: x");
    cr_assert_eq(s.nwarnings, 0);
    cr_assert_null(s.warnings);
    up_skill_release(&s);
}

Test(skill_legacy, hint_names_the_line_and_the_quoted_value)
{
    const char *fm = "name: pr\ndescription: Use when: \"x\"\n";
    up_buf hint = UP_BUF_INIT;

    cr_assert_eq(up_skill_legacy_hint(&hint, fm, strlen(fm), 2), 3);
    cr_assert_str_eq(hint.data,
                     "quote the value: description: \"Use when: \\\"x\\\"\"");
    up_buf_reset(&hint);
    cr_assert_eq(up_skill_legacy_hint(&hint, "a:\n  b: c: d\n", 12, 2), 0);
    cr_assert_eq(hint.len, 0);
    up_buf_release(&hint);
}

/* What generate writes is read back by YAML with no fallback. */
Test(skill_legacy, rendered_colon_values_need_no_fallback)
{
    up_skill s, t;
    up_buf out = UP_BUF_INIT;
    up_error err = {0};

    up_skill_init(&s);
    up_skill_init(&t);
    s.name = up_xstrdup("pr");
    s.description = up_xstrdup("Use when: writing a PR");
    s.body = up_xstrdup("Body");
    up_skill_render(&s, &out);
    cr_assert_eq(up_skill_parse(&t, out.data, out.len, "o", &err), 0, "%s",
                 err.msg);
    cr_assert_str_eq(t.description, s.description);
    up_buf_release(&out);
    up_skill_release(&s);
    up_skill_release(&t);
}
