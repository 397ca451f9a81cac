/*
 * Internals of the sandbox (src/lib/sandbox*.c), not part of the API.
 */
#ifndef UPSKILL_SANDBOX_INT_H
#define UPSKILL_SANDBOX_INT_H

#include <sys/types.h>

#include "upskill/buf.h"
#include "upskill/error.h"

#include "upskill/sandbox.h"

/* The fd bwrap writes its JSON status ("child-pid") to, in the child. */
#define SBX_INFO_FD 3

/* The fd bwrap reads its options from (--args), in the child. */
#define SBX_ARGS_FD 4

/* The fd of the bounded folders' socket, in the child. */
#define SBX_BOUND_FD 5

/* Bounded folders a call may have (the workspace, a CLI's home). */
#define SBX_BOUND_MAX 2

/* A host folder that is a tmpfs of its own for one call
 * (sandbox_bound.c). */
typedef struct sbx_bound {
    char *dir;        /* the host folder, resolved, owned */
    size_t max_bytes; /* its quota: bytes of its files */
    size_t max_files; /* and its entries (0: no cap) */
    char data[96];    /* the tmpfs's mount options */
    int fd;           /* the tmpfs's root in the parent, -1 until sent */
} sbx_bound;

/* A call's bounded folders. */
typedef struct sbx_bounds {
    sbx_bound v[SBX_BOUND_MAX];
    size_t n;
    int sock;                      /* the parent's end, -1 when none */
    char uid_map[48], gid_map[48]; /* "ID ID 1": ours only */
} sbx_bounds;

/* Empty b (no folder). */
void sbx_bounds_init(sbx_bounds *b);

/* Add dir (resolved) with its quota to b: 0, or -1 when b is full or
 * max_bytes is 0. */
int sbx_bounds_add(sbx_bounds *b, const char *dir, size_t max_bytes,
                   size_t max_files);

/* In the child, before exec: a user and mount namespace of its own, a
 * sized tmpfs over each folder, their roots sent on sock; then wait for
 * the parent's go.  0, or -1.  Async-signal-safe. */
int sbx_bounds_child(const sbx_bounds *b, int sock);

/* In the parent after fork: receive each tmpfs, copy its folder in,
 * say go.  0, or an error (UP_EUNSAFE: no tmpfs could be made;
 * UP_ETOOBIG: the folder does not fit its quota; UP_EIO). */
int sbx_bounds_fill(sbx_bounds *b, up_error *err);

/* 1 when a tmpfs of b is full (bytes or entries). */
int sbx_bounds_full(const sbx_bounds *b);

/* Once every process of the call is dead: each tmpfs copied back over
 * its folder when it fits its quota (discard 0); 1 when one does not
 * (that folder is left as it was; why says which), else 0.  The tmpfs
 * mounts are let go either way. */
int sbx_bounds_back(sbx_bounds *b, int discard, up_buf *why);

/* Free what b holds; b is empty again. */
void sbx_bounds_release(sbx_bounds *b);

/* One folder of a per-call cgroup. */
typedef struct sbx_cg_dir {
    char *dir;    /* the cgroup's folder, owned; NULL when none */
    int procs_fd; /* its cgroup.procs open for writing, -1 when none */
} sbx_cg_dir;

/* A per-call cgroup, where the machine lets us make one: pids (root
 * only) and memory.  With cgroup v1 they are two folders (two
 * hierarchies), with v2 one folder holding both. */
typedef struct sbx_cgroup {
    sbx_cg_dir pids; /* pids.max, or the v2 folder with both */
    sbx_cg_dir mem;  /* the v1 memory folder */
    int has_pids;    /* pids.max is set (in pids) */
    int has_mem;     /* the call's memory is bounded (mem or v2 pids) */
} sbx_cgroup;

/* The folders a bubblewrap line binds besides the system's (resolved
 * host paths; NULL: none). */
typedef struct sbx_binds {
    const char *ws_at; /* the workspace's place (NULL: /workspace) */
    const char *ro;    /* bound read-only at ro_at */
    const char *ro_at;
    const char *rw; /* bound writable at rw_at */
    const char *rw_at;
    const char *const *places; /* up_sandbox_places_args, or NULL */
    const char *const *env;    /* NAME=value words set inside the
                                  sandbox only (bwrap's --setenv), or
                                  NULL */
} sbx_binds;

/*
 * argv for mode (a NULL-terminated heap strv, free with up_strv_free):
 * bwrap and its options around `/bin/sh -c cmd` with ws (absolute) bound
 * at b->ws_at and b's other folders, or `/bin/sh -c cmd` alone for
 * UP_SANDBOX_NONE.
 */
char **sbx_argv(up_sandbox_mode mode, const char *ws, const char *cmd,
                unsigned nproc, const sbx_binds *b);

/* The allow-listed environment (heap strv); HOME is home; then each
 * NAME=value of env (NULL-ended, or NULL) replaces its NAME or is
 * added. */
char **sbx_envp(const char *home, const char *const *env);

/*
 * The probe behind up_sandbox_check, uncached: UP_ENOTFOUND when bwrap
 * (a path) is not executable, UP_EUNSAFE when `bwrap ... true` fails.
 */
int sbx_probe(const char *bwrap, up_error *err);

/*
 * Make cg the call's cgroups for lim: memory.max of lim->mem_total where
 * a memory cgroup is writable, and pids.max of lim->nproc for root.
 * Without a memory cgroup, lowers lim's mem_bytes and nproc instead
 * (sandbox_cgroup.c says to what).  0 when cg has a folder, else -1.
 */
int sbx_cgroup_open(sbx_cgroup *cg, up_sandbox_limits *lim);

/* Move the calling process (a child before exec) into cg: 0 or -1.
 * Async-signal-safe. */
int sbx_cgroup_enter(const sbx_cgroup *cg);

/* 1 when cg's memory limit made the kernel kill a process. */
int sbx_cgroup_oom(const sbx_cgroup *cg);

/* 1 when a fork in cg was refused by its pids.max. */
int sbx_cgroup_hit(const sbx_cgroup *cg);

/* Kill whatever is left in cg and remove it, without sleeping (the
 * call's end has waited for it to empty: sbx_cgroup_empty). */
void sbx_cgroup_close(sbx_cgroup *cg);

/* SIGKILL every process left in the call's cgroups; 1 when none is left
 * (or there are no cgroups).  Never waits. */
int sbx_cgroup_empty(const sbx_cgroup *cg);

/* Make upskill a child subreaper (once), before a none-mode fork. */
void sbx_subreaper(void);

/* Note pid as a live child of the runner (sandbox_reap.c). */
void sbx_live_add(pid_t pid);

/* pid is reaped: no longer live. */
void sbx_live_remove(pid_t pid);

/* What /proc/PID/stat says of a process. */
struct sbx_pstat {
    long ppid, pgrp, sid;     /* parent, process group, session */
    unsigned long long start; /* start time, clock ticks after boot */
};

/* st of pid from /proc; 0, or -1 when it is gone. */
int sbx_proc_stat(long pid, struct sbx_pstat *st);

/* Kill and reap the processes of a call (session sid, started at since)
 * that escaped its process group (sandbox_reap.c says which). */
void sbx_sweep(unsigned long long since, pid_t sid);

#endif
