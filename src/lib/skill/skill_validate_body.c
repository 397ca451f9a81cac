/*
 * Body and resource checks.  skills-ref checks none of this; the spec
 * only advises it, so every finding here is a warning:
 *   - an empty body, a body over 500 lines or ~5,000 tokens (words x 1.3);
 *   - files the body names (Markdown links, and bare references/...,
 *     scripts/..., assets/... paths) that do not exist;
 *   - reference chains: a Markdown file linked from SKILL.md that itself
 *     links further files of the skill (the spec says one level deep);
 *   - files under scripts/ without the owner's run bit.
 *
 * References are found by a line scanner, not a Markdown parser: it reads
 * link targets "](x)", definitions "[id]: x" and bare paths that start at a
 * word boundary.  URLs, anchors and absolute paths are not files of the
 * skill and are skipped.  Folder walks are bounded (depth and entries).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "skill_validate_int.h"
#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"

#define BODY_MAX_LINES   500
#define BODY_MAX_TOKENS  5000
#define WALK_MAX_DEPTH   4
#define WALK_MAX_ENTRIES 2000
#define REFS_MAX         256 /* distinct references kept per file */

struct ref {
    char *path; /* as written, cleaned: no "./", "#frag", "?query", %XX */
    int line;   /* file line of its first mention */
};

struct refs {
    struct ref *v;
    size_t n, cap;
};

static void refs_release(struct refs *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].path);
    free(r->v);
    memset(r, 0, sizeof(*r));
}

/* ---- finding references in text ----------------------------------------
 */

static int is_path_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '-' || ch == '.' || ch == '/';
}

/* A URL ("scheme:..."), an anchor, or an absolute/home path. */
static int is_external(const char *t)
{
    const char *p = t;

    if (!*t || *t == '#' || *t == '/' || *t == '~')
        return 1;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
    return *p == ':' && p > t;
}

static int hexval(int ch)
{
    if (isdigit(ch))
        return ch - '0';
    ch = tolower(ch);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Add len bytes of target at line to r, cleaned; duplicates are dropped. */
static void add_ref(struct refs *r, const char *t, size_t len, int line)
{
    up_buf p = UP_BUF_INIT;

    if (r->n >= REFS_MAX)
        return;
    while (len >= 2 && t[0] == '.' && t[1] == '/') {
        t += 2;
        len -= 2;
    }
    for (size_t i = 0; i < len && t[i] != '#' && t[i] != '?'; i++) {
        int hi = i + 2 < len ? hexval((unsigned char)t[i + 1]) : -1;
        int lo = hi >= 0 ? hexval((unsigned char)t[i + 2]) : -1;

        if (t[i] == '%' && lo >= 0) {
            up_buf_addc(&p, (char)(hi * 16 + lo));
            i += 2;
        } else {
            up_buf_addc(&p, t[i]);
        }
    }
    for (size_t i = 0; i < r->n && p.len; i++)
        if (!strcmp(r->v[i].path, p.data))
            up_buf_reset(&p);
    if (p.len && !is_external(p.data)) {
        UP_GROW(r->v, r->cap, r->n + 1);
        r->v[r->n].path = up_buf_detach(&p);
        r->v[r->n++].line = line;
    }
    up_buf_release(&p);
}

/* The link target starting at p ("<x>" or x up to the closing paren). */
static void link_target(struct refs *r, const char *p, const char *end,
                        int line)
{
    const char *q = p;
    int depth = 0;

    if (p < end && *p == '<') {
        for (q = ++p; q < end && *q != '>'; q++)
            ;
        add_ref(r, p, (size_t)(q - p), line);
        return;
    }
    for (; q < end && !isspace((unsigned char)*q); q++) {
        if (*q == ')' && depth-- == 0)
            break;
        if (*q == '(')
            depth++;
    }
    add_ref(r, p, (size_t)(q - p), line);
}

/* Markdown links "](x)" and reference definitions "[id]: x". */
static void scan_links(struct refs *r, const char *p, const char *end, int line)
{
    const char *s = p;

    while (s < end && s - p < 4 && *s == ' ')
        s++;
    if (s < end && *s == '[') {
        const char *close = memchr(s, ']', (size_t)(end - s));

        if (close && close + 2 < end && close[1] == ':' && close[2] == ' ') {
            for (s = close + 2; s < end && *s == ' '; s++)
                ;
            link_target(r, s, end, line);
        }
    }
    for (s = p; s + 1 < end; s++)
        if (s[0] == ']' && s[1] == '(')
            link_target(r, s + 2, end, line);
}

/* Does a bare path start at p (not in the middle of another path)? */
static int at_boundary(const char *start, const char *p)
{
    if (p == start || !is_path_char((unsigned char)p[-1]))
        return 1;
    return p - start >= 2 && p[-1] == '/' && p[-2] == '.' &&
           (p - start == 2 || !is_path_char((unsigned char)p[-3]));
}

/* Bare "references/x", "scripts/x", "assets/x" paths. */
static void scan_bare(struct refs *r, const char *p, const char *end, int line)
{
    static const char *const dirs[] = {"references/", "scripts/", "assets/"};

    for (const char *s = p; s < end; s++) {
        for (size_t d = 0; d < 3; d++) {
            size_t n = strlen(dirs[d]);
            const char *q = s + n;

            if ((size_t)(end - s) <= n || strncmp(s, dirs[d], n) ||
                !at_boundary(p, s))
                continue;
            while (q < end && is_path_char((unsigned char)*q))
                q++;
            if (q < end && strchr("*<{$[", *q))
                continue;
            while (q > s + n && strchr(".,:;", q[-1]))
                q--;
            if (q > s + n)
                add_ref(r, s, (size_t)(q - s), line);
        }
    }
}

/* Every reference in len bytes of text whose first line is first_line. */
static void scan_refs(struct refs *r, const char *text, size_t len,
                      int first_line)
{
    const char *p = text, *end = text + len;
    int line = first_line;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;

        scan_links(r, p, eol, line);
        scan_bare(r, p, eol, line);
        p = eol + 1;
        line++;
    }
}

/* ---- checks -------------------------------------------------------------
 */

static int exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

static int is_markdown(const char *path)
{
    size_t n = strlen(path);

    return (n > 3 && !strcmp(path + n - 3, ".md")) ||
           (n > 9 && !strcmp(path + n - 9, ".markdown"));
}

/* rel (from the file at from) joined onto the referring file's folder if
 * that exists, else onto the skill root. */
static void resolve(up_buf *out, const struct vctx *c, const char *from,
                    const char *rel)
{
    up_buf dir = UP_BUF_INIT;

    up_fs_dirname(&dir, from);
    up_fs_join(out, dir.data, rel);
    if (!exists(out->data)) {
        up_buf_reset(out);
        up_fs_join(out, c->dir, rel);
    }
    up_buf_release(&dir);
}

/* Warn when the Markdown file at path links further files of the skill. */
static void check_depth(struct vctx *c, const char *path, const char *rel)
{
    up_buf text = UP_BUF_INIT, target = UP_BUF_INIT, base = UP_BUF_INIT;
    struct refs r = {0};

    if (up_fs_read(&text, path, UP_FS_MAX_READ, NULL))
        goto out;
    scan_refs(&r, text.data, text.len, 1);
    for (size_t i = 0; i < r.n; i++) {
        up_buf_reset(&target);
        up_buf_reset(&base);
        resolve(&target, c, path, r.v[i].path);
        up_fs_basename(&base, r.v[i].path);
        if (!exists(target.data) || !strcasecmp(base.data, "skill.md") ||
            !strcmp(r.v[i].path, rel) || !strcmp(target.data, path))
            continue;
        up_vfind(c, path, r.v[i].line, UP_V_WARNING, "reference-depth",
                 "'%s' links to '%s': keep references one level deep from "
                 "SKILL.md",
                 rel, r.v[i].path);
        break;
    }
out:
    refs_release(&r);
    up_buf_release(&text);
    up_buf_release(&target);
    up_buf_release(&base);
}

static void check_refs(struct vctx *c, const char *body, size_t len,
                       int first_line)
{
    up_buf path = UP_BUF_INIT;
    struct refs r = {0};

    scan_refs(&r, body, len, first_line);
    for (size_t i = 0; i < r.n; i++) {
        up_buf_reset(&path);
        up_fs_join(&path, c->dir, r.v[i].path);
        if (!exists(path.data))
            up_vfind(c, NULL, r.v[i].line, UP_V_WARNING, "missing-file",
                     "'%s' is referenced but does not exist", r.v[i].path);
        else if (is_markdown(path.data) && up_fs_is_file(path.data))
            check_depth(c, path.data, r.v[i].path);
    }
    refs_release(&r);
    up_buf_release(&path);
}

/* Names under scripts/ that are data or caches, not programs. */
static int not_a_program(const char *name)
{
    static const char *const skip[] = {".md", ".txt", ".json", ".pyc",
                                       "__init__.py"};
    size_t n = strlen(name);

    for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++) {
        size_t k = strlen(skip[i]);

        if (n >= k && !strcmp(name + n - k, skip[i]))
            return 1;
    }
    return name[0] == '.' || !strcmp(name, "__pycache__") ||
           !strcmp(name, "node_modules");
}

static void walk_scripts(struct vctx *c, const char *dir, int depth,
                         size_t *budget)
{
    up_buf p = UP_BUF_INIT;
    char **names = NULL;
    struct stat st;

    if (up_fs_list(&names, NULL, dir, NULL))
        goto out;
    for (char **n = names; *n && *budget; n++, (*budget)--) {
        if (not_a_program(*n))
            continue;
        up_buf_reset(&p);
        up_fs_join(&p, dir, *n);
        if (stat(p.data, &st))
            continue;
        if (S_ISDIR(st.st_mode) && depth < WALK_MAX_DEPTH)
            walk_scripts(c, p.data, depth + 1, budget);
        else if (S_ISREG(st.st_mode) && !(st.st_mode & S_IXUSR))
            up_vfind(c, p.data, 0, UP_V_WARNING, "script-not-executable",
                     "script is not executable (chmod +x)");
    }
out:
    up_strv_free(names);
    up_buf_release(&p);
}

/* Lines and estimated tokens of the trimmed body. */
static void check_size(struct vctx *c, const char *body, size_t len,
                       int first_line)
{
    size_t lines = 1, words = 0;

    for (size_t i = 0; i < len; i++) {
        if (body[i] == '\n')
            lines++;
        if (!isspace((unsigned char)body[i]) &&
            (i == 0 || isspace((unsigned char)body[i - 1])))
            words++;
    }
    if (lines > BODY_MAX_LINES)
        up_vfind(c, NULL, first_line + BODY_MAX_LINES, UP_V_WARNING,
                 "body-too-long",
                 "body is %zu lines long; keep SKILL.md under %d lines and "
                 "move detail to references/",
                 lines, BODY_MAX_LINES);
    if (words * 13 / 10 > BODY_MAX_TOKENS)
        up_vfind(c, NULL, 0, UP_V_WARNING, "body-too-many-tokens",
                 "body is about %zu tokens (words x 1.3); keep it under %d",
                 words * 13 / 10, BODY_MAX_TOKENS);
}

void up_vcheck_body(struct vctx *c, const char *body, size_t len,
                    int first_line)
{
    up_buf scripts = UP_BUF_INIT;
    size_t budget = WALK_MAX_ENTRIES;

    while (len && isspace((unsigned char)*body)) {
        first_line += *body == '\n';
        body++;
        len--;
    }
    while (len && isspace((unsigned char)body[len - 1]))
        len--;
    if (!len)
        up_vfind(c, NULL, 0, UP_V_WARNING, "body-empty",
                 "SKILL.md has no body: add the instructions after the "
                 "frontmatter");
    check_size(c, body, len, first_line);
    check_refs(c, body, len, first_line);
    up_fs_join(&scripts, c->dir, "scripts");
    if (up_fs_is_dir(scripts.data))
        walk_scripts(c, scripts.data, 0, &budget);
    up_buf_release(&scripts);
}
