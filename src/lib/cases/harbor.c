/*
 * Harbor task folders into cases (harbor.h, docs/harbor.md): find the
 * tasks, read task.toml, classify each as runnable here or not (its
 * Dockerfile, dpkg), and turn each runnable one into one case held in
 * the suite's arena: instruction.md its input, the COPY'd files its
 * seed, tests/ its check files, one verifier assertion.
 *
 * Invariant: every byte read from a task is bounded by a named limit
 * (harbor.h, suite.h) and every path put in a case passes
 * up_fs_check_relative, so a hostile task folder cannot make the
 * workspace or the check folder write outside themselves.
 */
#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <jansson.h>
#include <sys/stat.h>

#include "lib/cases/suite_lib.h"
#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/harbor.h"
#include "upskill/sandbox.h"

/* Folders deep a task's tests/ or COPY'd folder is read at most. */
#define WALK_DEPTH 16

/* The files of one folder being read into a case (binary-safe). */
struct files {
    up_arena *mem;  /* the suite's: the bytes and paths */
    up_fs_entry *v; /* heap while growing */
    size_t n, cap;
    size_t bytes; /* read so far */
    size_t max_n, max_bytes;
    const char *limit; /* the limit's name, for the message */
    const char *skip;  /* a host folder left out (the skills), or NULL */
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *path2(const char *a, const char *b)
{
    up_buf p = UP_BUF_INIT;

    up_fs_join(&p, a, b);
    return up_buf_detach(&p);
}

/* One entry (data NULL: a folder) at rel into f, executable when x. */
static int add_entry(struct files *f, const char *rel, const up_buf *data,
                     int x, up_error *err)
{
    int rc = up_fs_check_relative(rel, err);

    if (!rc &&
        (f->n >= f->max_n || (data && data->len > f->max_bytes - f->bytes)))
        rc = up_error_set(err, UP_ETOOBIG,
                          "'%s': more than %zu files or %zu bytes (%s)", rel,
                          f->max_n, f->max_bytes, f->limit);
    if (rc)
        return rc;
    UP_GROW(f->v, f->cap, f->n + 1);
    f->v[f->n].path = up_arena_strndup(f->mem, rel, strlen(rel));
    f->v[f->n].data =
        data ? up_arena_strndup(f->mem, data->len ? data->data : "", data->len)
             : NULL;
    f->v[f->n].len = data ? data->len : 0;
    f->v[f->n].executable = x;
    f->bytes += f->v[f->n++].len;
    return 0;
}

static int walk(struct files *f, const char *host, const char *rel, int depth,
                up_error *err);

/* The file or folder at host (regular files, their owner's run bit
 * kept as Docker's COPY keeps it, and folders only: a symlink or device
 * is left out) into f as rel. */
static int walk_one(struct files *f, const char *host, const char *rel,
                    int depth, up_error *err)
{
    up_buf data = UP_BUF_INIT;
    struct stat st;
    int rc = 0;

    if (f->skip && !strcmp(host, f->skip))
        return 0;
    if (lstat(host, &st))
        return up_error_set(err, UP_ENOTFOUND, "'%s': no such file or folder",
                            host);
    if (S_ISDIR(st.st_mode)) {
        if (rel[0])
            rc = add_entry(f, rel, NULL, 0, err);
        return rc ? rc : walk(f, host, rel, depth + 1, err);
    }
    if (!S_ISREG(st.st_mode))
        return 0;
    rc = up_fs_read(&data, host, f->max_bytes - f->bytes + 1, err);
    if (!rc)
        rc = add_entry(f, rel, &data, !!(st.st_mode & S_IXUSR), err);
    up_buf_release(&data);
    return rc;
}

/* Every entry of folder host, as rel/<name>. */
static int walk(struct files *f, const char *host, const char *rel, int depth,
                up_error *err)
{
    char **names = NULL;
    size_t n = 0;
    int rc;

    if (depth > WALK_DEPTH)
        return up_error_set(err, UP_ETOOBIG, "'%s': more than %d folders deep",
                            host, WALK_DEPTH);
    rc = up_fs_list(&names, &n, host, err);
    for (size_t i = 0; !rc && i < n; i++) {
        char *h = path2(host, names[i]);
        up_buf r = UP_BUF_INIT;

        up_fs_join(&r, rel, names[i]); /* just the name when rel is "" */
        rc = walk_one(f, h, r.data, depth, err);
        free(h);
        up_buf_release(&r);
    }
    up_strv_free(names);
    return rc;
}

/* f's entries moved into the arena. */
static up_fs_entry *files_done(struct files *f, size_t *n)
{
    up_fs_entry *v = NULL;

    *n = f->n;
    if (f->n) {
        v = up_arena_alloc(f->mem, f->n * sizeof(*v));
        memcpy(v, f->v, f->n * sizeof(*v));
    }
    free(f->v);
    return v;
}

/* ---- task.toml ---- */

/* The number table.key when given and >= 0, else dflt. */
static double number(const up_toml *t, const char *table, const char *key,
                     double dflt)
{
    const up_toml_entry *e = up_toml_get(t, table, key);
    double v;

    if (!e || e->type != UP_TOML_NUMBER)
        return dflt;
    v = strtod(e->value, NULL);
    return v >= 0 ? v : dflt;
}

/* Seconds s capped at cap, 0 when not given. */
static unsigned seconds(double s, unsigned cap)
{
    return s <= 0 ? 0 : s >= cap ? cap : (unsigned)(s + 0.999);
}

static int read_toml(up_harbor_task *k, up_error *err)
{
    char *path = path2(k->dir, "task.toml");
    up_buf text = UP_BUF_INIT;
    up_toml t = {0};
    const up_toml_entry *e;
    int rc = up_fs_read(&text, path, UP_HARBOR_TEXT_MAX, err);

    if (!rc)
        rc = up_toml_parse(&t, text.data ? text.data : "", text.len, path, err);
    if (!rc) {
        k->agent_s = seconds(number(&t, "agent", "timeout_sec", 0),
                             UP_HARBOR_AGENT_MAX_S);
        k->verifier_s = seconds(number(&t, "verifier", "timeout_sec", 0),
                                UP_HARBOR_VERIFIER_MAX_S);
        k->cpus = number(&t, "environment", "cpus", 0);
        k->memory_mb = number(&t, "environment", "memory_mb", 0);
        k->threshold = number(&t, "upskill", "reward_threshold", 1);
        e = up_toml_get(&t, "environment", "allow_internet");
        k->allow_internet = !e || strcmp(e->value, "false");
    }
    up_toml_release(&t);
    up_buf_release(&text);
    free(path);
    return rc;
}

/* ---- classifying ---- */

static void why(up_harbor_task *k, const char *text)
{
    up_buf_addf(&k->why, "%s%s", k->why.len ? "; " : "", text);
    k->runnable = 0;
}

/* 1 when absolute path p is wd or under it; *rel then points past it. */
static int under(const char *p, const char *wd, const char **rel)
{
    size_t n = strlen(wd);

    if (strncmp(p, wd, n) || (p[n] && p[n] != '/'))
        return 0;
    *rel = p + n + (p[n] == '/');
    return 1;
}

/* The place outside the WORKDIR wd that holds absolute path p ("/data"
 * of "/data/x") into place; its reason when it cannot be one
 * (up_sandbox_place_why), else NULL. */
static const char *place_of(const char *p, const char *wd, up_buf *place)
{
    up_buf_reset(place);
    up_buf_add(place, p, 1 + strcspn(p + 1, "/"));
    return up_sandbox_place_why(place->data, wd);
}

/* Where absolute path p is seeded in the workspace, into rel: under
 * the WORKDIR wd, or in a place outside it (UP_SANDBOX_PLACES/...);
 * 0 when neither can hold it. */
static int seed_path(const char *p, const char *wd, up_buf *rel)
{
    const char *r;

    up_buf_reset(rel);
    if (under(p, wd, &r)) {
        up_buf_adds(rel, r);
        return 1;
    }
    if (place_of(p, wd, rel))
        return 0;
    up_buf_reset(rel);
    up_buf_addf(rel, "%s%s", UP_SANDBOX_PLACES, p);
    return 1;
}

static void check_copies(up_harbor_task *k, const up_docker *d)
{
    const char *rel, *no;
    up_buf b = UP_BUF_INIT, place = UP_BUF_INIT;

    for (size_t i = 0; i < d->ncopies; i++) {
        up_error e;
        int in_wd = under(d->copies[i].dest, k->workdir, &rel);

        up_buf_reset(&b);
        if (!in_wd &&
            (no = place_of(d->copies[i].dest, k->workdir, &place)) != NULL)
            up_buf_addf(&b,
                        "COPY to '%.200s', outside WORKDIR %s, is not "
                        "emulated (%s: %s)",
                        d->copies[i].dest, k->workdir, place.data, no);
        else if (in_wd &&
                 !strncmp(rel, UP_SANDBOX_PLACES, strlen(UP_SANDBOX_PLACES)))
            up_buf_addf(&b, "COPY to '%.200s': %s is upskill's own folder",
                        d->copies[i].dest, UP_SANDBOX_PLACES);
        else if (strcmp(d->copies[i].src, ".") &&
                 up_fs_check_relative(d->copies[i].src, &e))
            up_buf_addf(&b, "COPY of '%.200s': %s", d->copies[i].src, e.msg);
        if (b.len)
            why(k, b.data);
    }
    up_buf_release(&b);
    up_buf_release(&place);
}

static void check_packages(up_harbor_task *k, const up_docker *d)
{
    up_buf miss = UP_BUF_INIT, b = UP_BUF_INIT;

    if (up_harbor_missing_packages(NULL, (const char *const *)d->apt, d->napt,
                                   &miss)) {
        up_buf_addf(&b,
                    "Debian packages not installed: %s (apt-get install "
                    "%s)",
                    miss.data, miss.data);
        why(k, b.data);
    }
    up_buf_release(&miss);
    up_buf_release(&b);
}

/* Read environment/Dockerfile into d and classify k by it. */
static int classify(up_harbor_task *k, up_docker *d, up_error *err)
{
    char *path = path2(k->dir, "environment/Dockerfile");
    up_buf text = UP_BUF_INIT;
    int rc = 0;

    if (up_fs_is_file(path))
        rc = up_fs_read(&text, path, UP_HARBOR_TEXT_MAX, err);
    if (!rc)
        up_docker_parse(d, text.data ? text.data : "", path);
    k->workdir = up_xstrdup(d->workdir ? d->workdir : "/root");
    if (!rc && d->blocked.len)
        why(k, d->blocked.data);
    if (!rc && !up_sandbox_workdir_ok(k->workdir)) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b,
                    "WORKDIR %.200s cannot hold the workspace in the "
                    "sandbox",
                    k->workdir);
        why(k, b.data);
        up_buf_release(&b);
    }
    if (!rc) {
        check_copies(k, d);
        check_packages(k, d);
    }
    up_buf_release(&text);
    free(path);
    return rc;
}

static void find_skills(up_harbor_task *k)
{
    char *dir = path2(k->dir, "environment/skills");
    char **names = NULL;
    size_t n = 0, cap = 0;
    up_error e;

    if (up_fs_is_dir(dir) && !up_fs_list(&names, &n, dir, &e)) {
        for (size_t i = 0; i < n; i++) {
            char *sk = path2(dir, names[i]), *md = path2(sk, "SKILL.md");

            if (names[i][0] != '.' && up_fs_is_file(md)) {
                UP_GROW(k->skills, cap, k->nskills + 1);
                k->skills[k->nskills++] = sk;
                sk = NULL;
            }
            free(sk);
            free(md);
        }
        k->skills_dir = dir;
        dir = NULL;
    }
    up_strv_free(names);
    free(dir);
}

/* Every skill of k into k->loaded (all or none). */
static int load_skills(up_harbor_task *k, up_error *err)
{
    int rc = 0;

    if (k->nskills > UP_HARBOR_SKILLS_MAX)
        return up_error_set(err, UP_ETOOBIG,
                            "'%s': %zu skills, more than %d "
                            "(UP_HARBOR_SKILLS_MAX)",
                            k->skills_dir, k->nskills, UP_HARBOR_SKILLS_MAX);
    k->loaded = up_xcalloc(k->nskills, sizeof(*k->loaded));
    for (size_t i = 0; i < k->nskills; i++)
        up_skill_init(&k->loaded[i]);
    for (size_t i = 0; !rc && i < k->nskills; i++)
        rc = up_skill_load(&k->loaded[i], k->skills[i], err);
    k->has_skill = !rc;
    return rc;
}

/* Read task folder dir into k and classify it. */
/* The paths of a task that are read, relative to its folder. */
static const char *const task_paths[] = {
    "task.toml",          "instruction.md",
    "environment",        "environment/Dockerfile",
    "environment/skills", "tests",
    "tests/test.sh",      "solution",
    "solution/solve.sh",  NULL};

/* UP_EUNSAFE naming the path when path (in task k, resolved root) leads
 * outside the task's folder: a symlink to a host file would be sent to
 * the model, stored in the run files, or run as the verifier. */
static int leaves(const char *root, const char *path, up_error *err)
{
    struct stat st;

    if (lstat(path, &st) || up_fs_resolves_inside(root, path))
        return 0;
    return up_error_set(err, UP_EUNSAFE,
                        "'%s' leads outside the task folder (a symlink): "
                        "refused, nothing of it is read",
                        path);
}

/* Every path of task_paths checked by leaves(); tests/test.sh a
 * symlink even inside the task is not runnable: the verifier's files are
 * read without following links, so it would never run. */
static int task_inside(up_harbor_task *k, const char *dir, up_error *err)
{
    char *root = realpath(dir, NULL), *t = path2(dir, "tests/test.sh");
    struct stat st;
    int rc =
        root ? 0
             : up_error_set(err, UP_ENOTFOUND, "'%s': cannot resolve it", dir);

    for (size_t i = 0; !rc && task_paths[i]; i++) {
        char *p = path2(dir, task_paths[i]);

        rc = leaves(root, p, err);
        free(p);
    }
    if (!rc && !lstat(t, &st) && S_ISLNK(st.st_mode))
        why(k, "tests/test.sh is a symlink: the verifier's files are read "
               "without following links, so it could never run (make it a "
               "file)");
    free(root);
    free(t);
    return rc;
}

/* What in an instruction sends the student to the network (it cannot
 * be reached offline): a URL, a website, an online database named on a
 * line that asks to fetch from it (fetch_verbs: a URL cited as a
 * reference, "data from official websites is provided in /root/", asks
 * nothing), or an install, wherever it is. */
enum {
    MARK_WORD = 1,
    MARK_ALWAYS = 2
}; /* as written, a whole word;
     whatever the line asks */
static const struct {
    const char *text;
    int flags;
} online_marks[] = {
    {"http://", 0},
    {"https://", 0},
    {"ftp://", 0},
    {"www.", 0},
    {"website", 0},
    {"web site", 0},
    {"web page", 0},
    {"online database", 0},
    {"from the internet", 0},
    {"pip install", MARK_ALWAYS},
    {"pip3 install", MARK_ALWAYS},
    {"npm install", MARK_ALWAYS},
    {"conda install", MARK_ALWAYS},
    {"World Bank", 0},
    {"World Economic Outlook", 0},
    {"Yahoo Finance", 0},
    {"PubChem", 0},
    {"UniProt", 0},
    {"WEO", MARK_WORD},
    {"FRED", MARK_WORD},
    {"NCBI", MARK_WORD},
};

/* Words of a line that ask the student to fetch something (whole words,
 * case aside). */
static const char *const fetch_verbs[] = {
    "download", "fetch", "collect", "retrieve", "look up", "scrape",
    "crawl",    "visit", "browse",  "query",    "search",  "access",
    "find",     "get",   "go to",   "use",      NULL};

/* 1 when word w (case aside) is at p, whole, in text. */
static int word_at(const char *text, const char *p, const char *w)
{
    size_t n = strlen(w);

    return !strncasecmp(p, w, n) &&
           (p == text || !isalnum((unsigned char)p[-1])) &&
           !isalnum((unsigned char)p[n]);
}

/* 1 when text[0..n) at p is mark i (as a word when MARK_WORD). */
static int mark_at(const char *text, const char *p, size_t i)
{
    const char *m = online_marks[i].text;
    size_t n = strlen(m);

    if (!(online_marks[i].flags & MARK_WORD))
        return !strncasecmp(p, m, n);
    return !strncmp(p, m, n) && (p == text || !isalnum((unsigned char)p[-1])) &&
           !isalnum((unsigned char)p[n]);
}

/* 1 when the line [a, b) of text asks to fetch (a fetch verb on it). */
static int fetching(const char *text, const char *a, const char *b)
{
    for (const char *p = a; p < b; p++)
        for (size_t v = 0; fetch_verbs[v]; v++)
            if (word_at(text, p, fetch_verbs[v]))
                return 1;
    return 0;
}

/* The line of text's first mark i that counts (MARK_ALWAYS, or on a
 * line that asks to fetch), or 0 when it has none. */
static int mark_line(const char *text, size_t i)
{
    int line = 1;
    const char *start = text;

    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            line++;
            start = p + 1;
        } else if (mark_at(text, p, i) &&
                   ((online_marks[i].flags & MARK_ALWAYS) ||
                    fetching(text, start, start + strcspn(start, "\n")))) {
            return line;
        }
    }
    return 0;
}

/* When the instruction text sends the student to the network, why(k)
 * says with which words, each at its first line. */
static void online_why(up_harbor_task *k, const char *text)
{
    up_buf b = UP_BUF_INIT;
    size_t n = 0;

    up_buf_adds(&b, "instruction.md sends the student to the network: ");
    for (size_t i = 0; i < sizeof(online_marks) / sizeof(*online_marks); i++) {
        int line = mark_line(text, i);

        if (line)
            up_buf_addf(&b, "%s'%s' (line %d)", n++ ? ", " : "",
                        online_marks[i].text, line);
    }
    up_buf_adds(&b, ": not reachable here (--online-instructions runs it "
                    "all the same)");
    if (n)
        why(k, b.data);
    up_buf_release(&b);
}

/* The skills' folders of task k (in dir) checked by leaves(). */
static int skills_inside(const up_harbor_task *k, const char *dir,
                         up_error *err)
{
    char *root = realpath(dir, NULL);
    int rc = 0;

    for (size_t i = 0; root && !rc && i < k->nskills; i++)
        rc = leaves(root, k->skills[i], err);
    free(root);
    return rc;
}

static int read_task(up_harbor_task *k, const char *dir, up_docker *d,
                     int online_ok, up_error *err)
{
    char *t = path2(dir, "tests/test.sh"), *in = path2(dir, "instruction.md");
    int rc;

    k->runnable = 1;
    rc = task_inside(k, dir, err);
    if (!rc)
        rc = read_toml(k, err);
    if (!rc)
        rc = classify(k, d, err);
    if (!rc && !up_fs_is_file(in))
        why(k, "no instruction.md");
    else if (!rc && !online_ok) {
        up_buf text = UP_BUF_INIT;

        rc = up_fs_read(&text, in, UP_HARBOR_TEXT_MAX, err);
        if (!rc && text.len && !memchr(text.data, 0, text.len))
            online_why(k, text.data);
        up_buf_release(&text);
    }
    if (!rc && !up_fs_is_file(t))
        why(k, "no tests/test.sh (the verifier)");
    if (!rc)
        find_skills(k);
    if (!rc) /* its skills' folders too, once found */
        rc = skills_inside(k, dir, err);
    if (!rc && k->nskills)
        rc = load_skills(k, err);
    free(t);
    free(in);
    return rc;
}

/* ---- the case ---- */

/* 1 when host (existing) resolves inside folder root (resolved):
 * a symlinked folder of the task must not seed a file of the host. */
static int inside(const char *host, const char *root)
{
    return up_fs_resolves_inside(root, host);
}

/* One COPY of environment/ (env, resolved) into f, at its place under
 * the WORKDIR. */
static int copy_one(struct files *f, const char *env, const char *workdir,
                    const up_docker_copy *cp, up_error *err)
{
    char *host = strcmp(cp->src, ".") ? path2(env, cp->src) : up_xstrdup(env);
    up_buf r = UP_BUF_INIT, base = UP_BUF_INIT;
    char *rel;
    int rc = 0;

    seed_path(cp->dest, workdir, &r); /* check_copies took it */
    rel = up_xstrdup(r.data ? r.data : "");
    /* a file copied into a folder (or onto the WORKDIR itself, a folder)
     * keeps its name */
    if ((cp->into || !rel[0]) && !up_fs_is_dir(host)) {
        up_fs_basename(&base, host);
        up_buf_reset(&r);
        up_fs_join(&r, rel, base.data);
    }
    free(rel);
    if (up_fs_exists(host) && !inside(host, env))
        rc = up_error_set(err, UP_EUNSAFE,
                          "COPY of '%s': it leads outside environment/",
                          cp->src);
    if (!rc)
        rc = walk_one(f, host, r.data ? r.data : "", 0, err);
    free(host);
    up_buf_release(&r);
    up_buf_release(&base);
    return rc;
}

/* A COPY whose source is a wildcard (`COPY *.cif /root/`), each match
 * under env (resolved) copied in turn, as Docker does: into dest when
 * there are several (or dest is a folder).  No match is an error, as in
 * Docker. */
static int copy_glob(struct files *f, const char *env, const char *workdir,
                     const up_docker_copy *cp, up_error *err)
{
    char *pat = path2(env, cp->src);
    size_t n = strlen(env) + 1;
    glob_t g;
    int grc = glob(pat, GLOB_NOSORT, NULL, &g), rc = 0;

    if (grc == GLOB_NOMATCH)
        rc = up_error_set(err, UP_ENOTFOUND,
                          "COPY of '%s': no file of environment/ matches it",
                          cp->src);
    else if (grc)
        rc = up_error_set(err, UP_EIO, "COPY of '%s': cannot expand it",
                          cp->src);
    if (!rc)
        qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), cmp_str);
    for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
        up_docker_copy one = {g.gl_pathv[i] + n, cp->dest,
                              cp->into || g.gl_pathc > 1};

        rc = strncmp(g.gl_pathv[i], env, n - 1)
                 ? up_error_set(err, UP_EUNSAFE,
                                "COPY of '%s': it leads outside environment/",
                                cp->src)
                 : copy_one(f, env, workdir, &one, err);
    }
    globfree(&g);
    free(pat);
    return rc;
}

/* COPY'd files and mkdir'd folders under the WORKDIR into f. */
static int seed(struct files *f, const up_harbor_task *k, const up_docker *d,
                up_error *err)
{
    char *given = path2(k->dir, "environment");
    char *env = realpath(given, NULL);
    char *skills = k->skills_dir ? realpath(k->skills_dir, NULL) : NULL;
    up_buf rel = UP_BUF_INIT;
    int rc = 0;

    /* COPY . must not seed the skills (walk compares resolved paths) */
    f->skip = skills;
    if (!env && d->ncopies)
        rc = up_error_set(err, UP_ENOTFOUND, "'%s': no such folder", given);
    for (size_t i = 0; !rc && i < d->nmkdirs; i++)
        if (seed_path(d->mkdirs[i], k->workdir, &rel) && rel.len)
            rc = add_entry(f, rel.data, NULL, 0, err);
    for (size_t i = 0; !rc && i < d->ncopies; i++)
        rc = strpbrk(d->copies[i].src, "*?[")
                 ? copy_glob(f, env, k->workdir, &d->copies[i], err)
                 : copy_one(f, env, k->workdir, &d->copies[i], err);
    f->skip = NULL;
    up_buf_release(&rel);
    free(given);
    free(env);
    free(skills);
    return rc;
}

/* tests/test.sh among the check files, as text, or NULL. */
static char *test_sh(const up_fs_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].data && !strcmp(v[i].path, "test.sh") &&
            !memchr(v[i].data, 0, v[i].len))
            return up_xstrndup(v[i].data, v[i].len);
    return NULL;
}

/* The task's one verifier assertion into a, as JSON: its threshold, and
 * the offline test.sh when it installs from the network. */
static void verifier_json(up_buf *a, const up_harbor_task *k,
                          const up_fs_entry *tests, size_t n)
{
    json_t *v =
        json_pack("{s:s, s:f}", "type", "verifier", "threshold", k->threshold);
    json_t *l = json_array();
    up_buf cmd = UP_BUF_INIT;
    char *sh = test_sh(tests, n), *text;

    if (up_harbor_offline_verifier(sh, &cmd))
        json_object_set_new(v, "value", json_string(cmd.data));
    json_array_append_new(l, v);
    text = json_dumps(l, JSON_COMPACT);
    up_buf_adds(a, text ? text : "[]");
    free(text);
    json_decref(l);
    up_buf_release(&cmd);
    free(sh);
}

/* The places outside the WORKDIR the case's seed holds (each
 * UP_SANDBOX_PLACES/<name> of seed[0..n)), in the suite's memory,
 * NULL-ended; NULL when none. */
static char **case_places(up_suite *s, const up_fs_entry *seed, size_t n)
{
    const size_t k = strlen(UP_SANDBOX_PLACES);
    char **v = NULL;
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        const char *p = seed[i].path, *name = p + k;
        size_t len = strcspn(name + (*name == '/'), "/") + 1;
        int seen = 0;

        if (strncmp(p, UP_SANDBOX_PLACES, k) || name[0] != '/' || len < 2)
            continue;
        for (size_t j = 0; j < m; j++)
            seen |= strlen(v[j]) == len && !strncmp(v[j], name, len);
        if (seen)
            continue;
        if (!v) /* a place per seed entry at most */
            v = up_arena_alloc(&s->mem, (n + 1) * sizeof(*v));
        v[m++] = up_arena_strndup(&s->mem, name, len);
        v[m] = NULL;
    }
    return v;
}

/* The Dockerfile's ENV words in the suite's memory, or NULL. */
static char **case_env(up_suite *s, const up_docker *d)
{
    char **v =
        d->nenv ? up_arena_alloc(&s->mem, (d->nenv + 1) * sizeof(*v)) : NULL;

    for (size_t i = 0; i < d->nenv; i++)
        v[i] = up_arena_strndup(&s->mem, d->env[i], strlen(d->env[i]));
    if (v)
        v[d->nenv] = NULL;
    return v;
}

static int add_case(up_suite *s, up_harbor_task *k, const up_docker *d,
                    up_error *err)
{
    struct files sd = {.mem = &s->mem,
                       .max_n = UP_HARBOR_SEED_FILES,
                       .max_bytes = UP_HARBOR_SEED_BYTES,
                       .limit = "UP_HARBOR_SEED_BYTES"};
    struct files tf = {.mem = &s->mem,
                       .max_n = UP_CASE_CHECK_FILES_MAX,
                       .max_bytes = UP_CASE_CHECK_BYTES,
                       .limit = "UP_CASE_CHECK_BYTES"};
    struct files sf = {.mem = &s->mem,
                       .max_n = UP_HARBOR_SEED_FILES,
                       .max_bytes = UP_HARBOR_SEED_BYTES,
                       .limit = "UP_HARBOR_SEED_BYTES"};
    char *in = path2(k->dir, "instruction.md"), *tests = path2(k->dir, "tests");
    char *sol = path2(k->dir, "solution");
    struct stat st;
    up_buf text = UP_BUF_INIT, a = UP_BUF_INIT;
    up_case c;
    up_case_task *t;
    int rc = up_fs_read(&text, in, UP_HARBOR_TEXT_MAX, err);

    memset(&c, 0, sizeof(c));
    t = up_case_task_mut(&c, &s->mem);
    if (!rc)
        rc = seed(&sd, k, d, err);
    if (!rc)
        rc = walk(&tf, tests, "", 0, err);
    if (!rc && !lstat(sol, &st) && S_ISDIR(st.st_mode)) /* the oracle's */
        rc = walk(&sf, sol, "", 0, err);
    t->nsolution = sf.n;
    if (!rc && sf.n && d->nskill_dests && k->skills_dir) /* as copied */
        rc = walk_one(&sf, k->skills_dir, ".skills", 0, err);
    t->seed = files_done(&sd, &t->nseed);
    t->check_files = files_done(&tf, &t->ncheck_files);
    t->solution = files_done(&sf, &t->nsolution_all);
    if (!rc) {
        up_buf links = UP_BUF_INIT;

        verifier_json(&a, k, t->check_files, t->ncheck_files);
        up_harbor_skill_links(&links, d, k->workdir);
        t->skill_links =
            links.len ? up_arena_strndup(&s->mem, links.data, links.len) : NULL;
        up_buf_release(&links);
        c.input =
            up_arena_strndup(&s->mem, text.len ? text.data : "", text.len);
        c.assert_json = up_arena_strndup(&s->mem, a.data, a.len);
        t->workdir = up_arena_strndup(&s->mem, k->workdir, strlen(k->workdir));
        t->places = case_places(s, t->seed, t->nseed);
        t->env = case_env(s, d);
        t->run_wall_s = k->agent_s;
        t->check_wall_s = k->verifier_s;
        t->skills = k->loaded;
        t->nskills = k->nskills;
        size_t cap = s->ncases; /* the suite keeps no capacity */

        UP_GROW(s->cases, cap, s->ncases + 1);
        s->cases[s->ncases++] = c;
    }
    up_buf_release(&text);
    up_buf_release(&a);
    free(in);
    free(tests);
    free(sol);
    return rc;
}

/* ---- the set ---- */

/* The task folders of dir into *dirs: dir itself when it holds a
 * task.toml, else its sub-folders that do. */
static int task_dirs(char ***dirs, size_t *n, const char *dir, up_error *err)
{
    char *own = path2(dir, "task.toml");
    char **names = NULL;
    size_t m = 0, cap = 0;
    int rc = 0;

    *dirs = NULL;
    *n = 0;
    if (up_fs_is_file(own)) {
        UP_GROW(*dirs, cap, 1);
        (*dirs)[(*n)++] = up_xstrdup(dir);
    } else {
        rc = up_fs_list(&names, &m, dir, err);
    }
    for (size_t i = 0; !rc && i < m; i++) {
        char *sub = path2(dir, names[i]), *toml = path2(sub, "task.toml");

        if (names[i][0] != '.' && up_fs_is_file(toml)) {
            UP_GROW(*dirs, cap, *n + 1);
            (*dirs)[(*n)++] = sub;
            sub = NULL;
        }
        free(sub);
        free(toml);
    }
    up_strv_free(names);
    free(own);
    if (!rc && !*n)
        rc = up_error_set(err, UP_ENOTFOUND,
                          "'%s': no Harbor task here (a folder holding "
                          "task.toml, or a folder of them)",
                          dir);
    if (!rc && *n > UP_HARBOR_TASKS_MAX)
        rc = up_error_set(err, UP_ETOOBIG,
                          "'%s': %zu tasks, more than %d "
                          "(UP_HARBOR_TASKS_MAX)",
                          dir, *n, UP_HARBOR_TASKS_MAX);
    return rc;
}

/* ---- the verdicts file (--sound) ---- */

/* Check that every non-empty line of text (from file) is NAME, a tab,
 * one of UP_HARBOR_VERDICTS; else UP_EPARSE naming file:line. */
static int verdicts_check(const char *text, const char *file, up_error *err)
{
    static const char *const verdicts[] = UP_HARBOR_VERDICTS;
    int line = 1;

    for (const char *p = text; *p; line++) {
        size_t len = strcspn(p, "\n"), name = strcspn(p, "\t\n");
        int ok = len == 0;

        for (size_t i = 0; !ok && i < sizeof(verdicts) / sizeof(*verdicts); i++)
            ok = name && name < len && len - name - 1 == strlen(verdicts[i]) &&
                 !strncmp(p + name + 1, verdicts[i], len - name - 1);
        if (!ok)
            return up_error_set(err, UP_EPARSE,
                                "'%s':%d: expected a task's name, a tab, "
                                "then 'sound', 'sound in the skill arm only' "
                                "or 'not sound' (what --check --sound writes)",
                                file, line);
        p += len + (p[len] == '\n');
    }
    return 0;
}

/* Task name's verdict in the verdicts text (checked), as a new string;
 * "not checked" when it has none. */
static char *verdict_of(const char *text, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");

        if (len > n && !strncmp(p, name, n) && p[n] == '\t')
            return up_xstrndup(p + n + 1, len - n - 1);
        p += len + (p[len] == '\n');
    }
    return up_xstrdup("not checked");
}

/* A task left out for want of a verdict (not checked: the verdicts file
 * does not name it) is read all the same, into a suite of its own, so one
 * that cannot run (a file its Dockerfile copies is missing) says so
 * rather than "not checked". */
static void unverdicted(up_harbor_task *k, const up_docker *d)
{
    up_suite t;
    up_error e;

    up_suite_init(&t);
    if (add_case(&t, k, d, &e)) {
        why(k, e.msg);
        free(k->left_out);
        k->left_out = NULL;
    }
    up_suite_release(&t);
}

/* Read task folder dir into k (classified), and when it can run, into
 * s as a case: every runnable task when check (the case then dropped,
 * so --check sees what an eval would refuse), else those with skills
 * that verdicts (a verdicts file's text, or NULL: all) marks sound.
 * A task that cannot be read is not runnable, saying why. */
static void load_task(up_harbor_task *k, const char *dir, up_suite *s,
                      int check, const char *verdicts, int online_ok)
{
    up_docker d = {0};
    up_buf b = UP_BUF_INIT;
    up_error e;

    up_fs_basename(&b, dir);
    k->dir = up_xstrdup(dir);
    k->name = up_buf_detach(&b);
    up_buf_init(&k->why);
    if (read_task(k, dir, &d, online_ok, &e)) {
        why(k, e.msg);
    } else if (k->runnable && !check && k->nskills && verdicts) {
        k->left_out = verdict_of(verdicts, k->name);
        if (!strcmp(k->left_out, "sound")) {
            free(k->left_out);
            k->left_out = NULL;
        }
    }
    if (k->runnable && (check || (k->nskills && !k->left_out)) &&
        add_case(s, k, &d, &e))
        why(k, e.msg);
    else if (k->runnable && k->left_out && !strcmp(k->left_out, "not checked"))
        unverdicted(k, &d);
    up_docker_release(&d);
}

int up_harbor_load(up_harbor_set *set, up_suite *s, const char *dir,
                   up_error *err)
{
    char **dirs = NULL;
    size_t n = 0;
    up_buf verdicts = UP_BUF_INIT;
    int rc = set->sound && s
                 ? up_fs_read(&verdicts, set->sound, UP_HARBOR_TEXT_MAX, err)
                 : 0;

    if (!rc && set->sound && s)
        rc =
            verdicts_check(verdicts.data ? verdicts.data : "", set->sound, err);
    if (!rc)
        rc = task_dirs(&dirs, &n, dir, err);

    /* sized once: cases point at their task's skills */
    if (!rc)
        set->v = up_xcalloc(n, sizeof(*set->v));
    for (size_t i = 0; !rc && i < n; i++) {
        up_suite scratch;

        up_suite_init(&scratch);
        load_task(&set->v[set->n++], dirs[i], s ? s : &scratch, !s,
                  set->sound && s ? (verdicts.data ? verdicts.data : "") : NULL,
                  set->online_ok);
        up_suite_release(&scratch);
    }
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    up_buf_release(&verdicts);
    return rc;
}

void up_harbor_release(up_harbor_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        up_harbor_task *k = &set->v[i];

        free(k->dir);
        free(k->name);
        free(k->workdir);
        free(k->skills_dir);
        free(k->left_out);
        up_buf_release(&k->why);
        for (size_t j = 0; j < k->nskills; j++) {
            free(k->skills[j]);
            if (k->loaded)
                up_skill_release(&k->loaded[j]);
        }
        free(k->skills);
        free(k->loaded);
    }
    free(set->v);
    memset(set, 0, sizeof(*set));
}
