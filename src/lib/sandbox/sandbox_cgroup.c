/*
 * The cgroups of one call, where the machine lets us make them.
 *
 * Memory: a memory cgroup per call bounds the memory of the whole call
 * (every process, and the pages it writes to its tmpfs mounts), which
 * RLIMIT_AS cannot: that is per process.  With cgroup v1 the folder is
 * made under our own memory cgroup (so whatever bounds us still bounds
 * the call), with v2 at the root of the hierarchy when that is writable
 * and has the controller.  Where neither works (the usual case for an
 * unprivileged user), the call gets lower per-process limits instead:
 * RLIMIT_AS at most half of mem_total and at most SBX_NOCG_NPROC
 * processes, so the call's memory is bounded, more loosely, by their
 * product.
 *
 * Processes: RLIMIT_NPROC is not enforced for root (the kernel exempts
 * the global root user even inside a user namespace), so as root a fork
 * bomb is otherwise bounded only by the wall clock.  A pids cgroup caps
 * the process count for any user; it is made for root only, as moving a
 * process into a v1 cgroup waits for an RCU grace period (about 15 ms
 * here).  Elsewhere the sandbox relies on RLIMIT_NPROC plus the pid
 * namespace and the wall clock.
 *
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

/* The process cap of a call without a memory cgroup. */
#define SBX_NOCG_NPROC 16u

#define CG_ROOT    "/sys/fs/cgroup"
#define CG_V1_PIDS CG_ROOT "/pids"
#define CG_V1_MEM  CG_ROOT "/memory"

/* A file of a new cgroup and the value written to it. */
struct knob {
    const char *file;
    char value[32];
};

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

/* A new folder under base with every knob written and its cgroup.procs
 * open into d; 0, or -1 with nothing left behind. */
static int make_group(sbx_cg_dir *d, const char *base, const struct knob *k,
                      size_t n)
{
    up_buf dir = UP_BUF_INIT, procs = UP_BUF_INIT;
    int ok = 1;

    up_buf_addf(&dir, "%s/upskill-sandbox-%ld-%u", base, (long)getpid(),
                atomic_fetch_add(&cg_seq, 1));
    if (mkdir(dir.data, 0700) != 0) {
        up_buf_release(&dir);
        return -1;
    }
    for (size_t i = 0; ok && i < n; i++)
        ok = write_file(dir.data, k[i].file, k[i].value) == 0;
    up_fs_join(&procs, dir.data, "cgroup.procs");
    if (ok)
        d->procs_fd = open(procs.data, O_WRONLY | O_CLOEXEC);
    up_buf_release(&procs);
    if (d->procs_fd < 0) {
        rmdir(dir.data);
        up_buf_release(&dir);
        return -1;
    }
    d->dir = up_buf_detach(&dir);
    return 0;
}

/* 1 when the comma list ctl (of length n) names the memory controller. */
static int names_memory(const char *ctl, size_t n)
{
    for (const char *c = ctl, *end = ctl + n; c < end;) {
        size_t len = strcspn(c, ",:");

        if (len == 6 && !strncmp(c, "memory", 6))
            return 1;
        c += len + 1;
    }
    return 0;
}

/* Our own v1 memory cgroup's folder into dir; 0, or -1 when none.
 * /proc/self/cgroup lines read "id:controllers:path". */
static int own_v1_memory(up_buf *dir)
{
    up_buf text = UP_BUF_INIT;
    int rc = -1;

    if (up_fs_read(&text, "/proc/self/cgroup", 1 << 16, NULL) != 0)
        text.len = 0;
    for (char *line = text.data; rc && line && *line;) {
        char *nl = strchr(line, '\n'), *ctl = strchr(line, ':'), *path;

        if (nl)
            *nl = '\0';
        path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (path && names_memory(ctl + 1, (size_t)(path - ctl - 1))) {
            up_buf_addf(dir, "%s%s", CG_V1_MEM,
                        strcmp(path + 1, "/") ? path + 1 : "");
            rc = 0;
        }
        line = nl ? nl + 1 : NULL;
    }
    up_buf_release(&text);
    return rc;
}

static void set_knob(struct knob *k, const char *file, size_t value)
{
    k->file = file;
    snprintf(k->value, sizeof(k->value), "%zu", value);
}

/* The call's memory cgroup: v1 under our own, else v2 at the root (one
 * folder with pids.max too, for root, as a process has one v2 cgroup). */
static void open_memory(sbx_cgroup *cg, const up_sandbox_limits *lim)
{
    up_buf base = UP_BUF_INIT;
    struct knob k[2];

    set_knob(&k[0], "memory.limit_in_bytes", lim->mem_total);
    if (own_v1_memory(&base) == 0 && make_group(&cg->mem, base.data, k, 1) == 0)
        cg->has_mem = 1;
    up_buf_release(&base);
    if (cg->has_mem || access(CG_ROOT "/cgroup.controllers", F_OK) != 0)
        return;
    set_knob(&k[0], "memory.max", lim->mem_total);
    set_knob(&k[1], "pids.max", lim->nproc);
    cg->has_pids = lim->nproc > 0 && geteuid() == 0;
    if (make_group(&cg->pids, CG_ROOT, k, cg->has_pids ? 2 : 1) == 0)
        cg->has_mem = 1;
    else
        cg->has_pids = 0;
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
        if (up_fs_name_of_dead(e->d_name, "upskill-sandbox-"))
            (void)unlinkat(fd, e->d_name, AT_REMOVEDIR);
    closedir(d);
}

static atomic_flag cg_swept = ATOMIC_FLAG_INIT;

/* Once per process: the folders where our cgroups are made. */
static void sweep_bases(void)
{
    up_buf mem = UP_BUF_INIT;

    if (atomic_flag_test_and_set(&cg_swept))
        return;
    sweep_base(CG_V1_PIDS);
    sweep_base(CG_ROOT);
    if (own_v1_memory(&mem) == 0)
        sweep_base(mem.data);
    up_buf_release(&mem);
}

/* No memory cgroup: bound the call by RLIMIT_AS times the processes. */
static void lower_limits(up_sandbox_limits *lim)
{
    size_t half = lim->mem_total / 2;

    if (!lim->mem_bytes || lim->mem_bytes > half)
        lim->mem_bytes = half;
    if (!lim->nproc || lim->nproc > SBX_NOCG_NPROC)
        lim->nproc = SBX_NOCG_NPROC;
}

static void open_pids(sbx_cgroup *cg, unsigned nproc)
{
    static const char *const bases[] = {CG_V1_PIDS, CG_ROOT, NULL};
    struct knob k;

    set_knob(&k, "pids.max", nproc);
    for (size_t i = 0; bases[i] && !cg->has_pids; i++)
        cg->has_pids = make_group(&cg->pids, bases[i], &k, 1) == 0;
}

int sbx_cgroup_open(sbx_cgroup *cg, up_sandbox_limits *lim)
{
    memset(cg, 0, sizeof(*cg));
    cg->pids.procs_fd = cg->mem.procs_fd = -1;
    if (lim->mem_total || (lim->nproc > 0 && geteuid() == 0))
        sweep_bases();
    if (lim->mem_total)
        open_memory(cg, lim);
    if (lim->mem_total && !cg->has_mem)
        lower_limits(lim);
    /* Only root needs a pids cgroup (RLIMIT_NPROC binds everyone else). */
    if (!cg->has_pids && lim->nproc > 0 && geteuid() == 0)
        open_pids(cg, lim->nproc);
    return cg->pids.dir || cg->mem.dir ? 0 : -1;
}

int sbx_cgroup_enter(const sbx_cgroup *cg)
{
    if (cg->pids.procs_fd >= 0 && write(cg->pids.procs_fd, "0", 1) != 1)
        return -1;
    if (cg->mem.procs_fd >= 0 && write(cg->mem.procs_fd, "0", 1) != 1)
        return -1;
    return 0;
}

/* 1 when file name of d says "key N" with N > 0. */
static int counted(const sbx_cg_dir *d, const char *name, const char *key)
{
    up_buf path = UP_BUF_INIT, text = UP_BUF_INIT;
    const char *p;
    int hit = 0;

    if (!d->dir)
        return 0;
    up_fs_join(&path, d->dir, name);
    if (up_fs_read(&text, path.data, 4096, NULL) == 0 &&
        (p = strstr(text.data, key)) != NULL)
        hit = strtol(p + strlen(key), NULL, 10) > 0;
    up_buf_release(&path);
    up_buf_release(&text);
    return hit;
}

int sbx_cgroup_hit(const sbx_cgroup *cg)
{
    return cg->has_pids && counted(&cg->pids, "pids.events", "max ");
}

int sbx_cgroup_oom(const sbx_cgroup *cg)
{
    if (!cg->has_mem)
        return 0;
    return cg->mem.dir ? counted(&cg->mem, "memory.oom_control", "oom_kill ")
                       : counted(&cg->pids, "memory.events", "oom_kill ");
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

/* SIGKILL what is left in d; 1 when nothing is (or d is none). */
static int dir_empty(const sbx_cg_dir *d)
{
    up_buf procs = UP_BUF_INIT;
    int empty = 1;

    if (d->dir) {
        up_fs_join(&procs, d->dir, "cgroup.procs");
        empty = kill_listed(procs.data);
        up_buf_release(&procs);
    }
    return empty;
}

int sbx_cgroup_empty(const sbx_cgroup *cg)
{
    int pids = dir_empty(&cg->pids);

    return dir_empty(&cg->mem) && pids;
}

/* Killed processes leave the cgroup as the kernel reaps them; rmdir
 * succeeds once it is empty, which the call's end waits for without
 * sleeping (sbx_cgroup_empty, revisited by the loop): here a folder
 * still busy after a few tries is left behind. */
static void close_dir(sbx_cg_dir *d)
{
    if (d->procs_fd >= 0)
        close(d->procs_fd);
    d->procs_fd = -1;
    if (!d->dir)
        return;
    /* a task the kernel is still taking out keeps it busy a moment:
     * a few more tries, no sleep */
    for (int i = 0; i < 100 && rmdir(d->dir) != 0 && errno == EBUSY; i++)
        (void)dir_empty(d);
    free(d->dir);
    d->dir = NULL;
}

void sbx_cgroup_close(sbx_cgroup *cg)
{
    close_dir(&cg->pids);
    close_dir(&cg->mem);
    cg->has_pids = cg->has_mem = 0;
}
