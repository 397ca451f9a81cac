/*
 * The tests of skill_meta.json, split so that upstream upskill loads them.
 *
 * Upstream validates each entry of "tests" with its TestCase model, which
 * forbids unknown keys, so a test holding our "assert", "check_files" or
 * "check_owned" made upstream's eval exit 1.  Upstream reads only the
 * "metadata" and "tests" keys of the file, so the split is: "tests" holds
 * each test with upstream's six keys only, and "upskill_c": {"tests":
 * [...]} holds, at the same index, an object with the test's other keys
 * (an empty object for a test without any).  The key is written only when
 * some test has an extension.  Loading puts the two back together; a file
 * written before the split (extensions inside "tests") reads as it is.
 */
#include <jansson.h>
#include <string.h>

#include "lib/skill/skill_int.h"
#include "upskill/alloc.h"
#include "upskill/skill.h"

static const char *const upstream_keys[] = {"input",     "context",
                                            "expected",  "output_file",
                                            "validator", "validator_config"};

static int upstream_key(const char *key)
{
    for (size_t i = 0; i < sizeof(upstream_keys) / sizeof(upstream_keys[0]);
         i++)
        if (!strcmp(key, upstream_keys[i]))
            return 1;
    return 0;
}

/* Split one test into its upstream part and its extension part. */
static void split_test(json_t *test, json_t **up, json_t **ext)
{
    const char *key;
    json_t *v;

    *up = json_object();
    *ext = json_object();
    json_object_foreach(test, key, v)
    {
        json_object_set(upstream_key(key) ? *up : *ext, key, v);
    }
}

void skill_meta_put_tests(json_t *root, json_t *tests)
{
    json_t *up = json_array(), *exts = json_array();
    int any = 0;
    size_t i;
    json_t *t;

    if (!json_is_array(tests)) {
        json_object_set(root, "tests", tests);
        goto out;
    }
    json_array_foreach(tests, i, t)
    {
        json_t *u, *e;

        if (!json_is_object(t)) {
            json_array_append(up, t);
            json_array_append_new(exts, json_object());
            continue;
        }
        split_test(t, &u, &e);
        any |= json_object_size(e) > 0;
        json_array_append_new(up, u);
        json_array_append_new(exts, e);
    }
    json_object_set(root, "tests", up);
    if (any)
        json_object_set_new(root, "upskill_c",
                            json_pack("{s:O}", "tests", exts));
out:
    if (!any)
        json_object_del(root, "upskill_c");
    json_decref(up);
    json_decref(exts);
}

static void warn(up_skill *s, const char *path, size_t n, size_t m)
{
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b,
                "'%s': upskill_c.tests has %zu entries for %zu tests (the "
                "tests were edited by another tool): their assertions are "
                "left out; save the tests again to pair them",
                path, m, n);
    skill_warn(s, &b);
}

json_t *skill_meta_get_tests(json_t *root, up_skill *s, const char *path)
{
    json_t *tests = json_object_get(root, "tests");
    json_t *exts = json_object_get(json_object_get(root, "upskill_c"), "tests");
    json_t *out, *t;
    size_t i;

    if (!tests)
        return NULL;
    if (!json_is_array(tests) || !json_is_array(exts))
        return json_incref(tests);
    if (json_array_size(exts) != json_array_size(tests)) {
        warn(s, path, json_array_size(tests), json_array_size(exts));
        return json_incref(tests);
    }
    out = json_deep_copy(tests);
    json_array_foreach(out, i, t)
    {
        json_t *e = json_array_get(exts, i);

        if (json_is_object(t) && json_is_object(e))
            json_object_update_missing(t, e);
    }
    return out;
}
