/*
 * The student's own bytes (check.h, up_check_own_bytes): before a check
 * runs, the workspace it grades holds only regular files and folders,
 * each file its own inode.
 *
 * A check that copies ground truth next to the student's outputs (a
 * Harbor test.sh's `cp /tests/x.json /root/x.json`, then a comparison
 * with pred_x.json) would otherwise grade the truth itself: a pred file
 * left as a symlink to that name (or to /tests/x.json, which only the
 * check sees), a name left as a symlink the copy writes through, or a
 * hard link the copy fills (issue 37 item 2).  So every symlink, FIFO,
 * socket and device in the workspace (its places included) is removed,
 * and every regular file with more than one link is replaced by a copy
 * of its own.  Nothing is followed: a symlinked folder is removed as a
 * link, never entered.  So is every sitecustomize and usercustomize
 * (module, package, compiled): python3 imports one from any folder on
 * its path at its start, and a test.sh may put the student's there.
 *
 * Limits (a hostile workspace pushes each): UP_CHECK_OWN_ENTRIES entries
 * walked, UP_CHECK_OWN_DEPTH folders deep, UP_CHECK_OWN_BYTES copied;
 * past any the check fails, saying which.
 */
#define _GNU_SOURCE /* O_DIRECTORY, O_NOFOLLOW, fdopendir */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sandbox/check.h"
#include "upskill/fs.h"

/* A walk under way: what it has used of the limits, and the first
 * error. */
struct own {
    size_t entries, bytes;
    up_error *err;
    int rc;
};

/* The first error: what, then the entry's name when there is one. */
static int own_fail(struct own *o, int code, const char *what, const char *name)
{
    if (!o->rc && name)
        o->rc = up_error_set(o->err, code, "%s '%.200s'", what, name);
    else if (!o->rc)
        o->rc = up_error_set(o->err, code, "%s", what);
    return o->rc;
}

/* Copy the regular file name in dirfd (st its stat) to a new file and
 * rename it over name: the name then has an inode of its own. */
static int own_copy(struct own *o, int dirfd, const char *name,
                    const struct stat *st)
{
    char tmp[64], buf[65536];
    int in, out = -1, rc = 0;
    ssize_t n = 0;

    if ((size_t)st->st_size > UP_CHECK_OWN_BYTES - o->bytes)
        return own_fail(o, UP_ETOOBIG,
                        "the workspace's hard links would copy more than "
                        "256 MiB (UP_CHECK_OWN_BYTES)",
                        NULL);
    o->bytes += (size_t)st->st_size;
    in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    for (unsigned i = 0; in >= 0 && out < 0 && i < 100; i++) {
        snprintf(tmp, sizeof(tmp), ".upskill-own-%ld-%u", (long)getpid(), i);
        out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                     st->st_mode & 0777);
    }
    while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0 && !rc)
        rc = up_fs_write_all(out, buf, (size_t)n) < 0 ? -1 : 0;
    if (in < 0 || out < 0 || rc || n < 0 || fchmod(out, st->st_mode & 0777) ||
        renameat(dirfd, tmp, dirfd, name))
        rc = own_fail(o, UP_EIO, "cannot give a copy of its own to", name);
    if (out >= 0 && rc)
        unlinkat(dirfd, tmp, 0);
    if (out >= 0)
        close(out);
    if (in >= 0)
        close(in);
    return rc;
}

static int own_dir(struct own *o, int dirfd, unsigned depth);

/* Names python3 imports at its start from any folder on its path (a
 * module, a package, a compiled one): a student's would run in every
 * python3 of the verifier (issue 37 item 3). */
static const char *const startup_modules[] = {"sitecustomize", "usercustomize",
                                              NULL};

/* 1 when name is one of startup_modules, alone or with a suffix. */
static int startup_module(const char *name)
{
    for (size_t i = 0; startup_modules[i]; i++) {
        size_t k = strlen(startup_modules[i]);

        if (!strncmp(name, startup_modules[i], k) &&
            (!name[k] || name[k] == '.'))
            return 1;
    }
    return 0;
}

/* Remove the folder name of dirfd and all it holds. */
static int own_rm_dir(struct own *o, int dirfd, const char *name)
{
    int sub =
        openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = sub < 0 || up_fs_rm_contents(sub, name) ||
             unlinkat(dirfd, name, AT_REMOVEDIR);

    if (sub >= 0)
        close(sub);
    return rc ? own_fail(o, UP_EIO, "cannot remove", name) : 0;
}

/* One entry name of dirfd: removed, copied, entered or left. */
static int own_entry(struct own *o, int dirfd, const char *name, unsigned depth)
{
    struct stat st;
    int sub;

    if (++o->entries > UP_CHECK_OWN_ENTRIES)
        return own_fail(o, UP_ETOOBIG,
                        "the workspace holds more than 100000 entries "
                        "(UP_CHECK_OWN_ENTRIES)",
                        NULL);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return own_fail(o, UP_EIO, "cannot read", name);
    if (S_ISDIR(st.st_mode) && startup_module(name))
        return own_rm_dir(o, dirfd, name);
    if (S_ISREG(st.st_mode) && !startup_module(name))
        return st.st_nlink > 1 ? own_copy(o, dirfd, name, &st) : 0;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dirfd, name, 0)
                   ? own_fail(o, UP_EIO, "cannot remove", name)
                   : 0;
    if (depth >= UP_CHECK_OWN_DEPTH)
        return own_fail(o, UP_ETOOBIG,
                        "the workspace's folders nest deeper than 64 "
                        "(UP_CHECK_OWN_DEPTH)",
                        NULL);
    sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0 && errno == EACCES && /* the student's: opened again */
        !fchmodat(dirfd, name, (st.st_mode & 07777) | S_IRWXU, 0))
        sub = openat(dirfd, name,
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return own_fail(o, UP_EIO, "cannot open the folder", name);
    return own_dir(o, sub, depth + 1); /* closes sub */
}

/* Every entry of the folder open as dirfd (closed here). */
static int own_dir(struct own *o, int dirfd, unsigned depth)
{
    DIR *d = fdopendir(dirfd);
    struct dirent *e;

    if (!d) {
        close(dirfd);
        return own_fail(o, UP_EIO, "cannot list a folder of the workspace",
                        NULL);
    }
    while (!o->rc && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            own_entry(o, dirfd, e->d_name, depth);
    closedir(d);
    return o->rc;
}

int up_check_own_bytes(const char *ws, up_error *err)
{
    struct own o = {0, 0, err, 0};
    int fd = open(ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return up_error_set(err, UP_ENOTFOUND,
                            "the workspace '%s' is not a folder", ws);
    return own_dir(&o, fd, 0);
}
