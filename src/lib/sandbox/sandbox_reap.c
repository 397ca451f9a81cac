/*
 * Processes of a none-mode call that left its process group.
 *
 * The none mode has no pid namespace: the wall clock kills the command's
 * process group, and a process that started a session of its own
 * (`(setsid sleep 100 &)`) is not in it.  So upskill makes itself a
 * child subreaper (PR_SET_CHILD_SUBREAPER) before its first none-mode
 * call: an orphan of the command is then handed to upskill, not to init.
 * When a none-mode call ends, a child of upskill is an escaped process of
 * the call when the runner did not start it, it is in no live call's
 * process group, it started after the call did, and its session is the
 * call's, its own (it ran setsid) or one of a process killed here: it is
 * killed and reaped, and its own children, handed to upskill in turn, on
 * the next round.
 *
 * Invariant: the runner's own children (the pids in `live`) and their
 * groups are never touched here, nor a child of upskill in another
 * session; a program using this library that forks children of its own
 * which start sessions while a none-mode call runs may see them killed
 * (upskill itself starts every process through the runner).
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "lib/sandbox/sandbox_int.h"

/* Rounds of a sweep: each kills one generation of escaped processes. */
#define SWEEP_ROUNDS 64

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *live; /* the runner's children not yet reaped, nlive */
static size_t nlive, live_cap;
static int subreaper; /* PR_SET_CHILD_SUBREAPER is on */

void sbx_subreaper(void)
{
    pthread_mutex_lock(&live_lock);
    if (!subreaper)
        subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    pthread_mutex_unlock(&live_lock);
}

void sbx_live_add(pid_t pid)
{
    pthread_mutex_lock(&live_lock);
    UP_GROW(live, live_cap, nlive + 1);
    live[nlive++] = pid;
    pthread_mutex_unlock(&live_lock);
}

void sbx_live_remove(pid_t pid)
{
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == pid) {
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&live_lock);
}

/* 1 when pid is a live run's process or group leader (lock held). */
static int is_live(pid_t pid)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == pid)
            return 1;
    return 0;
}

static int is_live_locked(pid_t pid, pid_t pgrp)
{
    int ours;

    pthread_mutex_lock(&live_lock);
    ours = is_live(pid) || is_live(pgrp);
    pthread_mutex_unlock(&live_lock);
    return ours;
}

int sbx_proc_stat(long pid, struct sbx_pstat *st)
{
    char path[64];
    up_buf text = UP_BUF_INIT;
    const char *p;
    int rc = -1;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    /* after the command name (which may hold anything): ") S ppid pgrp
     * sid tty tpgid flags minflt cminflt majflt cmajflt utime stime
     * cutime cstime priority nice threads itreal starttime" */
    if (up_fs_read(&text, path, 4096, NULL) == 0 &&
        (p = strrchr(text.data, ')')) != NULL &&
        sscanf(p + 1,
               " %*c %ld %ld %ld %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
               "%*d %*d %*d %*d %llu",
               &st->ppid, &st->pgrp, &st->sid, &st->start) == 4)
        rc = 0;
    up_buf_release(&text);
    return rc;
}

/* A list of pids: the processes to look at, or the sessions of a sweep
 * (the call's, and those of what it killed). */
struct pids {
    long *v;
    size_t n, cap;
};

static void pids_add(struct pids *ps, long pid)
{
    UP_GROW(ps->v, ps->cap, ps->n + 1);
    ps->v[ps->n++] = pid;
}

static int pids_has(const struct pids *ps, long pid)
{
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i] == pid)
            return 1;
    return 0;
}

/* 1 when st (pid) is an escaped process of the call (file comment). */
static int escaped(long pid, const struct sbx_pstat *st,
                   unsigned long long since, const struct pids *ss)
{
    if (st->ppid != (long)getpid() || st->start < since)
        return 0;
    if (st->sid != pid && !pids_has(ss, st->sid))
        return 0;
    return !is_live_locked((pid_t)pid, (pid_t)st->pgrp);
}

static void pids_add_text(struct pids *ps, const char *text)
{
    char *end;

    for (const char *p = text; *p; p = end) {
        long pid = strtol(p, &end, 10);

        if (end == p)
            break;
        if (pid > 0)
            pids_add(ps, pid);
    }
}

/* Our children, from each of our threads' /proc/self/task/TID/children
 * (an orphan is handed to one of them); -1 when the kernel lacks them. */
static int our_children(struct pids *ps)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;
    int rc = 0;

    if (!d)
        return -1;
    while (!rc && (de = readdir(d)) != NULL) {
        char path[64];
        up_buf text = UP_BUF_INIT;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%.20s/children",
                 de->d_name);
        if (up_fs_read(&text, path, 1 << 20, NULL) == 0)
            pids_add_text(ps, text.data);
        else if (access(path, F_OK) != 0)
            rc = -1; /* no such file: CONFIG_PROC_CHILDREN is off */
        up_buf_release(&text);
    }
    closedir(d);
    return rc;
}

/* Every process, from /proc (the slow way). */
static void all_processes(struct pids *ps)
{
    DIR *d = opendir("/proc");
    struct dirent *de;

    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
            pids_add_text(ps, de->d_name);
    if (d)
        closedir(d);
}

/* One round: kill and reap the escaped processes seen; how many. */
static int sweep_once(unsigned long long since, struct pids *ss)
{
    struct pids ps = {NULL, 0, 0};
    int n = 0;

    if (our_children(&ps) != 0) {
        ps.n = 0;
        all_processes(&ps);
    }
    for (size_t i = 0; i < ps.n; i++) {
        struct sbx_pstat st;
        long pid = ps.v[i];

        if (sbx_proc_stat(pid, &st) != 0 || !escaped(pid, &st, since, ss))
            continue;
        kill((pid_t)pid, SIGKILL);
        waitpid((pid_t)pid, NULL, 0);
        pids_add(ss, pid); /* its session's members are next */
        n++;
    }
    free(ps.v);
    return n;
}

void sbx_sweep(unsigned long long since, pid_t sid)
{
    struct pids ss = {NULL, 0, 0};
    int on;

    pthread_mutex_lock(&live_lock);
    on = subreaper;
    pthread_mutex_unlock(&live_lock);
    if (!on)
        return;
    pids_add(&ss, (long)sid);
    for (int i = 0; i < SWEEP_ROUNDS && sweep_once(since, &ss) > 0; i++)
        ;
    free(ss.v);
}
