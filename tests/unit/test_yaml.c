/* Unit tests for the YAML tree (src/util/yaml.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "util/yaml.h"

static int parse(up_ydoc *d, const char *text, int first_line, up_error *err)
{
    return up_yaml_parse(d, text, strlen(text), first_line, err);
}

Test(yaml, tree_and_lines)
{
    up_ydoc d;
    up_error err;
    const up_ynode *n, *m;

    cr_assert_eq(parse(&d,
                       "name: x\ndesc: >-\n  a\n  b\nlist:\n  - 1\n  - 'q'\n"
                       "meta:\n  k: v\n",
                       2, &err),
                 0);
    cr_assert_eq(d.root->kind, UP_Y_MAP);
    cr_assert_eq(d.root->n, 4);
    cr_assert_str_eq(up_yaml_get(d.root, "desc")->value, "a b");
    cr_assert_eq(up_yaml_get(d.root, "desc")->style, UP_YS_FOLDED);
    n = up_yaml_get(d.root, "list");
    cr_assert_eq(n->kind, UP_Y_SEQ);
    cr_assert_eq(n->n, 2);
    cr_assert_str_eq(n->items[0]->value, "1");
    cr_assert_eq(n->items[1]->style, UP_YS_SQUOTED);
    cr_assert_eq(n->items[1]->line, 8);
    m = up_yaml_get(d.root, "meta");
    cr_assert_str_eq(up_yaml_get(m, "k")->value, "v");
    cr_assert_eq(up_yaml_get(m, "k")->line, 10);
    cr_assert_eq(up_yaml_get(m, "k")->col, 6);
    cr_assert_null(up_yaml_get(d.root, "nope"));
    cr_assert_eq(d.nissues, 0);
    cr_assert_str_eq(up_yaml_kind_name(m), "a mapping");
    cr_assert_str_eq(up_yaml_kind_name(n), "a list");
    up_ydoc_release(&d);
}

static const struct {
    const char *text;
    int line;
    const char *msg;
} issue_cases[] = {
    {"a: [1, 2]\n", 1, "flow style sequence"},
    {"a: 1\nb: {x: 1}\n", 2, "flow style mapping"},
    {"a: &x 1\n", 1, "anchor '&x'"},
    {"a: 1\nb: *x\n", 2, "alias '*x'"},
    {"a: !!str 1\n", 1, "tag '"},
    {"a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a'"},
    {"a: 1\n---\nb: 2\n", 2, "more than one document"},
    {"c: |\n  x\n  \tkept\nd: 1\n \t\ne: 2\n", 0, NULL},
    {"a: \"x\n\ty\"\n", 0, NULL},
    {"? - a\n: 1\n", 1, "a list as a mapping key"},
};

Test(yaml, strictness_issues)
{
    for (size_t i = 0; i < sizeof(issue_cases) / sizeof(issue_cases[0]); i++) {
        up_ydoc d;
        up_error err = {0};
        int rc = parse(&d, issue_cases[i].text, 1, &err);

        cr_assert_eq(rc, 0, "case %zu: %s", i, err.msg);
        if (!issue_cases[i].msg) {
            cr_assert_eq(d.nissues, 0, "case %zu: %s", i,
                         d.nissues ? d.issues[0].msg : "");
        } else {
            cr_assert_geq(d.nissues, 1, "case %zu", i);
            cr_assert_eq(d.issues[0].line, issue_cases[i].line, "case %zu", i);
            cr_assert(strstr(d.issues[0].msg, issue_cases[i].msg),
                      "case %zu: %s", i, d.issues[0].msg);
        }
        up_ydoc_release(&d);
    }
}

Test(yaml, tab_in_indentation)
{
    up_ydoc d;

    /* libyaml itself refuses most tab indentation; flow context is not. */
    cr_assert_eq(parse(&d, "a: [1,\n\t2]\n", 1, NULL), 0);
    cr_assert_eq(d.nissues, 2);
    cr_assert_eq(d.issues[1].line, 2);
    cr_assert_str_eq(d.issues[1].msg, "tab character used in indentation");
    up_ydoc_release(&d);
}

Test(yaml, tab_indentation_syntax_error_says_so)
{
    up_ydoc d;
    up_error err = {0};

    /* libyaml's own words here: "found character that cannot start any
     * token"; the message names the real cause and the line. */
    cr_assert_eq(parse(&d, "name: x\nmetadata:\n\tauthor: me\n", 1, &err),
                 UP_EPARSE);
    cr_assert_str_eq(err.msg, "line 3: tab character in indentation "
                              "(YAML indents with spaces)");
    up_ydoc_release(&d);
    /* Other syntax errors keep libyaml's description. */
    cr_assert_eq(parse(&d, "a: b\n  c: [\n", 1, &err), UP_EPARSE);
    cr_assert_null(strstr(err.msg, "tab"), "%s", err.msg);
    up_ydoc_release(&d);
}

Test(yaml, alias_becomes_empty_scalar)
{
    up_ydoc d;

    cr_assert_eq(parse(&d, "a: &x 1\nb: *x\n", 1, NULL), 0);
    cr_assert_str_eq(up_yaml_get(d.root, "b")->value, "");
    cr_assert_eq(d.nissues, 2);
    up_ydoc_release(&d);
}

Test(yaml, later_documents_dropped)
{
    up_ydoc d;

    cr_assert_eq(parse(&d, "a: 1\n---\n- b\n--- c\n", 1, NULL), 0);
    cr_assert_eq(d.root->kind, UP_Y_MAP);
    cr_assert_eq(d.nissues, 1);
    up_ydoc_release(&d);
}

Test(yaml, syntax_error_has_line)
{
    up_ydoc d;
    up_error err = {0};

    cr_assert_eq(parse(&d, "a: 1\nb: 2\n  c: 3\n", 5, &err), UP_EPARSE);
    cr_assert_eq(strncmp(err.msg, "line 7: ", 8), 0, "%s", err.msg);
    up_ydoc_release(&d);
    cr_assert_eq(parse(&d, "a: \"open\n", 1, &err), UP_EPARSE);
    cr_assert_eq(strncmp(err.msg, "line ", 5), 0, "%s", err.msg);
    up_ydoc_release(&d);
    cr_assert_eq(parse(&d, "a:\n\tb: 1\n", 1, &err), UP_EPARSE);
    cr_assert_eq(strncmp(err.msg, "line 2: ", 8), 0, "%s", err.msg);
    up_ydoc_release(&d);
}

Test(yaml, depth_is_limited)
{
    char text[400];
    up_ydoc d;
    up_error err = {0};

    memset(text, '[', 200);
    text[200] = '\0';
    cr_assert_eq(parse(&d, text, 1, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "nesting deeper than"), "%s", err.msg);
    up_ydoc_release(&d);
}

Test(yaml, empty_document)
{
    up_ydoc d;

    cr_assert_eq(parse(&d, "# only a comment\n", 1, NULL), 0);
    cr_assert_null(d.root);
    up_ydoc_release(&d);
    cr_assert_eq(up_yaml_parse(&d, "", 0, 1, NULL), 0);
    cr_assert_null(d.root);
    up_ydoc_release(&d);
}
