/*
 * The agent's tools: one static table of rows (name, description,
 * JSON schema of the arguments, the checker's argument list, handler).
 *
 * up_tool_invoke is the one way in: it finds the row, parses and checks
 * the arguments against the row's list (so a handler sees only the
 * keys and types it declared), runs the handler, and counts the call,
 * the error and the time.  Everything a model can get wrong or try
 * (an unknown tool, broken JSON, a path out of the workspace, a write
 * over the caps) ends as a tool error: text the model reads, never a
 * failure of the run.  Work per call is bounded by the caps in w->lim.
 * A new tool (a CLI agent's names) is one more row; UP_TOOL_SLOW marks
 * a row ("run": a command in the sandbox) with a start handler, which
 * up_tool_begin starts so that the caller can wait for it in its own
 * poll loop instead of blocking (docs/agent-mode.md, "The run tool").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/workspace_int.h"
#include "upskill/alloc.h"
#include "upskill/esc.h"
#include "upskill/fs.h"
#include "upskill/http.h"
#include "util/json.h"

/* ---- argument access (the checker has validated them) ---- */

static const char *arg_str(const json_t *a, const char *key, size_t *len)
{
    json_t *v = json_object_get(a, key);

    if (len)
        *len = v ? json_string_length(v) : 0;
    return v ? json_string_value(v) : NULL;
}

static int arg_bool(const json_t *a, const char *key)
{
    return json_is_true(json_object_get(a, key));
}

/* 1 (a tool error) with the message "'<path>': <what>" in out. */
static int fail(up_buf *out, const char *path, const char *what)
{
    up_buf_addf(out, "'%s': %s", path, what);
    return 1;
}

/* Path argument "path": checked (an inner NUL shows here). */
static int get_path(up_workspace *w, const json_t *a, const char **path,
                    up_buf *out)
{
    size_t len;

    *path = arg_str(a, "path", &len);
    return up_ws_check_path(w, *path, len, out) ? 1 : 0;
}

/* ---- read_file ---- */

static int t_read(up_workspace *w, const json_t *a, up_buf *out)
{
    up_buf text = UP_BUF_INIT;
    const char *path;
    size_t size = 0, len = 0;
    int fd, rc = 0;

    if (get_path(w, a, &path, out))
        return 1;
    fd = up_ws_open_read(w, path, out);
    if (fd < 0)
        return 1;
    if (up_ws_read_fd(fd, w->lim.max_read, &text, &size, out))
        rc = 1;
    else
        len = up_ws_text_len(text.data, text.len, size > text.len);
    close(fd);
    if (!rc && len == (size_t)-1) {
        up_buf_addf(out, "'%s': not UTF-8 text (%zu bytes)", path, size);
        rc = 1;
    } else if (!rc) {
        up_buf_add(out, text.data, len);
        if (size > len)
            up_buf_addf(out,
                        "\n[cut: the file has %zu bytes, only the "
                        "first %zu are shown]",
                        size, len);
        up_workspace_note_use(w, path);
    }
    up_buf_release(&text);
    return rc;
}

/* ---- write_file / edit_file ---- */

/* Entries writing path would make: the file and each folder on its way
 * that does not exist yet (0 when the file exists); in *old the size of
 * the file it replaces. */
static size_t new_entries(const up_workspace *w, const char *path, size_t *old)
{
    char *p = up_xstrdup(path);
    size_t parts = 1, made = 0;
    struct stat st;

    *old = 0;
    if (!fstatat(w->dirfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
        *old = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
        free(p);
        return 0;
    }
    for (char *s = p; (s = strchr(s, '/')); s++)
        parts++;
    for (char *s = p; !made && (s = strchr(s, '/')); *s++ = '/') {
        *s = '\0';
        if (fstatat(w->dirfd, p, &st, AT_SYMLINK_NOFOLLOW))
            made = parts; /* this folder and all below it are new */
        parts--;
    }
    free(p);
    return made ? made : 1;
}

/* 1 with the reason in out when writing len bytes as path would take
 * the workspace past its quota (a write that shrinks a file is fine);
 * else 0 with the entries it makes in *made and the replaced size in
 * *old. */
static int over_quota(const up_workspace *w, const char *path, size_t len,
                      size_t *made, size_t *old, up_buf *out)
{
    size_t after;

    *made = new_entries(w, path, old);
    after = (w->used_bytes > *old ? w->used_bytes - *old : 0) + len;
    if (len > *old && after > w->lim.quota_bytes)
        return up_buf_addf(out,
                           "'%s': writing %zu bytes would take the "
                           "workspace to %zu bytes, over its quota of %zu "
                           "bytes (config workspace_max_bytes)",
                           path, len, after, w->lim.quota_bytes),
               1;
    if (*made && w->used_files + *made > w->lim.quota_files)
        return up_buf_addf(out,
                           "'%s': the workspace holds %zu files and "
                           "folders, its quota is %zu (config "
                           "workspace_max_files)",
                           path, w->used_files, w->lim.quota_files),
               1;
    return 0;
}

/* Write len bytes as path, within the caps and the quota. */
static int put(up_workspace *w, const char *path, const char *data, size_t len,
               up_buf *out)
{
    int created, fd, rc = 0;
    size_t made, old;

    if (len > w->lim.max_write)
        return up_buf_addf(out,
                           "'%s': %zu bytes is over the cap of %zu per "
                           "write",
                           path, len, w->lim.max_write),
               1;
    if (w->written + len > w->lim.max_total)
        return up_buf_addf(out,
                           "'%s': the workspace's cap of %zu bytes "
                           "written in all would be passed",
                           path, w->lim.max_total),
               1;
    if (w->created >= w->lim.max_files) {
        struct stat st;

        if (fstatat(w->dirfd, path, &st, AT_SYMLINK_NOFOLLOW))
            return up_buf_addf(out,
                               "'%s': the workspace's cap of %zu new "
                               "files is reached",
                               path, w->lim.max_files),
                   1;
    }
    if (over_quota(w, path, len, &made, &old, out))
        return 1;
    fd = up_ws_open_write(w, path, 0644, &created, out);
    if (fd < 0)
        return 1;
    w->created += (size_t)created;
    w->used_files += made;
    w->used_bytes = w->used_bytes > old ? w->used_bytes - old : 0;
    if (up_fs_write_all(fd, data, len)) {
        up_buf_addf(out, "'%s': cannot write: %s", path, strerror(errno));
        rc = 1;
    } else {
        w->written += len;
        w->used_bytes += len;
        up_buf_addf(out, "wrote %zu bytes to '%s'", len, path);
    }
    close(fd);
    return rc;
}

static int t_write(up_workspace *w, const json_t *a, up_buf *out)
{
    const char *path, *content;
    size_t len;

    if (get_path(w, a, &path, out))
        return 1;
    content = arg_str(a, "content", &len);
    return put(w, path, content, len, out);
}

/* Occurrences of needle (n bytes) in hay (h bytes), at most 2 unless
 * all. */
static size_t count(const char *hay, size_t h, const char *needle, size_t n,
                    int all)
{
    size_t c = 0;

    for (const char *p = hay; (p = memmem(p, h - (size_t)(p - hay), needle, n));
         p += n)
        if (++c > 1 && !all)
            break;
    return c;
}

static void replace(up_buf *res, const char *hay, size_t h, const char *old,
                    size_t n, const char *new, size_t m)
{
    const char *p = hay, *q;

    while ((q = memmem(p, h - (size_t)(p - hay), old, n))) {
        up_buf_add(res, p, (size_t)(q - p));
        up_buf_add(res, new, m);
        p = q + n;
    }
    up_buf_add(res, p, h - (size_t)(p - hay));
}

/* The edited file's size when it stays within max (the file's h bytes
 * are), else (size_t)-1: worked out before the result is built, so a
 * replace_all of a short string by a long one never allocates its
 * product (c * m can pass any cap, and size_t). */
static size_t edited_size(size_t h, size_t c, size_t n, size_t m, size_t max)
{
    size_t kept = h - c * n; /* the occurrences do not overlap */

    if (m && c > (max - kept) / m)
        return (size_t)-1;
    return kept + c * m;
}

/* Why old_string (c occurrences) cannot be replaced in the file of size
 * bytes into out, or 0 when it can. */
static int edit_refused(const up_workspace *w, const json_t *a,
                        const char *path, size_t size, size_t c, size_t n,
                        up_buf *out)
{
    size_t m, max = w->lim.max_write;

    arg_str(a, "new_string", &m);
    if (size > max)
        up_buf_addf(out, "'%s': over the cap of %zu bytes per write", path,
                    max);
    else if (!c)
        up_buf_addf(out, "'%s': old_string not found", path);
    else if (c > 1 && !arg_bool(a, "replace_all"))
        up_buf_addf(out,
                    "'%s': old_string occurs more than once; give "
                    "more context to make it unique, or set "
                    "replace_all",
                    path);
    else if (edited_size(size, c, n, m, max) == (size_t)-1)
        up_buf_addf(out,
                    "'%s': replacing %zu occurrences would make the file "
                    "larger than the cap of %zu bytes per write",
                    path, c, max);
    else
        return 0;
    return 1;
}

static int t_edit(up_workspace *w, const json_t *a, up_buf *out)
{
    up_buf text = UP_BUF_INIT, res = UP_BUF_INIT;
    const char *path, *old, *new;
    size_t n, m, size = 0;
    int fd, rc = 1;

    if (get_path(w, a, &path, out))
        return 1;
    old = arg_str(a, "old_string", &n);
    new = arg_str(a, "new_string", &m);
    if (!n)
        return fail(out, path, "old_string is empty");
    fd = up_ws_open_read(w, path, out);
    if (fd < 0)
        return 1;
    if (!up_ws_read_fd(fd, w->lim.max_write, &text, &size, out))
        rc = edit_refused(
            w, a, path, size,
            count(text.data, text.len, old, n, arg_bool(a, "replace_all")), n,
            out);
    close(fd);
    if (!rc) {
        replace(&res, text.data, text.len, old, n, new, m);
        rc = put(w, path, res.data, res.len, out);
    }
    up_buf_release(&text);
    up_buf_release(&res);
    return rc;
}

/* ---- list_files ---- */

struct lister {
    up_workspace *w;
    up_buf *out;
    size_t n;
};

static void list_dir(struct lister *l, int fd, const char *prefix, int rec,
                     size_t depth)
{
    DIR *d = fdopendir(fd);
    struct dirent *e;

    if (!d) {
        close(fd);
        return;
    }
    while ((e = readdir(d)) && l->n <= l->w->lim.max_list) {
        struct stat st;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        if (++l->n > l->w->lim.max_list)
            break;
        up_buf_addf(l->out, "%s%s%s\n", prefix, e->d_name,
                    S_ISDIR(st.st_mode)   ? "/"
                    : S_ISLNK(st.st_mode) ? "@"
                                          : "");
        if (rec && S_ISDIR(st.st_mode) && depth < l->w->lim.max_depth) {
            int sub = openat(fd, e->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            up_buf p = UP_BUF_INIT;

            up_buf_addf(&p, "%s%s/", prefix, e->d_name);
            if (sub >= 0)
                list_dir(l, sub, p.data, rec, depth + 1);
            up_buf_release(&p);
        }
    }
    closedir(d);
}

static int t_list(up_workspace *w, const json_t *a, up_buf *out)
{
    size_t len = 0;
    const char *path = arg_str(a, "path", &len);
    struct lister l = {w, out, 0};
    up_buf prefix = UP_BUF_INIT;
    int fd;

    if (!path || (len == 1 && *path == '.'))
        path = "";
    else if (len && up_ws_check_path(w, path, len, out))
        return 1;
    fd = up_ws_open_dir(w, path, 0, out);
    if (fd < 0)
        return 1;
    if (*path)
        up_buf_addf(&prefix, "%s/", path);
    list_dir(&l, fd, prefix.data, arg_bool(a, "recursive"), 1);
    if (l.n > w->lim.max_list)
        up_buf_addf(out, "[cut: more than %zu entries]\n", w->lim.max_list);
    else if (!l.n)
        up_buf_adds(out, "(empty)\n");
    up_buf_release(&prefix);
    return 0;
}

/* ---- run ---- */

struct up_tool_pending {
    up_workspace *w;
    size_t row; /* counter row */
    long t0;    /* start of the call (up_http_now_ms) */
    up_sandbox_run *run;
    int over; /* step gave 1 */
};

/* Note the installed skill's scripts/ files the command line names by
 * their path from the workspace (".agents/skills/<name>/scripts/x.py"). */
static void note_scripts(up_workspace *w, const char *cmd)
{
    up_buf pre = UP_BUF_INIT;
    const char *p = cmd;

    if (!w->skill_dir)
        return;
    up_buf_addf(&pre, "%s/scripts/", w->skill_dir);
    while ((p = strstr(p, pre.data))) {
        size_t n = strcspn(p, " \t\r\n;&|<>'\"()`$");
        char *rel = up_xstrndup(p, n);

        up_workspace_note_use(w, rel);
        free(rel);
        p += n;
    }
    up_buf_release(&pre);
}

/* The run tool's limits for w: no file larger than the quota's room. */
static up_sandbox_limits run_limits(const up_workspace *w)
{
    up_sandbox_limits l = w->run_lim;
    size_t room = w->used_bytes < w->lim.quota_bytes
                      ? w->lim.quota_bytes - w->used_bytes
                      : 1; /* 0 would be no limit */

    if (!l.fsize_bytes || l.fsize_bytes > room)
        l.fsize_bytes = room;
    /* under bwrap the workspace is a file system of the quota's size
     * while the call runs: no write gets past it (sandbox_bound.c) */
    l.ws_bytes = w->lim.quota_bytes;
    l.ws_files = w->lim.quota_files;
    return l;
}

/* 1 with the reason in out when w is over its quota (a command broke
 * it): run calls are refused then, since any could add more. */
static int over_quota_now(const up_workspace *w, up_buf *out)
{
    if (w->used_files <= w->lim.quota_files &&
        w->used_bytes <= w->lim.quota_bytes)
        return 0;
    up_buf_addf(out,
                "the workspace is over its quota (%zu bytes, %zu files "
                "and folders: config workspace_max_bytes, "
                "workspace_max_files); run is refused while it is",
                w->lim.quota_bytes, w->lim.quota_files);
    return 1;
}

static int t_run_start(up_workspace *w, const json_t *a, up_tool_pending **p,
                       up_buf *out)
{
    size_t len;
    const char *cmd = arg_str(a, "command", &len);
    up_sandbox_run *r = NULL;
    up_sandbox_limits lim = run_limits(w);
    up_sandbox_extra x = {NULL, NULL, w->env,   w->workdir,
                          NULL, NULL, w->places};
    up_error err;

    *p = NULL;
    if (!len || strlen(cmd) != len)
        return up_buf_adds(out, "command is empty or holds a NUL byte"), 1;
    if (over_quota_now(w, out))
        return 1;
    if (up_sandbox_start_with(&r, w->sandbox, w->path, cmd, &lim, &x, &err))
        return up_buf_addf(out, "cannot start the command: %s", err.msg), 1;
    note_scripts(w, cmd);
    *p = up_xcalloc(1, sizeof(**p));
    (*p)->w = w;
    (*p)->run = r;
    return 0;
}

/* One stream of the result, escaped, with its cut marked. */
static void add_stream(up_buf *out, const char *name, const up_buf *b, int cut)
{
    if (!b->len && !cut)
        return;
    up_buf_addf(out, "--- %s ---\n", name);
    up_esc_ctrl(out, b->data, b->len, UP_ESC_MULTILINE);
    if (b->len && b->data[b->len - 1] != '\n')
        up_buf_adds(out, "\n");
    if (cut)
        up_buf_addf(out, "[cut: only the first %zu bytes of %s are shown]\n",
                    b->len, name);
}

/* The result as the model reads it; 1 (a tool error) for a broken limit. */
static int run_text(const up_sandbox_result *res, up_buf *out)
{
    if (res->limit != UP_SANDBOX_OK)
        up_buf_addf(out, "the command broke a limit: %s; it was stopped%s\n",
                    res->limit_text,
                    res->limit == UP_SANDBOX_QUOTA
                        ? ", and what it wrote in the workspace in this "
                          "call was discarded"
                        : "");
    up_buf_addf(out, "exit code: %d", res->exit_code);
    if (res->signal)
        up_buf_addf(out, " (killed by signal %d)", res->signal);
    up_buf_adds(out, "\n");
    add_stream(out, "stdout", &res->out, res->out_cut);
    add_stream(out, "stderr", &res->err, res->err_cut);
    return res->limit != UP_SANDBOX_OK;
}

/* p's command has ended (or is given up on): its result, free p: 0 or 1.
 * What the command left is measured: past the quota the call is a tool
 * error saying so. */
static int run_end(up_tool_pending *p, up_buf *out)
{
    up_sandbox_result res;
    up_buf why = UP_BUF_INIT;
    up_error err;
    int rc;

    if (up_sandbox_finish(p->run, &res, &err)) {
        up_buf_addf(out, "the command failed: %s", err.msg);
        rc = 1;
    } else {
        rc = run_text(&res, out);
        up_sandbox_result_release(&res);
    }
    if (up_workspace_usage(p->w, &why)) {
        up_buf_addf(out,
                    "the command broke the workspace's quota: %s; run is "
                    "refused while it is over\n",
                    why.data);
        rc = 1;
    }
    up_buf_release(&why);
    free(p);
    return rc;
}

static int t_run(up_workspace *w, const json_t *a, up_buf *out)
{
    up_tool_pending *p;

    if (t_run_start(w, a, &p, out))
        return 1;
    up_sandbox_wait(p->run); /* the synchronous way in: tests, no loop */
    return run_end(p, out);
}

/* ---- the table ---- */

static const up_tool_arg read_args[] = {{"path", UP_TOOL_ARG_STRING, 1},
                                        {NULL, 0, 0}};
static const up_tool_arg write_args[] = {{"path", UP_TOOL_ARG_STRING, 1},
                                         {"content", UP_TOOL_ARG_STRING, 1},
                                         {NULL, 0, 0}};
static const up_tool_arg list_args[] = {{"path", UP_TOOL_ARG_STRING, 0},
                                        {"recursive", UP_TOOL_ARG_BOOL, 0},
                                        {NULL, 0, 0}};
static const up_tool_arg edit_args[] = {{"path", UP_TOOL_ARG_STRING, 1},
                                        {"old_string", UP_TOOL_ARG_STRING, 1},
                                        {"new_string", UP_TOOL_ARG_STRING, 1},
                                        {"replace_all", UP_TOOL_ARG_BOOL, 0},
                                        {NULL, 0, 0}};
static const up_tool_arg run_args[] = {{"command", UP_TOOL_ARG_STRING, 1},
                                       {NULL, 0, 0}};

static const up_tool tools[] = {
    {"read_file",
     "Read a text file of the workspace. path is relative to the "
     "workspace folder. Long files are cut and say so.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
     "\"description\":\"file path relative to the workspace\"}},"
     "\"required\":[\"path\"],\"additionalProperties\":false}",
     read_args, 0, t_read, NULL},
    {"write_file",
     "Create or replace a file of the workspace with content. Folders are "
     "made as needed. path is relative to the workspace folder.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
     "\"description\":\"file path relative to the workspace\"},"
     "\"content\":{\"type\":\"string\",\"description\":\"the whole new "
     "content\"}},\"required\":[\"path\",\"content\"],"
     "\"additionalProperties\":false}",
     write_args, 0, t_write, NULL},
    {"list_files",
     "List the files and folders of a workspace folder (default: the "
     "workspace itself). Folders end in '/'. recursive lists subfolders "
     "too.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
     "\"description\":\"folder relative to the workspace; default "
     "'.'\"},\"recursive\":{\"type\":\"boolean\"}},"
     "\"additionalProperties\":false}",
     list_args, 0, t_list, NULL},
    {"edit_file",
     "Replace old_string by new_string in a file of the workspace. "
     "old_string must occur exactly once, unless replace_all is true, "
     "which replaces every occurrence.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
     "\"description\":\"file path relative to the workspace\"},"
     "\"old_string\":{\"type\":\"string\",\"description\":\"exact text to "
     "replace\"},\"new_string\":{\"type\":\"string\",\"description\":"
     "\"replacement text\"},\"replace_all\":{\"type\":\"boolean\"}},"
     "\"required\":[\"path\",\"old_string\",\"new_string\"],"
     "\"additionalProperties\":false}",
     edit_args, 0, t_edit, NULL},
    {"run",
     "Run a shell command line (/bin/sh -c) in the workspace folder, in a "
     "sandbox: no network, the system read-only, only the folder "
     "writable, limits on time, memory, file size, processes and output. "
     "Returns the exit code, stdout and stderr (long output is cut and "
     "says so).",
     "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":"
     "\"string\",\"description\":\"the command line, run by /bin/sh -c "
     "in the workspace folder\"}},\"required\":[\"command\"],"
     "\"additionalProperties\":false}",
     run_args, UP_TOOL_SLOW, t_run, t_run_start},
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))
_Static_assert(NTOOLS < UP_TOOL_ROWS, "room for the unknown row");

const up_tool *up_tool_table(size_t *n)
{
    if (n)
        *n = NTOOLS;
    return tools;
}

const up_tool *up_tool_find(const char *name)
{
    for (size_t i = 0; name && i < NTOOLS; i++)
        if (!strcmp(tools[i].name, name))
            return &tools[i];
    return NULL;
}

const char *up_tool_stat_name(size_t i)
{
    if (i < NTOOLS)
        return tools[i].name;
    return i == NTOOLS ? "unknown" : NULL;
}

/* ---- the call ---- */

static const char *const type_names[] = {"a string", "a boolean", "an integer"};

static int type_ok(const json_t *v, int type)
{
    switch (type) {
    case UP_TOOL_ARG_STRING:
        return json_is_string(v);
    case UP_TOOL_ARG_BOOL:
        return json_is_boolean(v);
    default:
        return json_is_integer(v);
    }
}

/* Check args against the row's list: required, types, no other key. */
static int check_args(const up_tool *t, const json_t *args, up_buf *out)
{
    const char *key;
    json_t *v;

    for (const up_tool_arg *a = t->args; a->name; a++) {
        v = json_object_get(args, a->name);
        if (!v && a->required)
            return up_buf_addf(out, "missing argument '%s'", a->name), 1;
        if (v && !type_ok(v, a->type))
            return up_buf_addf(out, "argument '%s' must be %s", a->name,
                               type_names[a->type]),
                   1;
    }
    json_object_foreach((json_t *)args, key, v)
    {
        const up_tool_arg *a = t->args;

        while (a->name && strcmp(a->name, key))
            a++;
        if (!a->name)
            return up_buf_addf(out,
                               "unknown argument '%.64s' (%s takes "
                               "the arguments of its schema)",
                               key, t->name),
                   1;
    }
    return 0;
}

/* Parse the model's argument text into an object. */
static json_t *parse_args(const up_workspace *w, const char *text, size_t len,
                          up_buf *out)
{
    json_error_t je;
    json_t *v;
    size_t i = 0;

    if (len > w->lim.max_args) {
        up_buf_addf(out, "arguments over the cap of %zu bytes",
                    w->lim.max_args);
        return NULL;
    }
    while (i < len && strchr(" \t\r\n", text[i]))
        i++;
    if (i == len)
        return json_object();
    v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!v) {
        up_buf_addf(out, "arguments are not valid JSON: %s", je.text);
        return NULL;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        up_buf_adds(out, "arguments must be a JSON object");
        return NULL;
    }
    return v;
}

static void count_call(up_workspace *w, size_t row, int rc, long t0)
{
    w->stat[row].calls++;
    w->stat[row].errors += rc;
    w->stat[row].time_ms += (double)(up_http_now_ms() - t0);
}

/* Find, parse and check: the row's index (NTOOLS: unknown) and *a, or
 * NULL with the tool error in out. */
static size_t prepare(up_workspace *w, const char *name, const char *args,
                      size_t len, json_t **a, up_buf *out)
{
    const up_tool *t = up_tool_find(name);

    *a = NULL;
    if (t && (t->flags & UP_TOOL_SLOW) && !w->run_tool)
        t = NULL; /* not offered in this run: as if it did not exist */
    if (!t) {
        up_buf_addf(out,
                    "unknown tool '%.64s'; the tools are:", name ? name : "");
        for (size_t i = 0; i < NTOOLS; i++)
            if (!(tools[i].flags & UP_TOOL_SLOW) || w->run_tool)
                up_buf_addf(out, " %s", tools[i].name);
        return NTOOLS;
    }
    *a = parse_args(w, args ? args : "", args ? len : 0, out);
    if (*a && check_args(t, *a, out)) {
        json_decref(*a);
        *a = NULL;
    }
    return (size_t)(t - tools);
}

int up_tool_invoke(up_workspace *w, const char *name, const char *args,
                   size_t len, up_buf *out)
{
    long t0 = up_http_now_ms();
    json_t *a;
    size_t row = prepare(w, name, args, len, &a, out);
    int rc = a ? (tools[row].run(w, a, out) ? 1 : 0) : 1;

    json_decref(a);
    count_call(w, row, rc, t0);
    return rc;
}

int up_tool_begin(up_workspace *w, const char *name, const char *args,
                  size_t len, up_tool_pending **p, up_buf *out)
{
    long t0 = up_http_now_ms();
    json_t *a;
    size_t row = prepare(w, name, args, len, &a, out);
    int rc = 1;

    *p = NULL;
    if (a && tools[row].start)
        rc = tools[row].start(w, a, p, out) ? 1 : 0;
    else if (a)
        rc = tools[row].run(w, a, out) ? 1 : 0;
    json_decref(a);
    if (*p) {
        (*p)->row = row;
        (*p)->t0 = t0;
        return 0;
    }
    count_call(w, row, rc, t0);
    return rc;
}

int up_tool_pending_fds(const up_tool_pending *p, int fds[3], int *timeout_ms)
{
    *timeout_ms = p->over ? 0 : up_sandbox_timeout_ms(p->run);
    return p->over ? 0 : up_sandbox_pollfds(p->run, fds);
}

int up_tool_pending_step(up_tool_pending *p)
{
    if (!p->over)
        p->over = up_sandbox_step(p->run);
    return p->over;
}

int up_tool_pending_end(up_tool_pending *p, up_buf *out)
{
    up_workspace *w = p->w;
    size_t row = p->row;
    long t0 = p->t0;
    int rc = run_end(p, out);

    count_call(w, row, rc, t0);
    return rc;
}

void up_tool_pending_cancel(up_tool_pending *p)
{
    up_buf out = UP_BUF_INIT;

    up_sandbox_kill(p->run);
    up_tool_pending_end(p, &out);
    up_buf_release(&out);
}

/* ---- accounting ---- */

static json_t *strv_json(char **v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, up_json_text(v[i]));
    return a;
}

void up_workspace_stats_json(const up_workspace *w, up_buf *out)
{
    json_t *calls = json_object(), *errors = json_object(), *o;
    json_int_t ncalls = 0, nerrors = 0;
    double ms = 0;
    char *text;

    for (size_t i = 0; up_tool_stat_name(i); i++) {
        const up_tool_stat *st = &w->stat[i];

        if (st->calls)
            json_object_set_new(calls, up_tool_stat_name(i),
                                json_integer(st->calls));
        if (st->errors)
            json_object_set_new(errors, up_tool_stat_name(i),
                                json_integer(st->errors));
        ncalls += st->calls;
        nerrors += st->errors;
        ms += st->time_ms;
    }
    o = json_pack("{s:I, s:I, s:o, s:o, s:f, s:o, s:o, s:o}", "tool_calls",
                  ncalls, "tool_errors", nerrors, "tool_call_map", calls,
                  "tool_error_map", errors, "tool_time_ms", ms, "skill_read",
                  w->skill_dir ? json_boolean(w->skill_read) : json_null(),
                  "references_read", strv_json(w->refs_read, w->nrefs_read),
                  "scripts_used", strv_json(w->scripts_used, w->nscripts_used));
    text = json_dumps(o, JSON_COMPACT);
    up_buf_adds(out, text);
    free(text);
    json_decref(o);
}
