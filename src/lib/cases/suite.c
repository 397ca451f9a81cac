/*
 * Test suites in upstream upskill's JSON format.
 *
 * Parsing is a strict walk over a jansson tree: every object has a table of
 * known fields, an unknown field is an error (upstream's models all forbid
 * extras), and every error names the file and the JSON path of the value
 * at fault ("cases[3].expected.contains").  The path lives in one up_buf
 * that grows as the walk descends and is truncated on the way back up.
 *
 * Cases are parsed into a scratch suite and moved into the caller's suite
 * only when the whole text is good, so a failed parse leaves it unchanged.
 * Values we do not interpret (validator_config, our "assert" extension)
 * are kept as compact JSON text for the modules that do.
 *
 * Every string and array of a case is a block of the suite's arena: a
 * 100,000 case suite is then its text and the case table, not half a
 * million mallocs with their headers (bench/README.md, "Memory of large
 * runs").
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/cases/suite_lib.h"
#include "upskill/alloc.h"
#include "lib/cases/assert.h"
#include "upskill/fs.h"
#include "upskill/suite.h"
#include "util/json.h"
#include "util/sha256.h"

/* State of one parse: where we are and where errors go. */
struct walk {
    const char *file; /* names the source in messages */
    up_buf path;      /* JSON path of the value being parsed */
    up_arena *mem;    /* where the cases' strings go */
    up_error *err;
};

static int fail(struct walk *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Set err to "'file': path: message" (no path part at the root). */
static int fail(struct walk *w, const char *fmt, ...)
{
    char msg[UP_ERROR_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!w->path.len)
        return up_error_set(w->err, UP_EPARSE, "'%s': %s", w->file, msg);
    return up_error_set(w->err, UP_EPARSE, "'%s': %s: %s", w->file,
                        w->path.data, msg);
}

static int is_ident(const char *k)
{
    if (!isalpha((unsigned char)*k) && *k != '_')
        return 0;
    for (; *k; k++)
        if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-')
            return 0;
    return 1;
}

/* Append ".key", or ["key"] when key is not a plain name, to the path;
 * return the old length for path_pop. */
static size_t path_key(struct walk *w, const char *key)
{
    size_t old = w->path.len;

    if (is_ident(key)) {
        up_buf_addf(&w->path, "%s%s", old ? "." : "", key);
        return old;
    }
    up_buf_adds(&w->path, "[\"");
    for (const char *p = key; *p; p++) {
        unsigned char c = (unsigned char)*p;

        if (c < 0x20 || c == 0x7f)
            up_buf_addf(&w->path, "\\x%02x", c);
        else
            up_buf_addf(&w->path, "%s%c", c == '"' || c == '\\' ? "\\" : "", c);
    }
    up_buf_adds(&w->path, "\"]");
    return old;
}

static size_t path_index(struct walk *w, size_t i)
{
    size_t old = w->path.len;

    up_buf_addf(&w->path, "[%zu]", i);
    return old;
}

static void path_pop(struct walk *w, size_t old)
{
    up_buf_truncate(&w->path, old);
}

/* ---- leaves ------------------------------------------------------------ */

/* v's text as a block of the suite's arena. */
static char *keep(struct walk *w, json_t *v)
{
    return up_arena_strndup(w->mem, json_string_value(v),
                            json_string_length(v));
}

static int get_string(struct walk *w, json_t *v, char **out)
{
    if (!json_is_string(v))
        return fail(w, "expected a string");
    *out = keep(w, v);
    return 0;
}

/* A string or null; null leaves *out NULL. */
static int get_opt_string(struct walk *w, json_t *v, char **out)
{
    if (json_is_null(v)) {
        *out = NULL;
        return 0;
    }
    if (!json_is_string(v))
        return fail(w, "expected a string or null");
    return get_string(w, v, out);
}

static char *compact(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

    if (!s)
        abort(); /* only on out-of-memory: the value came from the parser */
    return s;
}

/* v as compact JSON text in the suite's arena. */
static char *keep_json(struct walk *w, json_t *v)
{
    char *text = compact(v), *kept;

    kept = up_arena_strndup(w->mem, text, strlen(text));
    free(text);
    return kept;
}

/* ---- case fields ------------------------------------------------------- */

static int f_input(struct walk *w, json_t *v, up_case *c)
{
    return get_string(w, v, &c->input);
}

static int context_files(struct walk *w, json_t *v, up_case *c)
{
    size_t old;
    const char *name;
    json_t *content;

    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return fail(w, "expected an object of file name to content, or null");
    if (json_object_size(v))
        c->files =
            up_arena_alloc(w->mem, json_object_size(v) * sizeof(*c->files));
    json_object_foreach(v, name, content)
    {
        old = path_key(w, name);
        if (!json_is_string(content))
            return fail(w, "expected a string (the file's content)");
        path_pop(w, old);
        c->files[c->nfiles].name = up_arena_strndup(w->mem, name, strlen(name));
        c->files[c->nfiles].content = keep(w, content);
        c->nfiles++;
    }
    return 0;
}

static int f_context(struct walk *w, json_t *v, up_case *c)
{
    const char *key;
    json_t *val;
    size_t old;
    int rc;

    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return fail(w, "expected an object with \"files\", or null");
    json_object_foreach(v, key, val)
    {
        old = path_key(w, key);
        if (strcmp(key, "files"))
            return fail(w, "unknown field (context has only \"files\")");
        rc = context_files(w, val, c);
        if (rc)
            return rc;
        path_pop(w, old);
    }
    return 0;
}

static int expected_contains(struct walk *w, json_t *v, up_case *c)
{
    size_t n = json_is_string(v) ? 1 : json_array_size(v), i, old;
    json_t *item;

    if (!json_is_string(v) && !json_is_array(v))
        return fail(w, "expected a string or a list of strings");
    if (n)
        c->contains = up_arena_alloc(w->mem, n * sizeof(*c->contains));
    if (json_is_string(v)) {
        c->contains[c->ncontains++] = keep(w, v);
        return 0;
    }
    json_array_foreach(v, i, item)
    {
        old = path_index(w, i);
        if (!json_is_string(item))
            return fail(w, "expected a string");
        path_pop(w, old);
        c->contains[c->ncontains++] = keep(w, item);
    }
    return 0;
}

static int f_expected(struct walk *w, json_t *v, up_case *c)
{
    const char *key;
    json_t *val;
    size_t old;
    int rc;

    if (!json_is_object(v))
        return fail(w, "expected an object with \"contains\"");
    json_object_foreach(v, key, val)
    {
        old = path_key(w, key);
        if (strcmp(key, "contains"))
            return fail(w, "unknown field (expected has only \"contains\")");
        rc = expected_contains(w, val, c);
        if (rc)
            return rc;
        path_pop(w, old);
    }
    if (!json_object_get(v, "contains"))
        return fail(w, "missing required field \"contains\"");
    return 0;
}

static int f_output_file(struct walk *w, json_t *v, up_case *c)
{
    return get_opt_string(w, v, &c->output_file);
}

static int f_validator(struct walk *w, json_t *v, up_case *c)
{
    return get_opt_string(w, v, &c->validator);
}

static int f_validator_config(struct walk *w, json_t *v, up_case *c)
{
    const char *key;
    json_t *val;
    size_t old;

    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return fail(w, "expected an object of settings, or null");
    json_object_foreach(v, key, val)
    {
        old = path_key(w, key);
        if (!json_is_string(val) && !json_is_number(val) &&
            !json_is_boolean(val))
            return fail(w, "expected a string, number or boolean");
        path_pop(w, old);
    }
    c->validator_config_json = keep_json(w, v);
    return 0;
}

static int f_assert(struct walk *w, json_t *v, up_case *c)
{
    size_t i, old;
    json_t *item;

    if (!json_is_array(v))
        return fail(w, "expected a list of assertion objects");
    json_array_foreach(v, i, item)
    {
        old = path_index(w, i);
        if (!json_is_object(item))
            return fail(w, "expected an assertion object");
        path_pop(w, old);
    }
    c->assert_json = keep_json(w, v);
    return 0;
}

/* Path name of a check file, or the error naming why not. */
static int check_path(struct walk *w, const char *name, const up_case *c)
{
    size_t n = strlen(name);
    up_error e;

    if (n > UP_CASE_CHECK_PATH_MAX)
        return fail(w, "path longer than %d bytes", UP_CASE_CHECK_PATH_MAX);
    if (up_fs_check_relative(name, &e))
        return fail(w, "%s (a check file's path is relative to /tests)", e.msg);
    for (size_t i = 0; i < up_case_task_of(c)->ncheck_files; i++) {
        const char *o = up_case_task_of(c)->check_files[i].path;
        size_t k = strlen(o);

        if ((k < n && !strncmp(o, name, k) && name[k] == '/') ||
            (n < k && !strncmp(o, name, n) && o[n] == '/'))
            return fail(w,
                        "'%s' is both a file and a folder of the check "
                        "files",
                        k < n ? o : name);
    }
    return 0;
}

/* "check_files": {path: content}, files that only the case's command
 * checks see (read-only at /tests), bounded in number and bytes. */
static int f_check_files(struct walk *w, json_t *v, up_case *c)
{
    size_t n = json_object_size(v), bytes = 0, old;
    const char *name;
    json_t *content;
    up_case_task *t;
    int rc;

    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return fail(w, "expected an object of file path to content, or null");
    if (n > UP_CASE_CHECK_FILES_MAX)
        return fail(w, "a case takes at most %d check files (%zu given)",
                    UP_CASE_CHECK_FILES_MAX, n);
    if (!n)
        return 0;
    t = up_case_task_mut(c, w->mem);
    t->check_files = up_arena_alloc(w->mem, n * sizeof(*t->check_files));
    json_object_foreach(v, name, content)
    {
        up_fs_entry *f = &t->check_files[t->ncheck_files];

        old = path_key(w, name);
        if (!json_is_string(content))
            return fail(w, "expected a string (the file's content)");
        rc = check_path(w, name, c);
        if (rc)
            return rc;
        bytes += json_string_length(content);
        if (bytes > UP_CASE_CHECK_BYTES)
            return fail(w, "a case's check files take at most %zu MiB in all",
                        UP_CASE_CHECK_BYTES >> 20);
        path_pop(w, old);
        *f = (up_fs_entry){.path = up_arena_strndup(w->mem, name, strlen(name)),
                           .data = keep(w, content),
                           .len = json_string_length(content)};
        t->ncheck_files++;
    }
    return 0;
}

/* "check_owned": names of context files the checks own (resolved by
 * resolve_owned once the whole case is read). */
static int f_check_owned(struct walk *w, json_t *v, up_case *c)
{
    size_t n = json_array_size(v), i, old;
    json_t *item;
    up_case_task *t;

    if (json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return fail(w, "expected a list of context file names, or null");
    if (n > UP_CASE_CHECK_FILES_MAX)
        return fail(w, "a case's checks own at most %d files (%zu given)",
                    UP_CASE_CHECK_FILES_MAX, n);
    if (!n)
        return 0;
    t = up_case_task_mut(c, w->mem);
    t->check_owned = up_arena_alloc(w->mem, n * sizeof(*t->check_owned));
    json_array_foreach(v, i, item)
    {
        old = path_index(w, i);
        if (!json_is_string(item))
            return fail(w, "expected a string (a file of context.files)");
        path_pop(w, old);
        t->check_owned[t->ncheck_owned++] =
            (up_fs_entry){.path = keep(w, item)};
    }
    return 0;
}

/* Point each check_owned entry at its context file's content. */
static int resolve_owned(struct walk *w, up_case *c)
{
    for (size_t i = 0; i < up_case_task_of(c)->ncheck_owned; i++) {
        up_fs_entry *f = &up_case_task_of(c)->check_owned[i];
        size_t k = 0;

        while (k < c->nfiles && strcmp(c->files[k].name, f->path))
            k++;
        if (k == c->nfiles) {
            path_key(w, "check_owned");
            path_index(w, i);
            return fail(w,
                        "'%s' is not a file of context.files (check_owned "
                        "names the case's files that its checks own)",
                        f->path);
        }
        f->data = c->files[k].content ? c->files[k].content : "";
        f->len = strlen(f->data);
    }
    return 0;
}

static const struct field {
    const char *name;
    int (*parse)(struct walk *w, json_t *v, up_case *c);
    int required;
} case_fields[] = {
    {"input", f_input, 1},
    {"context", f_context, 0},
    {"expected", f_expected, 1},
    {"output_file", f_output_file, 0},
    {"validator", f_validator, 0},
    {"validator_config", f_validator_config, 0},
    {"assert", f_assert, 0},
    {"check_files", f_check_files, 0},
    {"check_owned", f_check_owned, 0},
};

#define NFIELDS (sizeof(case_fields) / sizeof(case_fields[0]))

static const struct field *find_field(const char *name)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (!strcmp(case_fields[i].name, name))
            return &case_fields[i];
    return NULL;
}

static int check_required(struct walk *w, json_t *v)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (case_fields[i].required && !json_object_get(v, case_fields[i].name))
            return fail(w, "missing required field \"%s\"",
                        case_fields[i].name);
    return 0;
}

static int parse_case(struct walk *w, json_t *v, up_case *c)
{
    const struct field *f;
    const char *key;
    json_t *val;
    size_t old;
    int rc;

    if (!json_is_object(v))
        return fail(w, "expected a test case object");
    json_object_foreach(v, key, val)
    {
        old = path_key(w, key);
        f = find_field(key);
        if (!f)
            return fail(w, "unknown field (a case has input, context, "
                           "expected, output_file, validator, "
                           "validator_config, assert, check_files, "
                           "check_owned)");
        rc = f->parse(w, val, c);
        if (rc)
            return rc;
        path_pop(w, old);
    }
    rc = check_required(w, v);
    return rc ? rc : resolve_owned(w, c);
}

/* ---- suite ------------------------------------------------------------- */

void up_suite_init(up_suite *s)
{
    s->cases = NULL;
    s->ncases = 0;
    s->from = UP_SUITE_FROM_OTHER;
    s->nignored = 0;
    up_arena_init(&s->mem);
}

void up_suite_release(up_suite *s)
{
    free(s->cases);
    up_arena_release(&s->mem);
    up_suite_init(s);
}

/* Parse v as the next case of s (its index in the list is s->ncases). */
static int add_case(struct walk *w, json_t *v, up_suite *s, size_t *cap)
{
    size_t old = path_index(w, s->ncases);
    int rc;

    UP_GROW(s->cases, *cap, s->ncases + 1);
    memset(&s->cases[s->ncases], 0, sizeof(s->cases[0]));
    rc = parse_case(w, v, &s->cases[s->ncases++]);
    if (!rc)
        path_pop(w, old);
    return rc;
}

static int parse_cases(struct walk *w, json_t *arr, up_suite *s)
{
    size_t cap = 0, i;
    json_t *item;
    int rc;

    if (!json_is_array(arr))
        return fail(w, "expected a list of test cases");
    json_array_foreach(arr, i, item)
    {
        rc = add_case(w, item, s, &cap);
        if (rc)
            return rc;
    }
    UP_SHRINK(s->cases, cap, s->ncases);
    return 0;
}

/* The top level: a list of cases, or an object with "cases" (an empty
 * object is an empty suite, as upstream's default).  Other fields beside
 * "cases" are counted and ignored, as upstream ignores them; an object
 * with fields but no "cases" is refused (upstream crashes on it). */
static int parse_top(struct walk *w, json_t *root, up_suite *s)
{
    json_t *cases = json_object_get(root, "cases");
    size_t old;
    int rc;

    if (json_is_array(root))
        return parse_cases(w, root, s);
    if (!json_is_object(root))
        return fail(w, "expected a list of test cases or an object with "
                       "\"cases\"");
    if (!cases)
        return json_object_size(root)
                   ? fail(w, "no \"cases\" field (expected a list of test "
                             "cases or an object with \"cases\")")
                   : 0;
    s->nignored = json_object_size(root) - 1;
    old = path_key(w, "cases");
    rc = parse_cases(w, cases, s);
    if (!rc)
        path_pop(w, old);
    return rc;
}

/* The whole text as one tree: the reference parse, and the one whose
 * messages a bad text gets. */
static int parse_whole(struct walk *w, const char *text, size_t len,
                       up_suite *s)
{
    json_error_t jerr;
    json_t *doc =
        json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    int rc;

    if (!doc) {
        up_json_error_words(&jerr);
        return up_error_set(w->err, UP_EPARSE, "'%s':%d:%d: %s", w->file,
                            jerr.line, jerr.column, jerr.text);
    }
    rc = parse_top(w, doc, s);
    json_decref(doc);
    return rc;
}

/* ---- the same, a case at a time ---------------------------------------- */

/* A cursor over the text, for the few bytes around the cases. */
struct scan {
    const char *text;
    size_t len, at;
};

static void skip_space(struct scan *sc)
{
    while (sc->at < sc->len && sc->text[sc->at] &&
           strchr(" \t\r\n", sc->text[sc->at]))
        sc->at++;
}

/* Skip JSON whitespace; 1 when byte c is next (and step over it). */
static int eat(struct scan *sc, char c)
{
    skip_space(sc);
    if (sc->at >= sc->len || sc->text[sc->at] != c)
        return 0;
    sc->at++;
    return 1;
}

/* Levels of nesting in v (a scalar is 0). */
static size_t depth(json_t *v)
{
    size_t d = 0, i, x;
    const char *key;
    json_t *item;

    if (json_is_array(v))
        json_array_foreach(v, i, item)
        {
            x = depth(item);
            d = x > d ? x : d;
        }
    else if (json_is_object(v))
        json_object_foreach(v, key, item)
        {
            x = depth(item);
            d = x > d ? x : d;
        }
    return json_is_array(v) || json_is_object(v) ? d + 1 : 0;
}

/* A case deeper than this goes to the whole parse: jansson limits the
 * nesting of the whole text (2048 levels in 2.14), the levels above the
 * case included. */
#define CASE_DEPTH_MAX 1000

/* The list at the cursor, its cases parsed one jansson tree at a time.
 * -1: the text is not the simple shape this reads. */
static int stream_cases(struct walk *w, struct scan *sc, up_suite *s)
{
    size_t cap = 0;
    json_error_t jerr;
    json_t *v;
    int rc = 0;

    if (!eat(sc, '['))
        return -1;
    if (eat(sc, ']'))
        return 0;
    do {
        v = json_loadb(sc->text + sc->at, sc->len - sc->at,
                       JSON_DECODE_ANY | JSON_REJECT_DUPLICATES |
                           JSON_DISABLE_EOF_CHECK,
                       &jerr);
        if (!v || depth(v) > CASE_DEPTH_MAX)
            rc = -1;
        else
            rc = add_case(w, v, s, &cap);
        json_decref(v);
        if (rc)
            return rc;
        sc->at += (size_t)jerr.position;
    } while (eat(sc, ','));
    UP_SHRINK(s->cases, cap, s->ncases);
    return eat(sc, ']') ? 0 : -1;
}

/* [...] or {"cases": [...]}, then only whitespace; else -1.  A NUL byte
 * anywhere is left to the whole parse: jansson reads one in a case alone
 * differently. */
static int stream_top(struct walk *w, const char *text, size_t len, up_suite *s)
{
    struct scan sc = {text, len, 0};
    int obj = eat(&sc, '{');
    size_t old = obj ? path_key(w, "cases") : 0;
    int rc;

    if (memchr(text, '\0', len))
        return -1;
    if (obj && !(eat(&sc, '"') && len - sc.at > 6 &&
                 !memcmp(text + sc.at, "cases\"", 6)))
        return -1;
    sc.at += obj ? 6 : 0;
    if (obj && !eat(&sc, ':'))
        return -1;
    rc = stream_cases(w, &sc, s);
    if (rc || (obj && !eat(&sc, '}')))
        return rc ? rc : -1;
    if (obj)
        path_pop(w, old);
    skip_space(&sc);
    return sc.at == len ? 0 : -1;
}

/* Move src's cases to the end of dst; src is left empty. */
static void suite_append(up_suite *dst, up_suite *src)
{
    size_t cap = dst->ncases;

    if (!dst->ncases) { /* the usual case: take the table, no copy */
        free(dst->cases);
        dst->cases = src->cases;
        src->cases = NULL;
    } else {
        UP_GROW(dst->cases, cap, dst->ncases + src->ncases);
        if (src->ncases)
            memcpy(dst->cases + dst->ncases, src->cases,
                   src->ncases * sizeof(*src->cases));
        UP_SHRINK(dst->cases, cap, dst->ncases + src->ncases);
    }
    dst->ncases += src->ncases;
    dst->nignored += src->nignored;
    up_arena_adopt(&dst->mem, &src->mem);
    free(src->cases);
    up_suite_init(src);
}

/*
 * A large suite is read a case at a time, never whole as one jansson
 * tree (80 MiB at 100,000 cases; bench/README.md, "Memory of large
 * runs").  When anything in it is off, it is read again whole, so a bad
 * text gets the messages it always got, in the same order.
 */
int up_suite_parse(up_suite *s, const char *text, size_t len, const char *file,
                   const char *root, up_error *err)
{
    up_suite tmp;
    struct walk w = {file, UP_BUF_INIT, &tmp.mem, err};
    int rc;

    up_suite_init(&tmp);
    up_buf_adds(&w.path, root ? root : "");
    rc = stream_top(&w, text, len, &tmp);
    if (rc) {
        up_suite_release(&tmp);
        up_buf_reset(&w.path);
        up_buf_adds(&w.path, root ? root : "");
        rc = parse_whole(&w, text, len, &tmp);
    }
    if (!rc)
        suite_append(s, &tmp);
    up_suite_release(&tmp);
    up_buf_release(&w.path);
    return rc;
}

int up_suite_load(up_suite *s, const char *path, up_error *err)
{
    up_buf text = UP_BUF_INIT;
    int rc;

    rc = up_fs_read(&text, path, UP_FS_MAX_READ, err);
    if (!rc)
        rc = up_suite_parse(s, text.data, text.len, path, "", err);
    up_buf_release(&text);
    return rc;
}

/* ---- rendering --------------------------------------------------------- */

/* A JSON string for s; bytes that are not valid UTF-8 (only possible in
 * cases built by hand, not parsed) become '?' rather than dropping s. */
static json_t *str_json(const char *s)
{
    json_t *v = json_string(s);
    char *copy;

    if (v)
        return v;
    copy = up_xstrdup(s);
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *opt_string(const char *s)
{
    return s ? str_json(s) : json_null();
}

/* Stored JSON text back to a value (it was produced by compact()). */
static json_t *opt_raw(const char *s)
{
    json_t *v;

    if (!s)
        return json_null();
    v = json_loads(s, JSON_DECODE_ANY, NULL);
    return v ? v : json_null();
}

static json_t *context_json(const up_case *c)
{
    json_t *files;

    if (!c->nfiles)
        return json_null();
    files = json_object();
    for (size_t i = 0; i < c->nfiles; i++)
        json_object_set_new(files, c->files[i].name,
                            str_json(c->files[i].content));
    return json_pack("{s:o}", "files", files);
}

/* The case's check files as {path: content}.  A folder entry (data
 * NULL: a Harbor task's tests/ holding folders) has no content to give:
 * its files name it, and the suite's hash covers it (sha_harbor). */
static json_t *check_files_json(const up_case *c)
{
    json_t *o = json_object();

    for (size_t i = 0; i < up_case_task_of(c)->ncheck_files; i++)
        if (up_case_task_of(c)->check_files[i].data)
            json_object_set_new(
                o, up_case_task_of(c)->check_files[i].path,
                str_json(up_case_task_of(c)->check_files[i].data));
    return o;
}

/* The names of the context files the case's checks own. */
static json_t *check_owned_json(const up_case *c)
{
    json_t *a = json_array();

    for (size_t i = 0; i < up_case_task_of(c)->ncheck_owned; i++)
        json_array_append_new(
            a, str_json(up_case_task_of(c)->check_owned[i].path));
    return a;
}

static json_t *case_json(const up_case *c)
{
    json_t *contains = json_array(), *o;

    for (size_t i = 0; i < c->ncontains; i++)
        json_array_append_new(contains, str_json(c->contains[i]));
    o = json_pack("{s:o,s:o,s:{s:o},s:o,s:o,s:o}", "input",
                  opt_string(c->input), "context", context_json(c), "expected",
                  "contains", contains, "output_file",
                  opt_string(c->output_file), "validator",
                  opt_string(c->validator), "validator_config",
                  opt_raw(c->validator_config_json));
    if (o && c->assert_json)
        json_object_set_new(o, "assert", opt_raw(c->assert_json));
    if (o && up_case_task_of(c)->ncheck_files)
        json_object_set_new(o, "check_files", check_files_json(c));
    if (o && up_case_task_of(c)->ncheck_owned)
        json_object_set_new(o, "check_owned", check_owned_json(c));
    return o;
}

/* The compact array's text a piece at a time ("[", each case, ",", "]":
 * the bytes json_dumps gives the whole array), one case's tree alive at
 * once: a 100,000 case suite as one tree took 150 MiB (bench/README.md,
 * "Memory of large runs"). */
static void suite_text(const up_suite *s,
                       void (*sink)(void *ud, const char *text, size_t len),
                       void *ud)
{
    sink(ud, "[", 1);
    for (size_t i = 0; i < s->ncases; i++) {
        json_t *c = case_json(&s->cases[i]);
        char *text = compact(c);

        if (i)
            sink(ud, ",", 1);
        sink(ud, text, strlen(text));
        free(text);
        json_decref(c);
    }
    sink(ud, "]", 1);
}

static void buf_sink(void *ud, const char *text, size_t len)
{
    up_buf_add(ud, text, len);
}

static void sha_sink(void *ud, const char *text, size_t len)
{
    up_sha256_update(ud, text, len);
}

void up_suite_to_json(const up_suite *s, up_buf *out)
{
    suite_text(s, buf_sink, out);
}

/* Hash n bytes of p, after their length (so fields cannot run into
 * each other). */
static void sha_field(up_sha256 *h, const void *p, size_t n)
{
    char len[24];

    snprintf(len, sizeof(len), "%zu:", n);
    up_sha256_update(h, len, strlen(len));
    up_sha256_update(h, p ? p : "", n);
}

/* sha_field of string str (NULL: as "") */
static void sha_str(up_sha256 *h, const char *str)
{
    sha_field(h, str, str ? strlen(str) : 0);
}

static void sha_entries(up_sha256 *h, const up_fs_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sha_str(h, v[i].path);
        if (v[i].data)
            sha_field(h, v[i].data, v[i].len);
        else /* a folder: a mark no "N:" length prefix begins with */
            up_sha256_update(h, "folder", 6);
        if (v[i].executable) /* Harbor files only: others hash as before */
            up_sha256_update(h, "x", 1);
    }
}

/* What a Harbor case (harbor.h) holds beyond its JSON: the exact bytes
 * of its seed and check files (the JSON's are text), its workdir, time
 * limits and skills.  Nothing for other cases, so their suites' hashes
 * stay what they were. */
static void sha_harbor(up_sha256 *h, const up_case *c)
{
    char lim[48];

    if (!up_case_task_of(c)->nseed && !up_case_task_of(c)->workdir &&
        !up_case_task_of(c)->nskills)
        return;
    sha_entries(h, up_case_task_of(c)->seed, up_case_task_of(c)->nseed);
    sha_entries(h, up_case_task_of(c)->check_files,
                up_case_task_of(c)->ncheck_files);
    sha_str(h, up_case_task_of(c)->workdir);
    for (size_t i = 0;
         up_case_task_of(c)->places && up_case_task_of(c)->places[i]; i++)
        sha_str(h, up_case_task_of(c)->places[i]);
    for (size_t i = 0; up_case_task_of(c)->env && up_case_task_of(c)->env[i];
         i++)
        sha_str(h, up_case_task_of(c)->env[i]);
    snprintf(lim, sizeof(lim), "%u/%u", up_case_task_of(c)->run_wall_s,
             up_case_task_of(c)->check_wall_s);
    sha_str(h, lim);
    for (size_t i = 0; i < up_case_task_of(c)->nskills; i++) {
        const up_skill *k = &up_case_task_of(c)->skills[i];

        sha_str(h, k->name);
        sha_str(h, k->description);
        sha_str(h, k->body);
        for (size_t f = 0; f < k->nfiles; f++) {
            sha_str(h, k->files[f].path);
            if (k->files[f].data)
                sha_field(h, k->files[f].data, k->files[f].len);
            else /* dropped (a sweep's): its SHA-256 stands for it */
                sha_field(h, (const char *)k->files[f].sha256,
                          sizeof(k->files[f].sha256));
        }
    }
}

void up_suite_sha256(const up_suite *s, char out[65])
{
    up_sha256 h;

    up_sha256_init(&h);
    suite_text(s, sha_sink, &h);
    for (size_t i = 0; i < s->ncases; i++)
        sha_harbor(&h, &s->cases[i]);
    up_sha256_final_hex(&h, out);
}

/* 1 when type names a file-* assertion kind, "not-" and "_" allowed, or
 * the command or verifier kind (a check run in the workspace). */
static int file_kind(const char *type)
{
    if (!strncmp(type, "not-", 4) || !strncmp(type, "not_", 4))
        type += 4;
    return !strncmp(type, "file-", 5) || !strncmp(type, "file_", 5) ||
           !strcmp(type, "command") || !strcmp(type, "verifier");
}

const up_case_task up_case_task_none;

up_case_task *up_case_task_mut(up_case *c, up_arena *mem)
{
    if (!c->task) {
        c->task = up_arena_alloc(mem, sizeof(*c->task));
        memset(c->task, 0, sizeof(*c->task));
    }
    return c->task;
}

int up_case_needs_workspace(const up_case *c)
{
    json_t *arr, *v;
    size_t i;
    int need = c->output_file != NULL ||
               (c->validator && !strcmp(c->validator, "command"));

    if (need || !c->assert_json)
        return need;
    arr = json_loads(c->assert_json, JSON_DECODE_ANY, NULL);
    json_array_foreach(arr, i, v)
    {
        const char *t = json_string_value(json_object_get(v, "type"));

        need |= t && file_kind(t);
    }
    json_decref(arr);
    return need;
}
