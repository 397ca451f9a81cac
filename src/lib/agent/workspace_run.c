/*
 * A run's private folder of workspaces, and the sweep of those a dead
 * run left behind (workspace.h).
 *
 * A run killed by SIGKILL, a crash or a power cut cannot remove its
 * workspaces; on a tmpfs (/dev/shm) they hold memory until the next
 * boot.  So each run's folder says whose it is and whether it is in use:
 * its name carries the pid ("upskill-run-PID-XXXXXX") and the run holds
 * an flock on the folder for its whole life.  The next run's sweep
 * removes a folder only when both say "gone": its lock is free (no
 * process anywhere holds it, whatever pid namespace) and its pid is not
 * a live process here (so a folder between mkdtemp and flock is never
 * taken).  Only folders of our own user are looked at; names without a
 * pid (other programs', older versions') are left alone.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/fs.h"
#include "lib/agent/workspace.h"

#define RUN_PREFIX "upskill-run-"

/* Remove run folder name of rootfd when it is stale; 1 when removed. */
static int sweep_one(int rootfd, const char *root, const char *name)
{
    struct stat st;
    up_buf path = UP_BUF_INIT;
    int fd, gone = 0;

    if (!up_fs_name_of_dead(name, RUN_PREFIX) ||
        fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return 0;
    fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) { /* nobody's run holds it */
        up_fs_join(&path, root, name);
        gone = up_fs_rm_contents(fd, path.data) == 0 &&
               unlinkat(rootfd, name, AT_REMOVEDIR) == 0;
    }
    close(fd);
    up_buf_release(&path);
    return gone;
}

size_t up_ws_sweep(const char *root)
{
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = rootfd >= 0 ? fdopendir(rootfd) : NULL;
    struct dirent *e;
    size_t n = 0;

    if (!d) {
        if (rootfd >= 0)
            close(rootfd);
        return 0;
    }
    while ((e = readdir(d)))
        n += (size_t)sweep_one(rootfd, root, e->d_name);
    closedir(d);
    return n;
}

int up_ws_run_dir_new(up_buf *dir, int *lockfd, const char *root)
{
    up_buf_reset(dir);
    up_fs_join(dir, root, RUN_PREFIX);
    up_buf_addf(dir, "%ld-XXXXXX", (long)getpid());
    *lockfd = -1;
    if (!mkdtemp(dir->data))
        return -1;
    *lockfd = open(dir->data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*lockfd >= 0 && flock(*lockfd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    /* unlocked, a sweep would take it for a dead run's once we are gone */
    if (*lockfd >= 0)
        close(*lockfd);
    *lockfd = -1;
    rmdir(dir->data);
    return -1;
}

void up_ws_run_dir_free(const char *dir, int lockfd)
{
    /* removed while still locked, so no sweep races the removal */
    (void)up_fs_rm_tree(dir);
    if (lockfd >= 0)
        close(lockfd);
}
