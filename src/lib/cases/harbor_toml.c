/*
 * A lenient reader of the TOML subset Harbor's task.toml uses (harbor.h):
 * [tables], key = value with strings, numbers, booleans, arrays and
 * inline tables.  Every key is kept under its table, known or not; only
 * what cannot be read at all is an error, naming file:line.
 *
 * Invariant: the cursor never passes the end of the text; arrays and
 * inline tables are kept as their raw text (a task's fields that matter
 * are scalars), scanned with strings and comments skipped so a ']'
 * inside a string does not end them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/harbor.h"

struct cur {
    const char *p, *end;
    int line;
    const char *file;
    up_error *err;
};

static int fail(struct cur *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* UP_EPARSE "'file':line: <fmt>". */
static int fail(struct cur *c, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return up_error_set(c->err, UP_EPARSE, "'%s':%d: %s", c->file, c->line,
                        msg);
}

static void skip_blank(struct cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

/* Skip blanks and a comment; 1 when the line ends there. */
static int line_ends(struct cur *c)
{
    skip_blank(c);
    if (c->p < c->end && *c->p == '#')
        while (c->p < c->end && *c->p != '\n')
            c->p++;
    if (c->p < c->end && *c->p == '\r')
        c->p++;
    return c->p >= c->end || *c->p == '\n';
}

/* Step over one character, counting lines. */
static void step(struct cur *c)
{
    c->line += *c->p == '\n';
    c->p++;
}

/* A "basic" string's escape at c->p (after the backslash) into b. */
static void unescape(struct cur *c, up_buf *b)
{
    static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
    const char *k = c->p < c->end ? strchr(from, *c->p) : NULL;

    if (k && *k) {
        up_buf_addc(b, to[k - from]);
        c->p++;
    } else {
        up_buf_addc(b, '\\'); /* \uXXXX and the rest: kept as written */
    }
}

/* A string opened by q (one or three quote characters) into b. */
static int read_string(struct cur *c, const char *q, up_buf *b)
{
    size_t qn = strlen(q);
    int basic = q[0] == '"', start = c->line;

    c->p += qn;
    if (qn == 3 && c->p < c->end && *c->p == '\n')
        step(c); /* a newline right after the opening quotes is dropped */
    while (c->p < c->end) {
        if ((size_t)(c->end - c->p) >= qn && !memcmp(c->p, q, qn)) {
            c->p += qn;
            return 0;
        }
        if (qn == 1 && *c->p == '\n')
            break;
        if (basic && *c->p == '\\') {
            c->p++;
            unescape(c, b);
            continue;
        }
        up_buf_addc(b, *c->p);
        step(c);
    }
    c->line = start;
    return fail(c, "a string that does not end");
}

/* The quotes a string value opens with at c->p, or NULL. */
static const char *opening_quote(const struct cur *c)
{
    if (*c->p != '"' && *c->p != '\'')
        return NULL;
    if (c->end - c->p >= 3 && c->p[1] == *c->p && c->p[2] == *c->p)
        return *c->p == '"' ? "\"\"\"" : "'''";
    return *c->p == '"' ? "\"" : "'";
}

/* An array or inline table, from its opening bracket to the matching
 * one, kept as raw text in b. */
static int read_nested(struct cur *c, up_buf *b)
{
    const char *from = c->p;
    int depth = 0, start = c->line;

    while (c->p < c->end) {
        if (opening_quote(c)) {
            up_buf skip = UP_BUF_INIT;
            int rc = read_string(c, opening_quote(c), &skip);

            up_buf_release(&skip);
            if (rc)
                return rc;
            continue;
        }
        if (*c->p == '#')
            while (c->p < c->end && *c->p != '\n')
                c->p++;
        if (c->p >= c->end)
            break;
        depth +=
            (*c->p == '[' || *c->p == '{') - (*c->p == ']' || *c->p == '}');
        step(c);
        if (!depth) {
            up_buf_add(b, from, (size_t)(c->p - from));
            return 0;
        }
    }
    c->line = start;
    return fail(c, "an array or inline table that does not end");
}

/* A bare value (number, bool, date) up to the end of the line's value. */
static int read_bare(struct cur *c, up_buf *b)
{
    const char *from = c->p;
    char *end;

    while (c->p < c->end && !strchr(" \t\r\n#,", *c->p))
        c->p++;
    up_buf_add(b, from, (size_t)(c->p - from));
    if (!b->len)
        return -1;
    if (!strcmp(b->data, "true") || !strcmp(b->data, "false"))
        return UP_TOML_BOOL;
    strtod(b->data, &end);
    return *end ? UP_TOML_OTHER : UP_TOML_NUMBER;
}

/* The value at c->p into b; its type, or < 0 with the error set. */
static int read_value(struct cur *c, up_buf *b)
{
    const char *q;
    int t;

    if (c->p >= c->end)
        return fail(c, "expected a value after '='");
    q = opening_quote(c);
    if (q)
        return read_string(c, q, b) ? -1 : UP_TOML_STRING;
    if (*c->p == '[' || *c->p == '{') {
        t = *c->p == '[' ? UP_TOML_ARRAY : UP_TOML_OTHER;
        return read_nested(c, b) ? -1 : t;
    }
    t = read_bare(c, b);
    return t < 0 ? fail(c, "expected a value after '='") : t;
}

/* A key (bare, quoted or dotted) into b, up to '=' or ']'. */
static int read_key(struct cur *c, up_buf *b, char stop)
{
    while (c->p < c->end && *c->p != stop && *c->p != '\n') {
        if (*c->p == '"' || *c->p == '\'') {
            int rc = read_string(c, *c->p == '"' ? "\"" : "'", b);

            if (rc)
                return rc;
            continue;
        }
        if (*c->p != ' ' && *c->p != '\t')
            up_buf_addc(b, *c->p);
        c->p++;
    }
    if (!b->len || c->p >= c->end || *c->p != stop)
        return fail(c, stop == '=' ? "expected key = value"
                                   : "expected a table name in [brackets]");
    c->p++;
    return 0;
}

/* [table] or [[table]] into table. */
static int read_table(struct cur *c, up_buf *table)
{
    int two = c->end - c->p >= 2 && c->p[1] == '[';

    c->p += 1 + two;
    up_buf_reset(table);
    if (read_key(c, table, ']'))
        return -1;
    if (two && (c->p >= c->end || *c->p++ != ']'))
        return fail(c, "expected ']]' after the table name");
    return line_ends(c) ? 0 : fail(c, "expected the end of the line");
}

static void add_entry(up_toml *t, const up_buf *table, up_buf *key, up_buf *v,
                      int type, int line)
{
    up_toml_entry *e;

    UP_GROW(t->v, t->cap, t->n + 1);
    e = &t->v[t->n++];
    e->table = up_xstrdup(table->len ? table->data : "");
    e->key = up_buf_detach(key);
    e->value = v->len ? up_buf_detach(v) : up_xstrdup("");
    e->type = type;
    e->line = line;
}

/* One key = value line into t. */
static int read_pair(struct cur *c, up_toml *t, const up_buf *table)
{
    up_buf key = UP_BUF_INIT, v = UP_BUF_INIT;
    int line = c->line, type;

    if (t->n >= UP_TOML_ENTRIES_MAX) {
        fail(c, "more than %d keys", UP_TOML_ENTRIES_MAX);
        type = -1;
    } else if (read_key(c, &key, '=')) {
        type = -1;
    } else {
        skip_blank(c);
        type = read_value(c, &v);
    }
    if (type >= 0 && !line_ends(c))
        type = fail(c, "expected the end of the line after the value");
    if (type >= 0)
        add_entry(t, table, &key, &v, type, line);
    up_buf_release(&key);
    up_buf_release(&v);
    return type < 0 ? -1 : 0;
}

int up_toml_parse(up_toml *t, const char *text, size_t len, const char *file,
                  up_error *err)
{
    struct cur c = {text, text + len, 1, file, err};
    up_buf table = UP_BUF_INIT;
    int rc = 0;

    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        c.p += 3;
    while (!rc && c.p < c.end) {
        if (line_ends(&c)) {
            if (c.p < c.end)
                step(&c);
            continue;
        }
        rc = *c.p == '[' ? read_table(&c, &table) : read_pair(&c, t, &table);
    }
    up_buf_release(&table);
    return rc ? UP_EPARSE : 0;
}

void up_toml_release(up_toml *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].table);
        free(t->v[i].key);
        free(t->v[i].value);
    }
    free(t->v);
    memset(t, 0, sizeof(*t));
}

const up_toml_entry *up_toml_get(const up_toml *t, const char *table,
                                 const char *key)
{
    for (size_t i = t->n; i-- > 0;)
        if (!strcmp(t->v[i].table, table) && !strcmp(t->v[i].key, key))
            return &t->v[i];
    return NULL;
}
