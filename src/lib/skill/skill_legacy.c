/*
 * Upstream upskill's SKILL.md frontmatter, read as upstream reads it.
 *
 * Upstream writes values unquoted ("description: Use when: writing a PR")
 * and reads them back by splitting each line at its first ':', so its
 * users hold files no YAML parser accepts.  When the YAML parse of the
 * frontmatter fails and every line is blank, a '#' comment or the simple
 * "key: value" shape upstream writes (no indentation), each line whose
 * "key: value" alone does not read as a plain string in YAML gets its
 * value (stripped, quotes kept, as upstream does) double-quoted; the
 * rewritten text, with the same line count, then goes through the normal
 * parser, so every other rule still applies.  Each quoted line becomes a
 * warning naming the file, the line and the fix.  Nothing else falls
 * back: a file that is not upstream's shape keeps its YAML error.
 *
 * A file YAML does read can still mean something else to upstream: an
 * unquoted value starting with '#' (a comment: no value), '&' (an
 * anchor), '!' (a tag), one with " #" (the rest a comment) or one that
 * goes on over indented lines (upstream reads the first).  Each plain
 * value whose YAML reading is not upstream's line reading becomes a
 * warning with both readings and the fix (up_skill_legacy_check).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "lib/skill/skill_int.h"
#include "upskill/alloc.h"
#include "skill_legacy.h"
#include "util/yaml.h"

/* One line whose value YAML cannot read as written. */
struct fix {
    int line;
    char *key, *value; /* value as upstream reads it: stripped, literal */
    char *why;         /* what YAML says of the line alone */
};

struct fixes {
    struct fix *v;
    size_t n, cap;
};

static void fixes_release(struct fixes *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].key);
        free(f->v[i].value);
        free(f->v[i].why);
    }
    free(f->v);
}

/* Length of the line at off without its LF (and CR); *next after the LF. */
static size_t line_at(const char *text, size_t len, size_t off, size_t *next)
{
    const char *nl = memchr(text + off, '\n', len - off);
    size_t n = nl ? (size_t)(nl - text) - off : len - off;

    *next = nl ? off + n + 1 : len;
    if (n && text[off + n - 1] == '\r')
        n--;
    return n;
}

static int is_delim(const char *p, size_t n)
{
    while (n > 3 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return n == 3 && !memcmp(p, "---", 3);
}

/* The frontmatter [*start, *end) between the two "---" lines, or 0. */
static int bounds(const char *text, size_t len, size_t *start, size_t *end)
{
    size_t off, next;

    if (!is_delim(text, line_at(text, len, 0, &off)))
        return 0;
    *start = off;
    for (; off < len; off = next)
        if (is_delim(text + off, line_at(text, len, off, &next))) {
            *end = off;
            return 1;
        }
    return 0;
}

static int yaml_ok(const char *fm, size_t len)
{
    up_ydoc doc;
    up_error e;
    int rc;

    memset(&doc, 0, sizeof(doc));
    rc = up_yaml_parse(&doc, fm, len, 2, &e);
    up_ydoc_release(&doc);
    return !rc;
}

/* Length of "key" when line [p, p+n) is "key:" or "key: value", else 0. */
static size_t key_len(const char *p, size_t n)
{
    size_t i = 0;

    if (!n || !isalpha((unsigned char)p[0]))
        return 0;
    while (i < n &&
           (isalnum((unsigned char)p[i]) || p[i] == '-' || p[i] == '_'))
        i++;
    if (i == n || p[i] != ':')
        return 0;
    return i + 1 == n || p[i + 1] == ' ' || p[i + 1] == '\t' ? i : 0;
}

static int is_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return 0;
    return 1;
}

/* NULL when "key: value" alone reads as one string in YAML; else why. */
static char *line_problem(const char *p, size_t n, int line)
{
    up_ydoc doc;
    up_error e;
    const char *msg;
    char *why = NULL;

    memset(&doc, 0, sizeof(doc));
    if (up_yaml_parse(&doc, p, n, line, &e)) {
        msg = strchr(e.msg, ':');
        why = up_xstrdup(msg && !strncmp(e.msg, "line ", 5) ? msg + 2 : e.msg);
    } else if (doc.nissues) {
        why = up_xstrdup(doc.issues[0].msg);
    } else if (!doc.root || doc.root->kind != UP_Y_MAP || doc.root->n != 1 ||
               doc.root->items[0]->kind != UP_Y_SCALAR) {
        why = up_xstrdup("the value is not a plain string");
    }
    up_ydoc_release(&doc);
    return why;
}

/* A double-quoted YAML scalar of the one-line value s. */
static void add_quoted(up_buf *out, const char *s)
{
    up_buf_addc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            up_buf_addc(out, '\\');
        if ((unsigned char)*s < 0x20)
            up_buf_addf(out, "\\x%02X", (unsigned)(unsigned char)*s);
        else
            up_buf_addc(out, *s);
    }
    up_buf_addc(out, '"');
}

static void add_fix(struct fixes *f, const char *p, size_t n, size_t klen,
                    int line, char *why)
{
    size_t v = klen + 1;

    while (v < n && (p[v] == ' ' || p[v] == '\t'))
        v++;
    while (n > v && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    UP_GROW(f->v, f->cap, f->n + 1);
    f->v[f->n].line = line;
    f->v[f->n].key = up_xstrndup(p, klen);
    f->v[f->n].value = up_xstrndup(p + v, n - v);
    f->v[f->n++].why = why;
}

/*
 * Append the frontmatter [fm, fm+len) to out with each value YAML cannot
 * read quoted, recording them in f.  1 when every line has upstream's
 * shape and at least one was quoted; 0 otherwise.
 */
static int rewrite(up_buf *out, struct fixes *f, const char *fm, size_t len,
                   int line)
{
    size_t next;

    for (size_t off = 0; off < len; off = next, line++) {
        size_t n = line_at(fm, len, off, &next);
        const char *p = fm + off;
        size_t klen = key_len(p, n);
        char *why;

        if (!klen && !is_blank(p, n) && p[0] != '#')
            return 0;
        why = klen ? line_problem(p, n, line) : NULL;
        if (!why) {
            up_buf_add(out, p, next - off);
            continue;
        }
        add_fix(f, p, n, klen, line, why);
        up_buf_add(out, p, klen);
        up_buf_adds(out, ": ");
        add_quoted(out, f->v[f->n - 1].value);
        up_buf_addc(out, '\n');
    }
    return f->n > 0;
}

static void add_hint(up_buf *b, const struct fix *x)
{
    up_buf_addf(b, "quote the value: %s: ", x->key);
    add_quoted(b, x->value);
}

static void add_warnings(up_skill *s, const struct fixes *f, const char *file)
{
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; i < f->n; i++) {
        up_buf_addf(&b,
                    "'%s':%d: invalid YAML (%s), read line by line as "
                    "upstream upskill does; ",
                    file, f->v[i].line, f->v[i].why);
        add_hint(&b, &f->v[i]);
        skill_warn(s, &b);
    }
}

int up_skill_legacy_parse(up_skill *s, const char *text, size_t len,
                          const char *file, int rc, up_error *err)
{
    struct fixes f = {NULL, 0, 0};
    up_buf fixed = UP_BUF_INIT;
    size_t start = 0, end = 0;
    up_error e;

    (void)err; /* on failure the caller's YAML error stands */
    if (!text || !bounds(text, len, &start, &end) ||
        yaml_ok(text + start, end - start))
        return rc;
    up_buf_add(&fixed, text, start);
    if (!rewrite(&fixed, &f, text + start, end - start, 2))
        goto out;
    up_buf_add(&fixed, text + end, len - end);
    if (up_skill_parse(s, fixed.data, fixed.len, file, &e))
        goto out;
    add_warnings(s, &f, file);
    rc = 0;
out:
    fixes_release(&f);
    up_buf_release(&fixed);
    return rc;
}

int up_skill_legacy_hint(up_buf *hint, const char *fm, size_t len,
                         int first_line)
{
    struct fixes f = {NULL, 0, 0};
    up_buf scratch = UP_BUF_INIT;
    int line = 0;

    if (rewrite(&scratch, &f, fm, len, first_line)) {
        add_hint(hint, &f.v[0]);
        line = f.v[0].line;
    }
    fixes_release(&f);
    up_buf_release(&scratch);
    return line;
}

/* The text after the first ':' of the line at off, stripped (upstream's
   reading); *next after the line. */
static char *line_value(const char *fm, size_t len, size_t off, size_t *next)
{
    size_t n = line_at(fm, len, off, next);
    const char *p = fm + off, *colon = memchr(p, ':', n);
    size_t v = colon ? (size_t)(colon - p) + 1 : n;

    while (v < n && isspace((unsigned char)p[v]))
        v++;
    while (n > v && isspace((unsigned char)p[n - 1]))
        n--;
    return up_xstrndup(p + v, n - v);
}

/* 1 when the line at off is indented and holds more than blanks. */
static int goes_on(const char *fm, size_t len, size_t off)
{
    size_t next, n = off < len ? line_at(fm, len, off, &next) : 0;

    return n && (fm[off] == ' ' || fm[off] == '\t') && !is_blank(fm + off, n);
}

/* "YAML reads KEY as ..., upstream upskill as ...; FIX", to cb. */
static void tell_reading(up_skill_reading_fn cb, void *ud, const up_ynode *k,
                         const char *yaml, const char *upstream, int more)
{
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b, "YAML reads %s as ", k->value);
    add_quoted(&b, yaml);
    up_buf_adds(&b, ", upstream upskill as ");
    add_quoted(&b, upstream);
    up_buf_addf(&b,
                "; %s: %s: ", more ? "write it on one line" : "quote the value",
                k->value);
    add_quoted(&b, more ? yaml : upstream);
    cb(ud, k->line, b.data);
    up_buf_release(&b);
}

void up_skill_legacy_readings(const up_ynode *root, const char *fm, size_t len,
                              int first_line, up_skill_reading_fn cb, void *ud)
{
    for (size_t i = 0; root && root->kind == UP_Y_MAP && i < root->n; i++) {
        const up_ynode *k = root->keys[i], *v = root->items[i];
        size_t off = 0, next = 0;
        char *upstream;

        if (v->kind != UP_Y_SCALAR || v->style != UP_YS_PLAIN ||
            k->kind != UP_Y_SCALAR || k->col != 1)
            continue;
        for (int l = first_line; l < k->line && off < len; l++)
            line_at(fm, len, off, &off);
        upstream = line_value(fm, len, off, &next);
        if (strcmp(upstream, v->value ? v->value : ""))
            tell_reading(cb, ud, k, v->value ? v->value : "", upstream,
                         goes_on(fm, len, next));
        free(upstream);
    }
}

struct warn_to {
    up_skill *s;
    const char *file;
};

static void add_reading(void *ud, int line, const char *msg)
{
    struct warn_to *w = ud;
    up_skill *s = w->s;
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b, "'%s':%d: %s", w->file, line, msg);
    skill_warn(s, &b);
}

void up_skill_legacy_check(up_skill *s, const up_ynode *root, const char *fm,
                           size_t len, int first_line, const char *file)
{
    struct warn_to w = {s, file};

    up_skill_legacy_readings(root, fm, len, first_line, add_reading, &w);
}
