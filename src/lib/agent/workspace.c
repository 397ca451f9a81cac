/*
 * Workspaces: a private folder per agent conversation (workspace.h).
 *
 * Invariant: every path the model or a test case names is opened
 * relative to w->dirfd, the folder's descriptor, after up_ws_check_path
 * has refused "..", ".", empty parts, absolute paths, NULs and control
 * characters.  Folders are walked one part at a time with O_NOFOLLOW |
 * O_DIRECTORY and files opened with O_NOFOLLOW, so no symlink is ever
 * followed on a write; reads use openat2 RESOLVE_BENEATH where the
 * kernel has it, which follows a symlink only while it stays inside.
 * Removal (up_fs_rm_contents) unlinks symlinks without following.
 *
 * The quota (lim.quota_bytes, quota_files) is what the folder holds:
 * up_workspace_usage measures it with a bounded walk (after each run
 * command, and at setup only when a setup write replaced a file) that
 * leaves nothing out (too deep or unreadable is a breach); the setup
 * (up_workspace_add_file, _seed, _install_skill: the files and folders
 * they make) and the tools keep used_bytes / used_files up to date as
 * they write; under bwrap a run command works in a tmpfs of the quota's
 * size (sandbox_bound.c).  The snapshot lists at most UP_WS_SNAPSHOT_ENTRIES
 * files and counts the rest, so its size does not follow the folder's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/skill/skill_lib.h"
#include "lib/agent/workspace_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "util/json.h"

void up_ws_limits_default(up_ws_limits *l)
{
    l->max_write = 1u << 20;
    l->max_total = 16u << 20;
    l->max_files = 256;
    l->max_read = 64u << 10;
    l->max_list = 1000;
    l->max_args = 2u << 20;
    l->max_path = 1024;
    l->max_depth = 32;
    l->quota_bytes = UP_WS_QUOTA_BYTES;
    l->quota_files = UP_WS_QUOTA_FILES;
}

/* ---- confined paths ---- */

/* A new descriptor of the root with its own directory offset (a dup
 * would share the offset, and a second listing would see nothing). */
static int open_root(const up_workspace *w)
{
    return openat(w->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int up_ws_check_path(const up_workspace *w, const char *rel, size_t len,
                     up_buf *why)
{
    size_t depth = 1;
    up_error e;

    if (strlen(rel) != len) {
        up_buf_adds(why, "path holds a NUL character");
        return -1;
    }
    if (len > w->lim.max_path) {
        up_buf_addf(why, "path longer than %zu bytes", w->lim.max_path);
        return -1;
    }
    if (up_fs_check_relative(rel, &e)) {
        up_buf_addf(why, "%s (paths are relative to the workspace)", e.msg);
        return -1;
    }
    for (const char *p = rel; *p; p++)
        depth += *p == '/';
    if (depth > w->lim.max_depth) {
        up_buf_addf(why, "'%s': more than %zu folders deep", rel,
                    w->lim.max_depth);
        return -1;
    }
    return 0;
}

/* The reason for errno e on path rel, as the model reads it. */
static int open_error(up_buf *why, const char *rel, int e)
{
    static const struct {
        int e;
        const char *text;
    } reasons[] = {
        {ELOOP, "is or passes through a symlink, which is not followed"},
        {EXDEV, "leads outside the workspace"},
        {ENOENT, "no such file or folder"},
        {ENOTDIR, "a part of the path is not a folder"},
        {EISDIR, "is a folder, not a file"},
        {EEXIST, "already exists and is not a folder"},
    };

    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
        if (reasons[i].e == e) {
            up_buf_addf(why, "'%s': %s", rel, reasons[i].text);
            return -1;
        }
    up_buf_addf(why, "'%s': %s", rel, strerror(e));
    return -1;
}

/* Step from folder fd into its child name (created when create, counted
 * then in *made when made is not NULL). */
static int step(int fd, const char *name, int create, size_t *made)
{
    int r = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (r < 0 && errno == ENOENT && create) {
        if (mkdirat(fd, name, 0755) && errno != EEXIST)
            return -1;
        if (made && errno != EEXIST)
            (*made)++;
        r = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (r < 0 && errno == ENOTDIR) {
        struct stat st;

        /* O_DIRECTORY | O_NOFOLLOW on a link says ENOTDIR: name it */
        if (!fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
            errno = ELOOP;
        else
            errno = ENOTDIR;
    }
    return r;
}

/* Open the folder made of the first n bytes of rel; *made (when not
 * NULL) counts the folders made on the way. */
static int walk(const up_workspace *w, const char *rel, size_t n, int create,
                size_t *made, up_buf *why)
{
    char *path = up_xstrndup(rel, n);
    int fd = open_root(w), e = 0;

    for (char *part = path, *slash; fd >= 0 && *part; part = slash + 1) {
        int next;

        slash = strchr(part, '/');
        if (slash)
            *slash = '\0';
        next = step(fd, part, create, made);
        e = errno;
        close(fd);
        fd = next;
        if (!slash)
            break;
    }
    free(path);
    if (fd < 0)
        return open_error(why, rel, e ? e : errno);
    return fd;
}

/* up_ws_open_dir, counting the folders it makes in *made (or NULL). */
static int open_dir(const up_workspace *w, const char *rel, int create,
                    size_t *made, up_buf *why)
{
    if (!*rel || !strcmp(rel, "."))
        return open_root(w);
    if (up_ws_check_path(w, rel, strlen(rel), why))
        return -1;
    return walk(w, rel, strlen(rel), create, made, why);
}

int up_ws_open_dir(const up_workspace *w, const char *rel, int create,
                   up_buf *why)
{
    return open_dir(w, rel, create, NULL, why);
}

/* The parent folder of rel and, in *leaf, its last part; *made (or
 * NULL) counts the folders made. */
static int open_parent(const up_workspace *w, const char *rel, int create,
                       const char **leaf, size_t *made, up_buf *why)
{
    const char *slash = strrchr(rel, '/');

    *leaf = slash ? slash + 1 : rel;
    if (!slash)
        return open_root(w);
    return walk(w, rel, (size_t)(slash - rel), create, made, why);
}

/* openat2 beneath the root; -1 with errno ENOSYS where the kernel lacks
 * it. */
static int open_beneath(int dirfd, const char *rel, int flags)
{
    struct open_how how = {0};

    how.flags = (unsigned long long)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
}

int up_ws_open_read(const up_workspace *w, const char *rel, up_buf *why)
{
    int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC, fd;
    struct stat st;

    if (up_ws_check_path(w, rel, strlen(rel), why))
        return -1;
    fd = open_beneath(w->dirfd, rel, flags);
    if (fd < 0 && errno == ENOSYS) {
        const char *leaf;
        int dir = open_parent(w, rel, 0, &leaf, NULL, why);

        if (dir < 0)
            return -1;
        fd = openat(dir, leaf, flags | O_NOFOLLOW);
        close(dir);
    }
    if (fd < 0)
        return open_error(why, rel, errno);
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return open_error(why, rel, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
    }
    return fd;
}

/* up_ws_open_write, counting the folders it makes in *made (or NULL). */
static int open_write(const up_workspace *w, const char *rel, mode_t mode,
                      int *created, size_t *made, up_buf *why)
{
    const char *leaf;
    int dir, fd, flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;

    *created = 0;
    if (up_ws_check_path(w, rel, strlen(rel), why))
        return -1;
    dir = open_parent(w, rel, 1, &leaf, made, why);
    if (dir < 0)
        return -1;
    fd = openat(dir, leaf, flags | O_CREAT | O_EXCL, mode);
    if (fd >= 0)
        *created = 1;
    else if (errno == EEXIST)
        fd = openat(dir, leaf, flags | O_TRUNC);
    if (fd < 0)
        open_error(why, rel, errno);
    close(dir);
    return fd;
}

int up_ws_open_write(const up_workspace *w, const char *rel, mode_t mode,
                     int *created, up_buf *why)
{
    return open_write(w, rel, mode, created, NULL, why);
}

int up_ws_read_fd(int fd, size_t max, up_buf *out, size_t *size, up_buf *why)
{
    struct stat st;
    size_t want;

    if (fstat(fd, &st)) {
        up_buf_addf(why, "cannot read: %s", strerror(errno));
        return -1;
    }
    *size = (size_t)st.st_size;
    want = *size < max ? *size : max;
    up_buf_grow(out, want);
    for (size_t got = 0; got < want;) {
        ssize_t r = read(fd, out->data + out->len, want - got);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            up_buf_addf(why, "cannot read: %s", strerror(errno));
            return -1;
        }
        if (!r)
            break;
        got += (size_t)r;
        out->len += (size_t)r;
    }
    out->data[out->len] = '\0';
    return 0;
}

/* Length of the UTF-8 sequence led by byte c (0: not a lead byte). */
static size_t seq_len(unsigned char c)
{
    if (c < 0x80)
        return c ? 1 : 0;
    if (c >= 0xC2 && c <= 0xDF)
        return 2;
    if (c >= 0xE0 && c <= 0xEF)
        return 3;
    return c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

size_t up_ws_text_len(const char *s, size_t n, int cut)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;

    while (i < n) {
        size_t k = seq_len(u[i]);

        if (!k)
            return (size_t)-1;
        if (i + k > n)
            return cut ? i : (size_t)-1;
        for (size_t j = 1; j < k; j++)
            if ((u[i + j] & 0xC0) != 0x80)
                return (size_t)-1;
        i += k;
    }
    return i;
}

/* ---- lifecycle ---- */

int up_workspace_new(up_workspace **out, const char *parent,
                     const up_ws_limits *lim, up_error *err)
{
    up_buf tmpl = UP_BUF_INIT;
    up_workspace *w;

    if (!parent)
        parent =
            getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    up_fs_join(&tmpl, parent, "upskill-ws-XXXXXX");
    if (!mkdtemp(tmpl.data)) {
        up_error_set(err, UP_EIO, "'%s': cannot make a workspace: %s", parent,
                     strerror(errno));
        up_buf_release(&tmpl);
        return UP_EIO;
    }
    w = up_xcalloc(1, sizeof(*w));
    w->path = up_buf_detach(&tmpl);
    w->dirfd = open(w->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (lim)
        w->lim = *lim;
    else
        up_ws_limits_default(&w->lim);
    up_sandbox_limits_default(&w->run_lim);
    *out = w;
    if (w->dirfd < 0) {
        up_error_set(err, UP_EIO, "'%s': cannot open the workspace: %s",
                     w->path, strerror(errno));
        up_workspace_free(w);
        *out = NULL;
        return UP_EIO;
    }
    return 0;
}

void up_workspace_free(up_workspace *w)
{
    if (!w)
        return;
    if (w->dirfd >= 0) {
        /* any depth, folders made mode 000 included; a warning names
         * what stays (fs_rm.c) */
        if (up_fs_rm_contents(w->dirfd, w->path) == 0 && rmdir(w->path))
            fprintf(stderr, "upskill: warning: cannot remove '%s': %s\n",
                    w->path, strerror(errno));
        close(w->dirfd);
    }
    free(w->path);
    free(w->skill_dir);
    for (size_t i = 0; i < w->nrefs_read; i++)
        free(w->refs_read[i]);
    free(w->refs_read);
    for (size_t i = 0; i < w->nscripts_used; i++)
        free(w->scripts_used[i]);
    free(w->scripts_used);
    free(w);
}

/* ---- setup ---- */

int up_workspace_add_file(up_workspace *w, const char *rel, const void *data,
                          size_t len, int executable, up_error *err)
{
    up_buf why = UP_BUF_INIT;
    size_t made = 0;
    int created, fd, rc = 0;

    fd = open_write(w, rel, executable ? 0755 : 0644, &created, &made, &why);
    w->used_files += made + (size_t)(fd >= 0 && created);
    if (fd < 0) {
        rc = up_error_set(err, UP_EUNSAFE, "workspace file: %s", why.data);
        goto out;
    }
    if (up_fs_write_all(fd, data, len) || fchmod(fd, executable ? 0755 : 0644))
        rc = up_error_set(err, UP_EIO, "workspace file '%s': %s", rel,
                          strerror(errno));
    if (created && !rc)
        w->used_bytes += len;
    else /* what it replaced, or how much it wrote, is not known */
        w->usage_unknown = 1;
    close(fd);
out:
    up_buf_release(&why);
    return rc;
}

int up_workspace_seed(up_workspace *w, const up_fs_entry *v, size_t n,
                      up_error *err)
{
    size_t bytes = 0;
    int rc = 0;

    for (size_t i = 0; i < n; i++)
        bytes += v[i].len;
    if (bytes > w->lim.quota_bytes || n > w->lim.quota_files)
        return up_error_set(err, UP_ETOOBIG,
                            "the task's files (%zu bytes, %zu entries) do not "
                            "fit in the workspace's quota (%zu bytes, %zu "
                            "entries: config workspace_max_bytes, "
                            "workspace_max_files)",
                            bytes, n, w->lim.quota_bytes, w->lim.quota_files);
    for (size_t i = 0; !rc && i < n; i++) {
        up_buf why = UP_BUF_INIT;
        int fd = -1;

        if (v[i].data) {
            rc = up_workspace_add_file(w, v[i].path, v[i].data, v[i].len,
                                       v[i].executable, err);
            continue;
        }
        size_t made = 0;

        fd = open_dir(w, v[i].path, 1, &made, &why);
        w->used_files += made;
        if (fd < 0)
            rc = up_error_set(err, UP_EUNSAFE, "workspace folder: %s",
                              why.data ? why.data : v[i].path);
        else
            close(fd);
        up_buf_release(&why);
    }
    return rc;
}

/* Folders named by the file paths of s (each once), "x/y" counting 2. */
static size_t skill_folders(const up_skill *s)
{
    char **v = NULL;
    size_t n = 0, cap = 0, uniq = 0;

    for (size_t i = 0; i < s->nfiles; i++)
        for (const char *p = s->files[i].path; (p = strchr(p, '/')); p++) {
            UP_GROW(v, cap, n + 1);
            v[n++] =
                up_xstrndup(s->files[i].path, (size_t)(p - s->files[i].path));
        }
    if (n)
        qsort(v, n, sizeof(*v), up_strptr_cmp);
    for (size_t i = 0; i < n; i++)
        uniq += !i || strcmp(v[i - 1], v[i]);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return uniq;
}

int up_workspace_skill_fits(const up_skill *s, const up_ws_limits *lim,
                            size_t used_bytes, size_t used_files, up_error *err)
{
    up_buf md = UP_BUF_INIT;
    size_t bytes, files = 4 + s->nfiles + skill_folders(s);

    /* 4: .agents, skills, <name> and SKILL.md */
    up_skill_render(s, &md);
    bytes = md.len;
    up_buf_release(&md);
    for (size_t i = 0; i < s->nfiles; i++)
        bytes += s->files[i].len;
    if (used_bytes + bytes > lim->quota_bytes)
        return up_error_set(err, UP_ETOOBIG,
                            "skill '%s': its %zu bytes do not fit in a "
                            "workspace's quota of %zu bytes (config "
                            "workspace_max_bytes)",
                            s->name ? s->name : "", bytes, lim->quota_bytes);
    if (used_files + files > lim->quota_files)
        return up_error_set(err, UP_ETOOBIG,
                            "skill '%s': its %zu files and folders do not "
                            "fit in a workspace's quota of %zu (config "
                            "workspace_max_files)",
                            s->name ? s->name : "", files, lim->quota_files);
    return 0;
}

int up_workspace_install_skill(up_workspace *w, const up_skill *s,
                               up_error *err)
{
    up_buf dir = UP_BUF_INIT, path = UP_BUF_INIT, md = UP_BUF_INIT;
    up_buf data = UP_BUF_INIT;
    int rc;

    if (!s->name || !*s->name || strchr(s->name, '/') ||
        up_fs_check_relative(s->name, NULL))
        return up_error_set(err, UP_EPARSE,
                            "skill name '%s' cannot be a "
                            "folder name",
                            s->name ? s->name : "");
    /* the loader's rule on names, with its message, before any file */
    for (size_t i = 0; i < s->nfiles; i++)
        if (up_skill_check_file_name(s->files[i].path, err))
            return UP_EUNSAFE;
    if (w->usage_unknown) /* else the counts are exact */
        up_workspace_usage(w, NULL);
    if (up_workspace_skill_fits(s, &w->lim, w->used_bytes, w->used_files, err))
        return UP_ETOOBIG;
    up_buf_addf(&dir, ".agents/skills/%s", s->name);
    up_skill_render(s, &md);
    up_fs_join(&path, dir.data, "SKILL.md");
    rc = up_workspace_add_file(w, path.data, md.data, md.len, 0, err);
    for (size_t i = 0; !rc && i < s->nfiles; i++) {
        up_buf_reset(&path);
        up_fs_join(&path, dir.data, s->files[i].path);
        /* a sweep's skill holds no contents: one file read at a time */
        rc = up_skill_file_read(s, i, &data, err);
        if (!rc)
            rc = up_workspace_add_file(w, path.data, data.data, data.len,
                                       s->files[i].executable, err);
    }
    up_buf_release(&data);
    if (!rc) {
        free(w->skill_dir);
        w->skill_dir = up_buf_detach(&dir);
    }
    up_buf_release(&dir);
    up_buf_release(&path);
    up_buf_release(&md);
    return rc;
}

int up_workspace_read(const up_workspace *w, const char *rel, size_t max,
                      up_buf *out, up_error *err)
{
    up_buf why = UP_BUF_INIT;
    size_t size = 0;
    int fd = up_ws_open_read(w, rel, &why), rc = 0;

    if (fd < 0) {
        int code = strstr(why.data, "no such") ? UP_ENOTFOUND : UP_EUNSAFE;

        rc = up_error_set(err, code, "%s", why.data);
        goto out;
    }
    if (up_ws_read_fd(fd, max, out, &size, &why))
        rc = up_error_set(err, UP_EIO, "'%s': %s", rel, why.data);
    else if (size > max)
        rc = up_error_set(err, UP_ETOOBIG, "'%s': over %zu bytes", rel, max);
    close(fd);
out:
    up_buf_release(&why);
    return rc;
}

/* ---- the quota ---- */

/* Folders below the root the usage walk descends (as removal does);
 * a folder deeper down that holds anything is a breach, not left out. */
#define USAGE_DEPTH 256

/* What a usage walk could not count: too deep, or not readable. */
#define USAGE_DEEP   1
#define USAGE_UNREAD 2

/* Open folder name of fd; one its owner cannot read or enter (a
 * non-root `chmod 000`) is made rwx for the owner first, so that no
 * byte hides from the count (the call that made it is over). */
static int open_counted(int fd, const char *name)
{
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int sub = openat(fd, name, flags);
    struct stat st;

    if (sub < 0 && errno == EACCES &&
        !fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
        !fchmodat(fd, name, (st.st_mode & 07777) | 0700, 0))
        sub = openat(fd, name, flags);
    if (sub >= 0 && !fstat(sub, &st) && (st.st_mode & 0700) != 0700)
        (void)fchmod(sub, (st.st_mode & 07777) | 0700);
    return sub;
}

/* Add what folder fd (closed here) holds to w's counts; stop once the
 * entries pass the quota.  Returns what could not be counted (USAGE_*
 * bits). */
static int usage_dir(up_workspace *w, int fd, int depth)
{
    DIR *d = fdopendir(fd);
    struct dirent *e;
    int lost = 0;

    if (!d) {
        close(fd);
        return USAGE_UNREAD;
    }
    while ((e = readdir(d)) && w->used_files <= w->lim.quota_files) {
        struct stat st;
        int sub;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            lost |= errno == ENOENT ? 0 : USAGE_UNREAD;
            continue;
        }
        w->used_files++;
        if (!S_ISDIR(st.st_mode)) {
            w->used_bytes += (size_t)st.st_size;
            continue;
        }
        sub = open_counted(fd, e->d_name);
        if (sub < 0)
            lost |= USAGE_UNREAD;
        else if (depth > 0)
            lost |= usage_dir(w, sub, depth - 1);
        else { /* too deep to walk: a breach when it holds anything */
            DIR *deep = fdopendir(sub);
            struct dirent *x;

            while (deep && (x = readdir(deep)))
                if (strcmp(x->d_name, ".") && strcmp(x->d_name, ".."))
                    lost |= USAGE_DEEP;
            if (deep)
                closedir(deep);
            else
                close(sub);
        }
    }
    closedir(d);
    return lost;
}

/* 1 with the breach in why when w's counts are past its quota. */
static int breach(const up_workspace *w, up_buf *why)
{
    if (w->used_files > w->lim.quota_files) {
        if (why)
            up_buf_addf(why,
                        "the workspace holds more than %zu files and "
                        "folders, its quota (config workspace_max_files)",
                        w->lim.quota_files);
        return 1;
    }
    if (w->used_bytes > w->lim.quota_bytes) {
        if (why)
            up_buf_addf(why,
                        "the workspace holds %zu bytes, over its quota of "
                        "%zu bytes (config workspace_max_bytes)",
                        w->used_bytes, w->lim.quota_bytes);
        return 1;
    }
    return 0;
}

int up_workspace_usage(up_workspace *w, up_buf *why)
{
    int lost = 0;

    w->used_bytes = 0;
    w->used_files = 0;
    w->usage_unknown = 0;
    if (w->dirfd >= 0) {
        (void)fchmod(w->dirfd, 0700); /* a `chmod 000 .` hides nothing */
        lost = usage_dir(w, open_root(w), USAGE_DEPTH);
    }
    if (lost) {
        /* what cannot be counted counts as over: run and the tools'
         * writes are refused as for any breach */
        w->used_files = w->lim.quota_files + 1;
        if (why)
            up_buf_addf(why,
                        "the workspace holds %s, which its quota cannot "
                        "count",
                        lost & USAGE_DEEP ? "folders more than 256 deep"
                                          : "folders or files it cannot read");
        return 1;
    }
    return breach(w, why);
}

int up_workspace_quota(up_workspace *w, up_buf *why)
{
    return w->usage_unknown ? up_workspace_usage(w, why) : breach(w, why);
}

/* ---- accounting ---- */

/* Add s to the set list (once). */
static void note(char ***list, size_t *n, size_t *cap, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], s))
            return;
    if (*n >= 256) /* a bound on what a hostile model can make us keep */
        return;
    UP_GROW(*list, *cap, *n + 1);
    (*list)[(*n)++] = up_xstrdup(s);
}

void up_workspace_note_use(up_workspace *w, const char *rel)
{
    size_t n = w->skill_dir ? strlen(w->skill_dir) : 0;
    const char *in;

    if (!n || strncmp(rel, w->skill_dir, n) || rel[n] != '/')
        return;
    in = rel + n + 1;
    if (!strcmp(in, "SKILL.md"))
        w->skill_read = 1;
    else if (!strncmp(in, "references/", 11))
        note(&w->refs_read, &w->nrefs_read, &w->refs_cap, in);
    else if (!strncmp(in, "scripts/", 8))
        note(&w->scripts_used, &w->nscripts_used, &w->scripts_cap, in);
}

/* ---- snapshot ---- */

/* Entries of one folder a snapshot reads names of at most. */
#define SNAP_MAX_DIR 4096

struct snap {
    const up_workspace *w;
    size_t max_file, left;
    json_t *files;
    size_t more; /* files past UP_WS_SNAPSHOT_ENTRIES, counted */
    int cut;
};

/* data[0..n) as a string when it is text; when cut (n < size) a
 * character split at the end is dropped.  NULL: binary. */
static json_t *utf8_prefix(const char *data, size_t n, size_t size,
                           size_t *kept)
{
    size_t len = up_ws_text_len(data, n, n < size);
    json_t *s = len == (size_t)-1 ? NULL : json_stringn(data, len);

    *kept = s ? len : 0;
    return s;
}

static void snap_file(struct snap *sn, int dir, const char *name,
                      const char *rel)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    up_buf data = UP_BUF_INIT, why = UP_BUF_INIT;
    size_t size = 0, cap = sn->max_file < sn->left ? sn->max_file : sn->left;
    size_t kept = 0;
    json_t *f = json_object(), *content = NULL;

    if (fd >= 0 && !up_ws_read_fd(fd, cap, &data, &size, &why))
        content = utf8_prefix(data.data, data.len, size, &kept);
    if (fd >= 0)
        close(fd);
    sn->left -= kept;
    /* a name a command made may be any bytes */
    json_object_set_new(f, "path", up_json_text(rel));
    json_object_set_new(f, "size", json_integer((json_int_t)size));
    json_object_set_new(f, "content", content ? content : json_null());
    json_object_set_new(f, "truncated",
                        json_boolean(kept < size && (content || !data.len)));
    json_object_set_new(f, "binary", json_boolean(!content && data.len));
    if (kept < size && (content || !data.len))
        sn->cut = 1;
    json_array_append_new(sn->files, f);
    up_buf_release(&data);
    up_buf_release(&why);
}

/* 1 when rel is an installed skill's folder (left out): in the skill
 * arm, each folder beside skill_dir (a Harbor task installs several). */
static int is_skill(const struct snap *sn, const char *rel)
{
    const char *d = sn->w->skill_dir;
    const char *slash = d ? strrchr(d, '/') : NULL;
    size_t n = slash ? (size_t)(slash - d) + 1 : 0;

    return d && !strncmp(rel, d, n) && rel[n] && !strchr(rel + n, '/');
}

/* Count into sn->more the files (not folders) of the entry name of
 * folder fd, rel its path: past the cap they are counted, not listed. */
static void snap_count(struct snap *sn, int fd, const char *name,
                       const char *rel, int depth)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    int sub;

    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) || is_skill(sn, rel))
        return;
    if (!S_ISDIR(st.st_mode)) {
        sn->more += S_ISREG(st.st_mode) || S_ISLNK(st.st_mode);
        return;
    }
    sub = depth > 0 ? openat(fd, name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    : -1;
    if (sub < 0 || !(d = fdopendir(sub))) {
        if (sub >= 0)
            close(sub);
        return;
    }
    while ((e = readdir(d))) {
        up_buf r = UP_BUF_INIT;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        up_buf_addf(&r, "%s/%s", rel, e->d_name);
        snap_count(sn, sub, e->d_name, r.data, depth - 1);
        up_buf_release(&r);
    }
    closedir(d);
}

/* Entry name of folder fd, at rel: listed, or counted past the cap. */
static void snap_dir(struct snap *sn, int fd, const char *prefix, int depth);

static void snap_entry(struct snap *sn, int fd, const char *name,
                       const char *rel, int depth)
{
    struct stat st;

    if (json_array_size(sn->files) >= UP_WS_SNAPSHOT_ENTRIES) {
        snap_count(sn, fd, name, rel, depth);
        return;
    }
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) || is_skill(sn, rel))
        return;
    if (S_ISDIR(st.st_mode) && depth > 0) {
        int sub =
            openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        up_buf dir = UP_BUF_INIT;

        up_buf_addf(&dir, "%s/", rel);
        if (sub >= 0)
            snap_dir(sn, sub, dir.data, depth - 1);
        up_buf_release(&dir);
    } else if (S_ISLNK(st.st_mode)) {
        json_array_append_new(
            sn->files,
            json_pack("{s:o, s:b}", "path", up_json_text(rel), "symlink", 1));
    } else if (S_ISREG(st.st_mode)) {
        snap_file(sn, fd, name, rel);
    }
}

/* The names of folder fd are read (at most SNAP_MAX_DIR: the rest are
 * counted at once) and listed sorted, up to the listing's cap. */
static void snap_dir(struct snap *sn, int fd, const char *prefix, int depth)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    DIR *d = fdopendir(fd);
    struct dirent *e;

    if (!d) {
        close(fd);
        return;
    }
    while ((e = readdir(d))) {
        up_buf rel = UP_BUF_INIT;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n < SNAP_MAX_DIR) {
            UP_GROW(names, cap, n + 1);
            names[n++] = up_xstrdup(e->d_name);
            continue;
        }
        up_buf_addf(&rel, "%s%s", prefix, e->d_name);
        snap_count(sn, fd, e->d_name, rel.data, depth);
        up_buf_release(&rel);
    }
    if (n) /* an empty folder has no names to sort */
        qsort(names, n, sizeof(*names), up_strptr_cmp);
    for (size_t i = 0; i < n; i++) {
        up_buf rel = UP_BUF_INIT;

        up_buf_addf(&rel, "%s%s", prefix, names[i]);
        snap_entry(sn, fd, names[i], rel.data, depth);
        up_buf_release(&rel);
        free(names[i]);
    }
    free(names);
    closedir(d);
}

void up_workspace_snapshot(const up_workspace *w, size_t max_file,
                           size_t max_total, up_buf *out)
{
    struct snap sn = {w, max_file, max_total, json_array(), 0, 0};
    json_t *root;
    char *text;

    if (w->dirfd >= 0)
        snap_dir(&sn, open_root(w), "", 64);
    root = json_pack("{s:o, s:b}", "files", sn.files, "truncated",
                     sn.cut || sn.more);
    if (sn.more)
        json_object_set_new(root, "more", json_integer((json_int_t)sn.more));
    text = json_dumps(root, JSON_COMPACT);
    up_buf_adds(out, text);
    free(text);
    json_decref(root);
}
