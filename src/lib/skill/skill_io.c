/*
 * Skill folders on disk: up_skill_load and up_skill_save.
 *
 * Load reads SKILL.md (required), skill_meta.json (optional) and every
 * regular file under references/, scripts/ and assets/, walking
 * subfolders.  Symlinks are allowed only when their target resolves inside
 * the skill folder (UP_EUNSAFE otherwise); symlinked folders are not
 * walked, so a link loop cannot make the walk endless.  Each file is capped
 * at UP_FS_MAX_READ and all resources together at UP_SKILL_MAX_TOTAL.
 *
 * Save checks everything before it writes anything: each resource path
 * must pass up_fs_check_relative, start with references/, scripts/ or
 * assets/ (so it can never replace SKILL.md or skill_meta.json), not be
 * both a file and a folder, and the version must pass the loader's own
 * limits (depth, sizes, SKILL.md and skill_meta.json parsing back), so
 * nothing is saved that load would refuse.  The version is then written
 * whole into a new hidden folder beside dir and swapped in by renames
 * (skill_swap.c): a reader sees the old skill or the new one, never a
 * mix.  Files are written with up_fs_write_atomic (0755 when executable,
 * else 0644).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/skill/skill_lib.h"
#include "lib/skill/skill_int.h"
#include "upskill/alloc.h"
#include "upskill/esc.h"
#include "upskill/fs.h"
#include "upskill/skill.h"
#include "skill_legacy.h"
#include "util/json.h"
#include "util/sha256.h"

static const char *const resource_dirs[] = {"references", "scripts", "assets"};

/* The folder's real path and a running total for the resource walk. */
struct walk {
    const char *dir;
    char *real;
    size_t total, cap;
};

/* UP_EUNSAFE when path is a symlink that does not resolve inside root. */
static int check_link(const char *root, const char *path, up_error *err)
{
    struct stat st;

    if (lstat(path, &st) || !S_ISLNK(st.st_mode))
        return 0;
    if (!up_fs_resolves_inside(root, path))
        return up_error_set(err, UP_EUNSAFE,
                            "'%s': symlink leads outside the skill folder",
                            path);
    return 0;
}

/* ---- the limits: one copy for loading, saving and validate ---- */

/* What is wrong with the name rel (esc: its escaped form), or NULL. */
static const char *name_fault(const char *rel, const up_buf *esc)
{
    if (strchr(rel, '\\'))
        return "a backslash (a folder separator on Windows)";
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return "a control character";
    if (esc->len != strlen(rel))
        return "bytes that are not UTF-8 text, or a C1 control character";
    return NULL;
}

int up_skill_check_file_name(const char *rel, up_error *err)
{
    up_buf esc = UP_BUF_INIT;
    const char *why;
    int rc = 0;

    up_esc_ctrl(&esc, rel, strlen(rel), 0);
    why = name_fault(rel, &esc);
    if (why)
        rc = up_error_set(err, UP_EUNSAFE,
                          "skill file '%s': the name holds %s; rename it",
                          esc.data, why);
    up_buf_release(&esc);
    return rc;
}

static int too_deep(const struct walk *w, const char *rel, up_error *err)
{
    return up_error_set(err, UP_EPARSE,
                        "'%s/%s': folders nested deeper than %d levels", w->dir,
                        rel, UP_SKILL_MAX_DEPTH);
}

/* Count len more bytes of resources; UP_ETOOBIG past the total cap. */
static int check_total(struct walk *w, size_t len, up_error *err)
{
    if (w->total + len > UP_SKILL_MAX_TOTAL)
        return up_error_set(err, UP_ETOOBIG,
                            "'%s': resource files are larger than %u bytes "
                            "together (a skill's cap, UP_SKILL_MAX_TOTAL: "
                            "%u MiB)",
                            w->dir, UP_SKILL_MAX_TOTAL,
                            UP_SKILL_MAX_TOTAL >> 20);
    w->total += len;
    return 0;
}

/* A resource of len bytes at rel, as the walk would meet it on disk. */
static int check_resource(struct walk *w, const char *rel, size_t len,
                          up_error *err)
{
    int depth = 0;

    for (const char *p = rel; *p; p++)
        depth += *p == '/';
    if (len > UP_FS_MAX_READ)
        return up_error_set(err, UP_ETOOBIG,
                            "'%s/%s': file is larger than %u bytes", w->dir,
                            rel, UP_FS_MAX_READ);
    if (depth > UP_SKILL_MAX_DEPTH)
        return too_deep(w, rel, err);
    return check_total(w, len, err);
}

/* ---- load ---- */

/* SKILL.md: its link, and when parse is set its size and its parse. */
static int read_skill_md(up_skill *s, const struct walk *w, int parse,
                         up_error *err)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    int rc;

    up_fs_join(&path, w->dir, "SKILL.md");
    rc = check_link(w->real, path.data, err);
    if (!rc && parse)
        rc = up_fs_read(&text, path.data, UP_FS_MAX_READ, err);
    if (!rc && parse)
        rc = up_skill_parse(s, text.data, text.len, path.data, err);
    if (rc == UP_EPARSE)
        rc = up_skill_legacy_parse(s, text.data, text.len, path.data, rc, err);
    up_buf_release(&text);
    up_buf_release(&path);
    return rc;
}

static const struct {
    const char *key;
    size_t off;
} meta_strings[] = {
    {"version", offsetof(up_skill_meta, version)},
    {"generated_by", offsetof(up_skill_meta, generated_by)},
    {"generated_at", offsetof(up_skill_meta, generated_at)},
    {"source_task", offsetof(up_skill_meta, source_task)},
    {"license", offsetof(up_skill_meta, license)},
    {"compatibility", offsetof(up_skill_meta, compatibility)},
};

static int meta_error(up_error *err, const char *path, const char *key,
                      const char *want)
{
    return up_error_set(err, UP_EPARSE, "'%s': metadata.%s must be %s", path,
                        key, want);
}

/* Pydantic's datetime from a number: Unix seconds, or milliseconds
 * above 2e10; written back as ISO 8601 text.  NULL when out of range. */
static char *unix_time_text(double t)
{
    char text[32];
    struct tm tm;
    time_t sec;

    if (t > 2e10 || t < -2e10)
        t /= 1000;
    if (!(t > -1e11 && t < 1e11))
        return NULL;
    sec = (time_t)t;
    if (!gmtime_r(&sec, &tm) ||
        !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm))
        return NULL;
    return up_xstrdup(text);
}

/* Pydantic's lax float from text: "0.5", " 1 ". */
static int number_text(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    while (end != s && (*end == ' ' || *end == '\t' || *end == '\n'))
        end++;
    return end != s && !*end && !errno;
}

static int fill_rate(up_skill_meta *m, json_t *rate, const char *path,
                     up_error *err)
{
    double v = 0;

    if (json_is_string(rate) && !number_text(json_string_value(rate), &v))
        return meta_error(err, path, "test_pass_rate",
                          "a number (or a number's text) or null");
    if (rate && !json_is_number(rate) && !json_is_null(rate) &&
        !json_is_string(rate))
        return meta_error(err, path, "test_pass_rate", "a number or null");
    m->has_test_pass_rate = json_is_number(rate) || json_is_string(rate);
    m->test_pass_rate = json_is_number(rate) ? json_number_value(rate) : v;
    return 0;
}

/* Read as upstream's SkillMetadata (pydantic, lax): strings or null; a
 * number for generated_at is a Unix time, text for test_pass_rate a
 * number. */
static int fill_meta(up_skill_meta *m, json_t *obj, const char *path,
                     up_error *err)
{
    for (size_t i = 0; i < sizeof(meta_strings) / sizeof(meta_strings[0]);
         i++) {
        json_t *v = json_object_get(obj, meta_strings[i].key);
        char **slot = (char **)(void *)((char *)m + meta_strings[i].off);
        char *when = NULL;

        if (json_is_number(v) &&
            slot == &m->generated_at) /* the one datetime */
            when = unix_time_text(json_number_value(v));
        if (v && !json_is_string(v) && !json_is_null(v) && !when)
            return meta_error(err, path, meta_strings[i].key,
                              "a string or null");
        free(*slot);
        *slot = json_is_string(v) ? up_xstrdup(json_string_value(v)) : when;
    }
    return fill_rate(m, json_object_get(obj, "test_pass_rate"), path, err);
}

static int parse_meta(up_skill *s, const up_buf *text, const char *path,
                      up_error *err)
{
    json_error_t je;
    /* no JSON_REJECT_DUPLICATES: the last one wins, as in Python */
    json_t *root = json_loadb(text->data, text->len, 0, &je);
    json_t *meta, *tests = NULL;
    int rc = 0;

    if (!root) {
        up_json_error_words(&je);
        return up_error_set(err, UP_EPARSE, "'%s':%d:%d: %s", path, je.line,
                            je.column, je.text);
    }
    meta = json_object_get(root, "metadata");
    if (!json_is_object(root))
        rc = up_error_set(err, UP_EPARSE, "'%s': expected a json object", path);
    else if (meta && !json_is_object(meta))
        rc = up_error_set(err, UP_EPARSE, "'%s': metadata must be an object",
                          path);
    else if (meta)
        rc = fill_meta(&s->meta, meta, path, err);
    if (!rc)
        tests = skill_meta_get_tests(root, s, path);
    if (!rc && tests)
        s->tests_json = json_dumps(tests, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                              JSON_ENCODE_ANY);
    s->has_meta = !rc;
    json_decref(tests);
    json_decref(root);
    return rc;
}

static int read_meta(up_skill *s, const struct walk *w, up_error *err)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    struct stat st;
    int rc = 0;

    up_fs_join(&path, w->dir, "skill_meta.json");
    if (lstat(path.data, &st) && errno == ENOENT)
        goto out;
    rc = check_link(w->real, path.data, err);
    if (!rc)
        rc = up_fs_read(&text, path.data, UP_FS_MAX_READ, err);
    if (!rc)
        rc = parse_meta(s, &text, path.data, err);
out:
    up_buf_release(&text);
    up_buf_release(&path);
    return rc;
}

static int add_file(up_skill *s, struct walk *w, const char *rel,
                    const char *path, up_error *err)
{
    up_buf data = UP_BUF_INIT;
    up_skill_file *f;
    struct stat st;
    int rc = up_fs_read(&data, path, UP_FS_MAX_READ, err);

    if (!rc)
        rc = check_total(w, data.len, err);
    if (!rc && stat(path, &st))
        rc = up_error_set(err, UP_EIO, "'%s': %s", path, strerror(errno));
    if (rc) {
        up_buf_release(&data);
        return rc;
    }
    UP_GROW(s->files, w->cap, s->nfiles + 1);
    f = &s->files[s->nfiles++];
    f->path = up_xstrdup(rel);
    f->len = data.len;
    f->data = data.cap ? up_buf_detach(&data) : up_xstrdup("");
    f->executable = (st.st_mode & S_IXUSR) != 0;
    return 0;
}

static int walk_dir(up_skill *s, struct walk *w, const char *rel, int depth,
                    up_error *err);

/* One entry of a resource folder: a file, a folder or a symlink. */
static int walk_entry(up_skill *s, struct walk *w, const char *rel, int depth,
                      up_error *err)
{
    up_buf path = UP_BUF_INIT;
    struct stat st;
    int rc;

    up_fs_join(&path, w->dir, rel);
    rc = up_skill_check_file_name(rel, err);
    if (rc)
        up_error_prefix(err, "'%s': ", w->dir);
    else
        rc = check_link(w->real, path.data, err);
    if (rc || lstat(path.data, &st))
        goto out;
    if (S_ISDIR(st.st_mode))
        rc = walk_dir(s, w, rel, depth + 1, err);
    else if (S_ISREG(st.st_mode) ||
             (S_ISLNK(st.st_mode) && up_fs_is_file(path.data)))
        rc = add_file(s, w, rel, path.data, err);
out:
    up_buf_release(&path);
    return rc;
}

static int walk_dir(up_skill *s, struct walk *w, const char *rel, int depth,
                    up_error *err)
{
    up_buf path = UP_BUF_INIT, child = UP_BUF_INIT;
    char **names = NULL;
    int rc;

    if (depth > UP_SKILL_MAX_DEPTH)
        return too_deep(w, rel, err);
    up_fs_join(&path, w->dir, rel);
    rc = up_fs_list(&names, NULL, path.data, err);
    for (char **p = names; !rc && p && *p; p++) {
        up_buf_reset(&child);
        up_fs_join(&child, rel, *p);
        rc = walk_entry(s, w, child.data, depth, err);
    }
    up_strv_free(names);
    up_buf_release(&child);
    up_buf_release(&path);
    return rc;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const up_skill_file *)a)->path,
                  ((const up_skill_file *)b)->path);
}

static int read_resources(up_skill *s, struct walk *w, up_error *err)
{
    int rc = 0;

    for (size_t i = 0; !rc && i < 3; i++) {
        up_buf path = UP_BUF_INIT;

        up_fs_join(&path, w->dir, resource_dirs[i]);
        rc = check_link(w->real, path.data, err);
        if (!rc && up_fs_is_dir(path.data))
            rc = walk_dir(s, w, resource_dirs[i], 1, err);
        up_buf_release(&path);
    }
    if (s->nfiles)
        qsort(s->files, s->nfiles, sizeof(*s->files), cmp_file);
    return rc;
}

/* up_skill_load, parsing SKILL.md only when parse_md is set. */
static int load(up_skill *s, const char *dir, int parse_md, up_error *err)
{
    struct walk w = {dir, NULL, 0, 0};
    int rc;

    w.real = realpath(dir, NULL);
    if (!w.real) {
        up_buf path = UP_BUF_INIT;

        up_fs_join(&path, dir, "SKILL.md");
        rc = up_error_set(err, UP_ENOTFOUND, "'%s': no such file", path.data);
        up_buf_release(&path);
        goto out;
    }
    rc = read_skill_md(s, &w, parse_md, err);
    if (!rc)
        rc = read_meta(s, &w, err);
    if (!rc)
        rc = read_resources(s, &w, err);
out:
    free(w.real);
    if (rc)
        up_skill_release(s);
    return rc;
}

int up_skill_load(up_skill *s, const char *dir, up_error *err)
{
    return load(s, dir, 1, err);
}

int up_skill_check_folder(const char *dir, up_error *err)
{
    up_skill s;
    int rc;

    up_skill_init(&s);
    rc = load(&s, dir, 0, err);
    up_skill_release(&s);
    return rc;
}

/* ---- dropped files ---- */

void up_skill_files_drop(up_skill *s, const char *dir)
{
    if (!s->files_dir)
        s->files_dir = up_xstrdup(dir);
    for (size_t i = 0; i < s->nfiles; i++) {
        up_skill_file *f = &s->files[i];
        up_sha256 h;

        if (!f->data)
            continue;
        up_sha256_init(&h);
        up_sha256_update(&h, f->data, f->len);
        up_sha256_final(&h, f->sha256);
        free(f->data);
        f->data = NULL;
    }
}

int up_skill_file_read(const up_skill *s, size_t i, up_buf *out, up_error *err)
{
    const up_skill_file *f = &s->files[i];
    up_buf path = UP_BUF_INIT;
    unsigned char sha[32];
    up_sha256 h;
    int rc;

    up_buf_reset(out);
    if (f->data) {
        up_buf_add(out, f->data, f->len);
        return 0;
    }
    up_fs_join(&path, s->files_dir ? s->files_dir : ".", f->path);
    rc = up_fs_read(out, path.data, UP_FS_MAX_READ, err);
    if (!rc) {
        up_sha256_init(&h);
        up_sha256_update(&h, out->data, out->len);
        up_sha256_final(&h, sha);
        if (out->len != f->len || memcmp(sha, f->sha256, sizeof(sha)))
            rc = up_error_set(err, UP_EIO,
                              "skill '%s': '%s' changed since the skill was "
                              "loaded; run again",
                              s->name ? s->name : "", path.data);
    }
    up_buf_release(&path);
    return rc;
}

/* ---- save ---- */

/* Sort key of a path byte: end of string, then '/', then the rest. */
static int tree_key(unsigned char c)
{
    return c == '/' ? 1 : c ? c + 1 : 0;
}

/* Path order where a folder's files directly follow the folder's name. */
static int cmp_tree(const void *a, const void *b)
{
    const unsigned char *x = *(const unsigned char *const *)a;
    const unsigned char *y = *(const unsigned char *const *)b;

    for (; *x && *x == *y; x++, y++)
        ;
    return tree_key(*x) - tree_key(*y);
}

static int check_root(const char *rel, up_error *err)
{
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(resource_dirs[i]);

        if (!strncmp(rel, resource_dirs[i], n) && rel[n] == '/')
            return 0;
    }
    return up_error_set(err, UP_EUNSAFE,
                        "'%s': resource files must be under references/, "
                        "scripts/ or assets/",
                        rel);
}

/* Names, roots, and no path that is also another path's folder. */
static int check_names(const up_skill *s, up_error *err)
{
    const char **v = up_xmalloc(s->nfiles * sizeof(*v) + 1);
    int rc = 0;

    for (size_t i = 0; !rc && i < s->nfiles; i++) {
        v[i] = s->files[i].path;
        rc = up_fs_check_relative(v[i], err);
        if (!rc)
            rc = up_skill_check_file_name(v[i], err);
        if (!rc)
            rc = check_root(v[i], err);
    }
    if (!rc)
        qsort(v, s->nfiles, sizeof(*v), cmp_tree);
    for (size_t i = 1; !rc && i < s->nfiles; i++) {
        size_t n = strlen(v[i - 1]);

        if (!strncmp(v[i - 1], v[i], n) && (v[i][n] == '/' || !v[i][n]))
            rc = up_error_set(err, UP_EUNSAFE, "'%s': %s", v[i - 1],
                              v[i][n] ? "is both a file and a folder"
                                      : "listed twice");
    }
    free(v);
    return rc;
}

/* The loader's limits, checked on the skill in memory. */
static int check_save(const up_skill *s, const char *dir, up_error *err)
{
    struct walk w = {dir, NULL, 0, 0};
    int rc = check_names(s, err);

    for (size_t i = 0; !rc && i < s->nfiles; i++)
        rc = check_resource(&w, s->files[i].path, s->files[i].len, err);
    return rc;
}

static json_t *meta_json(const up_skill_meta *m)
{
    json_t *o = json_object();

    json_object_set_new(o, "version",
                        json_string(m->version ? m->version : "1.0"));
    json_object_set_new(o, "generated_by",
                        up_json_str_or_null(m->generated_by));
    json_object_set_new(o, "generated_at",
                        up_json_str_or_null(m->generated_at));
    json_object_set_new(o, "source_task", up_json_str_or_null(m->source_task));
    json_object_set_new(o, "test_pass_rate",
                        m->has_test_pass_rate ? json_real(m->test_pass_rate)
                                              : json_null());
    json_object_set_new(o, "license", up_json_str_or_null(m->license));
    json_object_set_new(o, "compatibility",
                        up_json_str_or_null(m->compatibility));
    return o;
}

/* Digits (at most 17) that print every real in j so it reads back equal. */
static int real_precision(const json_t *j)
{
    int p = 1;

    if (json_is_real(j)) {
        double v = json_real_value(j);
        char tmp[40];

        for (; p < 17; p++) {
            snprintf(tmp, sizeof(tmp), "%.*g", p, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        return p;
    }
    if (json_is_array(j))
        for (size_t i = 0; i < json_array_size(j); i++) {
            int q = real_precision(json_array_get(j, i));
            p = q > p ? q : p;
        }
    if (json_is_object(j)) {
        const char *k;
        json_t *v;

        json_object_foreach((json_t *)j, k, v)
        {
            int q = real_precision(v);
            p = q > p ? q : p;
        }
    }
    return p;
}

static int meta_text(const up_skill *s, up_buf *out, up_error *err)
{
    json_t *root = json_object(), *tests = NULL;
    json_error_t je;
    char *text;

    if (s->tests_json) {
        tests = json_loads(s->tests_json, JSON_DECODE_ANY, &je);
        if (!tests) {
            json_decref(root);
            up_json_error_words(&je);
            return up_error_set(err, UP_EPARSE, "tests are not valid json: %s",
                                je.text);
        }
    }
    json_object_set_new(root, "metadata", meta_json(&s->meta));
    if (!tests)
        tests = json_array();
    skill_meta_put_tests(root, tests);
    json_decref(tests);
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                JSON_REAL_PRECISION(real_precision(root)));
    up_buf_adds(out, text);
    up_buf_addc(out, '\n');
    free(text);
    json_decref(root);
    return 0;
}

static int write_file(const char *dir, const char *rel, const void *data,
                      size_t len, mode_t mode, up_error *err)
{
    up_buf path = UP_BUF_INIT, parent = UP_BUF_INIT;
    int rc;

    up_fs_join(&path, dir, rel);
    up_fs_dirname(&parent, path.data);
    rc = up_fs_mkdir_p(parent.data, 0755, err);
    if (!rc)
        rc = up_fs_write_atomic(path.data, data, len, mode, err);
    up_buf_release(&parent);
    up_buf_release(&path);
    return rc;
}

/* Write every file of the version into the empty folder dir. */
static int write_version(const up_skill *s, const char *dir, const up_buf *md,
                         const up_buf *meta, up_error *err)
{
    int rc = write_file(dir, "SKILL.md", md->data, md->len, 0644, err);

    if (!rc)
        rc = write_file(dir, "skill_meta.json", meta->data, meta->len, 0644,
                        err);
    for (size_t i = 0; !rc && i < s->nfiles; i++) {
        const up_skill_file *f = &s->files[i];

        rc = write_file(dir, f->path, f->data, f->len,
                        f->executable ? 0755 : 0644, err);
    }
    return rc;
}

/*
 * Where the folder goes: parent and base of dir, resolved when dir exists
 * (a symlink, ".", a trailing slash), and *mode the old folder's mode.
 */
static int save_target(up_buf *parent, up_buf *base, mode_t *mode,
                       const char *dir, up_error *err)
{
    char *real = realpath(dir, NULL);
    struct stat st;
    int rc = 0;

    *mode = 0755;
    if (real && (stat(real, &st) || !S_ISDIR(st.st_mode)))
        rc = up_error_set(err, UP_EIO, "'%s': exists and is not a folder", dir);
    else if (real)
        *mode = st.st_mode & 07777;
    up_fs_dirname(parent, real ? real : dir);
    up_fs_basename(base, real ? real : dir);
    free(real);
    return rc;
}

/*
 * What the loader will read back must load: SKILL.md and skill_meta.json
 * within the read cap, and parsing as they do on load.
 */
static int check_texts(const up_buf *md, const up_buf *meta, const char *dir,
                       up_error *err)
{
    up_buf path = UP_BUF_INIT;
    up_skill back;
    int rc = 0;

    up_skill_init(&back);
    up_fs_join(&path, dir, "SKILL.md");
    if (md->len > UP_FS_MAX_READ || meta->len > UP_FS_MAX_READ)
        rc = up_error_set(err, UP_ETOOBIG,
                          "'%s': SKILL.md or skill_meta.json would be larger "
                          "than %u bytes",
                          dir, UP_FS_MAX_READ);
    if (!rc)
        rc = up_skill_parse(&back, md->data, md->len, path.data, err);
    up_buf_reset(&path);
    up_fs_join(&path, dir, "skill_meta.json");
    if (!rc)
        rc = parse_meta(&back, meta, path.data, err);
    up_skill_release(&back);
    up_buf_release(&path);
    return rc;
}

/* Write the version into a new hidden folder beside target, swap it in. */
static int replace(const up_skill *s, const up_buf *md, const up_buf *meta,
                   const char *dir, up_error *err)
{
    up_buf parent = UP_BUF_INIT, base = UP_BUF_INIT, target = UP_BUF_INIT,
           tmp = UP_BUF_INIT;
    mode_t mode;
    int rc = save_target(&parent, &base, &mode, dir, err);

    if (!rc)
        rc = up_fs_mkdir_p(parent.data, 0755, err);
    if (rc)
        goto out;
    up_fs_join(&target, parent.data, base.data);
    skill_clean_saves(parent.data, base.data, target.data);
    rc = skill_save_dir(&tmp, parent.data, base.data, "new", err);
    if (rc)
        goto out;
    rc = write_version(s, tmp.data, md, meta, err);
    if (!rc && chmod(tmp.data, mode))
        rc = up_error_set(err, UP_EIO, "'%s': cannot chmod: %s", tmp.data,
                          strerror(errno));
    if (!rc)
        rc = skill_swap_in(tmp.data, target.data, parent.data, base.data, err);
    if (rc) {
        up_fs_rm_tree(tmp.data);
        up_error_prefix(err, "'%s' not saved, the old version is kept: ", dir);
    }
out:
    up_buf_release(&parent);
    up_buf_release(&base);
    up_buf_release(&target);
    up_buf_release(&tmp);
    return rc;
}

int up_skill_save(const up_skill *s, const char *dir, up_error *err)
{
    up_buf md = UP_BUF_INIT, meta = UP_BUF_INIT;
    int rc = check_save(s, dir, err);

    if (!rc)
        rc = meta_text(s, &meta, err);
    if (!rc) {
        up_skill_render(s, &md);
        rc = check_texts(&md, &meta, dir, err);
    }
    if (!rc)
        rc = replace(s, &md, &meta, dir, err);
    up_buf_release(&md);
    up_buf_release(&meta);
    return rc;
}

/* ---- tests only --------------------------------------------------------- */

/* The skill_meta.json object at path (a new one when it is missing). */
static int meta_root(json_t **root, const char *path, mode_t *mode,
                     up_error *err)
{
    up_skill_meta blank;
    up_buf text = UP_BUF_INIT;
    json_error_t je;
    struct stat st;
    int rc = 0;

    if (stat(path, &st) && errno == ENOENT) {
        memset(&blank, 0, sizeof(blank));
        *root = json_object();
        json_object_set_new(*root, "metadata", meta_json(&blank));
        return 0;
    }
    if (S_ISREG(st.st_mode))
        *mode = st.st_mode & 0777;
    rc = up_fs_read(&text, path, UP_FS_MAX_READ, err);
    if (!rc)
        *root = json_loadb(text.data, text.len, 0, &je); /* as parse_meta */
    if (!rc && !json_is_object(*root)) {
        json_decref(*root);
        *root = NULL;
        rc = up_error_set(err, UP_EPARSE, "'%s': expected a json object", path);
    }
    up_buf_release(&text);
    return rc;
}

int up_skill_save_tests(const char *dir, const char *tests_json, up_error *err)
{
    up_buf path = UP_BUF_INIT, out = UP_BUF_INIT;
    json_t *root = NULL, *tests = json_loads(tests_json, JSON_DECODE_ANY, NULL);
    mode_t mode = 0644;
    char *text = NULL;
    int rc;

    if (!tests)
        return up_error_set(err, UP_EPARSE, "tests are not valid json");
    up_fs_join(&path, dir, "skill_meta.json");
    rc = meta_root(&root, path.data, &mode, err);
    if (!rc) {
        skill_meta_put_tests(root, tests);
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                    JSON_REAL_PRECISION(real_precision(root)));
        up_buf_adds(&out, text);
        up_buf_addc(&out, '\n');
        rc = up_fs_write_atomic(path.data, out.data, out.len, mode, err);
    }
    free(text);
    up_buf_release(&out);
    json_decref(tests);
    json_decref(root);
    up_buf_release(&path);
    return rc;
}
