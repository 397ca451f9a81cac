/*
 * Removing a folder tree whatever its depth and modes.
 *
 * The tree may be hostile: a model's commands made it, as deep as they
 * liked, with folders of mode 000 and symlinks pointing anywhere.
 * Invariants: no symlink is ever followed (every open is O_NOFOLLOW and
 * relative to the folder being emptied); the walk holds at most two
 * descriptors at once, however deep the tree (it descends by name and
 * climbs back by "..", checking that ".." is the folder it came from, by
 * device and inode, so a folder moved meanwhile stops the walk instead of
 * steering it outside); each folder is read once, its subfolders' names
 * kept in memory (frame.subs) until they are done; a folder that cannot
 * be opened is given mode 0700 first (fchmodat, which a non-root owner
 * may do).  What cannot be removed is reported through up_warn (the
 * CLI prints it), the first failure by path and errno.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/error.h"
#include "upskill/fs.h"

/* One folder on the way down: its name in its parent, its identity and
 * the subfolders still to empty. */
struct frame {
    char *name; /* NULL for the top */
    dev_t dev;
    ino_t ino;
    char **subs; /* names of subfolders read, in order */
    size_t nsubs, next, cap;
};

struct walk {
    const char *top; /* the tree's path, for messages */
    struct frame *fr;
    size_t depth, cap; /* fr[depth] is the folder open in cur */
    int cur;
    size_t failed; /* entries left behind */
    up_buf first;  /* the first failure's path */
    int first_errno;
};

/* Record a failure on entry name (NULL: the current folder). */
static void fail(struct walk *w, const char *name, int e)
{
    if (!w->failed++) {
        up_buf_adds(&w->first, w->top);
        for (size_t i = 1; i <= w->depth; i++)
            up_buf_addf(&w->first, "/%s", w->fr[i].name);
        if (name)
            up_buf_addf(&w->first, "/%s", name);
        w->first_errno = e;
    }
}

/* Open subfolder name of dirfd without following a link; a folder we
 * may not read gets mode 0700 first (it is checked to be a folder, not a
 * link, just before). */
static int open_sub(int dirfd, const char *name)
{
    int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(dirfd, name, flags);
    struct stat st;

    if (fd < 0 && errno == EACCES &&
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode) && fchmodat(dirfd, name, 0700, 0) == 0)
        fd = openat(dirfd, name, flags);
    return fd;
}

/* Push the folder open in fd as the new current one. */
static int push(struct walk *w, int fd, const char *name)
{
    struct stat st;
    struct frame *f;

    if (fstat(fd, &st)) {
        close(fd);
        return -1;
    }
    if ((st.st_mode & 0700) != 0700) /* read and empty a read-only one */
        (void)fchmod(fd, 0700);
    if (name) {
        UP_GROW(w->fr, w->cap, w->depth + 2);
        w->depth++;
        close(w->cur);
    }
    w->cur = fd;
    f = &w->fr[w->depth];
    memset(f, 0, sizeof(*f));
    f->name = name ? up_xstrdup(name) : NULL;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return 0;
}

/* Read the current folder once: unlink what is not a folder, keep the
 * names of subfolders. */
static void scan(struct walk *w)
{
    struct frame *f = &w->fr[w->depth];
    int fd = openat(w->cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (!d) {
        fail(w, NULL, errno);
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (e->d_type != DT_DIR && !unlinkat(w->cur, e->d_name, 0))
            continue;
        if (e->d_type != DT_DIR && errno != EISDIR) {
            if (errno != ENOENT)
                fail(w, e->d_name, errno);
            continue;
        }
        UP_GROW(f->subs, f->cap, f->nsubs + 1);
        f->subs[f->nsubs++] = up_xstrdup(e->d_name);
    }
    closedir(d);
}

/* Leave the current (emptied) folder for its parent and remove it
 * there; -1 when ".." is not the folder we came down from. */
static int pop(struct walk *w)
{
    struct frame *f = &w->fr[w->depth];
    int up = openat(w->cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    if (up < 0 || fstat(up, &st) || st.st_dev != w->fr[w->depth - 1].dev ||
        st.st_ino != w->fr[w->depth - 1].ino) {
        fail(w, NULL, up < 0 ? errno : EXDEV); /* moved meanwhile */
        if (up >= 0)
            close(up);
        return -1;
    }
    close(w->cur);
    w->cur = up;
    w->depth--;
    if (unlinkat(up, f->name, AT_REMOVEDIR) && errno != ENOENT)
        fail(w, f->name, errno);
    free(f->name);
    free(f->subs);
    return 0;
}

/* Depth first, one folder open at a time. */
static void walk_tree(struct walk *w)
{
    scan(w);
    for (;;) {
        struct frame *f = &w->fr[w->depth];

        if (f->next < f->nsubs) {
            char *name = f->subs[f->next++];
            int fd = open_sub(w->cur, name), e = errno;

            if (fd < 0 || push(w, fd, name)) {
                /* a folder we cannot enter: perhaps it is empty; else
                 * why we could not enter it is the news */
                if (unlinkat(w->cur, name, AT_REMOVEDIR) && errno != ENOENT)
                    fail(w, name, errno == ENOTEMPTY ? e : errno);
            } else {
                scan(w);
            }
            free(name);
            continue;
        }
        if (!w->depth || pop(w))
            return;
    }
}

/* The warning for path, its errno e, and how many entries stayed (0:
 * path alone).  The printer escapes control characters. */
static void warn(const char *path, int e, size_t left)
{
    if (left)
        up_warn("cannot remove '%s': %s (%zu entr%s left behind)", path,
                strerror(e), left, left == 1 ? "y" : "ies");
    else
        up_warn("cannot remove '%s': %s", path, strerror(e));
}

int up_fs_rm_contents(int dirfd, const char *path)
{
    struct walk w = {path, NULL, 0, 0, -1, 0, UP_BUF_INIT, 0};
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    UP_GROW(w.fr, w.cap, 1);
    if (fd < 0 || push(&w, fd, NULL))
        fail(&w, NULL, errno);
    else
        walk_tree(&w);
    /* a stopped walk leaves frames with names still to free */
    for (size_t i = 0; w.cur >= 0 && i <= w.depth; i++) {
        for (size_t k = w.fr[i].next; k < w.fr[i].nsubs; k++)
            free(w.fr[i].subs[k]);
        free(w.fr[i].subs);
        free(w.fr[i].name);
    }
    if (w.cur >= 0)
        close(w.cur);
    if (w.failed)
        warn(w.first.data, w.first_errno, w.failed);
    free(w.fr);
    up_buf_release(&w.first);
    return w.failed ? -1 : 0;
}

int up_fs_rm_tree(const char *path)
{
    struct stat st;
    int fd, rc;

    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) {
        int e = unlink(path) ? errno : 0;

        if (e && e != ENOENT)
            warn(path, e, 0);
        return e && e != ENOENT ? -1 : 0;
    }
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && chmod(path, 0700) == 0)
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    rc = fd >= 0 ? up_fs_rm_contents(fd, path) : 0;
    if (fd >= 0)
        close(fd);
    if (rmdir(path) == 0 || errno == ENOENT)
        return 0;
    if (!rc) /* else a failure inside was reported already */
        warn(path, errno, 0);
    return -1;
}
