/*
 * Where a skill's test suite comes from, and Anthropic skill-creator's
 * evals/evals.json as one of the sources.
 *
 * The order is: the -t file, else skill_meta.json's "tests" (when it has
 * cases), else evals/evals.json in the skill folder.  evals.json is
 * {"skill_name": ..., "evals": [{id, prompt, expected_output, files,
 * expectations}]} (a bare array of evals is accepted too, and
 * "assertions" for "expectations", the drift between skill-creator's
 * documents).  Each eval becomes one upstream-shaped case — prompt as
 * input, each listed file (relative to the skill folder) as a context
 * file, each expectation as an llm-rubric assertion graded by the judge
 * model, as skill-creator's grader does; with no expectations the
 * expected_output is the one rubric, so a case never passes unchecked —
 * and the result goes through up_suite_parse, so the suite holds the same
 * rules as any other.  Unknown keys are ignored (skill-creator adds its
 * own); known keys of the wrong type are errors naming evals[i].key.
 */
#include <jansson.h>
#include <string.h>

#include "lib/cases/suite_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/suite.h"
#include "util/json.h"

/* A context file named rel, read from the skill folder dir. */
static int add_file(json_t *files, const char *dir, const char *rel,
                    const char *where, up_error *err)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    json_t *s = NULL;
    int rc = up_fs_check_relative(rel, err);

    if (!rc) {
        up_fs_join(&path, dir, rel);
        rc = up_fs_read(&text, path.data, UP_FS_MAX_READ, err);
    }
    if (!rc) {
        s = json_stringn(text.data ? text.data : "", text.len);
        if (!s)
            rc = up_error_set(err, UP_EPARSE, "%s: '%s' is not UTF-8 text",
                              where, path.data);
    }
    if (!rc)
        json_object_set_new(files, rel, s);
    else
        up_error_prefix(err, "%s: ", where);
    up_buf_release(&text);
    up_buf_release(&path);
    return rc;
}

static int want_strings(const json_t *v, const char *where, up_error *err)
{
    size_t i;
    json_t *x;

    if (!json_is_array(v))
        return up_error_set(err, UP_EPARSE, "%s: expected a list of strings",
                            where);
    json_array_foreach(v, i, x) if (!json_is_string(x)) return up_error_set(
        err, UP_EPARSE, "%s[%zu]: expected a string", where, i);
    return 0;
}

static json_t *rubric(const char *text)
{
    return json_pack("{s:s, s:s}", "type", "llm-rubric", "value", text);
}

/* The llm-rubric list of eval ev (its expectations, else its
 * expected_output), or NULL on a wrong type. */
static json_t *rubrics(const json_t *ev, up_buf *where, up_error *err)
{
    const json_t *ex = json_object_get(ev, "expectations");
    const json_t *out = json_object_get(ev, "expected_output");
    json_t *list = json_array();
    size_t i, n = where->len;
    json_t *x;

    if (!ex)
        ex = json_object_get(ev, "assertions");
    up_buf_adds(where, json_object_get(ev, "expectations") ? ".expectations"
                                                           : ".assertions");
    if (ex && !json_is_null(ex) && want_strings(ex, where->data, err)) {
        json_decref(list);
        return NULL;
    }
    json_array_foreach(ex, i, x)
        json_array_append_new(list, rubric(json_string_value(x)));
    up_buf_truncate(where, n);
    if (!json_array_size(list) && json_is_string(out) &&
        *json_string_value(out)) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b, "The answer achieves this expected output: %s",
                    json_string_value(out));
        json_array_append_new(list, rubric(b.data));
        up_buf_release(&b);
    }
    return list;
}

static int eval_files(json_t *files, const json_t *v, const char *dir,
                      up_buf *where, up_error *err)
{
    size_t i, n = where->len;
    json_t *x;
    int rc;

    up_buf_adds(where, ".files");
    rc = json_is_null(v) ? 0 : want_strings(v, where->data, err);
    json_array_foreach(v, i, x)
    {
        up_buf_truncate(where, n + 6);
        up_buf_addf(where, "[%zu]", i);
        if (!rc)
            rc = add_file(files, dir, json_string_value(x), where->data, err);
    }
    up_buf_truncate(where, n);
    return rc;
}

/* One eval as an upstream-shaped case object in *out. */
static int eval_case(json_t **out, const json_t *ev, const char *dir,
                     up_buf *where, up_error *err)
{
    const json_t *prompt = json_object_get(ev, "prompt");
    json_t *files = json_object(), *asserts = NULL;
    int rc = 0;

    if (!json_is_object(ev))
        rc = up_error_set(err, UP_EPARSE, "%s: expected an eval object",
                          where->data);
    else if (!json_is_string(prompt))
        rc = up_error_set(err, UP_EPARSE, "%s.prompt: expected a string",
                          where->data);
    if (!rc && json_object_get(ev, "files"))
        rc = eval_files(files, json_object_get(ev, "files"), dir, where, err);
    if (!rc && !(asserts = rubrics(ev, where, err)))
        rc = UP_EPARSE;
    if (!rc)
        *out = json_pack("{s:O, s:{s:[]}, s:{s:O}, s:O}", "input", prompt,
                         "expected", "contains", "context", "files", files,
                         "assert", asserts);
    json_decref(files);
    json_decref(asserts);
    return rc;
}

/* The "evals" list of doc (an object, or the list itself). */
static const json_t *evals_of(const json_t *doc, const char *file,
                              up_error *err)
{
    const json_t *v = json_is_array(doc) ? doc : json_object_get(doc, "evals");

    if (!json_is_array(v))
        up_error_set(err, UP_EPARSE,
                     "'%s': expected {\"skill_name\": ..., \"evals\": [...]}",
                     file);
    return json_is_array(v) ? v : NULL;
}

static int evals_to_cases(json_t *cases, const json_t *doc, const char *file,
                          const char *dir, up_error *err)
{
    const json_t *evals = evals_of(doc, file, err);
    up_buf where = UP_BUF_INIT;
    int rc = evals ? 0 : UP_EPARSE;

    for (size_t i = 0; !rc && i < json_array_size(evals); i++) {
        json_t *c = NULL;

        up_buf_reset(&where);
        up_buf_addf(&where, "'%s': evals[%zu]", file, i);
        rc = eval_case(&c, json_array_get(evals, i), dir, &where, err);
        if (!rc)
            json_array_append_new(cases, c);
    }
    up_buf_release(&where);
    return rc;
}

int up_suite_load_evals(up_suite *s, const char *path, const char *skill_dir,
                        up_error *err)
{
    json_t *doc = NULL, *cases = json_array();
    char *text = NULL;
    int rc = up_json_load_file(&doc, path, err);

    if (!rc)
        rc = evals_to_cases(cases, doc, path, skill_dir, err);
    if (!rc) {
        text = json_dumps(cases, JSON_COMPACT);
        rc = up_suite_parse(s, text, strlen(text), path, "", err);
    }
    free(text);
    json_decref(cases);
    json_decref(doc);
    return rc;
}

static int from_meta(up_suite *s, up_buf *note, const up_skill *skill,
                     const char *dir, up_error *err)
{
    up_buf file = UP_BUF_INIT;
    int rc;

    up_fs_join(&file, dir, "skill_meta.json");
    rc = up_suite_parse(s, skill->tests_json, strlen(skill->tests_json),
                        file.data, "tests", err);
    if (!rc && s->ncases) {
        up_buf_addf(note, "'%s'", file.data);
        s->from = UP_SUITE_FROM_META;
    }
    up_buf_release(&file);
    return rc;
}

static int from_evals(up_suite *s, up_buf *note, const char *dir, up_error *err)
{
    up_buf file = UP_BUF_INIT;
    int rc = 0;

    up_fs_join(&file, dir, "evals/evals.json");
    if (up_fs_exists(file.data))
        rc = up_suite_load_evals(s, file.data, dir, err);
    if (!rc && s->ncases) {
        up_buf_addf(note, "'%s' (skill-creator format)", file.data);
        s->from = UP_SUITE_FROM_EVALS;
    }
    up_buf_release(&file);
    return rc;
}

int up_suite_find(up_suite *s, up_buf *src, const char *tests_file,
                  const up_skill *skill, const char *skill_dir, up_error *err)
{
    int rc = 0;

    if (tests_file) {
        rc = up_suite_load(s, tests_file, err);
        up_buf_addf(src, "'%s'", tests_file);
        if (s->nignored)
            up_buf_addf(src,
                        " (%zu field%s beside \"cases\" ignored, as "
                        "upstream ignores them)",
                        s->nignored, s->nignored == 1 ? "" : "s");
        s->from = UP_SUITE_FROM_FILE;
    } else if (skill->tests_json) {
        rc = from_meta(s, src, skill, skill_dir, err);
    }
    if (!rc && !tests_file && !s->ncases)
        rc = from_evals(s, src, skill_dir, err);
    return rc;
}

int up_suite_pick(up_suite *s, up_buf *note, const char *tests_file,
                  const up_skill *skill, const char *skill_dir, up_error *err)
{
    up_buf src = UP_BUF_INIT;
    int rc = up_suite_find(s, &src, tests_file, skill, skill_dir, err);

    if (!rc && !s->ncases)
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': no test cases: give -t FILE, add tests to "
                          "skill_meta.json or write evals/evals.json",
                          tests_file ? tests_file : skill_dir);
    if (!rc)
        up_buf_addf(note, "%zu case%s from %s", s->ncases,
                    s->ncases == 1 ? "" : "s", src.data);
    up_buf_release(&src);
    return rc;
}
