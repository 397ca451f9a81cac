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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/fs.h"
#include "upskill/workspace.h"

#define RUN_PREFIX "upskill-run-"

/* The pid in a run folder's name, or 0 when it has none. */
static pid_t name_pid(const char *name)
{
    const char *p = name + strlen(RUN_PREFIX);
    char *end;
    long pid;

    if (strncmp(name, RUN_PREFIX, strlen(RUN_PREFIX)) || *p < '1' || *p > '9')
        return 0;
    pid = strtol(p, &end, 10);
    return *end == '-' && pid > 0 && pid <= 0x3fffffff ? (pid_t)pid : 0;
}

/* 1 when pid is a live process we can see (EPERM: alive, not ours). */
static int alive(pid_t pid)
{
    return kill(pid, 0) == 0 || errno == EPERM;
}

/* Remove run folder name of rootfd when it is stale; 1 when removed. */
static int sweep_one(int rootfd, const char *root, const char *name)
{
    pid_t pid = name_pid(name);
    struct stat st;
    up_buf path = UP_BUF_INIT;
    int fd, gone = 0;

    if (!pid || alive(pid) || fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
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
