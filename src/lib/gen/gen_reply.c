/*
 * Teacher replies: from text to a checked skill.
 *
 * The format asked for is one JSON object {"files": {path: text}}; what
 * models actually send is read leniently: the object may sit in a ```json
 * fence or among prose, and a reply that is a bare SKILL.md (small models
 * do this, often inside a ```markdown fence) is taken as the only file.
 * Whatever the teacher sends is checked before anything is saved: paths
 * must stay in the skill's resource folders, and the folder, written as a
 * temporary copy, must pass the validator's spec profile.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/skill/skill_lib.h"
#include "lib/gen/gen_lib.h"
#include "lib/skill/skill_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/gen.h"
#include "util/json.h"

static const char *const resource_dirs[] = {"references/", "scripts/",
                                            "assets/"};

void up_gen_draft_init(up_gen_draft *d)
{
    memset(d, 0, sizeof(*d));
}

void up_gen_draft_release(up_gen_draft *d)
{
    free(d->skill_md);
    for (size_t i = 0; i < d->nfiles; i++) {
        free(d->files[i].path);
        free(d->files[i].data);
    }
    free(d->files);
    up_gen_draft_init(d);
}

/* ---- parsing ---------------------------------------------------------- */

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* [*b, *e) trimmed of white space. */
static void trim(const char **b, const char **e)
{
    while (*b < *e && is_ws(**b))
        (*b)++;
    while (*e > *b && is_ws((*e)[-1]))
        (*e)--;
}

/* Drop an outer ``` fence: the first line opens it, the last closes it. */
static void unfence(const char **b, const char **e)
{
    const char *nl = memchr(*b, '\n', (size_t)(*e - *b));
    const char *last = *e;

    if (*e - *b < 6 || strncmp(*b, "```", 3) || !nl)
        return;
    while (last > nl && last[-1] != '\n')
        last--;
    if (strncmp(last, "```", 3) || *e - last > 4)
        return;
    *b = nl + 1;
    *e = last;
    trim(b, e);
}

static void add_file(up_gen_draft *d, const char *path, const char *text)
{
    d->files = up_xrealloc(d->files, (d->nfiles + 1) * sizeof(*d->files));
    memset(&d->files[d->nfiles], 0, sizeof(*d->files));
    d->files[d->nfiles].path = up_xstrdup(path);
    d->files[d->nfiles].data = up_xstrdup(text);
    d->files[d->nfiles].len = strlen(text);
    d->files[d->nfiles].executable = !strncmp(path, "scripts/", 8);
    d->nfiles++;
}

static int from_json(up_gen_draft *d, json_t *root, up_error *err)
{
    json_t *files = json_object_get(root, "files"), *v;
    const char *path;

    if (!json_is_object(files))
        return up_error_set(err, UP_EPARSE,
                            "the reply's JSON has no \"files\" object");
    json_object_foreach(files, path, v)
    {
        if (!json_is_string(v))
            return up_error_set(err, UP_EPARSE,
                                "files[\"%s\"] must be the file's text as "
                                "a JSON string",
                                path);
        if (!strcmp(path, "SKILL.md") && !d->skill_md)
            d->skill_md = up_xstrdup(json_string_value(v));
        else
            add_file(d, path, json_string_value(v));
    }
    if (!d->skill_md)
        return up_error_set(err, UP_EPARSE, "the reply has no SKILL.md file");
    d->format = UP_GEN_REPLY_JSON;
    return 0;
}

/* The JSON object in [b, e), from its first '{' to its last '}'. */
static json_t *find_json(const char *b, const char *e, json_error_t *je)
{
    const char *open = memchr(b, '{', (size_t)(e - b));
    const char *close = e;

    while (close > b && close[-1] != '}')
        close--;
    memset(je, 0, sizeof(*je));
    snprintf(je->text, sizeof(je->text), "no JSON object");
    if (!open || close <= open)
        return NULL;
    return json_loadb(open, (size_t)(close - open), 0, je);
}

/* Start of the last line of [b, e) that is exactly "```", or NULL. */
static const char *last_fence(const char *b, const char *e)
{
    for (const char *p = e; p > b; p--)
        if ((p - 1 == b || p[-2] == '\n') && e - (p - 1) >= 3 &&
            !strncmp(p - 1, "```", 3) &&
            (p + 2 == e || p[2] == '\n' || p[2] == '\r'))
            return p - 1;
    return NULL;
}

/*
 * A bare SKILL.md: start at its first "---" line; when a fence opened
 * just before it, end at the last fence line (prose may follow it).
 */
static int from_bare(up_gen_draft *d, const char *b, const char *e,
                     up_error *err)
{
    const char *p = b, *prev = NULL, *close;

    while (p && p < e && strncmp(p, "---", 3)) {
        prev = p;
        p = memchr(p, '\n', (size_t)(e - p));
        p = p ? p + 1 : NULL;
    }
    if (!p || p >= e)
        return up_error_set(err, UP_EPARSE,
                            "the reply is neither the JSON object asked for "
                            "nor a SKILL.md starting with '---'");
    if (prev && !strncmp(prev, "```", 3) && (close = last_fence(p, e)))
        e = close;
    b = p;
    trim(&b, &e);
    d->skill_md = up_xstrndup(b, (size_t)(e - b));
    d->format = UP_GEN_REPLY_BARE;
    return 0;
}

int up_gen_reply_parse(up_gen_draft *d, const char *reply, up_error *err)
{
    const char *b = reply ? reply : "", *e = b + strlen(b);
    json_error_t je;
    json_t *root;
    int rc, braced;

    up_gen_draft_release(d);
    trim(&b, &e);
    unfence(&b, &e);
    braced = b < e && *b == '{';
    root = find_json(b, e, &je);
    if (!root)
        up_json_error_words(&je);
    if (root && json_is_object(root) &&
        (braced || json_object_get(root, "files")))
        rc = from_json(d, root, err);
    else if (braced)
        rc = up_error_set(err, UP_EPARSE,
                          "the reply is not valid JSON: line %d column %d: "
                          "%s",
                          je.line, je.column, je.text);
    else
        rc = from_bare(d, b, e, err);
    json_decref(root);
    if (rc)
        up_gen_draft_release(d);
    return rc;
}

/* ---- checking --------------------------------------------------------- */

static int path_ok(const char *path, up_buf *errors)
{
    up_error e;

    if (up_fs_check_relative(path, &e)) {
        up_buf_addf(errors, "- %s\n", e.msg);
        return 0;
    }
    for (size_t i = 0; i < sizeof(resource_dirs) / sizeof(*resource_dirs); i++)
        if (!strncmp(path, resource_dirs[i], strlen(resource_dirs[i])) &&
            path[strlen(resource_dirs[i])])
            return 1;
    up_buf_addf(errors,
                "- '%s': files other than SKILL.md go under references/, "
                "scripts/ or assets/\n",
                path);
    return 0;
}

/* The folder name for the copy: the skill's name when it can be one. */
static void stage_name(up_buf *out, const char *md)
{
    up_skill s;
    up_error e;

    up_skill_init(&s);
    if (!up_skill_parse(&s, md, strlen(md), "SKILL.md", &e) && s.name &&
        !strchr(s.name, '/') && !up_fs_check_relative(s.name, NULL))
        up_buf_adds(out, s.name);
    else
        up_buf_adds(out, "skill");
    up_skill_release(&s);
}

static int stage(const up_gen_draft *d, const char *dir, up_error *err)
{
    up_buf path = UP_BUF_INIT, parent = UP_BUF_INIT;
    int rc = up_fs_mkdir_p(dir, 0700, err);

    up_fs_join(&path, dir, "SKILL.md");
    if (!rc)
        rc = up_fs_write_atomic(path.data, d->skill_md, strlen(d->skill_md),
                                0600, err);
    for (size_t i = 0; !rc && i < d->nfiles; i++) {
        if (up_fs_check_relative(d->files[i].path, NULL))
            continue;
        up_buf_reset(&path);
        up_buf_reset(&parent);
        up_fs_join(&path, dir, d->files[i].path);
        up_fs_dirname(&parent, path.data);
        rc = up_fs_mkdir_p(parent.data, 0700, err);
        if (!rc)
            rc = up_fs_write_atomic(path.data, d->files[i].data,
                                    d->files[i].len, 0600, err);
    }
    up_buf_release(&path);
    up_buf_release(&parent);
    return rc;
}

static void add_findings(const up_vreport *r, const char *dir, up_buf *errors,
                         up_buf *warnings)
{
    size_t skip = strlen(dir) + 1;

    for (size_t i = 0; i < r->nskills; i++)
        for (size_t j = 0; j < r->skills[i].nfindings; j++) {
            const up_vfinding *f = &r->skills[i].findings[j];
            const char *file = strlen(f->file) > skip ? f->file + skip : "";

            up_buf_addf(f->sev == UP_V_ERROR ? errors : warnings, "- %s", file);
            if (f->line)
                up_buf_addf(f->sev == UP_V_ERROR ? errors : warnings, ":%d",
                            f->line);
            up_buf_addf(f->sev == UP_V_ERROR ? errors : warnings, ": %s (%s)\n",
                        f->msg, f->code);
        }
}

int up_gen_draft_check(const up_gen_draft *d, up_buf *errors, up_buf *warnings,
                       up_error *err)
{
    const char *tmp = getenv("TMPDIR");
    up_buf root = UP_BUF_INIT, dir = UP_BUF_INIT, name = UP_BUF_INIT;
    up_vreport r;
    int rc = 0, nerr = 0;

    up_validate_init(&r, UP_VP_SPEC);
    for (size_t i = 0; i < d->nfiles; i++)
        nerr += !path_ok(d->files[i].path, errors);
    /* A copy a killed run left is removed here (skill_int.h). */
    skill_clean_dead(tmp && *tmp ? tmp : "/tmp", "upskill-gen-", NULL);
    rc = skill_tmp_dir(&root, tmp && *tmp ? tmp : "/tmp", "upskill-gen-", err);
    if (rc)
        goto out;
    stage_name(&name, d->skill_md);
    up_fs_join(&dir, root.data, name.data);
    rc = stage(d, dir.data, err);
    if (!rc)
        up_validate_path(&r, dir.data);
    add_findings(&r, dir.data, errors, warnings);
    nerr += (int)r.nerrors;
    up_fs_rm_tree(root.data);
out:
    up_validate_release(&r);
    up_buf_release(&root);
    up_buf_release(&dir);
    up_buf_release(&name);
    return rc ? rc : nerr;
}

/* ---- to a skill ------------------------------------------------------- */

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const up_skill_file *)a)->path,
                  ((const up_skill_file *)b)->path);
}

int up_gen_draft_skill(up_skill *s, const up_gen_draft *d, up_error *err)
{
    int rc =
        up_skill_parse(s, d->skill_md, strlen(d->skill_md), "SKILL.md", err);

    if (rc)
        return rc;
    s->files = up_xcalloc(d->nfiles ? d->nfiles : 1, sizeof(*s->files));
    for (size_t i = 0; i < d->nfiles; i++) {
        s->files[i] = d->files[i];
        s->files[i].path = up_xstrdup(d->files[i].path);
        s->files[i].data = up_xstrndup(d->files[i].data, d->files[i].len);
    }
    s->nfiles = d->nfiles;
    qsort(s->files, s->nfiles, sizeof(*s->files), cmp_path);
    return 0;
}

void up_gen_skill_text(up_buf *out, const up_skill *s)
{
    up_buf_adds(out, "=== SKILL.md ===\n");
    up_skill_render(s, out);
    for (size_t i = 0; i < s->nfiles; i++) {
        up_buf_addf(out, "\n=== %s ===\n", s->files[i].path);
        up_buf_add(out, s->files[i].data, s->files[i].len);
        if (s->files[i].len && s->files[i].data[s->files[i].len - 1] != '\n')
            up_buf_addc(out, '\n');
    }
}
