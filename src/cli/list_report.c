/*
 * upskill list, rendering: the skills of a catalog as a tree or as JSON.
 *
 * The tree is built as a flat list of nodes with depths and drawn in one
 * pass, so the connectors (├── └── │) come out right whatever the
 * nesting.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

#define DESC_MAX 60 /* characters of the description shown in the tree */

/* ---- the tree ---------------------------------------------------------- */

struct tnode {
    int depth; /* 1: a skill, 2: its details, 3: files in a folder */
    enum color color;
    char *text;
};

struct tree {
    struct tnode *v;
    size_t n, cap;
};

static void node(struct tree *t, int depth, enum color color, const char *fmt,
                 ...) __attribute__((format(printf, 4, 5)));

static void node(struct tree *t, int depth, enum color color, const char *fmt,
                 ...)
{
    up_buf b = UP_BUF_INIT, safe = UP_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    up_esc_ctrl(&safe, b.data, b.len, 0); /* names and paths are outside */
    up_buf_release(&b);
    UP_GROW(t->v, t->cap, t->n + 1);
    t->v[t->n++] = (struct tnode){depth, color, up_buf_detach(&safe)};
}

/* text on one line, cut after max characters (not bytes) with "...". */
static char *one_line(const char *text, size_t max)
{
    up_buf b = UP_BUF_INIT;
    size_t chars = 0;

    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;

        if ((c & 0xC0) != 0x80 && chars++ == max) {
            up_buf_rtrim(&b);
            up_buf_adds(&b, "...");
            break;
        }
        up_buf_addc(&b, c < 0x20 || c == 0x7f ? ' ' : *p);
    }
    return up_buf_detach(&b);
}

static void add_folder(struct tree *t, const up_skill *s, const char *dir,
                       int tokens)
{
    size_t n = strlen(dir);
    int shown = 0;

    for (size_t i = 0; i < s->nfiles; i++) {
        const up_skill_file *f = &s->files[i];

        if (strncmp(f->path, dir, n) || f->path[n] != '/')
            continue;
        if (!shown++)
            node(t, 2, C_BLUE, "%s/", dir);
        if (tokens)
            node(t, 3, C_RESET, "%s (~%zu tokens)", f->path + n + 1,
                 up_tokens_estimate(f->data, f->len));
        else
            node(t, 3, C_RESET, "%s", f->path + n + 1);
    }
}

static void add_skill(struct tree *t, const up_catalog_entry *e, int verbose)
{
    char *desc;

    node(t, 1, C_BOLD, "%s", e->folder);
    if (!e->ok) {
        node(t, 2, C_RED, "error: %s", e->err.msg);
        return;
    }
    desc = one_line(e->skill.description ? e->skill.description : "", DESC_MAX);
    node(t, 2, C_DIM, "%s", desc);
    free(desc);
    if (!verbose)
        return;
    node(t, 2, C_RESET, "SKILL.md (~%zu tokens)", e->md_tokens);
    add_folder(t, &e->skill, "references", 1);
    add_folder(t, &e->skill, "scripts", 0);
    add_folder(t, &e->skill, "assets", 0);
    if (e->ncases >= 0)
        node(t, 2, C_RESET, "tests (%ld case%s)", e->ncases,
             e->ncases == 1 ? "" : "s");
}

static int is_last(const struct tree *t, size_t i)
{
    for (size_t j = i + 1; j < t->n; j++)
        if (t->v[j].depth <= t->v[i].depth)
            return t->v[j].depth < t->v[i].depth;
    return 1;
}

static void tree_print(const struct tree *t)
{
    int more[4] = {0};

    for (size_t i = 0; i < t->n; i++) {
        int d = t->v[i].depth, last = is_last(t, i);

        for (int k = 1; k < d; k++)
            fputs(more[k] ? "│   " : "    ", stdout);
        printf("%s%s%s%s\n", last ? "└── " : "├── ", out_c(t->v[i].color),
               t->v[i].text, out_c(C_RESET));
        more[d] = !last;
    }
}

void list_print_tree(const up_catalog *l, const char *dir, int verbose)
{
    struct tree t = {NULL, 0, 0};
    char num[32];

    for (size_t i = 0; i < l->n; i++)
        add_skill(&t, &l->v[i], verbose);
    printf("%sSkills in %s%s\n", out_c(C_BOLD), out_safe(dir), out_c(C_RESET));
    tree_print(&t);
    printf("\n%s%zu skill%s", out_c(C_DIM), l->n, l->n == 1 ? "" : "s");
    if (l->failed)
        printf(" (%zu failed to load)", l->failed);
    render_thousands(num, sizeof(num), (long)l->tokens);
    printf(", ~%s total tokens%s\n", num, out_c(C_RESET));
    for (size_t i = 0; i < t.n; i++)
        free(t.v[i].text);
    free(t.v);
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *files_json(const up_skill *s)
{
    json_t *a = json_array();

    for (size_t i = 0; i < s->nfiles; i++) {
        const up_skill_file *f = &s->files[i];
        json_t *o = json_pack("{s:s,s:I}", "path", f->path, "bytes",
                              (json_int_t)f->len);

        if (!strncmp(f->path, "references/", 11))
            json_object_set_new(
                o, "tokens",
                json_integer((json_int_t)up_tokens_estimate(f->data, f->len)));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *entry_json(const up_catalog_entry *e, const char *dir)
{
    up_buf path = UP_BUF_INIT;
    json_t *o;

    up_fs_join(&path, dir, e->folder);
    o = json_pack("{s:s,s:s}", "folder", e->folder, "path", path.data);
    up_buf_release(&path);
    if (!e->ok) {
        json_object_set_new(o, "error", json_string(e->err.msg));
        return o;
    }
    json_object_set_new(o, "name", json_string(e->skill.name));
    json_object_set_new(o, "description", json_string(e->skill.description));
    json_object_set_new(
        o, "tokens", json_integer((json_int_t)(e->md_tokens + e->ref_tokens)));
    json_object_set_new(o, "skill_md_tokens",
                        json_integer((json_int_t)e->md_tokens));
    json_object_set_new(o, "files", files_json(&e->skill));
    json_object_set_new(o, "tests",
                        e->ncases < 0 ? json_null() : json_integer(e->ncases));
    return o;
}

void list_print_json(const up_catalog *l, const char *dir)
{
    json_t *skills = json_array(), *doc;

    for (size_t i = 0; i < l->n; i++)
        json_array_append_new(skills, entry_json(&l->v[i], dir));
    doc = json_pack("{s:s,s:o,s:I,s:I,s:I}", "dir", dir, "skills", skills,
                    "count", (json_int_t)l->n, "failed", (json_int_t)l->failed,
                    "total_tokens", (json_int_t)l->tokens);
    out_json(doc);
    json_decref(doc);
}
