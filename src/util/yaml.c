/*
 * A YAML node tree built from libyaml's event stream (see yaml.h).
 *
 * The builder keeps a stack of open collections.  A collection node is
 * attached to its parent when it starts, so every node is always reachable
 * from the document root (or from the ctx's orphan for documents after the
 * first) and a parse stopped half-way is freed by releasing the tree.  A
 * mapping key waits in its frame until its value arrives.
 *
 * Strictness issues are recorded, never fatal: flow collections, anchors,
 * aliases (an empty scalar stands in), tags, non-scalar keys, duplicate
 * keys (found by sorting the keys when the mapping closes, so hostile
 * input cannot make it quadratic), later documents (their nodes are
 * parsed and dropped) and tabs in indentation (a scan of the raw lines,
 * skipping lines inside multi-line scalars).  Issues end up sorted by
 * line.  Nesting is limited to UP_YAML_MAX_DEPTH levels.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "util/yaml.h"

#define UP_YAML_MAX_DEPTH 64

struct frame {
    up_ynode *node;
    up_ynode *key; /* a mapping key waiting for its value */
    size_t kcap, icap;
};

struct span {
    int first, last; /* 0-based lines inside a multi-line scalar */
};

struct ctx {
    up_ydoc *doc;
    const char *text;
    size_t len;
    int first_line;
    struct frame stack[UP_YAML_MAX_DEPTH];
    int depth;
    int ndocs;
    up_ynode *orphan; /* the top node of a document after the first */
    size_t issue_cap;
    struct span *spans;
    size_t nspans, span_cap;
    up_error *err;
};

static void node_free(up_ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (n->keys)
            node_free(n->keys[i]);
        node_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    free(n->value);
    free(n);
}

static void add_issue(struct ctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_issue(struct ctx *c, int line, const char *fmt, ...)
{
    up_buf msg = UP_BUF_INIT;
    va_list ap;
    up_ydoc *d = c->doc;

    va_start(ap, fmt);
    up_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    UP_GROW(d->issues, c->issue_cap, d->nissues + 1);
    d->issues[d->nissues].line = line;
    d->issues[d->nissues].msg = up_buf_detach(&msg);
    d->nissues++;
}

static int mark_line(const struct ctx *c, yaml_mark_t m)
{
    return (int)m.line + c->first_line;
}

static up_ynode *node_new(const struct ctx *c, enum up_ykind kind,
                          yaml_mark_t m)
{
    up_ynode *n = up_xcalloc(1, sizeof(*n));

    n->kind = kind;
    n->line = mark_line(c, m);
    n->col = (int)m.column + 1;
    return n;
}

static void attach_to_map(struct ctx *c, struct frame *f, up_ynode *n)
{
    up_ynode *map = f->node;

    if (!f->key) {
        f->key = n;
        if (n->kind != UP_Y_SCALAR)
            add_issue(c, n->line, "%s as a mapping key is not allowed",
                      up_yaml_kind_name(n));
        return;
    }
    UP_GROW(map->keys, f->kcap, map->n + 1);
    UP_GROW(map->items, f->icap, map->n + 1);
    map->keys[map->n] = f->key;
    map->items[map->n++] = n;
    f->key = NULL;
}

/* Give n an owner: its parent, the document root, or the orphan slot. */
static void attach(struct ctx *c, up_ynode *n)
{
    struct frame *f;

    if (!c->depth) {
        if (c->ndocs <= 1 && !c->doc->root) {
            c->doc->root = n;
        } else {
            node_free(c->orphan);
            c->orphan = n;
        }
        return;
    }
    f = &c->stack[c->depth - 1];
    if (f->node->kind == UP_Y_MAP) {
        attach_to_map(c, f, n);
        return;
    }
    UP_GROW(f->node->items, f->icap, f->node->n + 1);
    f->node->items[f->node->n++] = n;
}

static void check_props(struct ctx *c, int line, const yaml_char_t *anchor,
                        const yaml_char_t *tag)
{
    if (anchor)
        add_issue(c, line, "anchor '&%s' is not allowed", (const char *)anchor);
    if (tag)
        add_issue(c, line, "tag '%s' is not allowed", (const char *)tag);
}

static void note_span(struct ctx *c, yaml_mark_t start, yaml_mark_t end)
{
    int last = (int)end.line - (end.column == 0);

    if (last <= (int)start.line)
        return;
    UP_GROW(c->spans, c->span_cap, c->nspans + 1);
    c->spans[c->nspans].first = (int)start.line + 1;
    c->spans[c->nspans++].last = last;
}

static const enum up_ystyle styles[] = {
    [YAML_ANY_SCALAR_STYLE] = UP_YS_PLAIN,
    [YAML_PLAIN_SCALAR_STYLE] = UP_YS_PLAIN,
    [YAML_SINGLE_QUOTED_SCALAR_STYLE] = UP_YS_SQUOTED,
    [YAML_DOUBLE_QUOTED_SCALAR_STYLE] = UP_YS_DQUOTED,
    [YAML_LITERAL_SCALAR_STYLE] = UP_YS_LITERAL,
    [YAML_FOLDED_SCALAR_STYLE] = UP_YS_FOLDED,
};

static int on_scalar(struct ctx *c, const yaml_event_t *ev)
{
    up_ynode *n = node_new(c, UP_Y_SCALAR, ev->start_mark);
    unsigned style = (unsigned)ev->data.scalar.style;

    n->value = up_xstrndup((const char *)ev->data.scalar.value,
                           ev->data.scalar.length);
    n->style = style < sizeof(styles) / sizeof(styles[0]) ? styles[style]
                                                          : UP_YS_PLAIN;
    check_props(c, n->line, ev->data.scalar.anchor, ev->data.scalar.tag);
    note_span(c, ev->start_mark, ev->end_mark);
    attach(c, n);
    return 0;
}

static int on_alias(struct ctx *c, const yaml_event_t *ev)
{
    up_ynode *n = node_new(c, UP_Y_SCALAR, ev->start_mark);

    n->value = up_xstrdup("");
    add_issue(c, n->line, "alias '*%s' is not allowed",
              (const char *)ev->data.alias.anchor);
    attach(c, n);
    return 0;
}

static int on_start(struct ctx *c, const yaml_event_t *ev, enum up_ykind kind)
{
    int seq = kind == UP_Y_SEQ;
    up_ynode *n;

    if (c->depth >= UP_YAML_MAX_DEPTH)
        return up_error_set(c->err, UP_EPARSE,
                            "line %d: nesting deeper than %d levels",
                            mark_line(c, ev->start_mark), UP_YAML_MAX_DEPTH);
    n = node_new(c, kind, ev->start_mark);
    if (seq) {
        n->flow = ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
        check_props(c, n->line, ev->data.sequence_start.anchor,
                    ev->data.sequence_start.tag);
    } else {
        n->flow = ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
        check_props(c, n->line, ev->data.mapping_start.anchor,
                    ev->data.mapping_start.tag);
    }
    if (n->flow)
        add_issue(c, n->line, "flow style %s is not allowed",
                  seq ? "sequence" : "mapping");
    attach(c, n);
    memset(&c->stack[c->depth], 0, sizeof(c->stack[0]));
    c->stack[c->depth++].node = n;
    return 0;
}

struct keyref {
    const char *key;
    size_t i;
};

static int cmp_key(const void *a, const void *b)
{
    const struct keyref *x = a, *y = b;
    int r = strcmp(x->key, y->key);

    return r ? r : (x->i > y->i) - (x->i < y->i);
}

static void check_duplicates(struct ctx *c, const up_ynode *map)
{
    struct keyref *v = up_xmalloc(map->n * sizeof(*v) + 1);
    size_t m = 0;

    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i]->kind == UP_Y_SCALAR)
            v[m++] = (struct keyref){map->keys[i]->value, i};
    qsort(v, m, sizeof(*v), cmp_key);
    for (size_t i = 1; i < m; i++)
        if (!strcmp(v[i].key, v[i - 1].key))
            add_issue(c, map->keys[v[i].i]->line, "duplicate key '%s'",
                      v[i].key);
    free(v);
}

static int on_end(struct ctx *c)
{
    struct frame *f = &c->stack[--c->depth];

    if (f->node->kind == UP_Y_MAP)
        check_duplicates(c, f->node);
    return 0;
}

static int on_doc_start(struct ctx *c, const yaml_event_t *ev)
{
    if (++c->ndocs == 2)
        add_issue(c, mark_line(c, ev->start_mark),
                  "more than one document is not allowed");
    return 0;
}

static int on_event(struct ctx *c, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        return on_doc_start(c, ev);
    case YAML_SCALAR_EVENT:
        return on_scalar(c, ev);
    case YAML_ALIAS_EVENT:
        return on_alias(c, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start(c, ev, UP_Y_SEQ);
    case YAML_MAPPING_START_EVENT:
        return on_start(c, ev, UP_Y_MAP);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return on_end(c);
    default:
        return 0;
    }
}

static int offset_line(const struct ctx *c, size_t off)
{
    int line = c->first_line;

    for (size_t i = 0; i < off && i < c->len; i++)
        line += c->text[i] == '\n';
    return line;
}

/* 1 when the indentation of line (numbered as in messages) has a tab. */
static int tab_indent(const struct ctx *c, int line)
{
    const char *p = c->text, *end = c->text + c->len;

    for (int i = c->first_line; i < line && p < end; i++) {
        p = memchr(p, '\n', (size_t)(end - p));
        p = p ? p + 1 : end;
    }
    for (; p < end && (*p == ' ' || *p == '\t'); p++)
        if (*p == '\t')
            return 1;
    return 0;
}

/* libyaml's message, or a plain one for its most common cause: tabs. */
static int syntax_error(struct ctx *c, const yaml_parser_t *p)
{
    int line;

    if (p->error == YAML_READER_ERROR)
        line = offset_line(c, p->problem_offset);
    else
        line = mark_line(c, p->problem_mark);
    if (tab_indent(c, line))
        return up_error_set(c->err, UP_EPARSE,
                            "line %d: tab character in indentation "
                            "(YAML indents with spaces)",
                            line);
    return up_error_set(c->err, UP_EPARSE, "line %d: %s", line,
                        p->problem ? p->problem : "invalid yaml");
}

/* 1 when line i (0-based) lies inside a multi-line scalar. */
static int in_span(const struct ctx *c, size_t *k, int i)
{
    while (*k < c->nspans && c->spans[*k].last < i)
        (*k)++;
    return *k < c->nspans && c->spans[*k].first <= i;
}

static void check_tabs(struct ctx *c)
{
    const char *p = c->text, *end = c->text + c->len;
    size_t k = 0;

    for (int i = 0; p < end; i++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q = p;
        int tab = 0;

        if (!eol)
            eol = end;
        for (; q < eol && (*q == ' ' || *q == '\t'); q++)
            tab |= *q == '\t';
        if (tab && q < eol && *q != '\r' && !in_span(c, &k, i))
            add_issue(c, i + c->first_line,
                      "tab character used in indentation");
        p = eol + 1;
    }
}

struct issueref {
    up_yissue is;
    size_t seq;
};

static int cmp_issue(const void *a, const void *b)
{
    const struct issueref *x = a, *y = b;

    if (x->is.line != y->is.line)
        return (x->is.line > y->is.line) - (x->is.line < y->is.line);
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Stable sort of the issues by line. */
static void sort_issues(up_ydoc *d)
{
    struct issueref *v = up_xmalloc(d->nissues * sizeof(*v) + 1);

    for (size_t i = 0; i < d->nissues; i++)
        v[i] = (struct issueref){d->issues[i], i};
    qsort(v, d->nissues, sizeof(*v), cmp_issue);
    for (size_t i = 0; i < d->nissues; i++)
        d->issues[i] = v[i].is;
    free(v);
}

static int run(struct ctx *c, yaml_parser_t *p)
{
    yaml_event_t ev;
    int rc = 0, done = 0;

    while (!rc && !done) {
        if (!yaml_parser_parse(p, &ev))
            return syntax_error(c, p);
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(c, &ev);
        yaml_event_delete(&ev);
    }
    return rc;
}

int up_yaml_parse(up_ydoc *doc, const char *text, size_t len, int first_line,
                  up_error *err)
{
    struct ctx c;
    yaml_parser_t p;
    int rc;

    memset(doc, 0, sizeof(*doc));
    memset(&c, 0, sizeof(c));
    c.doc = doc;
    c.text = text;
    c.len = len;
    c.first_line = first_line;
    c.err = err;
    if (!yaml_parser_initialize(&p))
        return up_error_set(err, UP_EIO, "cannot start the yaml parser");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    rc = run(&c, &p);
    if (!rc)
        check_tabs(&c);
    yaml_parser_delete(&p);
    for (int i = 0; i < c.depth; i++)
        node_free(c.stack[i].key);
    node_free(c.orphan);
    free(c.spans);
    sort_issues(doc);
    return rc;
}

void up_ydoc_release(up_ydoc *doc)
{
    if (!doc)
        return;
    node_free(doc->root);
    for (size_t i = 0; i < doc->nissues; i++)
        free(doc->issues[i].msg);
    free(doc->issues);
    memset(doc, 0, sizeof(*doc));
}

const up_ynode *up_yaml_get(const up_ynode *map, const char *key)
{
    if (!map || map->kind != UP_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i]->kind == UP_Y_SCALAR &&
            !strcmp(map->keys[i]->value, key))
            return map->items[i];
    return NULL;
}

const char *up_yaml_kind_name(const up_ynode *node)
{
    static const char *const names[] = {
        [UP_Y_SCALAR] = "a string",
        [UP_Y_SEQ] = "a list",
        [UP_Y_MAP] = "a mapping",
    };

    return node ? names[node->kind] : "nothing";
}
