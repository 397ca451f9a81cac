/*
 * Internals of the sandbox (src/lib/sandbox*.c), not part of the API.
 */
#ifndef UPSKILL_SANDBOX_INT_H
#define UPSKILL_SANDBOX_INT_H

#include "upskill/sandbox.h"

/* The fd bwrap writes its JSON status ("child-pid") to, in the child. */
#define SBX_INFO_FD 3

/* The fd bwrap reads its options from (--args), in the child. */
#define SBX_ARGS_FD 4

/* A per-call pids cgroup, when one is writable here (else dir is NULL). */
typedef struct sbx_cgroup {
    char *dir;    /* the cgroup's folder, owned; NULL when none */
    int procs_fd; /* its cgroup.procs open for writing, -1 when none */
} sbx_cgroup;

/* The folders a bubblewrap line binds besides the system's (resolved
 * host paths; NULL: none). */
typedef struct sbx_binds {
    const char *ws_at; /* the workspace's place (NULL: /workspace) */
    const char *ro;    /* bound read-only at ro_at */
    const char *ro_at;
    const char *rw; /* bound writable at rw_at */
    const char *rw_at;
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

/* Make cg a fresh pids cgroup capped at nproc; 0, or -1 when none. */
int sbx_cgroup_open(sbx_cgroup *cg, unsigned nproc);

/* 1 when a fork in cg was refused by its pids.max. */
int sbx_cgroup_hit(const sbx_cgroup *cg);

/* Kill whatever is left in cg, wait for it to empty, remove it. */
void sbx_cgroup_close(sbx_cgroup *cg);

#endif
