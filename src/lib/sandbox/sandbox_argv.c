/*
 * The sandbox's command line and environment, and the probe that tells
 * whether bubblewrap works here.
 *
 * Invariant: nothing of the caller's environment is passed on.  The
 * command gets only the fixed allow-list of sbx_envp and the words it is
 * given (a task's ENV, a CLI's settings), and bwrap itself is started
 * with the allow-list alone: the words are set inside the sandbox only
 * (--setenv), so neither a secret nor a task's GLIBC_TUNABLES or
 * GCONV_PATH reaches bwrap on the host.  Only the system folders, a
 * short list of /etc files and the workspace are mounted: /root, /home,
 * the user's HOME, /etc/shadow and /etc/gshadow are not in the sandbox
 * at all (permission bits protect nothing when the caller is root).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "lib/sandbox/sandbox_int.h"

#define BWRAP   "/usr/bin/bwrap"
#define PRLIMIT "/usr/bin/prlimit"

/* The size of /tmp and of /dev/shm, each (128 MiB): a tmpfs without one
 * may take half the host's RAM.  /dev itself (bwrap's own tmpfs, which
 * has no size option) is then made read-only. */
#define SBX_TMPFS_BYTES "134217728"

/* Namespaces and hardening, before any mount. */
static const char *const bwrap_fixed[] = {"--unshare-user",
                                          "--unshare-pid",
                                          "--unshare-net",
                                          "--unshare-ipc",
                                          "--unshare-uts",
                                          "--unshare-cgroup-try",
                                          "--die-with-parent",
                                          "--new-session",
                                          "--cap-drop",
                                          "ALL",
                                          "--hostname",
                                          "sandbox",
                                          "--proc",
                                          "/proc",
                                          "--dev",
                                          "/dev",
                                          "--size",
                                          SBX_TMPFS_BYTES,
                                          "--tmpfs",
                                          "/tmp",
                                          "--size",
                                          SBX_TMPFS_BYTES,
                                          "--tmpfs",
                                          "/dev/shm",
                                          "--remount-ro",
                                          "/dev",
                                          NULL};

/* System folders: bound read-only, or re-created when a symlink (usrmerge). */
static const char *const sys_dirs[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                       "/lib32", "/lib64", "/libx32", NULL};

/* The only /etc entries programs get; bound read-only when present. */
static const char *const etc_files[] = {
    "/etc/passwd",        "/etc/group",           "/etc/hosts",
    "/etc/nsswitch.conf", "/etc/host.conf",       "/etc/ld.so.cache",
    "/etc/ld.so.conf",    "/etc/ld.so.conf.d",    "/etc/localtime",
    "/etc/alternatives",  "/etc/os-release",      "/etc/debian_version",
    "/etc/mime.types",    "/etc/protocols",       "/etc/services",
    "/etc/ssl/certs",     "/etc/ca-certificates", "/etc/fonts",
    "/etc/libreoffice",   "/etc/matplotlibrc",    NULL};

static void strv_push(char ***v, size_t *n, size_t *cap, const char *s)
{
    UP_GROW(*v, *cap, *n + 2);
    (*v)[(*n)++] = up_xstrdup(s);
    (*v)[*n] = NULL;
}

static void push_sys_dir(void (*add)(void *, const char *), void *ud,
                         const char *dir)
{
    struct stat st;
    char target[PATH_MAX];
    ssize_t len;

    if (lstat(dir, &st) != 0)
        return;
    if (S_ISLNK(st.st_mode)) {
        len = readlink(dir, target, sizeof(target) - 1);
        if (len <= 0)
            return;
        target[len] = '\0';
        add(ud, "--symlink");
        add(ud, target);
    } else if (S_ISDIR(st.st_mode)) {
        add(ud, "--ro-bind");
        add(ud, dir);
    } else {
        return;
    }
    add(ud, dir);
}

static void push_etc(void (*add)(void *, const char *), void *ud,
                     const char *const *files)
{
    for (size_t i = 0; files[i]; i++) {
        add(ud, "--ro-bind-try");
        add(ud, files[i]);
        add(ud, files[i]);
    }
}

void up_sandbox_bwrap_base(void (*add)(void *ud, const char *w), void *ud)
{
    add(ud, BWRAP);
    for (size_t i = 0; bwrap_fixed[i]; i++)
        add(ud, bwrap_fixed[i]);
    for (size_t i = 0; sys_dirs[i]; i++)
        push_sys_dir(add, ud, sys_dirs[i]);
    push_etc(add, ud, etc_files);
}

struct strv {
    char **v;
    size_t n, cap;
};

static void strv_add_word(void *ud, const char *w)
{
    struct strv *s = ud;

    strv_push(&s->v, &s->n, &s->cap, w);
}

void up_sandbox_nproc_wrap(void (*add)(void *ud, const char *w), void *ud,
                           unsigned nproc)
{
    char opt[32];

    /* RLIMIT_NPROC set here, inside the user namespace, counts only the
     * sandbox's own processes (set before bwrap it would count every
     * process of the user).  Not enforced for root, which gets a pids
     * cgroup instead (sandbox_cgroup.c). */
    if (nproc == 0 || geteuid() == 0 || access(PRLIMIT, X_OK) != 0)
        return;
    snprintf(opt, sizeof(opt), "--nproc=%u", nproc);
    add(ud, PRLIMIT);
    add(ud, opt);
    add(ud, "--");
}

static void push_inner(struct strv *s, const char *cmd, unsigned nproc)
{
    up_sandbox_nproc_wrap(strv_add_word, s, nproc);
    strv_add_word(s, "/bin/sh");
    strv_add_word(s, "-c");
    strv_add_word(s, cmd);
}

/* Folders the sandbox mounts itself: never the workspace's place. */
static const char *const reserved[] = {
    "/usr",  "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
    "/proc", "/dev", "/sys",  "/tmp", "/tests", "/logs",  NULL};

int up_sandbox_workdir_ok(const char *path)
{
    size_t n = strlen(path);

    if (path[0] != '/' || n < 2 || n > 256 || path[n - 1] == '/' ||
        strstr(path, "//") || strstr(path, "/./") || strstr(path, "/../") ||
        !strcmp(path + n - 2, "/.") || (n >= 3 && !strcmp(path + n - 3, "/..")))
        return 0;
    for (size_t i = 0; reserved[i]; i++)
        if (up_fs_holds(reserved[i], path))
            return 0;
    return 1;
}

/* Places a task may not have: the CLIs' home and upskill's /run. */
static const char *const places_kept[] = {"/home", "/run", NULL};

const char *up_sandbox_place_why(const char *p, const char *ws_at)
{
    if (p[0] != '/' || strchr(p + 1, '/'))
        return "not one folder at the root";
    if (!up_sandbox_workdir_ok(p))
        return "a system folder the sandbox mounts itself";
    for (size_t i = 0; places_kept[i]; i++)
        if (!strcmp(p, places_kept[i]))
            return "a folder the sandbox keeps for itself";
    if (up_fs_holds(p, ws_at) || up_fs_holds(ws_at, p))
        return "it holds the working folder";
    return NULL;
}

int up_sandbox_places_ok(const char *ws, const char *ws_at,
                         const char *const *places, up_error *err)
{
    char root[PATH_MAX], got[PATH_MAX];
    up_buf b = UP_BUF_INIT;
    int rc = 0;

    if (!realpath(ws, root))
        return up_error_set(err, UP_ENOTFOUND, "sandbox: '%s': %s", ws,
                            strerror(errno));
    for (size_t i = 0; !rc && places && places[i]; i++) {
        const char *why = up_sandbox_place_why(
            places[i], ws_at ? ws_at : UP_SANDBOX_WORKSPACE);

        up_buf_reset(&b);
        up_buf_addf(&b, "%s/%s", root, UP_SANDBOX_PLACES);
        if (!why) { /* made when missing; a symlink is refused below */
            (void)mkdir(b.data, 0755);
            up_buf_adds(&b, places[i]);
            (void)mkdir(b.data, 0755);
        }
        if (!why && (!realpath(b.data, got) || strcmp(got, b.data)))
            why = "its folder in the workspace is not a folder of it";
        if (why)
            rc = up_error_set(err, UP_EUNSAFE, "sandbox: place '%.200s': %s",
                              places[i], why);
    }
    up_buf_release(&b);
    return rc;
}

void up_sandbox_places_args(void (*add)(void *ud, const char *w), void *ud,
                            const char *ws, const char *ws_at,
                            const char *const *places)
{
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; places && places[i]; i++) {
        up_buf_reset(&b);
        up_buf_addf(&b, "%s/%s%s", ws, UP_SANDBOX_PLACES, places[i]);
        add(ud, "--bind");
        add(ud, b.data);
        add(ud, places[i]);
    }
    if (places && places[0]) {
        up_buf_reset(&b);
        up_buf_addf(&b, "%s/%s", ws_at, UP_SANDBOX_PLACES);
        add(ud, "--tmpfs");
        add(ud, b.data);
    }
    up_buf_release(&b);
}

static void push_bind(struct strv *s, const char *opt, const char *from,
                      const char *at)
{
    if (!from)
        return;
    strv_add_word(s, opt);
    strv_add_word(s, from);
    strv_add_word(s, at);
}

/* "--setenv NAME VALUE" for each NAME=value of env (NULL: none): set
 * for the command inside the sandbox, not for bwrap on the host (its
 * options travel in a memfd, never on a command line). */
static void push_env(struct strv *s, const char *const *env)
{
    for (size_t i = 0; env && env[i]; i++) {
        size_t k = strcspn(env[i], "=");
        char *name = up_xstrndup(env[i], k);

        if (env[i][k] && k) {
            strv_add_word(s, "--setenv");
            strv_add_word(s, name);
            strv_add_word(s, env[i] + k + 1);
        }
        free(name);
    }
}

char **sbx_argv(up_sandbox_mode mode, const char *ws, const char *cmd,
                unsigned nproc, const sbx_binds *b)
{
    struct strv s = {NULL, 0, 0};
    const char *at = b->ws_at ? b->ws_at : UP_SANDBOX_WORKSPACE;
    char fd[16];

    if (mode == UP_SANDBOX_NONE) {
        push_inner(&s, cmd, 0);
        return s.v;
    }
    up_sandbox_bwrap_base(strv_add_word, &s);
    push_bind(&s, "--ro-bind", b->ro, b->ro_at);
    push_bind(&s, "--bind", b->rw, b->rw_at);
    snprintf(fd, sizeof(fd), "%d", SBX_INFO_FD);
    const char *tail[] = {"--chdir", at, "--info-fd", fd, "--", NULL};
    push_bind(&s, "--bind", ws, at);
    up_sandbox_places_args(strv_add_word, &s, ws, at, b->places);
    push_env(&s, b->env);
    for (size_t i = 0; tail[i]; i++)
        strv_add_word(&s, tail[i]);
    push_inner(&s, cmd, nproc);
    return s.v;
}

/* Put word (NAME=value) into v: over the entry of the same NAME, or
 * added. */
static void env_set(char ***v, size_t *n, size_t *cap, const char *word)
{
    size_t k = strcspn(word, "=") + 1;

    for (size_t i = 0; i < *n; i++)
        if (!strncmp((*v)[i], word, k)) {
            free((*v)[i]);
            (*v)[i] = up_xstrdup(word);
            return;
        }
    strv_push(v, n, cap, word);
}

char **sbx_envp(const char *home, const char *const *env)
{
    static const char *const fixed[] = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG=C.UTF-8",
        "LC_ALL=C.UTF-8",
        "TERM=dumb",
        "TMPDIR=/tmp",
        NULL};
    char **v = NULL;
    size_t n = 0, cap = 0;
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; fixed[i]; i++)
        strv_push(&v, &n, &cap, fixed[i]);
    up_buf_addf(&b, "HOME=%s", home);
    strv_push(&v, &n, &cap, b.data);
    up_buf_release(&b);
    for (size_t i = 0; env && env[i]; i++)
        env_set(&v, &n, &cap, env[i]);
    return v;
}

/* ---- the probe --------------------------------------------------------- */

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_done;
static up_error probe_err;

/* The probe's stderr, first line, for the message. */
static void first_line(char *dst, size_t cap, const up_buf *b)
{
    size_t len = strcspn(b->data, "\n");

    if (len >= cap)
        len = cap - 1;
    memcpy(dst, b->data, len);
    dst[len] = '\0';
}

int sbx_probe(const char *bwrap, up_error *err)
{
    char tmpl[] = "/tmp/upskill-sandbox-probe-XXXXXX";
    char why[256];
    up_sandbox_result res;
    up_sandbox_limits lim;
    int rc;

    if (access(bwrap, X_OK) != 0)
        return up_error_set(err, UP_ENOTFOUND,
                            "sandbox: '%s' not found: install bubblewrap: "
                            "apt-get install bubblewrap",
                            bwrap);
    if (!mkdtemp(tmpl))
        return up_error_set(err, UP_EIO, "sandbox: cannot make '%s'", tmpl);
    /* with a bounded workspace, as the run tool and the CLIs have it: a
     * machine that cannot keep the quota is told so here, not per call */
    up_sandbox_limits_default(&lim);
    lim.ws_bytes = (size_t)1 << 20;
    lim.ws_files = 16;
    rc = up_sandbox_exec(&res, UP_SANDBOX_BWRAP, tmpl, "true", &lim, err);
    up_fs_rm_tree(tmpl);
    if (rc < 0)
        return rc;
    if (res.exit_code != 0) {
        first_line(why, sizeof(why), &res.err);
        rc = up_error_set(
            err, UP_EUNSAFE,
            "sandbox: bubblewrap cannot create its namespaces here (%s)%s",
            why[0] ? why : "no message",
            strstr(res.err.data, "ermission") || strstr(res.err.data, "ermit")
                ? ": unprivileged user namespaces are disabled: sysctl "
                  "kernel.unprivileged_userns_clone=1 (or "
                  "user.max_user_namespaces > 0)"
                : "");
    }
    up_sandbox_result_release(&res);
    return rc;
}

int up_sandbox_check(up_error *err)
{
    int rc;

    pthread_mutex_lock(&probe_lock);
    if (!probe_done) {
        probe_err.code = 0;
        probe_err.msg[0] = '\0';
        sbx_probe(BWRAP, &probe_err);
        probe_done = 1;
    }
    rc = probe_err.code;
    if (rc < 0 && err)
        *err = probe_err;
    pthread_mutex_unlock(&probe_lock);
    return rc;
}
