/*
 * Executable checks (check.h): find a check's program, run the check in
 * the sandbox, settle its result; one at a time, without blocking, for
 * the scheduler's loop (a check is the last parked phase of its job).
 *
 * Pristine checks (issue 22): a check's hidden files live only in a
 * private folder of its own, made when it starts and removed when it
 * ends, bound read-only at /tests in its sandbox alone; the files it
 * owns are written back into the workspace before it starts; and its
 * environment keeps the student's files from shadowing its program.
 *
 * Invariant: a check never reports a pass it did not see.  A program that
 * is not installed makes the result UP_ASSERT_UNGRADABLE (never FAIL, so
 * a missing compiler is not mistaken for a student's error); a sandbox
 * that could not start is a FAIL saying why.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "lib/sandbox/check.h"
#include "upskill/fs.h"

/* Bytes of a reward file read at most. */
#define REWARD_MAX 4096

/* Folders deep the workspace is searched for FIFOs, sockets and
 * devices before a check runs (drop_special). */
#define SPECIAL_DEPTH 64

/* The sandbox's PATH (sandbox_argv.c), then CUDA's prefix. */
static const char *const search_dirs[] = {
    "/usr/local/sbin", "/usr/local/bin", "/usr/sbin",       "/usr/bin",
    "/sbin",           "/bin",           UP_CHECK_CUDA_BIN, NULL};

/* Words the shell runs itself: nothing to look up. */
static const char *const builtins[] = {
    "cd",   "test", "[",      "true",    "false", "echo", "printf",
    "exit", "set",  "export", "if",      "for",   "!",    "(",
    "{",    ":",    ".",      "command", "exec",  "env",  NULL};

/* The programs up_check_programs_text probes. */
static const char *const probes[] = {"gcc",    "cc",    "g++",  "python3",
                                     "pytest", "node",  "nvcc", "go",
                                     "cargo",  "javac", "make", NULL};

/* Copy the first word of cmd that is not a VAR=value into w. */
static void first_word(const char *cmd, up_buf *w)
{
    const char *p = cmd;

    for (;;) {
        size_t n;

        p += strspn(p, " \t\n");
        n = strcspn(p, " \t\n;&|<>()");
        up_buf_reset(w);
        up_buf_add(w, p, n);
        if (!n || !strchr(w->data, '=') ||
            strcspn(w->data, "=") > strcspn(w->data, "/"))
            return;
        p += n;
    }
}

/* 1 when absolute path p is under a system folder the sandbox binds. */
static int visible(const char *p)
{
    static const char *const dirs[] = {"/usr/", "/bin/",   "/sbin/",
                                       "/lib/", "/lib64/", NULL};

    for (size_t i = 0; dirs[i]; i++)
        if (!strncmp(p, dirs[i], strlen(dirs[i])))
            return 1;
    return 0;
}

static int is_builtin(const char *w)
{
    for (size_t i = 0; builtins[i]; i++)
        if (!strcmp(builtins[i], w))
            return 1;
    return 0;
}

int up_check_find(const char *cmd, up_buf *dir, up_buf *prog)
{
    up_buf w = UP_BUF_INIT, path = UP_BUF_INIT;
    int found = 0;

    first_word(cmd, &w);
    if (dir)
        up_buf_reset(dir);
    if (!w.len || is_builtin(w.data) || strchr(w.data, '/'))
        found = !w.len || is_builtin(w.data) || w.data[0] != '/' ||
                (visible(w.data) && access(w.data, X_OK) == 0);
    for (size_t i = 0; !found && search_dirs[i]; i++) {
        up_buf_reset(&path);
        up_fs_join(&path, search_dirs[i], w.data);
        found = access(path.data, X_OK) == 0;
        if (found && dir && !strcmp(search_dirs[i], UP_CHECK_CUDA_BIN))
            up_buf_adds(dir, UP_CHECK_CUDA_BIN);
    }
    if (prog) {
        up_buf_reset(prog);
        up_buf_add(prog, w.data, w.len);
    }
    up_buf_release(&w);
    up_buf_release(&path);
    return found;
}

static void limits(up_sandbox_limits *l, unsigned wall_s, int verifier)
{
    unsigned s = wall_s ? wall_s : UP_CHECK_WALL_S;

    up_sandbox_limits_default(l);
    l->cpu_s = s;
    l->wall_ms = s * 1000u;
    l->mem_bytes = (size_t)8 << 30; /* a compiler maps a lot */
    /* the whole check: twice that, so that without a memory cgroup the
     * per-process limit stays at 8 GiB (sandbox_cgroup.c) */
    l->mem_total = (size_t)16 << 30;
    l->out_cap = verifier ? UP_CHECK_VERIFIER_SCAN : UP_CHECK_OUTPUT;
}

/* Append stream s (cut when cut, or when longer than UP_CHECK_OUTPUT)
 * to out under a heading. */
static void add_stream(up_buf *out, const char *name, const up_buf *s, int cut)
{
    size_t n = s->len < UP_CHECK_OUTPUT ? s->len : UP_CHECK_OUTPUT;

    if (!s->len)
        return;
    cut |= n < s->len;
    up_buf_addf(out, "--- %s ---\n", name);
    up_buf_add(out, s->data, n);
    if (s->data[n - 1] != '\n')
        up_buf_addc(out, '\n');
    if (cut)
        up_buf_addf(out, "[cut at %zu bytes]\n", UP_CHECK_OUTPUT);
}

/* The first non-empty line of s into out, cut short. */
static void first_line(up_buf *out, const up_buf *s)
{
    const char *p = s->len ? s->data : "";
    size_t n;

    p += strspn(p, "\n \t");
    n = strcspn(p, "\n");
    if (n > 160)
        n = 160;
    if (n) {
        up_buf_adds(out, ": ");
        up_buf_add(out, p, n);
    }
}

/* Settle r from a finished sandbox call. */
static void settle(up_assert_result *r, const up_sandbox_result *sr)
{
    r->status =
        sr->exit_code == 0 && !sr->limit ? UP_ASSERT_PASS : UP_ASSERT_FAIL;
    if (sr->limit)
        up_buf_addf(&r->message, "stopped: %s", sr->limit_text);
    else if (sr->signal)
        up_buf_addf(&r->message, "killed by signal %d (exit %d)", sr->signal,
                    sr->exit_code);
    else
        up_buf_addf(&r->message, "exit %d", sr->exit_code);
    if (r->status != UP_ASSERT_PASS)
        first_line(&r->message, sr->err.len ? &sr->err : &sr->out);
    add_stream(&r->output, "stdout", &sr->out, sr->out_cut);
    add_stream(&r->output, "stderr", &sr->err, sr->err_cut);
}

/*
 * A verifier's command %s in a subshell, then the guard: when it has
 * ended, no other process of the sandbox may be left (the sandbox's
 * /proc holds its own processes: pid 1, bwrap's init, and this shell);
 * one left could rewrite the reward after test.sh wrote it, so the
 * guard names it and exits VERIFIER_LEFT (a zombie, dead, does not
 * count).  It exits 0 only once it saw none, after saying test.sh's
 * exit code; a guard killed or stopped ends otherwise (settle_reward).
 * The scan forks nothing.
 */
#define VERIFIER_LEFT   86
#define VERIFIER_LEFT_S "86"
#define VERIFIER_SAID   "upskill: test.sh exit "
#define VERIFIER_GUARD                                                         \
    "(\n%s\n)\necho \"" VERIFIER_SAID                                          \
    "$?\" >&2\nfor p in /proc/[0-9]*; do case $p in /proc/1|/proc/$$) "        \
    "continue;; esac; read -r l 2>/dev/null < $p/stat || continue; "           \
    "l=${l##*) }; [ \"${l%%%% *}\" = Z ] && continue; "                        \
    "echo \"upskill: a process of the verifier (pid ${p#/proc/}) was "         \
    "still running when test.sh ended\" >&2; exit " VERIFIER_LEFT_S "; "       \
    "done\nexit 0\n"

/* How one reward file was found (reward_file). */
enum { RW_ABSENT, RW_READ, RW_PLANTED };

/* Read the reward file name of the folder open as dirfd into text: a
 * regular file with one link that its owner can write, at most
 * REWARD_MAX bytes, opened without following a symlink nor blocking on
 * a FIFO.  RW_READ, RW_ABSENT, or RW_PLANTED with why (anything else:
 * a folder, a symlink, a FIFO, a read-only or hard-linked file is not
 * what test.sh writes, but what a process of the student's left). */
static int reward_file(int dirfd, const char *name, up_buf *text, up_buf *why)
{
    int fd = openat(dirfd, name,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    char chunk[REWARD_MAX];
    ssize_t n;
    const char *bad = NULL;

    if (fd < 0 && errno == ENOENT)
        return RW_ABSENT;
    if (fd < 0)
        bad = errno == ELOOP ? "a symlink" : "not a file that can be read";
    else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        bad = S_ISDIR(st.st_mode) ? "a folder" : "not a regular file";
    else if (st.st_nlink != 1)
        bad = "a file with several links";
    else if (!(st.st_mode & S_IWUSR))
        bad = "a read-only file";
    else if ((size_t)st.st_size > REWARD_MAX)
        bad = "over 4 KiB";
    if (!bad && (n = read(fd, chunk, sizeof(chunk))) >= 0)
        up_buf_add(text, chunk, (size_t)n);
    else if (!bad)
        bad = "not a file that can be read";
    if (fd >= 0)
        close(fd);
    if (!bad)
        return RW_READ;
    up_buf_addf(why, "%s/%s is %s, not a reward test.sh wrote",
                UP_CHECK_LOGS_DIR, name, bad);
    return RW_PLANTED;
}

/* The number of reward.txt's text t into *reward: 0, or -1 with why. */
static int txt_reward(const up_buf *t, double *reward, up_buf *why)
{
    const char *s = t->len ? t->data : "";
    char *end = NULL;

    *reward = strtod(s, &end);
    if (end != s && !end[strspn(end, " \t\r\n")])
        return 0;
    up_buf_addf(why, "%s does not hold a number", UP_CHECK_REWARD_TXT);
    return -1;
}

/* The "reward" of reward.json's text t into *reward: 0, or -1 with why. */
static int json_reward(const up_buf *t, double *reward, up_buf *why)
{
    json_t *doc = json_loadb(t->data ? t->data : "", t->len, 0, NULL);
    json_t *v = json_object_get(doc, "reward");
    int rc = json_is_number(v) ? 0 : -1;

    if (!rc)
        *reward = json_number_value(v);
    else
        up_buf_addf(why, "%s holds no number \"reward\"", UP_CHECK_REWARD_JSON);
    json_decref(doc);
    return rc;
}

/* 0 when the log folder (open as dirfd) is still a folder its owner
 * can write and enter (a test.sh may chmod 777 it), else -1 with why:
 * one made read-only keeps test.sh from writing the reward, and a
 * reward planted before it was is not test.sh's. */
static int logs_intact(int dirfd, up_buf *why)
{
    struct stat st;

    if (dirfd >= 0 && !fstat(dirfd, &st) && S_ISDIR(st.st_mode) &&
        (st.st_mode & S_IRWXU) == S_IRWXU)
        return 0;
    up_buf_addf(why, "%s was made read-only (not the folder upskill made)",
                UP_CHECK_LOGS_DIR);
    return -1;
}

/* The reward a verifier left in folder logs into *reward: 0, or -1
 * with why the check errored in why.  reward.txt, else reward.json;
 * when both are there they must agree; either one planted (see
 * reward_file) is an error, whatever the other holds. */
static int read_reward(const char *logs, double *reward, up_buf *why)
{
    up_buf txt = UP_BUF_INIT, js = UP_BUF_INIT;
    int dirfd = open(logs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int t = RW_PLANTED, j = RW_PLANTED, rc = -1;
    double rj = 0;

    if (!logs_intact(dirfd, why)) {
        t = reward_file(dirfd, UP_CHECK_REWARD_TXT, &txt, why);
        j = t == RW_PLANTED
                ? RW_PLANTED
                : reward_file(dirfd, UP_CHECK_REWARD_JSON, &js, why);
    }
    if (t == RW_READ)
        rc = txt_reward(&txt, reward, why);
    if (j == RW_READ && t == RW_ABSENT)
        rc = json_reward(&js, reward, why);
    else if (!rc && j == RW_READ &&
             (json_reward(&js, &rj, why) || rj != *reward)) {
        up_buf_reset(why);
        up_buf_addf(why, "%s and %s disagree", UP_CHECK_REWARD_TXT,
                    UP_CHECK_REWARD_JSON);
        rc = -1;
    }
    if (t == RW_ABSENT && j == RW_ABSENT)
        up_buf_addf(why,
                    "the verifier wrote no reward (%s/%s or %s "
                    "with a number \"reward\")",
                    UP_CHECK_LOGS_DIR, UP_CHECK_REWARD_TXT,
                    UP_CHECK_REWARD_JSON);
    if (!rc && !isfinite(*reward)) {
        up_buf_adds(why, "the reward is not a finite number");
        rc = -1;
    }
    if (dirfd >= 0)
        close(dirfd);
    up_buf_release(&txt);
    up_buf_release(&js);
    return rc;
}

/* The verifier's stderr sr without the guard's line saying test.sh's
 * exit code (VERIFIER_GUARD: its last but one at most) into err, and
 * that code, or -1 (then sr's own).  For the message only. */
static int said_exit(const up_sandbox_result *sr, up_buf *err)
{
    const char *p = sr->err.len ? sr->err.data : "", *q, *last = NULL;
    int code = sr->exit_code;

    while ((q = strstr(p, VERIFIER_SAID)) != NULL) {
        last = q;
        p = q + 1;
    }
    if (!last) {
        up_buf_add(err, sr->err.data, sr->err.len);
        return code;
    }
    up_buf_add(err, sr->err.data, (size_t)(last - sr->err.data));
    code = (int)strtol(last + strlen(VERIFIER_SAID), NULL, 10);
    last += strcspn(last, "\n");
    if (*last)
        up_buf_adds(err, last + 1);
    return code;
}

/* 0 when the verifier's guard ended clean (test.sh ended with no other
 * process of its sandbox left, sr exit 0), else -1 with why. */
static int guard_clean(const up_sandbox_result *sr, up_buf *why)
{
    if (sr->limit)
        up_buf_addf(why, "stopped: %s", sr->limit_text);
    else if (sr->exit_code == VERIFIER_LEFT)
        up_buf_adds(why, "a process test.sh started (the student's code) "
                         "was still running when it ended, and could "
                         "rewrite the reward");
    else if (sr->exit_code)
        up_buf_addf(why,
                    "the verifier's shell ended with %d before it could "
                    "see that test.sh left no process running",
                    sr->exit_code);
    return why->len ? -1 : 0;
}

/* What the verifier's whole output (UP_CHECK_VERIFIER_SCAN of each
 * stream, not only the part kept; err its stderr without the guard's
 * line) says failed, after message. */
static void failed_because(up_buf *message, const up_sandbox_result *sr,
                           const up_buf *err)
{
    up_buf all = UP_BUF_INIT;

    up_buf_adds(&all, "--- stdout ---\n");
    up_buf_add(&all, sr->out.data, sr->out.len);
    up_buf_adds(&all, "\n--- stderr ---\n");
    up_buf_add(&all, err->data, err->len); /* without the guard's line */
    up_check_reason(message, all.data, all.len);
    up_buf_release(&all);
}

/* Settle a verifier's result r by the reward it left in logs: read only
 * when its guard ended clean (then every other process of its sandbox
 * had ended), and only from files test.sh can have written.  Anything
 * else is the student's doing (the verifier ran on the student's files
 * and code) and a failure, never "not gradable", which would leave the
 * trial out of the rates (docs/statistics.md). */
static void settle_reward(up_assert_result *r, const up_assert *a,
                          const up_sandbox_result *sr, const char *logs)
{
    up_buf why = UP_BUF_INIT, err = UP_BUF_INIT;
    double reward = 0;
    int code = said_exit(sr, &err);

    if (guard_clean(sr, &why) || read_reward(logs, &reward, &why)) {
        r->status = UP_ASSERT_FAIL;
        up_buf_addf(&r->message,
                    sr->limit ? "the verifier was stopped before it wrote a "
                                "reward (%s; exit %d): counted as the "
                                "student's failure"
                              : "no reward test.sh alone decided: %s (exit "
                                "%d): counted as the student's failure",
                    why.data, code);
        first_line(&r->message, err.len ? &err : &sr->out);
    } else {
        r->status = reward >= a->threshold ? UP_ASSERT_PASS : UP_ASSERT_FAIL;
        up_buf_addf(&r->message, "reward %g%s the threshold %g", reward,
                    r->status == UP_ASSERT_PASS ? ", at least" : ", below",
                    a->threshold);
        if (r->status == UP_ASSERT_FAIL)
            failed_because(&r->message, sr, &err);
    }
    add_stream(&r->output, "stdout", &sr->out, sr->out_cut);
    add_stream(&r->output, "stderr", &err, sr->err_cut);
    up_buf_release(&why);
    up_buf_release(&err);
}

struct up_check_run {
    const up_check_item *it; /* borrowed: its result is settled at the end */
    up_sandbox_run *proc;    /* the check under way */
    char *tests;             /* the hidden files' folder, or NULL */
    char *logs;              /* a verifier's /logs/verifier, or NULL */
};

/* Added to the sandbox's environment: the student's files never shadow
 * the checker's program (python3 -m X imports no X from the workspace;
 * no user site-packages).  HOME=/tmp, the sandbox's own empty tmpfs,
 * keeps the student's dotfiles (~/.local, ~/.node_modules) out; it comes
 * first so that mode none, where /tmp is the host's, starts after it. */
static const char *const check_env[] = {"HOME=/tmp", "PYTHONSAFEPATH=1",
                                        "PYTHONNOUSERSITE=1", NULL};

/* A verifier's, after the task's and check_env: upskill's pytest
 * --ctrf plugin (check_ctrf.c) loaded by every pytest it runs (its
 * folder first on PYTHONPATH, verifier_envp). */
#define CTRF_PLUGINS "PYTEST_PLUGINS=" UP_CHECK_CTRF_MODULE

/* Where a verifier imports the plugin from. */
#define CTRF_AT UP_CHECK_TESTS_DIR "/" UP_CHECK_CTRF_DIR

/* The task's variables whose entries name folders to run or import
 * from: those the student can write are dropped for the verifier. */
static const char *const search_vars[] = {"PATH=", "PYTHONPATH=", NULL};

/* 1 when entry e[0..n) of a search path is one the student can write
 * (relative, under the workspace's place or one of the places). */
static int student_entry(const up_check_item *it, const char *e, size_t n)
{
    char *p = up_xstrndup(e, n);
    int bad = p[0] != '/' ||
              up_fs_holds(it->ws_at ? it->ws_at : UP_SANDBOX_WORKSPACE, p);

    for (size_t i = 0; !bad && it->places && it->places[i]; i++)
        bad = up_fs_holds(it->places[i], p);
    free(p);
    return bad;
}

/* Search path word w ("PATH=a:b") without the student's entries, after
 * prefix (NULL: none) into b. */
static void search_path(const up_check_item *it, const char *w,
                        const char *prefix, up_buf *b)
{
    const char *v = strchr(w, '=') + 1;
    size_t k = 0;

    up_buf_add(b, w, (size_t)(v - w));
    if (prefix) {
        up_buf_adds(b, prefix);
        k = 1;
    }
    for (; *v; v += *v == ':') {
        size_t n = strcspn(v, ":");

        if (n && !student_entry(it, v, n)) {
            if (k++)
                up_buf_addc(b, ':');
            up_buf_add(b, v, n);
        }
        v += n;
    }
}

/* UP_CHECK_STUDENT_DIRS=<ws_at>:<place>... (a heap string): the
 * folders whose entries an offline test.sh moves behind the others. */
static char *student_dirs(const up_check_item *it)
{
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b, "%s=%s", UP_CHECK_STUDENT_DIRS,
                it->ws_at ? it->ws_at : UP_SANDBOX_WORKSPACE);
    for (size_t i = 0; it->places && it->places[i]; i++)
        up_buf_addf(&b, ":%s", it->places[i]);
    return up_buf_detach(&b);
}

static void strv_push(char ***v, size_t *n, size_t *cap, char *s)
{
    UP_GROW(*v, *cap, *n + 2);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

/* A verifier's environment (a heap strv): the task's words (a search
 * path without the student's entries: the student's files never shadow
 * the verifier's programs or modules), then check_env and the plugin;
 * PYTHONPATH starts with the plugin's folder. */
static char **verifier_envp(const up_check_item *it)
{
    char **v = NULL;
    size_t n = 0, cap = 0;
    int pp = 0;

    for (size_t i = 0; it->env && it->env[i]; i++) {
        const char *w = it->env[i];
        int is_pp = !strncmp(w, "PYTHONPATH=", 11), search = is_pp;
        up_buf b = UP_BUF_INIT;

        for (size_t s = 0; search_vars[s]; s++)
            search |= !strncmp(w, search_vars[s], strlen(search_vars[s]));
        if (search)
            search_path(it, w, is_pp ? CTRF_AT : NULL, &b);
        else
            up_buf_adds(&b, w);
        pp |= is_pp;
        strv_push(&v, &n, &cap, up_buf_detach(&b));
    }
    if (!pp)
        strv_push(&v, &n, &cap, up_xstrdup("PYTHONPATH=" CTRF_AT));
    strv_push(&v, &n, &cap, student_dirs(it));
    for (size_t i = 0; check_env[i]; i++)
        strv_push(&v, &n, &cap, up_xstrdup(check_env[i]));
    strv_push(&v, &n, &cap, up_xstrdup(CTRF_PLUGINS));
    return v;
}

/* The command line of check a: PATH widened when its program is in
 * CUDA's prefix (under /usr: visible, not on PATH); 0 when its program
 * is not installed (r settled as ungradable). */
static int command_line(up_buf *cmd, const up_assert *a, up_assert_result *r)
{
    up_buf dir = UP_BUF_INIT, prog = UP_BUF_INIT;
    int found = up_check_find(a->value, &dir, &prog);

    if (!found) {
        r->status = UP_ASSERT_UNGRADABLE;
        up_buf_addf(&r->message,
                    "not gradable: '%s' is not installed where the "
                    "sandbox can run it (looked on its PATH and in %s)",
                    prog.data, UP_CHECK_CUDA_BIN);
    } else {
        if (dir.len)
            up_buf_addf(cmd, "PATH=%s:$PATH; export PATH; ", dir.data);
        if (up_assert_is_verifier(a))
            up_buf_addf(cmd, VERIFIER_GUARD, a->value);
        else
            up_buf_adds(cmd, a->value);
    }
    up_buf_release(&dir);
    up_buf_release(&prog);
    return found;
}

/* A fresh private folder "upskill-<what>-XXXXXX" beside the workspace
 * (so outside it) into *dir. */
static int private_dir(char **dir, const up_check_item *it, const char *what,
                       up_error *e)
{
    up_buf b = UP_BUF_INIT;

    up_fs_dirname(&b, it->ws);
    up_buf_addf(&b, "/upskill-%s-XXXXXX", what);
    if (!mkdtemp(b.data)) {
        up_error_set(e, UP_EIO, "cannot make '%s': %s", b.data,
                     strerror(errno));
        up_buf_release(&b);
        return -1;
    }
    *dir = up_buf_detach(&b);
    return 0;
}

/* A private folder into *dir, holding the check's hidden files (and a
 * verifier's pytest plugin, in UP_CHECK_CTRF_DIR). */
static int hidden_dir(char **dir, const up_check_item *it, up_error *e)
{
    const char *py = up_check_ctrf_plugin(), *site = up_check_sitecustomize();
    up_fs_entry plugin[] = {
        {UP_CHECK_CTRF_DIR "/" UP_CHECK_CTRF_MODULE ".py", py, strlen(py), 0},
        {UP_CHECK_CTRF_DIR "/sitecustomize.py", site, strlen(site), 0}};

    if (private_dir(dir, it, "tests", e) ||
        up_fs_put_files(*dir, it->files, it->nfiles, e))
        return -1;
    return up_assert_is_verifier(it->a) ? up_fs_put_files(*dir, plugin, 2, e)
                                        : 0;
}

/* Remove every FIFO, socket and device under folder fd (rel its path
 * in the workspace, "" at the top), depth folders deep at most, never
 * following a symlink; the first one's path into first.  Returns how
 * many were removed. */
static size_t drop_special(int fd, const char *rel, int depth, up_buf *first)
{
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    size_t n = 0;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    while ((e = readdir(d))) {
        struct stat st;
        up_buf path = UP_BUF_INIT;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        up_fs_join(&path, rel, e->d_name);
        if (S_ISDIR(st.st_mode) && depth > 0) {
            int sub = openat(fd, e->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

            if (sub >= 0) {
                n += drop_special(sub, path.data, depth - 1, first);
                close(sub);
            }
        } else if ((S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
                    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) &&
                   !unlinkat(fd, e->d_name, 0) && !n++) {
            up_buf_adds(first, path.data);
        }
        up_buf_release(&path);
    }
    closedir(d);
    return n;
}

/* The student's FIFOs, sockets and devices out of workspace ws before
 * a check reads it (a FIFO left as an output would block the check
 * until its wall clock), said in r's output. */
static void drop_specials(const char *ws, up_assert_result *r)
{
    int fd = open(ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    up_buf first = UP_BUF_INIT;
    size_t n;

    if (fd < 0)
        return;
    n = drop_special(fd, "", SPECIAL_DEPTH, &first);
    close(fd);
    if (n)
        up_buf_addf(&r->output,
                    "--- upskill ---\nremoved %zu FIFO(s), socket(s) or "
                    "device(s) of the student's before the check ran, the "
                    "first '%s': a check reads regular files only\n",
                    n, first.data);
    up_buf_release(&first);
}

/* The check's files made ready: the student's FIFOs and sockets
 * removed, those it owns put back into the workspace, its hidden ones
 * into *tests.  0, or -1 with r a FAIL saying why. */
static int prepare(const up_check_item *it, up_sandbox_mode mode, char **tests,
                   char **logs, up_assert_result *r)
{
    const char *what = "the files the check owns could not be put back";
    up_error e;
    int rc = 0;

    if (it->nfiles && mode == UP_SANDBOX_NONE) {
        r->status = UP_ASSERT_FAIL;
        up_buf_addf(&r->message,
                    "the case's check files are seen only at %s in the "
                    "sandbox, and --sandbox none has none",
                    UP_CHECK_TESTS_DIR);
        return -1;
    }
    drop_specials(it->ws, r);         /* the oracle's too: no check blocks */
    if (it->ws && !it->student_env) { /* a check, not the oracle */
        what = "the workspace is not the student's own bytes";
        rc = up_check_own_bytes(it->ws, &e);
    }
    if (!rc) {
        what = "the files the check owns could not be put back";
        rc = up_fs_put_files(it->ws, it->owned, it->nowned, &e);
    }
    if (!rc && it->nfiles) {
        what = "the check files could not be written";
        rc = hidden_dir(tests, it, &e);
    }
    if (!rc && up_assert_is_verifier(it->a)) {
        what = "the verifier's log folder could not be made";
        rc = private_dir(logs, it, "logs", &e);
    }
    if (rc) {
        r->status = UP_ASSERT_FAIL;
        up_buf_addf(&r->message, "%s: %s", what, e.msg);
    }
    return rc;
}

/* Remove and free a private folder (the hidden files', the logs'). */
static void drop_tests(char *tests)
{
    if (tests)
        up_fs_rm_tree(tests);
    free(tests);
}

up_check_run *up_check_start(const up_check_item *it, up_sandbox_mode mode)
{
    up_buf cmd = UP_BUF_INIT;
    up_assert_result *r = it->res;
    up_sandbox_limits lim;
    up_sandbox_run *proc = NULL;
    up_check_run *c = NULL;
    char *tests = NULL, *logs = NULL;
    up_error e;

    up_buf_reset(&r->message);
    up_buf_reset(&r->output);
    limits(&lim, it->wall_s, up_assert_is_verifier(it->a));
    lim.ws_bytes = it->quota_bytes; /* kept while it runs (sandbox_bound.c) */
    lim.ws_files = it->quota_files;
    if (command_line(&cmd, it->a, r) && !prepare(it, mode, &tests, &logs, r)) {
        char **venv = up_assert_is_verifier(it->a) && !it->student_env
                          ? verifier_envp(it)
                          : NULL;
        up_sandbox_extra x = {tests,
                              it->files_at ? it->files_at : UP_CHECK_TESTS_DIR,
                              it->student_env ? it->env
                              : venv          ? (const char *const *)venv
                                     : check_env + (mode == UP_SANDBOX_NONE),
                              it->ws_at,
                              logs,
                              UP_CHECK_LOGS_DIR,
                              it->places};

        if (up_sandbox_start_with(&proc, mode, it->ws, cmd.data, &lim, &x,
                                  &e)) {
            r->status = UP_ASSERT_FAIL;
            up_buf_addf(&r->message, "the check could not start: %s", e.msg);
        }
        up_strv_free(venv);
    }
    if (proc) {
        c = up_xcalloc(1, sizeof(*c));
        c->it = it;
        c->proc = proc;
        c->tests = tests;
        c->logs = logs;
    } else {
        drop_tests(tests);
        drop_tests(logs);
    }
    up_buf_release(&cmd);
    return c;
}

int up_check_wait(const up_check_run *c, int fds[3], int *timeout_ms)
{
    *timeout_ms = up_sandbox_timeout_ms(c->proc);
    return up_sandbox_pollfds(c->proc, fds);
}

int up_check_step(up_check_run *c)
{
    return up_sandbox_step(c->proc);
}

void up_check_end(up_check_run *c, int kill)
{
    up_sandbox_result sr;
    up_error e;

    if (!c)
        return;
    up_sandbox_finish(c->proc, &sr, &e); /* kills one that still runs */
    if (!kill && c->logs)
        settle_reward(c->it->res, c->it->a, &sr, c->logs);
    else if (!kill)
        settle(c->it->res, &sr);
    up_sandbox_result_release(&sr);
    drop_tests(c->tests);
    drop_tests(c->logs);
    free(c);
}

void up_check_programs_text(up_buf *out)
{
    size_t n = 0;

    for (size_t i = 0; probes[i]; i++)
        if (up_check_find(probes[i], NULL, NULL))
            up_buf_addf(out, "%s%s", n++ ? ", " : "", probes[i]);
    if (!n)
        up_buf_adds(out, "none");
}
