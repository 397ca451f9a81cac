/*
 * Run one command line in a sandbox (docs/sandbox.md).
 *
 * `/bin/sh -c CMD` runs under bubblewrap (/usr/bin/bwrap) in new user,
 * pid, net, ipc, uts and cgroup namespaces, with the system read-only, a
 * private /tmp, no network beyond loopback, and the caller's workspace
 * directory bound at /workspace as the only writable place and the
 * working directory.  The environment is a fixed allow-list: no variable
 * of the caller (API keys included) ever reaches the command.  Limits per
 * call: CPU seconds, address space, memory of the whole call (a memory
 * cgroup where one can be made), file size, process count, wall clock
 * and an output cap; /tmp and /dev/shm are 128 MiB tmpfs mounts.  A broken
 * limit is data in the result, never an error of the caller.
 *
 * Asynchronous use: up_sandbox_start, then poll the fds of
 * up_sandbox_pollfds and call up_sandbox_step when one is readable (or
 * when up_sandbox_timeout_ms runs out), until step returns 1; then
 * up_sandbox_finish.  The eval's scheduler does the polling (a parked
 * job); up_sandbox_exec runs one command through it.
 */
#ifndef UPSKILL_SANDBOX_H
#define UPSKILL_SANDBOX_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* How a command is run. */
typedef enum up_sandbox_mode {
    UP_SANDBOX_BWRAP = 0, /* bubblewrap: the default */
    UP_SANDBOX_NONE = 1   /* explicit opt-out: fork/exec in the workspace */
} up_sandbox_mode;

/* Limits per call; 0 in a field means "no limit" except where noted. */
typedef struct up_sandbox_limits {
    unsigned cpu_s;     /* RLIMIT_CPU seconds (default 10) */
    unsigned wall_ms;   /* wall clock, whole sandbox killed (30000) */
    size_t mem_bytes;   /* RLIMIT_AS per process (default 1 GiB) */
    size_t mem_total;   /* memory of the whole call, tmpfs included, in a
                           memory cgroup (default 1 GiB); without one,
                           mem_bytes and nproc are lowered instead */
    size_t fsize_bytes; /* RLIMIT_FSIZE per file (default 64 MiB) */
    unsigned nproc;     /* processes of the sandbox (default 64) */
    size_t out_cap;     /* bytes kept per stream (default 64 KiB) */
    size_t err_cap;     /* bytes of stderr kept when not out_cap (0) */
    size_t out_kill;    /* total output that kills the command (8 MiB) */
    size_t ws_bytes;    /* bwrap mode: the workspace is, for the call, a
                           file system of its own holding at most this
                           many bytes of files (0: bound as it is) */
    size_t ws_files;    /* and at most this many entries (0: no cap) */
} up_sandbox_limits;

/* The limit a call broke. */
typedef enum up_sandbox_limit {
    UP_SANDBOX_OK = 0,
    UP_SANDBOX_CPU,        /* "cpu time limit (10 s)" */
    UP_SANDBOX_WALL,       /* "wall clock (30 s)" */
    UP_SANDBOX_OUTPUT,     /* "output cap": killed for printing over out_kill */
    UP_SANDBOX_FSIZE,      /* "file size" */
    UP_SANDBOX_MEMORY,     /* "memory" */
    UP_SANDBOX_NPROC,      /* "processes" */
    UP_SANDBOX_MEMORY_ALL, /* "memory of the call": the cgroup's OOM kill */
    UP_SANDBOX_QUOTA       /* "workspace quota": a bounded folder filled or
                              ended over its quota; the call's writes to it
                              were discarded */
} up_sandbox_limit;

/* What a call did.  Release with up_sandbox_result_release. */
typedef struct up_sandbox_result {
    int exit_code;          /* the shell's exit code; 128+n for signal n */
    int signal;             /* signal n that ended it (or exit code 128+n) */
    up_sandbox_limit limit; /* the limit broken, UP_SANDBOX_OK if none */
    char limit_text[64];    /* e.g. "wall clock (30 s)"; "" if none */
    up_buf out;             /* stdout, at most out_cap bytes */
    up_buf err;             /* stderr, at most out_cap bytes */
    int out_cut;            /* 1 when stdout was longer than out_cap */
    int err_cut;            /* 1 when stderr was longer than out_cap */
    double wall_ms;         /* wall time of the call */
} up_sandbox_result;

/* A command under way (opaque). */
typedef struct up_sandbox_run up_sandbox_run;

/* A host folder that is, for one call in mode bwrap, a file system of
 * its own (a tmpfs sized from its quota): its contents are copied in
 * before the program starts and back once every process of the call is
 * dead, when they fit; docs/sandbox.md, "The workspace quota". */
typedef struct up_sandbox_bound {
    const char *dir;  /* borrowed: the host folder */
    size_t max_bytes; /* bytes of its files */
    size_t max_files; /* files, folders and symlinks (0: no cap) */
} up_sandbox_bound;

/* Fill l with the defaults listed in up_sandbox_limits. */
void up_sandbox_limits_default(up_sandbox_limits *l);

/*
 * 0 when bubblewrap is installed and can create the namespaces here, else
 * UP_ENOTFOUND (not installed) or UP_EUNSAFE (the probe failed) with a
 * message saying why and how to fix it.  The probe (`bwrap ... true`)
 * runs once per process; the answer is cached.  Thread-safe.
 */
int up_sandbox_check(up_error *err);

/*
 * Start `/bin/sh -c cmd` in mode with workspace (an existing directory,
 * absolute or relative) as /workspace.  lim NULL means the defaults.
 * *out is the run; the caller must end it with up_sandbox_finish.
 * Errors: UP_ENOTFOUND (no workspace), UP_EIO (pipe/fork failed).  The
 * bwrap mode does not call up_sandbox_check: do that first.
 */
int up_sandbox_start(up_sandbox_run **out, up_sandbox_mode mode,
                     const char *workspace, const char *cmd,
                     const up_sandbox_limits *lim, up_error *err);

/* The bound of a writable folder (up_sandbox_extra's rw_dir, a
 * verifier's /logs/verifier) beside a bounded workspace. */
#define UP_SANDBOX_RW_MAX_BYTES ((size_t)64 << 20)
#define UP_SANDBOX_RW_MAX_FILES 1024

/* What one call adds to the sandbox (up_sandbox_start_with): a command
 * check's hidden files and its environment. */
typedef struct up_sandbox_extra {
    const char *ro_dir;        /* a host folder bound read-only, or NULL */
    const char *ro_at;         /* where, an absolute path in the sandbox */
    const char *const *env;    /* NAME=value words replacing or added to the
                                  allow-list, NULL-ended; or NULL */
    const char *ws_at;         /* where the workspace is bound (an absolute
                                  path, the working folder and HOME), or
                                  NULL: /workspace (up_sandbox_workdir_ok) */
    const char *rw_dir;        /* a host folder bound writable, or NULL;
                                  with a bounded workspace (ws_bytes) a
                                  file system of UP_SANDBOX_RW_MAX_BYTES
                                  and _FILES while the call runs */
    const char *rw_at;         /* where, an absolute path in the sandbox */
    const char *const *places; /* folders outside ws_at ("/data"),
                                  NULL-ended, or NULL: each is the
                                  workspace's UP_SANDBOX_PLACES/<name>,
                                  bound writable (up_sandbox_places_ok) */
} up_sandbox_extra;

/* The workspace's folder holding its places outside the working folder
 * (a Harbor task's COPY to /data): each sub-folder <name> is bound at
 * /<name>; inside the sandbox this folder itself is an empty tmpfs. */
#define UP_SANDBOX_PLACES ".upskill-places"

/* Why p cannot be a place of a workspace bound at ws_at (a static text:
 * not "/<name>" apart from the system's folders, /home or /run, or it
 * holds ws_at), or NULL when it can. */
const char *up_sandbox_place_why(const char *p, const char *ws_at);

/*
 * 0 when each of places (NULL-ended, or NULL) can be a place of
 * workspace ws bound at ws_at (NULL: /workspace): "/<name>", one
 * component that up_sandbox_workdir_ok takes, neither holding ws_at nor
 * /home or /run; its folder ws/UP_SANDBOX_PLACES/<name> is made when
 * missing and must resolve inside ws (never a symlink out).  Else
 * UP_EUNSAFE naming the place and why.
 */
int up_sandbox_places_ok(const char *ws, const char *ws_at,
                         const char *const *places, up_error *err);

/*
 * Add to a bubblewrap line (after the workspace's bind at ws_at) the
 * binds of places (checked by up_sandbox_places_ok) and the tmpfs over
 * ws_at/UP_SANDBOX_PLACES; nothing when places is NULL or empty.
 */
void up_sandbox_places_args(void (*add)(void *ud, const char *w), void *ud,
                            const char *ws, const char *ws_at,
                            const char *const *places);

/* Where the workspace is bound when nothing else is asked. */
#define UP_SANDBOX_WORKSPACE "/workspace"

/*
 * 1 when path can hold the workspace inside the sandbox: absolute,
 * normalised (no ".", "..", empty part or trailing slash), at most 256
 * bytes, not "/" and not under a folder the sandbox mounts itself
 * (/usr, /bin, /lib..., /etc, /proc, /dev, /sys, /tmp, /tests, /logs).
 */
int up_sandbox_workdir_ok(const char *path);

/*
 * up_sandbox_start with x (NULL: nothing) added.  A read-only or
 * writable folder, or a workspace bound elsewhere than /workspace, needs
 * bubblewrap: in mode none it is UP_EUNSAFE, naming why; a ws_at that
 * up_sandbox_workdir_ok refuses is UP_EUNSAFE.
 */
int up_sandbox_start_with(up_sandbox_run **out, up_sandbox_mode mode,
                          const char *workspace, const char *cmd,
                          const up_sandbox_limits *lim,
                          const up_sandbox_extra *x, up_error *err);

/*
 * The fds to poll for POLLIN (at most 3) into fds; returns how many.
 * They change after each up_sandbox_step: ask again.
 */
int up_sandbox_pollfds(const up_sandbox_run *r, int fds[3]);

/* Milliseconds until the run's wall-clock deadline (0 when past). */
int up_sandbox_timeout_ms(const up_sandbox_run *r);

/*
 * Drain what is readable without blocking, enforce the wall clock and the
 * output kill cap.  Returns 1 when the command is over (all output read
 * and the process reaped), 0 while it runs.
 */
int up_sandbox_step(up_sandbox_run *r);

/* Kill the whole sandbox of r now (the caller gives up on it, e.g. on
 * an interrupt); up_sandbox_finish then reaps it at once. */
void up_sandbox_kill(up_sandbox_run *r);

/*
 * Fill res (initialised here) from run r and free r.  Call it once step
 * said the run is over; a run that has not ended is killed first (the
 * caller gives up on it: its limit reads "wall clock"), and reaped
 * without waiting on its descriptors.  Returns 0; a broken limit is in
 * res, not an error.
 */
int up_sandbox_finish(up_sandbox_run *r, up_sandbox_result *res, up_error *err);

/*
 * A program the runner starts as given (the coding-agent CLIs: their
 * bubblewrap command line is built by the harness): argv[0] an absolute
 * path, the environment exactly envp, in cwd (NULL: ours).  bwrap 1
 * says argv[0] is bubblewrap: the runner asks it for its namespace's
 * init (--info-fd), so a kill reaches every process of the sandbox;
 * else the program runs in a session of its own, killed as a group.
 */
typedef struct up_sandbox_proc {
    char *const *argv;              /* borrowed, NULL-ended */
    char *const *envp;              /* borrowed, NULL-ended */
    const char *cwd;                /* borrowed, or NULL */
    int bwrap;                      /* 1: argv is a bwrap command line */
    const up_sandbox_bound *bounds; /* bwrap 1: folders its line binds
                                       that are bounded (at most 2) */
    size_t nbounds;
} up_sandbox_proc;

/*
 * Start p with the limits lim (NULL: the defaults; a 0 field is no
 * limit).  Then as up_sandbox_start: poll, step, finish.  Errors:
 * UP_ENOTFOUND (argv[0] not absolute), UP_EIO (pipe/fork failed).
 */
int up_sandbox_spawn(up_sandbox_run **out, const up_sandbox_proc *p,
                     const up_sandbox_limits *lim, up_error *err);

/* Drive r until it ends, as one parked job of a one-job scheduler (the
 * one loop that waits on descriptors); then call up_sandbox_finish.  For
 * callers that need the answer now: the probe, tests, the bench. */
void up_sandbox_wait(up_sandbox_run *r);

/* Run cmd and wait for it: start, up_sandbox_wait, finish. */
int up_sandbox_exec(up_sandbox_result *res, up_sandbox_mode mode,
                    const char *workspace, const char *cmd,
                    const up_sandbox_limits *lim, up_error *err);

/* Free res's buffers. */
void up_sandbox_result_release(up_sandbox_result *res);

/*
 * The common part of a bubblewrap command line, one word at a time through
 * add(ud, word): the bwrap binary, new user, pid, network (only
 * loopback), ipc, uts and cgroup namespaces, capabilities dropped, /proc,
 * a minimal read-only /dev with a 128 MiB /dev/shm, a private 128 MiB
 * /tmp, the system folders read-only and only the /etc entries programs
 * need.  The caller appends its binds, --chdir, "--" and the command.
 */
void up_sandbox_bwrap_base(void (*add)(void *ud, const char *w), void *ud);

/*
 * The words that cap the processes of what follows them at nproc, for
 * the command part of a bubblewrap line (after "--"), through add:
 * `prlimit --nproc=N --`, whose RLIMIT_NPROC, set inside the user
 * namespace, counts only the sandbox's processes.  None for root (not
 * enforced for it: up_sandbox_spawn's pids cgroup caps it instead), for
 * nproc 0 or without util-linux's prlimit.
 */
void up_sandbox_nproc_wrap(void (*add)(void *ud, const char *w), void *ud,
                           unsigned nproc);

#endif
