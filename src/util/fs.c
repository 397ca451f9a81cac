/*
 * File-system helpers.  Reads are bounded; writes are atomic (temporary
 * file in the same folder, fsync, rename, fsync of the folder), so a crash
 * never leaves a half-written file behind.  The exception is
 * up_fs_put_files, which fills scratch folders (a workspace, a check's
 * hidden files) that are thrown away whole, and must not follow links.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"

static int read_fd(up_buf *out, int fd, const char *path, size_t max,
                   up_error *err)
{
    size_t start = out->len;

    for (;;) {
        ssize_t n;

        up_buf_grow(out, 65536);
        n = read(fd, out->data + out->len, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return up_error_set(err, UP_EIO, "'%s': cannot read: %s", path,
                                strerror(errno));
        if (n == 0)
            break;
        out->len += (size_t)n;
        out->data[out->len] = '\0';
        if (out->len - start > max)
            return up_error_set(err, UP_ETOOBIG,
                                "'%s': file is larger than %zu bytes", path,
                                max);
    }
    return 0;
}

/* What a file that is neither regular nor a folder is, for messages. */
static const char *odd_kind(mode_t m)
{
    return S_ISFIFO(m)   ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

int up_fs_read(up_buf *out, const char *path, size_t max, up_error *err)
{
    struct stat st;
    int fd, rc;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return up_error_set(err, UP_ENOTFOUND, "'%s': no such file", path);
        return up_error_set(err, UP_EIO, "'%s': cannot open: %s", path,
                            strerror(errno));
    }
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        return up_error_set(err, UP_EPARSE, "'%s' is %s, not a file", path,
                            S_ISDIR(st.st_mode) ? "a directory"
                                                : odd_kind(st.st_mode));
    }
    if ((size_t)st.st_size > max) {
        close(fd);
        return up_error_set(err, UP_ETOOBIG,
                            "'%s': file is larger than %zu bytes", path, max);
    }
    rc = read_fd(out, fd, path, max, err);
    close(fd);
    return rc;
}

int up_fs_write_all(int fd, const void *buf, size_t len)
{
    const char *data = buf;

    while (len) {
        ssize_t n = write(fd, data, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ENOSPC; /* no progress: treat as a full disk */
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

void up_fs_sync_parent(const char *path)
{
    up_buf dir = UP_BUF_INIT;
    int fd;

    up_fs_dirname(&dir, path);
    fd = open(dir.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    up_buf_release(&dir);
}

int up_fs_write_atomic(const char *path, const void *data, size_t len,
                       mode_t mode, up_error *err)
{
    up_buf tmp = UP_BUF_INIT;
    int fd, rc = 0;

    up_buf_addf(&tmp, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp.data);
    if (fd < 0) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot create: %s", path,
                          strerror(errno));
        goto out;
    }
    if (up_fs_write_all(fd, data, len) || fchmod(fd, mode) || fsync(fd)) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot write: %s", path,
                          strerror(errno));
        close(fd);
        unlink(tmp.data);
        goto out;
    }
    if (close(fd) || rename(tmp.data, path)) {
        rc = up_error_set(err, UP_EIO, "'%s': cannot write: %s", path,
                          strerror(errno));
        unlink(tmp.data);
        goto out;
    }
    up_fs_sync_parent(path);
out:
    up_buf_release(&tmp);
    return rc;
}

int up_fs_mkdir_p(const char *path, mode_t mode, up_error *err)
{
    up_buf p = UP_BUF_INIT;
    int rc = 0;

    up_buf_adds(&p, path);
    for (size_t i = 1; i <= p.len; i++) {
        if (p.data[i] != '/' && p.data[i] != '\0')
            continue;
        p.data[i] = '\0';
        if (mkdir(p.data, mode) && errno != EEXIST) {
            rc = up_error_set(err, UP_EIO, "'%s': cannot create folder: %s",
                              p.data, strerror(errno));
            break;
        }
        if (!up_fs_is_dir(p.data)) {
            rc = up_error_set(err, UP_EIO, "'%s': exists and is not a folder",
                              p.data);
            break;
        }
        if (i < p.len)
            p.data[i] = '/';
    }
    up_buf_release(&p);
    return rc;
}

int up_fs_mkdir_in(const char *path, mode_t mode, int *created, up_error *err)
{
    up_buf parent = UP_BUF_INIT;
    int rc = 0;

    *created = 0;
    if (up_fs_is_dir(path))
        return 0;
    up_fs_dirname(&parent, path);
    if (!up_fs_is_dir(parent.data))
        rc = up_error_set(err, UP_ENOTFOUND,
                          "'%s': no such folder (the parent of '%s')",
                          parent.data, path);
    else if (mkdir(path, mode) && errno != EEXIST)
        rc = up_error_set(err, UP_EIO, "'%s': cannot create folder: %s", path,
                          strerror(errno));
    else if (!up_fs_is_dir(path))
        rc =
            up_error_set(err, UP_EIO, "'%s': exists and is not a folder", path);
    else
        *created = 1;
    up_buf_release(&parent);
    return rc;
}

int up_fs_is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int up_fs_is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int up_fs_exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

int up_fs_check_input(const char *path, up_error *err)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return up_error_set(err, UP_ENOTFOUND, "'%s': no such file or folder",
                            path);
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return 0;
    return up_error_set(err, UP_EPARSE, "'%s' is %s, not a file or folder",
                        path, odd_kind(st.st_mode));
}

void up_fs_join(up_buf *out, const char *a, const char *b)
{
    size_t n = strlen(a);

    up_buf_add(out, a, n);
    if (n && a[n - 1] != '/')
        up_buf_addc(out, '/');
    while (*b == '/')
        b++;
    up_buf_adds(out, b);
}

int up_fs_list(char ***names, size_t *count, const char *dir, up_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    size_t n = 0, cap = 0;

    if (!d)
        return up_error_set(err, errno == ENOENT ? UP_ENOTFOUND : UP_EIO,
                            "'%s': cannot open folder: %s", dir,
                            strerror(errno));
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        UP_GROW(v, cap, n + 2);
        v[n++] = up_xstrdup(e->d_name);
    }
    closedir(d);
    UP_GROW(v, cap, n + 1);
    v[n] = NULL;
    qsort(v, n, sizeof(*v), up_strptr_cmp);
    *names = v;
    if (count)
        *count = n;
    return 0;
}

int up_fs_name_of_dead(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    const char *p = name + n;
    char *end;
    long pid;

    if (strncmp(name, prefix, n) || *p < '1' || *p > '9')
        return 0;
    pid = strtol(p, &end, 10);
    return *end == '-' && pid <= 0x3fffffff && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

int up_fs_holds(const char *dir, const char *p)
{
    size_t n = strlen(dir);

    return !strncmp(p, dir, n) && (!p[n] || p[n] == '/');
}

int up_fs_resolves_inside(const char *root_real, const char *path)
{
    char *real = realpath(path, NULL);
    int ok = real && (up_fs_holds(root_real, real) || !strcmp(root_real, "/"));

    free(real);
    return ok;
}

int up_fs_check_relative(const char *rel, up_error *err)
{
    const char *p = rel, *seg = rel;

    if (!*rel)
        return up_error_set(err, UP_EUNSAFE, "empty file name");
    if (*rel == '/')
        return up_error_set(err, UP_EUNSAFE, "'%s': absolute path not allowed",
                            rel);
    for (;; p++) {
        if (*p == '/' || !*p) {
            size_t n = (size_t)(p - seg);

            if (!n || (n == 1 && seg[0] == '.') ||
                (n == 2 && seg[0] == '.' && seg[1] == '.'))
                return up_error_set(err, UP_EUNSAFE,
                                    "'%s': path must stay inside the folder "
                                    "(no '..', '.' or empty parts)",
                                    rel);
            if (!*p)
                break;
            seg = p + 1;
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\') {
            return up_error_set(err, UP_EUNSAFE,
                                "'%s': control character or backslash in "
                                "file name",
                                rel);
        }
    }
    return 0;
}

void up_fs_basename(up_buf *out, const char *path)
{
    size_t n = strlen(path), start;

    while (n > 1 && path[n - 1] == '/')
        n--;
    start = n;
    while (start && path[start - 1] != '/')
        start--;
    up_buf_add(out, path + start, n - start);
}

void up_fs_dirname(up_buf *out, const char *path)
{
    size_t n = strlen(path);

    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n && path[n - 1] != '/')
        n--;
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (!n)
        up_buf_addc(out, '.');
    else
        up_buf_add(out, path, n);
}

/* ---- files put back whole (up_fs_put_files) ---- */

/* Open folder name of folder fd, made fresh when what is there is not
 * a folder (a file, a symlink): never followed.  -1 with errno set. */
static int put_step(int fd, const char *name)
{
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int r = openat(fd, name, flags);

    if (r >= 0 || (errno != ENOENT && errno != ENOTDIR && errno != ELOOP))
        return r;
    if (errno != ENOENT && unlinkat(fd, name, 0))
        return -1;
    if (mkdirat(fd, name, 0755))
        return -1;
    return openat(fd, name, flags);
}

/* Write data as the file leaf of folder fd, whatever was there. */
static int put_leaf(int fd, const char *leaf, const char *data, size_t len)
{
    int out, rc;

    if (unlinkat(fd, leaf, 0) && errno != ENOENT &&
        unlinkat(fd, leaf, AT_REMOVEDIR))
        return -1;
    out = openat(fd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0644);
    if (out < 0)
        return -1;
    rc = up_fs_write_all(out, data, len);
    if (close(out))
        rc = -1;
    return rc;
}

/* One file of up_fs_put_files, from the folder fd (closed here). */
static int put_one(int fd, const up_fs_entry *f)
{
    char *path = up_xstrdup(f->path), *part = path, *slash;
    int rc = -1, e;

    while (fd >= 0 && (slash = strchr(part, '/'))) {
        int next;

        *slash = '\0';
        next = put_step(fd, part);
        e = errno;
        close(fd);
        errno = e;
        fd = next;
        part = slash + 1;
    }
    if (fd >= 0) {
        rc = put_leaf(fd, part, f->data, f->len);
        e = errno;
        close(fd);
        errno = e;
    }
    free(path);
    return rc;
}

int up_fs_put_files(const char *dir, const up_fs_entry *v, size_t n,
                    up_error *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = up_fs_check_relative(v[i].path, err);

        if (rc)
            return rc;
        if (put_one(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), &v[i]))
            return up_error_set(err, UP_EIO, "'%s': cannot write: %s",
                                v[i].path, strerror(errno));
    }
    return 0;
}
