/*
 * One command in the sandbox: start, drain, enforce, finish.
 *
 * The child (a new session, so the none mode can kill its whole process
 * group) sets the rlimits, joins the per-call cgroups (memory, pids) when
 * there are some, and execs bwrap (or /bin/sh for the none mode) with the
 * allow-listed environment.  The parent reads stdout and stderr through
 * non-blocking pipes, keeps out_cap bytes of each and drains and discards
 * the rest (a command printing forever never blocks on a full pipe), and
 * kills the sandbox at the wall-clock deadline or when the total output
 * passes out_kill.  Under bwrap, killing the pid namespace's init (whose
 * pid bwrap reports on --info-fd) kills every process of the sandbox;
 * bwrap itself exits when the command does, and the call's end waits
 * until that namespace is gone (end_pass: revisited by the loop, never
 * sleeping).  In the none mode a
 * process that left the group may hold the pipes: a killed call stops
 * reading once its own child is reaped, and the sweep of sandbox_reap.c
 * kills such processes when the call ends.  A bounded folder (the
 * workspace with a quota, sandbox_bound.c) is a tmpfs of its own for
 * the call: the child mounts it in a namespace of its own before it
 * execs bwrap, the parent fills it and, once the call is over, copies
 * it back when it fits.
 */
#define _GNU_SOURCE /* pipe2: no fd leaks to another thread's fork */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* memfd_create */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/http.h"
#include "upskill/sched.h"
#include "lib/sandbox/sandbox_int.h"

enum { S_OUT, S_ERR, S_INFO, S_N };

/* How long a call's end waits at most for its pid namespace to be gone
 * (end_pass); the kernel takes well under a millisecond unless a
 * process sleeps where SIGKILL cannot reach it.  The same for the none
 * mode's strays and for the processes left in the call's cgroups. */
#define SBX_NS_WAIT_MS    5000.0
#define SBX_STRAY_WAIT_MS 1000.0
#define SBX_CG_WAIT_MS    2000.0
/* The loop's retry while a call's end is not over (no fd tells when). */
#define SBX_END_RETRY_MS 2

struct up_sandbox_run {
    up_sandbox_mode mode;  /* bwrap or none */
    up_sandbox_limits lim; /* the limits of this call */
    pid_t pid;             /* our child: bwrap, or sh for none */
    pid_t inner;           /* bwrap's pid-namespace init, 0 until known */
    int innerfd;           /* a pidfd of inner (checked: in the call's
                              pid namespace), or -1 */
    int fd[S_N];           /* read ends; -1 once at EOF */
    up_buf out, err, info; /* captured stdout, stderr, bwrap's status */
    int out_cut, err_cut;  /* 1 when a stream passed out_cap */
    size_t total;          /* all output bytes seen, kept or not */
    double t0, deadline;   /* start and wall-clock deadline (ms) */
    up_sandbox_limit hit;  /* a limit enforced here (wall, output) */
    int reaped, status;    /* waitpid done, and its status */
    int pidfd;             /* readable when pid exits; -1 if unsupported */
    int argsfd;            /* bwrap's options for --args, or -1 */
    sbx_cgroup cg;         /* per-call cgroups, when available */
    sbx_bounds bounds;     /* folders that are a tmpfs for the call */
    int ending;            /* the call's end has begun (end_pass) */
    int ended;             /* every process of the call is gone */
    double end_t0;         /* when its end began */
    int bound_sock;        /* the child's end of bounds.sock, or -1 */
    unsigned long long start_ticks; /* when our child started (/proc) */
};

/* The one monotonic clock, as the fractional ms this file keeps. */
static double now_ms(void)
{
    return (double)up_http_now_ms();
}

void up_sandbox_limits_default(up_sandbox_limits *l)
{
    l->cpu_s = 10;
    l->wall_ms = 30000;
    l->mem_bytes = (size_t)1 << 30;
    l->mem_total = (size_t)1 << 30;
    l->fsize_bytes = (size_t)64 << 20;
    l->nproc = 64;
    l->out_cap = 64 << 10;
    l->out_kill = (size_t)8 << 20;
    l->err_cap = 0;
    l->ws_bytes = 0;
    l->ws_files = 0;
}

/* ---- the child ---------------------------------------------------------- */

static void set_limit(int res, size_t soft, size_t hard)
{
    struct rlimit rl = {soft ? soft : RLIM_INFINITY,
                        hard ? hard : RLIM_INFINITY};

    if (soft)
        setrlimit(res, &rl);
}

/* Close every fd from lo up: none of the caller's files or sockets (API
 * connections included) may reach the command.  Async-signal-safe. */
static void close_from(int lo)
{
    long max;

    if (syscall(SYS_close_range, lo, ~0U, 0) == 0)
        return;
    max = sysconf(_SC_OPEN_MAX); /* kernels before 5.9 */
    for (long fd = lo; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close((int)fd);
}

/* After fork: only async-signal-safe calls; never returns.  cwd NULL:
 * stay in ours (bwrap changes folder itself). */
static void child(const up_sandbox_run *r, int out, int err, int info,
                  const char *cwd, char *const *argv, char *const *envp)
{
    int devnull = open("/dev/null", O_RDONLY), bound = r->bounds.n > 0;

    setsid();
    /* first: the cgroups' fds may be low ones the dup2s below replace */
    if (sbx_cgroup_enter(&r->cg) != 0)
        _exit(127);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 ||
        dup2(err, 2) < 0 || (info >= 0 && dup2(info, SBX_INFO_FD) < 0) ||
        (r->argsfd >= 0 && dup2(r->argsfd, SBX_ARGS_FD) < 0) ||
        (bound && dup2(r->bound_sock, SBX_BOUND_FD) < 0))
        _exit(127);
    close_from(bound            ? SBX_BOUND_FD + 1
               : r->argsfd >= 0 ? SBX_ARGS_FD + 1
               : info >= 0      ? SBX_INFO_FD + 1
                                : 3);
    if (bound && info < 0) /* below SBX_BOUND_FD: close what is unused */
        close(SBX_INFO_FD);
    if (bound && r->argsfd < 0)
        close(SBX_ARGS_FD);
    set_limit(RLIMIT_CPU, r->lim.cpu_s, r->lim.cpu_s ? r->lim.cpu_s + 1 : 0);
    set_limit(RLIMIT_AS, r->lim.mem_bytes, r->lim.mem_bytes);
    set_limit(RLIMIT_FSIZE, r->lim.fsize_bytes, r->lim.fsize_bytes);
    if (r->mode == UP_SANDBOX_NONE)
        set_limit(RLIMIT_NPROC, r->lim.nproc, r->lim.nproc);
    if (bound && sbx_bounds_child(&r->bounds, SBX_BOUND_FD) != 0) {
        static const char m[] = "sandbox: cannot give the workspace a file "
                                "system of its own\n";

        (void)!write(2, m, sizeof(m) - 1);
        _exit(127);
    }
    if (cwd && chdir(cwd) != 0)
        _exit(127);
    execve(argv[0], argv, envp);
    _exit(127);
}

/* ---- start -------------------------------------------------------------- */

static int make_pipe(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    return 0;
}

static void close_pipes(int p[S_N][2])
{
    for (int i = 0; i < S_N; i++)
        for (int j = 0; j < 2; j++)
            if (p[i][j] >= 0)
                close(p[i][j]);
}

static up_sandbox_run *run_new(up_sandbox_mode mode,
                               const up_sandbox_limits *lim)
{
    up_sandbox_run *r = up_xcalloc(1, sizeof(*r));

    r->mode = mode;
    if (lim)
        r->lim = *lim;
    else
        up_sandbox_limits_default(&r->lim);
    up_buf_init(&r->out);
    up_buf_init(&r->err);
    up_buf_init(&r->info);
    for (int i = 0; i < S_N; i++)
        r->fd[i] = -1;
    r->pidfd = -1;
    r->innerfd = -1;
    r->argsfd = -1;
    r->bound_sock = -1;
    sbx_bounds_init(&r->bounds);
    /* before the command line: without a memory cgroup the limits of
     * the call are lowered (sandbox_cgroup.c) */
    sbx_cgroup_open(&r->cg, &r->lim);
    return r;
}

static void run_free(up_sandbox_run *r)
{
    for (int i = 0; i < S_N; i++)
        if (r->fd[i] >= 0)
            close(r->fd[i]);
    if (r->pidfd >= 0)
        close(r->pidfd);
    if (r->innerfd >= 0)
        close(r->innerfd);
    if (r->argsfd >= 0)
        close(r->argsfd);
    sbx_cgroup_close(&r->cg);
    sbx_bounds_release(&r->bounds);
    if (r->bound_sock >= 0)
        close(r->bound_sock);
    up_buf_release(&r->out);
    up_buf_release(&r->err);
    up_buf_release(&r->info);
    free(r);
}

/* How many words at argv[i] (before k) stay on bwrap's command line,
 * ahead of --args: a sized tmpfs, "--size N --tmpfs DIR" (bwrap 0.8
 * mis-parses --size read through --args: "Unknown option
 * --size4217728"), and the "--dev /dev" one is mounted in, so the order
 * of the mounts holds.  They name no host path.  0: none. */
static size_t kept_words(char *const *argv, size_t i, size_t k)
{
    if (i + 3 < k && !strcmp(argv[i], "--size") &&
        !strcmp(argv[i + 2], "--tmpfs"))
        return 4;
    if (i + 1 < k && !strcmp(argv[i], "--dev") && !strcmp(argv[i + 1], "/dev"))
        return 2;
    return 0;
}

/* bwrap's options before k into the memfd text b, or (kept_words) onto
 * out from *m on. */
static void split_options(char *const *argv, size_t k, up_buf *b, char **out,
                          size_t *m)
{
    for (size_t i = 1; i < k;) {
        size_t w = kept_words(argv, i, k);

        if (!w) {
            up_buf_add(b, argv[i], strlen(argv[i]) + 1);
            i++;
        }
        while (w--)
            out[(*m)++] = up_xstrdup(argv[i++]);
    }
}

/*
 * bwrap's options (argv between its name and the first "--") moved into
 * a memfd, NUL-separated, which bwrap reads with --args and closes: the
 * sandbox's processes can read bwrap's command line (/proc/1/cmdline is
 * bwrap's own), and it then carries no host path (issue 23 item 15).
 * The sized tmpfs mounts stay ahead of --args (kept_words).  The new
 * argv (a heap strv) into *out; NULL when argv has no "--".
 */
static int args_via_fd(up_sandbox_run *r, char *const *argv, char ***out,
                       up_error *err)
{
    size_t k = 1, n = 0, m = 1;
    up_buf b = UP_BUF_INIT;
    char fd[16];
    int mfd, rc = 0;

    *out = NULL;
    while (argv[k] && strcmp(argv[k], "--") != 0)
        k++;
    if (!argv[k])
        return 0;
    while (argv[n])
        n++;
    *out = up_xcalloc(n + 4, sizeof(**out));
    (*out)[0] = up_xstrdup(argv[0]);
    split_options(argv, k, &b, *out, &m);
    mfd = memfd_create("bwrap-args", MFD_CLOEXEC);
    /* above the descriptors the child dup2s onto (0 to SBX_ARGS_FD) */
    r->argsfd = mfd >= 0 ? fcntl(mfd, F_DUPFD_CLOEXEC, 10) : -1;
    if (mfd >= 0)
        close(mfd);
    if (r->argsfd < 0 || up_fs_write_all(r->argsfd, b.data, b.len) < 0 ||
        lseek(r->argsfd, 0, SEEK_SET) != 0)
        rc = up_error_set(err, UP_EIO, "sandbox: bwrap's options: %s",
                          strerror(errno));
    up_buf_release(&b);
    if (rc) {
        up_strv_free(*out);
        *out = NULL;
        return rc;
    }
    snprintf(fd, sizeof(fd), "%d", SBX_ARGS_FD);
    (*out)[m++] = up_xstrdup("--args");
    (*out)[m++] = up_xstrdup(fd);
    for (size_t i = k; i < n; i++)
        (*out)[m++] = up_xstrdup(argv[i]);
    return 0;
}

/* The socket to the child's bounded folders (none: 0), its end above
 * the descriptors the child dup2s onto. */
static int bound_socket(up_sandbox_run *r, up_error *err)
{
    int sv[2];

    if (!r->bounds.n)
        return 0;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return up_error_set(err, UP_EIO, "sandbox: socketpair: %s",
                            strerror(errno));
    r->bounds.sock = sv[0];
    r->bound_sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
    close(sv[1]);
    if (r->bound_sock < 0)
        return up_error_set(err, UP_EIO, "sandbox: socket: %s",
                            strerror(errno));
    return 0;
}

/* The child's bounded folders filled and let go; on failure the child
 * is killed and reaped. */
static int bound_start(up_sandbox_run *r, up_error *err)
{
    int rc;

    if (!r->bounds.n)
        return 0;
    close(r->bound_sock);
    r->bound_sock = -1;
    rc = sbx_bounds_fill(&r->bounds, err);
    if (rc) {
        kill(r->pid, SIGKILL);
        while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
            ;
        sbx_live_remove(r->pid);
        r->reaped = 1;
    }
    return rc;
}

/* Fork and exec argv with envp in cwd (NULL: ours); bwrap's status on
 * the info pipe when r runs bubblewrap. */
static int spawn(up_sandbox_run *r, char *const *argv, char *const *envp,
                 const char *cwd, up_error *err)
{
    int p[S_N][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
    int npipes = r->mode == UP_SANDBOX_BWRAP ? S_N : S_INFO;
    struct sbx_pstat st;
    int rc = 0;

    for (int i = 0; i < npipes; i++)
        if (make_pipe(p[i]) != 0) {
            rc =
                up_error_set(err, UP_EIO, "sandbox: pipe: %s", strerror(errno));
            goto out;
        }
    rc = bound_socket(r, err);
    if (rc)
        goto out;
    r->t0 = now_ms();
    r->deadline = r->lim.wall_ms ? r->t0 + r->lim.wall_ms : 0;
    if (r->mode == UP_SANDBOX_NONE) /* before any orphan can appear */
        sbx_subreaper();
    r->pid = fork();
    if (r->pid < 0) {
        rc = up_error_set(err, UP_EIO, "sandbox: fork: %s", strerror(errno));
        goto out;
    }
    if (r->pid == 0)
        child(r, p[S_OUT][1], p[S_ERR][1], p[S_INFO][1], cwd, argv, envp);
    setpgid(r->pid, r->pid); /* its own group now, whether or not its
                                setsid ran yet, so a kill reaches it */
    sbx_live_add(r->pid);
    r->start_ticks =
        sbx_proc_stat(r->pid, &st) == 0 ? st.start : ~0ULL; /* none */
#ifdef SYS_pidfd_open
    r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
#endif
    for (int i = 0; i < S_N; i++) {
        r->fd[i] = p[i][0];
        p[i][0] = -1;
    }
    rc = bound_start(r, err);
out:
    close_pipes(p); /* every end not handed to r, also on failure */
    return rc;
}

/* Run r (from run_new), spawned; *out NULL on failure (r freed). */
static int start_run(up_sandbox_run **out, up_sandbox_run *r, char *const *argv,
                     char *const *envp, const char *cwd, up_error *err)
{
    char **moved = NULL;
    int rc = 0;

    if (r->mode == UP_SANDBOX_BWRAP)
        rc = args_via_fd(r, argv, &moved, err);
    if (!rc)
        rc = spawn(r, moved ? moved : argv, envp, cwd, err);
    up_strv_free(moved);
    if (rc < 0) {
        run_free(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

/* What x asks that mode none cannot give, as UP_EUNSAFE; or 0. */
static int extra_ok(up_sandbox_mode mode, const up_sandbox_extra *x,
                    up_error *err)
{
    const char *at = !x                        ? NULL
                     : x->ro_dir               ? x->ro_at
                     : x->rw_dir               ? x->rw_at
                     : x->ws_at                ? x->ws_at
                     : x->places && *x->places ? *x->places
                                               : NULL;

    if (x && x->ws_at && !up_sandbox_workdir_ok(x->ws_at))
        return up_error_set(err, UP_EUNSAFE,
                            "sandbox: '%s' cannot hold the workspace (an "
                            "absolute folder outside the system's)",
                            x->ws_at);
    if (at && mode == UP_SANDBOX_NONE)
        return up_error_set(err, UP_EUNSAFE,
                            "sandbox: a folder at %s needs bubblewrap (not "
                            "--sandbox none)",
                            at);
    return 0;
}

/* Resolve dir (NULL: none) into buf for a bind; 0, or UP_ENOTFOUND. */
static int bind_dir(const char **out, char *buf, const char *dir, up_error *err)
{
    *out = NULL;
    if (!dir)
        return 0;
    if (!realpath(dir, buf) || !up_fs_is_dir(buf))
        return up_error_set(err, UP_ENOTFOUND, "sandbox: '%s' is not a folder",
                            dir);
    *out = buf;
    return 0;
}

int up_sandbox_start_with(up_sandbox_run **out, up_sandbox_mode mode,
                          const char *workspace, const char *cmd,
                          const up_sandbox_limits *lim,
                          const up_sandbox_extra *x, up_error *err)
{
    char ws[PATH_MAX], ro[PATH_MAX], rw[PATH_MAX];
    sbx_binds b = {x ? x->ws_at : NULL, NULL,
                   x ? x->ro_at : NULL, NULL,
                   x ? x->rw_at : NULL, x ? x->places : NULL,
                   x ? x->env : NULL};
    char **argv, **envp;
    up_sandbox_run *r;
    int rc;

    *out = NULL;
    if (!realpath(workspace, ws) || !up_fs_is_dir(ws))
        return up_error_set(err, UP_ENOTFOUND,
                            "sandbox: workspace '%s' is not a folder",
                            workspace);
    rc = extra_ok(mode, x, err);
    if (!rc && x)
        rc = bind_dir(&b.ro, ro, x->ro_dir, err);
    if (!rc && x)
        rc = bind_dir(&b.rw, rw, x->rw_dir, err);
    if (!rc && x && x->places)
        rc = up_sandbox_places_ok(ws, x->ws_at, x->places, err);
    if (rc)
        return rc;
    r = run_new(mode, lim);
    if (mode == UP_SANDBOX_BWRAP && r->lim.ws_bytes) {
        sbx_bounds_add(&r->bounds, ws, r->lim.ws_bytes, r->lim.ws_files);
        if (x && x->rw_dir) /* a verifier's logs: as small as they are */
            sbx_bounds_add(&r->bounds, rw, UP_SANDBOX_RW_MAX_BYTES,
                           UP_SANDBOX_RW_MAX_FILES);
    }
    argv = sbx_argv(mode, ws, cmd, r->lim.nproc, &b);
    /* bwrap starts with the allow-list alone: the caller's words
     * (a Dockerfile's GLIBC_TUNABLES, GCONV_PATH, MALLOC_*...) are set
     * inside the sandbox only (sbx_argv's --setenv) */
    envp = sbx_envp(mode == UP_SANDBOX_BWRAP
                        ? (b.ws_at ? b.ws_at : UP_SANDBOX_WORKSPACE)
                        : ws,
                    x && mode == UP_SANDBOX_NONE ? x->env : NULL);
    rc =
        start_run(out, r, argv, envp, mode == UP_SANDBOX_NONE ? ws : NULL, err);
    up_strv_free(argv);
    up_strv_free(envp);
    return rc;
}

int up_sandbox_start(up_sandbox_run **out, up_sandbox_mode mode,
                     const char *workspace, const char *cmd,
                     const up_sandbox_limits *lim, up_error *err)
{
    return up_sandbox_start_with(out, mode, workspace, cmd, lim, NULL, err);
}

/* argv with "--info-fd N" after bwrap's own name (a heap strv). */
static char **with_info_fd(char *const *argv)
{
    size_t n = 0, k = 0;
    char **v;
    char fd[16];

    while (argv[n])
        n++;
    v = up_xcalloc(n + 3, sizeof(*v));
    snprintf(fd, sizeof(fd), "%d", SBX_INFO_FD);
    v[k++] = up_xstrdup(argv[0]);
    v[k++] = up_xstrdup("--info-fd");
    v[k++] = up_xstrdup(fd);
    for (size_t i = 1; i < n; i++)
        v[k++] = up_xstrdup(argv[i]);
    return v;
}

/* p's bounded folders into r (bwrap only): 0, or UP_ENOTFOUND. */
static int add_bounds(up_sandbox_run *r, const up_sandbox_proc *p,
                      up_error *err)
{
    char dir[PATH_MAX];

    if (p->nbounds > SBX_BOUND_MAX || (p->nbounds && !p->bwrap))
        return up_error_set(err, UP_EUNSAFE,
                            "sandbox: at most %d bounded folders, under "
                            "bubblewrap",
                            SBX_BOUND_MAX);
    for (size_t i = 0; i < p->nbounds; i++) {
        const up_sandbox_bound *b = &p->bounds[i];

        if (!realpath(b->dir, dir) || !up_fs_is_dir(dir))
            return up_error_set(err, UP_ENOTFOUND,
                                "sandbox: '%s' is not a folder", b->dir);
        sbx_bounds_add(&r->bounds, dir, b->max_bytes, b->max_files);
    }
    return 0;
}

int up_sandbox_spawn(up_sandbox_run **out, const up_sandbox_proc *p,
                     const up_sandbox_limits *lim, up_error *err)
{
    char **argv = p->bwrap ? with_info_fd(p->argv) : NULL;
    up_sandbox_run *r;
    int rc;

    *out = NULL;
    if (!p->argv || !p->argv[0] || p->argv[0][0] != '/') {
        up_strv_free(argv);
        return up_error_set(err, UP_ENOTFOUND,
                            "sandbox: the program to run is no absolute path");
    }
    r = run_new(p->bwrap ? UP_SANDBOX_BWRAP : UP_SANDBOX_NONE, lim);
    rc = add_bounds(r, p, err);
    if (rc)
        run_free(r);
    else
        rc = start_run(out, r, argv ? argv : p->argv, p->envp, p->cwd, err);
    up_strv_free(argv);
    return rc;
}

/* ---- running ------------------------------------------------------------ */

int up_sandbox_pollfds(const up_sandbox_run *r, int fds[3])
{
    int n = 0;

    for (int i = 0; i < S_N; i++)
        if (r->fd[i] >= 0)
            fds[n++] = r->fd[i];
    /* Output closed but not yet reaped: wake up when the process exits. */
    if (r->fd[S_OUT] < 0 && r->fd[S_ERR] < 0 && !r->reaped && r->pidfd >= 0)
        fds[n++] = r->pidfd;
    /* Its end under way: wake up when the pid namespace is gone. */
    else if (r->ending && !r->ended && r->innerfd >= 0 && n < S_N)
        fds[n++] = r->innerfd;
    return n;
}

int up_sandbox_timeout_ms(const up_sandbox_run *r)
{
    double left;

    if (r->ending && !r->ended) /* end_pass is revisited */
        return SBX_END_RETRY_MS;
    if (r->deadline <= 0)
        return 1000;
    left = r->deadline - now_ms();
    if (left <= 0) /* killed already: give the kernel time to finish */
        return r->hit != UP_SANDBOX_OK ? 10 : 0;
    return left > INT_MAX ? INT_MAX : (int)left + 1;
}

/* Kill the whole sandbox: the namespace's init when known, else the
 * session of our child (its process group). */
static void kill_all(up_sandbox_run *r, up_sandbox_limit why)
{
    if (r->hit == UP_SANDBOX_OK)
        r->hit = why;
    if (r->pid <= 0) /* kill(0 or -1) would reach far beyond the sandbox */
        return;
    if (r->reaped) {
        /* Our child is gone but its output is still open: what holds it
         * is in its session, whose id outlives it while a member lives
         * (the bwrap mode's namespace dies with its init). */
        if (r->mode == UP_SANDBOX_NONE)
            kill(-r->pid, SIGKILL);
        return;
    }
    /* bwrap exits once its namespace is gone: kill only the init so the
     * reap below means no process of the sandbox is left. */
    if (r->inner > 0)
        kill(r->inner, SIGKILL);
    else if (kill(-r->pid, SIGKILL) != 0)
        kill(r->pid, SIGKILL); /* before its setsid: no group yet */
}

void up_sandbox_kill(up_sandbox_run *r)
{
    kill_all(r, UP_SANDBOX_WALL);
}

/* A pidfd of the init inner of the pid namespace ns (bwrap's inode
 * number), or -1: the process behind the pidfd is checked to be in ns,
 * so a pid used again by another process is never waited on. */
static int open_inner(pid_t inner, unsigned long long ns)
{
    int fd = -1;
#ifdef SYS_pidfd_open
    char path[64], link[64], want[64];
    ssize_t n;

    fd = ns ? (int)syscall(SYS_pidfd_open, inner, 0) : -1;
    snprintf(path, sizeof(path), "/proc/%ld/ns/pid", (long)inner);
    snprintf(want, sizeof(want), "pid:[%llu]", ns);
    n = fd >= 0 ? readlink(path, link, sizeof(link) - 1) : -1;
    if (n > 0)
        link[n] = '\0';
    if (fd >= 0 && (n <= 0 || strcmp(link, want))) {
        close(fd);
        fd = -1;
    }
#else
    (void)inner;
    (void)ns;
#endif
    return fd;
}

/* The number after "key": in bwrap's --info-fd JSON, or 0. */
static unsigned long long info_num(const char *info, const char *key)
{
    const char *p = strstr(info, key);

    p = p ? strchr(p, ':') : NULL;
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* bwrap's --info-fd JSON: {"child-pid": N, "pid-namespace": I, ...};
 * the pidfd once it is whole (innerfd -2: tried, none). */
static void parse_info(up_sandbox_run *r)
{
    unsigned long long pid = info_num(r->info.data, "\"child-pid\"");

    if (pid && r->inner <= 0)
        r->inner = (pid_t)pid;
    if (r->inner > 0 && r->innerfd == -1 && strchr(r->info.data, '}')) {
        r->innerfd =
            open_inner(r->inner, info_num(r->info.data, "\"pid-namespace\""));
        if (r->innerfd < 0)
            r->innerfd = -2;
    }
}

/* Is the call's pid namespace gone (its init's pidfd readable)?  Its
 * init exits only once the kernel has killed and reaped every other
 * process of it, so no process of the call outlives its end (without a
 * cgroup to kill them, --die-with-parent alone kills them a moment after
 * bwrap has exited).  Asked without waiting. */
static int ns_gone(const up_sandbox_run *r)
{
    struct pollfd p = {r->innerfd, POLLIN, 0};

    return r->innerfd < 0 || poll(&p, 1, 0) > 0;
}

/* The none mode has no pid namespace: are processes of the command's
 * process group left?  What is reaped here is reaped (the orphans of
 * the group are our children once upskill is their subreaper,
 * sandbox_reap.c); unreaped, a zombie keeps the group alive. */
static int strays_left(const up_sandbox_run *r)
{
    if (r->mode != UP_SANDBOX_NONE || r->pid <= 0)
        return 0;
    while (waitpid(-r->pid, NULL, WNOHANG) > 0)
        ;
    return kill(-r->pid, 0) == 0;
}

/* The start of the call's end: SIGKILL to the namespace's init, or (the
 * none mode) to what is left of the command's process group. */
static void end_begin(up_sandbox_run *r)
{
    r->ending = 1;
    r->end_t0 = now_ms();
#ifdef SYS_pidfd_send_signal
    if (r->innerfd >= 0)
        (void)syscall(SYS_pidfd_send_signal, r->innerfd, SIGKILL, NULL, 0);
#endif
    if (r->mode == UP_SANDBOX_NONE && r->pid > 0)
        (void)kill(-r->pid, SIGKILL);
}

/*
 * One pass of the call's end, never waiting: kill what is left and say
 * whether all of it is gone (1), or gone as far as the bounds allow: the
 * namespace SBX_NS_WAIT_MS, strays SBX_STRAY_WAIT_MS, the cgroups'
 * leftovers SBX_CG_WAIT_MS from the end's start.  The loop revisits a
 * call whose end is not over (up_sandbox_pollfds and _timeout_ms), so
 * a command that left processes behind stalls no other conversation.
 */
static int end_pass(up_sandbox_run *r)
{
    double t;

    if (r->ended)
        return 1;
    if (!r->ending)
        end_begin(r);
    t = now_ms() - r->end_t0;
    if (!ns_gone(r) && t < SBX_NS_WAIT_MS)
        return 0;
    if (strays_left(r) && t < SBX_STRAY_WAIT_MS)
        return 0;
    if (!sbx_cgroup_empty(&r->cg) && t < SBX_CG_WAIT_MS)
        return 0;
    r->ended = 1;
    return 1;
}

/*
 * The end of a call given up on (finished before its steps saw it end:
 * an interrupt, a cancel, a free), whose result is wanted now: end_pass
 * until it is over, waiting for the namespace's init between passes.
 * The one wait of this file on the loop thread, bounded by end_pass;
 * scripts/lint.sh names it as allowed.
 */
static void end_given_up(up_sandbox_run *r)
{
    while (!end_pass(r)) {
        struct pollfd p = {r->innerfd, POLLIN, 0};

        (void)poll(&p, r->innerfd >= 0 ? 1 : 0, SBX_END_RETRY_MS);
    }
}

static void keep(up_sandbox_run *r, int s, const char *data, size_t n)
{
    up_buf *b = s == S_OUT ? &r->out : s == S_ERR ? &r->err : &r->info;
    int *cut = s == S_OUT ? &r->out_cut : &r->err_cut;
    size_t cap = s == S_INFO                    ? 4096
                 : s == S_ERR && r->lim.err_cap ? r->lim.err_cap
                                                : r->lim.out_cap;
    size_t room = b->len < cap ? cap - b->len : 0;

    up_buf_add(b, data, n < room ? n : room);
    if (n > room && s != S_INFO)
        *cut = 1;
    if (s != S_INFO)
        r->total += n;
}

/* Read what fd s has now, at most 1 MiB so a command printing as fast
 * as we read cannot keep us from checking the limits; closes s at EOF. */
static void drain(up_sandbox_run *r, int s)
{
    char chunk[65536];
    ssize_t n;

    for (int i = 0; i < 16; i++) {
        n = read(r->fd[s], chunk, sizeof(chunk));
        if (n > 0) {
            keep(r, s, chunk, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        close(r->fd[s]);
        r->fd[s] = -1;
        return;
    }
}

/* What is readable now is kept; then the output is closed. */
static void close_output(up_sandbox_run *r)
{
    for (int i = 0; i < S_N; i++)
        if (r->fd[i] >= 0) {
            drain(r, i);
            if (r->fd[i] >= 0)
                close(r->fd[i]);
            r->fd[i] = -1;
        }
}

int up_sandbox_step(up_sandbox_run *r)
{
    for (int i = 0; i < S_N; i++)
        if (r->fd[i] >= 0)
            drain(r, i);
    parse_info(r);
    if (r->lim.out_kill && r->total > r->lim.out_kill)
        kill_all(r, UP_SANDBOX_OUTPUT);
    if (r->deadline > 0 && now_ms() >= r->deadline)
        kill_all(r, UP_SANDBOX_WALL);
    if (r->bounds.n && !r->reaped && sbx_bounds_full(&r->bounds))
        kill_all(r, UP_SANDBOX_QUOTA);
    if (r->hit != UP_SANDBOX_OK && !r->reaped &&
        waitpid(r->pid, &r->status, WNOHANG) == r->pid)
        r->reaped = 1;
    if (r->hit != UP_SANDBOX_OK && r->reaped)
        close_output(r); /* a process that escaped the kill may hold it */
    if (r->fd[S_OUT] >= 0 || r->fd[S_ERR] >= 0)
        return 0;
    if (!r->reaped && waitpid(r->pid, &r->status, WNOHANG) == r->pid)
        r->reaped = 1;
    return r->reaped && end_pass(r);
}

/* A run that has not ended is given up on: killed, its output closed
 * and reaped (a killed process: no wait on its descriptors). */
static void end_now(up_sandbox_run *r)
{
    if (r->reaped)
        return;
    kill_all(r, UP_SANDBOX_WALL);
    close_output(r);
    while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
        ;
    r->reaped = 1;
}

/* ---- the result --------------------------------------------------------- */

/* stderr text that tells which limit a failed command ran into. */
static const struct {
    const char *text;
    up_sandbox_limit limit;
} err_markers[] = {
    {"File too large", UP_SANDBOX_FSIZE},
    {"Cannot allocate memory", UP_SANDBOX_MEMORY},
    {"MemoryError", UP_SANDBOX_MEMORY},
    {"out of memory", UP_SANDBOX_MEMORY},
    {"Cannot fork", UP_SANDBOX_NPROC},
    {"can't fork", UP_SANDBOX_NPROC},
    {"fork: Resource temporarily unavailable", UP_SANDBOX_NPROC},
    {"fork: retry", UP_SANDBOX_NPROC},
};

static up_sandbox_limit classify(const up_sandbox_run *r,
                                 const up_sandbox_result *res)
{
    if (r->hit != UP_SANDBOX_OK)
        return r->hit;
    if (res->signal == SIGXCPU)
        return UP_SANDBOX_CPU;
    if (res->signal == SIGXFSZ)
        return UP_SANDBOX_FSIZE;
    if (sbx_cgroup_oom(&r->cg))
        return UP_SANDBOX_MEMORY_ALL;
    if (sbx_cgroup_hit(&r->cg))
        return UP_SANDBOX_NPROC;
    /* Even on exit 0: a shell whose background forks failed says so. */
    for (size_t i = 0; i < sizeof(err_markers) / sizeof(err_markers[0]); i++)
        if (strstr(res->err.data, err_markers[i].text))
            return err_markers[i].limit;
    return UP_SANDBOX_OK;
}

/* "64 MiB", "100 KiB", "1000 bytes": the largest exact unit. */
static const char *size_text(char buf[32], size_t n)
{
    if (n >= (1 << 20) && n % (1 << 20) == 0)
        snprintf(buf, 32, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, 32, "%zu KiB", n >> 10);
    else
        snprintf(buf, 32, "%zu bytes", n);
    return buf;
}

static void limit_text(char *dst, size_t cap, up_sandbox_limit l,
                       const up_sandbox_limits *lim)
{
    char sz[32];

    switch (l) {
    case UP_SANDBOX_CPU:
        snprintf(dst, cap, "cpu time limit (%u s)", lim->cpu_s);
        break;
    case UP_SANDBOX_WALL:
        snprintf(dst, cap, "wall clock (%g s)", lim->wall_ms / 1000.0);
        break;
    case UP_SANDBOX_OUTPUT:
        snprintf(dst, cap, "output cap (%s)", size_text(sz, lim->out_kill));
        break;
    case UP_SANDBOX_FSIZE:
        snprintf(dst, cap, "file size (%s)", size_text(sz, lim->fsize_bytes));
        break;
    case UP_SANDBOX_MEMORY:
        snprintf(dst, cap, "memory (%s)", size_text(sz, lim->mem_bytes));
        break;
    case UP_SANDBOX_NPROC:
        snprintf(dst, cap, "processes (%u)", lim->nproc);
        break;
    case UP_SANDBOX_MEMORY_ALL:
        snprintf(dst, cap, "memory of the call (%s)",
                 size_text(sz, lim->mem_total));
        break;
    case UP_SANDBOX_QUOTA:
        snprintf(dst, cap, "workspace quota (%s, %zu files)",
                 size_text(sz, lim->ws_bytes), lim->ws_files);
        break;
    case UP_SANDBOX_OK:
        dst[0] = '\0';
        break;
    }
}

/* Exit code and signal: signal n reads as 128+n in both modes, as a
 * shell reports a child's (bwrap does so for the command's shell). */
static void fill_status(up_sandbox_result *res, int status)
{
    res->signal = 0;
    if (WIFSIGNALED(status)) {
        res->signal = WTERMSIG(status);
        res->exit_code = 128 + res->signal;
        return;
    }
    res->exit_code = WEXITSTATUS(status);
    if (res->exit_code > 128 && res->exit_code < 128 + 65)
        res->signal = res->exit_code - 128;
}

/* Every process of the call is dead: its bounded folders copied back,
 * or (filled, or over their quota) discarded, a QUOTA breach. */
static void bound_end(up_sandbox_run *r)
{
    up_buf why = UP_BUF_INIT;
    int full = r->hit == UP_SANDBOX_QUOTA;

    if (!r->bounds.n)
        return;
    if (sbx_bounds_full(&r->bounds))
        full = 1;
    if (sbx_bounds_back(&r->bounds, full, &why) || full)
        r->hit = UP_SANDBOX_QUOTA;
    /* the text names the first folder's quota: the workspace's */
    r->lim.ws_bytes = r->bounds.v[0].max_bytes;
    r->lim.ws_files = r->bounds.v[0].max_files;
    up_buf_release(&why);
}

int up_sandbox_finish(up_sandbox_run *r, up_sandbox_result *res, up_error *err)
{
    (void)err;
    memset(res, 0, sizeof(*res));
    end_now(r);
    parse_info(r);   /* what close_output read last */
    end_given_up(r); /* over at once when the steps saw the end */
    sbx_live_remove(r->pid);
    if (r->mode == UP_SANDBOX_NONE) /* what left the group, if anything */
        sbx_sweep(r->start_ticks, r->pid);
    bound_end(r);
    res->wall_ms = now_ms() - r->t0;
    fill_status(res, r->status);
    res->out = r->out;
    res->err = r->err;
    up_buf_init(&r->out);
    up_buf_init(&r->err);
    res->out_cut = r->out_cut;
    res->err_cut = r->err_cut;
    res->limit = classify(r, res);
    limit_text(res->limit_text, sizeof(res->limit_text), res->limit, &r->lim);
    run_free(r);
    return 0;
}

/* up_sandbox_wait's run as one parked job of the scheduler: the one
 * loop that waits on descriptors (docs/architecture.md section 6). */
static const up_request *exec_next(void *ud, size_t i, up_response *res)
{
    (void)i;
    (void)res;
    return up_sandbox_step(ud) ? NULL : UP_JOB_PARKED;
}

static int exec_wait(void *ud, size_t i, int *fds, int max, int *timeout_ms)
{
    (void)i;
    *timeout_ms = up_sandbox_timeout_ms(ud);
    return max >= S_N ? up_sandbox_pollfds(ud, fds) : 0;
}

static void exec_done(void *ud, size_t i, up_response *res)
{
    (void)ud;
    (void)i;
    (void)res; /* the run's own result is read by up_sandbox_finish */
}

void up_sandbox_wait(up_sandbox_run *r)
{
    static const up_endpoint none; /* the job sends no request */
    up_job job = {&none, NULL, exec_done, r, exec_next, exec_wait};
    up_sched_opts o;
    up_error e;

    up_sched_opts_init(&o);
    o.jobs = 1;
    up_sched_run(&job, 1, &o, NULL, &e); /* no libcurl: finish kills r */
}

int up_sandbox_exec(up_sandbox_result *res, up_sandbox_mode mode,
                    const char *workspace, const char *cmd,
                    const up_sandbox_limits *lim, up_error *err)
{
    up_sandbox_run *r;
    int rc;

    memset(res, 0, sizeof(*res));
    up_buf_init(&res->out);
    up_buf_init(&res->err);
    rc = up_sandbox_start(&r, mode, workspace, cmd, lim, err);
    if (rc < 0)
        return rc;
    up_sandbox_wait(r);
    return up_sandbox_finish(r, res, err);
}

void up_sandbox_result_release(up_sandbox_result *res)
{
    up_buf_release(&res->out);
    up_buf_release(&res->err);
}
