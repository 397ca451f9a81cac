/*
 * A bounded folder: a host folder (the workspace, a CLI's home) that is,
 * for one call in mode bwrap, a tmpfs of its own (docs/sandbox.md, "The
 * workspace quota").
 *
 * The child, before it execs bubblewrap, makes a user and mount
 * namespace of its own (mapping only its own uid and gid, as an
 * unprivileged user may), mounts over each folder's path a tmpfs with
 * size= and nr_inodes= from the folder's quota, sends the parent a
 * descriptor of each tmpfs root over a socket, and waits.  The parent
 * copies the folder's contents in through that descriptor and says go;
 * bubblewrap then binds the path as before and sees the tmpfs.  A write
 * past the tmpfs's size fails with ENOSPC, so no call reaches the host's
 * disk at all while it runs.  When the call is over (bwrap reaped: every
 * process of the sandbox is dead) the parent's descriptor still holds
 * the tmpfs: its contents are walked, and copied back over the folder's
 * when they fit the quota; when they do not, the call's writes are
 * discarded and the folder stays as it was (a breach).
 *
 * Walks go through descriptors, never follow a symlink, chmod a folder
 * or file the owner cannot read (a non-root `chmod 000`) before opening
 * it, and stop at SBX_BOUND_DEPTH folders: deeper is a breach, so
 * nothing is hidden from the count.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "lib/sandbox/sandbox_int.h"

/* Folders below a bounded folder's root a walk descends. */
#define SBX_BOUND_DEPTH 256

/* Page rounding a tmpfs charges each file beyond its bytes. */
#define SBX_PAGE ((size_t)4096)

void sbx_bounds_init(sbx_bounds *b)
{
    memset(b, 0, sizeof(*b));
    b->sock = -1;
    for (size_t i = 0; i < SBX_BOUND_MAX; i++)
        b->v[i].fd = -1;
    snprintf(b->uid_map, sizeof(b->uid_map), "%ld %ld 1", (long)getuid(),
             (long)getuid());
    snprintf(b->gid_map, sizeof(b->gid_map), "%ld %ld 1", (long)getgid(),
             (long)getgid());
}

int sbx_bounds_add(sbx_bounds *b, const char *dir, size_t max_bytes,
                   size_t max_files)
{
    sbx_bound *x;
    size_t files = max_files ? max_files : 1000000;
    size_t slack = files < 65536 ? files * SBX_PAGE : (size_t)65536 * SBX_PAGE;

    if (b->n >= SBX_BOUND_MAX || !dir || !max_bytes)
        return -1;
    x = &b->v[b->n++];
    x->dir = up_xstrdup(dir);
    x->max_bytes = max_bytes;
    x->max_files = max_files;
    /* its root is an inode of its own; one more than the quota shows a
     * breach instead of stopping right at it */
    snprintf(x->data, sizeof(x->data), "size=%zu,nr_inodes=%zu,mode=0700",
             max_bytes + slack, files + 2);
    return 0;
}

void sbx_bounds_release(sbx_bounds *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->v[i].dir);
        if (b->v[i].fd >= 0)
            close(b->v[i].fd);
    }
    if (b->sock >= 0)
        close(b->sock);
    sbx_bounds_init(b);
}

/* ---- the child (async-signal-safe) ---- */

static int write_file(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = write(fd, s, strlen(s));
    close(fd);
    return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int send_fd(int sock, int fd)
{
    char c = 'f', cb[CMSG_SPACE(sizeof(int))];
    struct iovec io = {&c, 1};
    struct msghdr m;
    struct cmsghdr *cm;

    memset(&m, 0, sizeof(m));
    memset(cb, 0, sizeof(cb));
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = cb;
    m.msg_controllen = sizeof(cb);
    cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
    return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

int sbx_bounds_child(const sbx_bounds *b, int sock)
{
    char go = 0;

    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 ||
        write_file("/proc/self/setgroups", "deny") != 0 ||
        write_file("/proc/self/uid_map", b->uid_map) != 0 ||
        write_file("/proc/self/gid_map", b->gid_map) != 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        int fd;

        if (mount("upskill-bounded", b->v[i].dir, "tmpfs", MS_NOSUID | MS_NODEV,
                  b->v[i].data) != 0)
            return -1;
        fd = open(b->v[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || send_fd(sock, fd) != 0)
            return -1;
        close(fd);
    }
    if (read(sock, &go, 1) != 1 || go != 'g')
        return -1;
    close(sock);
    return 0;
}

/* ---- the walk ---- */

/* What a walk counts, and where it stops. */
struct walk {
    const sbx_bound *b;
    size_t bytes, files;
    int over;   /* past the quota (or too deep): stop */
    int failed; /* errno of a failed copy, 0 */
    int deep;   /* the breach is depth */
};

/* Open name of folder dir as flags, making it readable for its owner
 * first when that is what stops it. */
static int open_owned(int dir, const char *name, int flags, mode_t add)
{
    int fd = openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;

    if (fd >= 0 || errno != EACCES ||
        fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        fchmodat(dir, name, (st.st_mode & 07777) | add, 0) != 0)
        return fd;
    return openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
}

static int copy_data(int from, int to)
{
    char buf[65536];
    ssize_t n;

    while ((n = read(from, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || up_fs_write_all(to, buf, (size_t)n) != 0)
            return -1;
    }
    return 0;
}

/* The times and mode of st onto fd. */
static void keep_meta(int fd, const struct stat *st)
{
    struct timespec t[2] = {st->st_atim, st->st_mtim};

    (void)fchmod(fd, st->st_mode & 01777);
    (void)futimens(fd, t);
}

static void copy_file(struct walk *w, int src, int dst, const char *name,
                      const struct stat *st)
{
    int in = open_owned(src, name, O_RDONLY | O_NONBLOCK, 0400), out = -1;

    if (in >= 0)
        out =
            openat(dst, name,
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (in < 0 || out < 0 || copy_data(in, out) != 0)
        w->failed = errno ? errno : EIO;
    else
        keep_meta(out, st);
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

static void copy_link(struct walk *w, int src, int dst, const char *name)
{
    char target[4096];
    ssize_t n = readlinkat(src, name, target, sizeof(target) - 1);

    if (n < 0)
        return;
    target[n] = '\0';
    if (symlinkat(target, dst, name) != 0)
        w->failed = errno;
}

static void walk_dir(struct walk *w, int src, int dst, int depth);

/* Remove entry name of folder dir (d its stat): a folder with all it
 * holds. */
static void remove_entry(int dir, const char *name, const struct stat *d)
{
    int fd;

    if (!S_ISDIR(d->st_mode)) {
        (void)unlinkat(dir, name, 0);
        return;
    }
    fd = open_owned(dir, name, O_RDONLY | O_DIRECTORY, 0700);
    if (fd >= 0) {
        (void)up_fs_rm_contents(fd, name);
        close(fd);
    }
    (void)unlinkat(dir, name, AT_REMOVEDIR);
}

/* 1 when file d is file s unchanged: same size, time and mode (what
 * the copy in kept; a command that forges them only loses its own
 * change). */
static int same_file(const struct stat *s, const struct stat *d)
{
    return S_ISREG(s->st_mode) && S_ISREG(d->st_mode) &&
           s->st_size == d->st_size && s->st_mtim.tv_sec == d->st_mtim.tv_sec &&
           s->st_mtim.tv_nsec == d->st_mtim.tv_nsec &&
           (s->st_mode & 01777) == (d->st_mode & 01777);
}

/* Remove from dst what src does not hold (the command removed it). */
static void prune(struct walk *w, int src, int dst)
{
    int fd = openat(dst, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (!d) {
        if (fd >= 0)
            close(fd);
        w->failed = errno ? errno : EIO;
        return;
    }
    while ((e = readdir(d))) {
        struct stat st, gone;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
            errno != ENOENT ||
            fstatat(dst, e->d_name, &gone, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        remove_entry(dst, e->d_name, &gone);
    }
    closedir(d);
}

static void walk_sub(struct walk *w, int src, int dst, const char *name,
                     const struct stat *st, int depth)
{
    int in, out = -1;

    if (depth <= 0) {
        w->over = w->deep = 1;
        return;
    }
    in = open_owned(src, name, O_RDONLY | O_DIRECTORY, 0700);
    if (in < 0) {
        w->over = 1; /* what cannot be counted does not fit */
        return;
    }
    if ((st->st_mode & 0700) != 0700) /* readable, not searchable */
        (void)fchmod(in, (st->st_mode & 07777) | 0700);
    if (dst >= 0 &&
        ((mkdirat(dst, name, 0700) != 0 && errno != EEXIST) ||
         (out = open_owned(dst, name, O_RDONLY | O_DIRECTORY, 0700)) < 0))
        w->failed = errno;
    if (out >= 0) /* fillable while it is filled; its mode comes after */
        (void)fchmod(out, 0700);
    walk_dir(w, in, out, depth - 1); /* closes in */
    if (out >= 0) {
        keep_meta(out, st);
        close(out);
    }
}

/* Count (and, when dst >= 0, bring dst's entry name up to it) entry
 * name of src. */
static void walk_entry(struct walk *w, int src, int dst, const char *name,
                       int depth)
{
    struct stat st, old;

    if (fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        w->over = errno != ENOENT; /* what cannot be counted does not fit */
        return;
    }
    w->files++;
    if (!S_ISDIR(st.st_mode))
        w->bytes += (size_t)st.st_size;
    if ((w->b->max_files && w->files > w->b->max_files) ||
        w->bytes > w->b->max_bytes) {
        w->over = 1;
        return;
    }
    if (dst >= 0 && fstatat(dst, name, &old, AT_SYMLINK_NOFOLLOW) == 0) {
        if (same_file(&st, &old))
            return;
        if (!S_ISDIR(st.st_mode) || !S_ISDIR(old.st_mode))
            remove_entry(dst, name, &old);
    }
    if (S_ISDIR(st.st_mode))
        walk_sub(w, src, dst, name, &st, depth);
    else if (dst < 0)
        return;
    else if (S_ISREG(st.st_mode))
        copy_file(w, src, dst, name, &st);
    else if (S_ISLNK(st.st_mode))
        copy_link(w, src, dst, name);
    /* fifos and sockets are counted, not copied */
}

/* Walk folder src (closed here) into dst (-1: count only): dst ends up
 * holding what src holds, files unchanged since the copy in left as
 * they are. */
static void walk_dir(struct walk *w, int src, int dst, int depth)
{
    DIR *d = fdopendir(src);
    struct dirent *e;

    if (!d) {
        close(src);
        w->over = 1;
        return;
    }
    while (!w->over && !w->failed && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            walk_entry(w, src, dst, e->d_name, depth);
    if (dst >= 0 && !w->over && !w->failed)
        prune(w, src, dst);
    closedir(d);
}

/* Walk the folder of descriptor root (kept open) for b. */
static void walk_root(struct walk *w, const sbx_bound *b, int root, int dst)
{
    int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    memset(w, 0, sizeof(*w));
    w->b = b;
    if (fd < 0) {
        w->failed = errno;
        return;
    }
    walk_dir(w, fd, dst, SBX_BOUND_DEPTH);
}

/* ---- the parent ---- */

static int recv_fd(int sock)
{
    char c, cb[CMSG_SPACE(sizeof(int))];
    struct iovec io = {&c, 1};
    struct msghdr m;
    struct cmsghdr *cm;
    int fd = -1;

    memset(&m, 0, sizeof(m));
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = cb;
    m.msg_controllen = sizeof(cb);
    if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
        return -1;
    cm = CMSG_FIRSTHDR(&m);
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
    return fd;
}

int sbx_bounds_fill(sbx_bounds *b, up_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        sbx_bound *x = &b->v[i];
        int host;
        struct walk w;

        x->fd = recv_fd(b->sock);
        if (x->fd < 0)
            return up_error_set(err, UP_EUNSAFE,
                                "sandbox: cannot give '%s' a file system of "
                                "its own (a user and mount namespace with a "
                                "sized tmpfs): the workspace quota could "
                                "not be kept (user namespaces must be open "
                                "to upskill as to bubblewrap)",
                                x->dir);
        host = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (host < 0)
            return up_error_set(err, UP_EIO, "sandbox: '%s': %s", x->dir,
                                strerror(errno));
        walk_root(&w, x, host, x->fd);
        close(host);
        if (w.over || w.failed)
            return up_error_set(err, UP_ETOOBIG,
                                "sandbox: '%s' does not fit its quota (%zu "
                                "bytes, %zu files and folders)%s%s",
                                x->dir, x->max_bytes, x->max_files,
                                w.failed ? ": " : "",
                                w.failed ? strerror(w.failed) : "");
    }
    if (b->n && write(b->sock, "g", 1) != 1)
        return up_error_set(err, UP_EIO, "sandbox: cannot start: %s",
                            strerror(errno));
    return 0;
}

int sbx_bounds_full(const sbx_bounds *b)
{
    for (size_t i = 0; i < b->n; i++) {
        struct statfs s;

        if (b->v[i].fd >= 0 && fstatfs(b->v[i].fd, &s) == 0 &&
            (s.f_bfree == 0 || s.f_ffree == 0))
            return 1;
    }
    return 0;
}

/* Copy bounded folder x's tmpfs back over its host folder: 1 on a
 * breach (the host folder left as it was), else 0. */
static int back_one(sbx_bound *x, up_buf *why)
{
    struct walk w;
    int host;

    walk_root(&w, x, x->fd, -1);
    if (w.over && w.deep)
        up_buf_addf(why, "'%s' holds folders more than %d deep", x->dir,
                    SBX_BOUND_DEPTH);
    else if (w.over)
        up_buf_addf(why,
                    "'%s' holds more than its quota (%zu bytes, %zu files "
                    "and folders)",
                    x->dir, x->max_bytes, x->max_files);
    if (w.over)
        return 1;
    host = open(x->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (host < 0) {
        up_buf_addf(why, "'%s': %s", x->dir, strerror(errno));
        return 1;
    }
    walk_root(&w, x, x->fd, host);
    close(host);
    if (w.failed)
        up_buf_addf(why, "'%s': cannot be copied back: %s", x->dir,
                    strerror(w.failed));
    return w.failed != 0;
}

int sbx_bounds_back(sbx_bounds *b, int discard, up_buf *why)
{
    int breach = 0;

    for (size_t i = 0; i < b->n; i++) {
        sbx_bound *x = &b->v[i];

        if (x->fd < 0)
            continue;
        if (!discard)
            breach |= back_one(x, why);
        close(x->fd); /* the tmpfs goes with its last descriptor */
        x->fd = -1;
    }
    return breach;
}
