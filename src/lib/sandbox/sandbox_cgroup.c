/*
 * A pids cgroup per sandboxed call, when the machine lets us make one.
 *
 * Why: RLIMIT_NPROC is not enforced for root (the kernel exempts the
 * global root user even inside a user namespace), so as root a fork bomb
 * is otherwise bounded only by the wall clock.  A pids cgroup caps the
 * process count for any user.  Where none is writable (the usual case
 * for an unprivileged user), sbx_cgroup_open returns -1 and the sandbox
 * relies on RLIMIT_NPROC plus the pid namespace and the wall clock.
 * A cgroup is named "upskill-sandbox-PID-N"; the first open of a process
 * removes the empty ones whose PID is no live process (a killed run's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "lib/sandbox/sandbox_int.h"

/* Where a pids cgroup may be made: cgroup v1's pids hierarchy, then v2. */
static const char *const cg_bases[] = {"/sys/fs/cgroup/pids", "/sys/fs/cgroup",
                                       NULL};

static atomic_uint cg_seq;

static int write_file(const char *dir, const char *name, const char *text)
{
    up_buf path = UP_BUF_INIT;
    int fd, rc = -1;

    up_fs_join(&path, dir, name);
    fd = open(path.data, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        rc = up_fs_write_all(fd, text, strlen(text));
        close(fd);
    }
    up_buf_release(&path);
    return rc < 0 ? -1 : 0;
}

static int try_base(sbx_cgroup *cg, const char *base, unsigned nproc)
{
    up_buf dir = UP_BUF_INIT, procs = UP_BUF_INIT;
    char max[32];

    up_buf_addf(&dir, "%s/upskill-sandbox-%ld-%u", base, (long)getpid(),
                atomic_fetch_add(&cg_seq, 1));
    if (mkdir(dir.data, 0700) != 0) {
        up_buf_release(&dir);
        return -1;
    }
    snprintf(max, sizeof(max), "%u", nproc);
    up_fs_join(&procs, dir.data, "cgroup.procs");
    if (write_file(dir.data, "pids.max", max) == 0)
        cg->procs_fd = open(procs.data, O_WRONLY | O_CLOEXEC);
    up_buf_release(&procs);
    if (cg->procs_fd < 0) {
        rmdir(dir.data);
        up_buf_release(&dir);
        return -1;
    }
    cg->dir = up_buf_detach(&dir);
    return 0;
}

/* 1 when "upskill-sandbox-PID-N" names a pid that is no live process. */
static int dead_owner(const char *name)
{
    static const char prefix[] = "upskill-sandbox-";
    char *end;
    long pid;

    if (strncmp(name, prefix, sizeof(prefix) - 1))
        return 0;
    pid = strtol(name + sizeof(prefix) - 1, &end, 10);
    return end != name + sizeof(prefix) - 1 && *end == '-' && pid > 0 &&
           pid <= 0x3fffffff && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/*
 * Remove the empty cgroups a dead process left under base (a run killed
 * before sbx_cgroup_close); rmdir fails on one that still holds a
 * process, which stays.
 */
static void sweep_base(const char *base)
{
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(d)))
        if (dead_owner(e->d_name))
            (void)unlinkat(fd, e->d_name, AT_REMOVEDIR);
    closedir(d);
}

static atomic_flag cg_swept = ATOMIC_FLAG_INIT;

int sbx_cgroup_open(sbx_cgroup *cg, unsigned nproc)
{
    cg->dir = NULL;
    cg->procs_fd = -1;
    /* Only root needs it, and it is not free: moving a process into a v1
     * cgroup waits for an RCU grace period (about 15 ms here). */
    if (nproc == 0 || geteuid() != 0)
        return -1;
    if (!atomic_flag_test_and_set(&cg_swept)) /* once per process */
        for (size_t i = 0; cg_bases[i]; i++)
            sweep_base(cg_bases[i]);
    for (size_t i = 0; cg_bases[i]; i++)
        if (try_base(cg, cg_bases[i], nproc) == 0)
            return 0;
    return -1;
}

int sbx_cgroup_hit(const sbx_cgroup *cg)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    const char *p;
    int hit = 0;

    if (!cg->dir)
        return 0;
    up_fs_join(&path, cg->dir, "pids.events");
    if (up_fs_read(&text, path.data, 4096, NULL) == 0 &&
        (p = strstr(text.data, "max ")) != NULL)
        hit = strtol(p + 4, NULL, 10) > 0;
    up_buf_release(&path);
    up_buf_release(&text);
    return hit;
}

/* Kill every pid listed in cgroup.procs; 1 when the list was empty. */
static int kill_listed(const char *procs)
{
    up_buf text = UP_BUF_INIT;
    char *p, *end;
    int empty = 1;

    if (up_fs_read(&text, procs, 1 << 20, NULL) == 0)
        for (p = text.data; *p; p = end) {
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0) {
                kill((pid_t)pid, SIGKILL);
                empty = 0;
            }
        }
    up_buf_release(&text);
    return empty;
}

void sbx_cgroup_close(sbx_cgroup *cg)
{
    up_buf procs = UP_BUF_INIT;
    struct timespec ms = {0, 1000000};

    if (cg->procs_fd >= 0)
        close(cg->procs_fd);
    cg->procs_fd = -1;
    if (!cg->dir)
        return;
    up_fs_join(&procs, cg->dir, "cgroup.procs");
    /* Killed processes leave the cgroup as the kernel reaps them; rmdir
     * succeeds once it is empty.  Bounded: about 2 s. */
    for (int i = 0; i < 2000; i++) {
        if (kill_listed(procs.data) && rmdir(cg->dir) == 0)
            break;
        nanosleep(&ms, NULL);
    }
    up_buf_release(&procs);
    free(cg->dir);
    cg->dir = NULL;
}
