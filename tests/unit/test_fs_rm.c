/* Unit tests for tree removal (src/util/fs_rm.c) and a workspace's
 * removal on top of it: any depth, folders of mode 000 (also as an
 * unprivileged user, where the mode stops a plain walk), symlinks never
 * followed, and a warning that names what stays. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/fs.h"
#include "lib/agent/workspace.h"

#define NOBODY 65534

static char parent[] = "/tmp/upskill-rm-test-XXXXXX";

static void setup(void)
{
    cr_assert_not_null(mkdtemp(parent));
    cr_assert_eq(chmod(parent, 0755), 0); /* the unprivileged child enters */
}

static void teardown(void)
{
    cr_assert_eq(up_fs_rm_tree(parent), 0);
}

TestSuite(fs_rm, .init = setup, .fini = teardown);

/* A chain of n folders named name under dir, a file at the bottom; the
 * path is longer than PATH_MAX when n * (strlen(name) + 1) is. */
static void chain(const char *dir, const char *name, int n)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);

    cr_assert_geq(fd, 0);
    for (int i = 0; i < n; i++) {
        int sub;

        cr_assert_eq(mkdirat(fd, name, 0755), 0, "level %d", i);
        sub = openat(fd, name, O_RDONLY | O_DIRECTORY);
        cr_assert_geq(sub, 0);
        close(fd);
        fd = sub;
    }
    close(openat(fd, "bottom.txt", O_WRONLY | O_CREAT, 0644));
    close(fd);
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

    cr_assert_geq(fd, 0, "%s", path);
    close(fd);
}

static void path_in(up_buf *b, const char *name)
{
    up_buf_reset(b);
    up_fs_join(b, parent, name);
}

Test(fs_rm, tree_deeper_than_path_max)
{
    up_buf t = UP_BUF_INIT;

    path_in(&t, "deep");
    cr_assert_eq(mkdir(t.data, 0755), 0);
    chain(t.data, "level-dir", 1000); /* 10,000 bytes of path */
    cr_assert_eq(up_fs_rm_tree(t.data), 0);
    cr_assert_neq(access(t.data, F_OK), 0, "the tree is gone");
    up_buf_release(&t);
}

Test(fs_rm, workspace_deeper_than_256)
{
    up_workspace *w = NULL;
    up_error err;
    char *path;

    cr_assert_eq(up_workspace_new(&w, parent, NULL, &err), 0, "%s", err.msg);
    path = up_xstrdup(w->path);
    chain(path, "d", 1000);
    up_workspace_free(w);
    cr_assert_neq(access(path, F_OK), 0, "a 1,000-deep workspace is gone");
    free(path);
}

/* dir/{a.txt, locked (mode 000)/{x.txt, sub/y.txt}, ro (0500)/z.txt,
 * link -> outside}; outside/keep.txt stays. */
static void hostile_tree(const char *dir, const char *outside)
{
    up_buf p = UP_BUF_INIT;
    const char *files[] = {"a.txt", "locked/x.txt", "locked/sub/y.txt",
                           "ro/z.txt"};

    cr_assert_eq(mkdir(dir, 0755), 0);
    for (size_t i = 0; i < 3; i++) {
        static const char *const dirs[] = {"locked", "locked/sub", "ro"};

        up_buf_reset(&p);
        up_fs_join(&p, dir, dirs[i]);
        cr_assert_eq(mkdir(p.data, 0755), 0);
    }
    for (size_t i = 0; i < 4; i++) {
        up_buf_reset(&p);
        up_fs_join(&p, dir, files[i]);
        touch(p.data);
    }
    up_buf_reset(&p);
    up_fs_join(&p, dir, "link");
    cr_assert_eq(symlink(outside, p.data), 0);
    up_buf_reset(&p);
    up_fs_join(&p, dir, "locked");
    cr_assert_eq(chmod(p.data, 0), 0);
    up_buf_reset(&p);
    up_fs_join(&p, dir, "ro");
    cr_assert_eq(chmod(p.data, 0500), 0);
    up_buf_release(&p);
}

/* chown -R path to uid (no link followed). */
static void chown_tree(const char *path, uid_t uid)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "chown -R -h %u:%u '%s'", (unsigned)uid,
             (unsigned)uid, path);
    cr_assert_eq(system(cmd), 0);
}

/* A warning sink as the CLI's: one "upskill: warning: " line on stderr. */
static void to_stderr(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "upskill: warning: %s\n", msg);
}

static int rm_sink(const char *path, uid_t uid, const char *errfile,
                   up_warn_fn sink);

/* up_fs_rm_tree(path) in a child that drops to uid when root (mode 000
 * stops only a non-root walk), its warnings (to_stderr) and stderr into
 * errfile; its result. */
static int rm_as(const char *path, uid_t uid, const char *errfile)
{
    return rm_sink(path, uid, errfile, to_stderr);
}

/* The same with the warning sink given (NULL: none). */
static int rm_sink(const char *path, uid_t uid, const char *errfile,
                   up_warn_fn sink)
{
    pid_t pid = fork();
    int status;

    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        dup2(fd, 2);
        up_warn_set_sink(sink, NULL);
        if (geteuid() == 0 && (setgid(uid) || setuid(uid)))
            _exit(99);
        _exit(up_fs_rm_tree(path) == 0 ? 0 : 1);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The tree goes in a folder of nobody's, who may remove entries there. */
static void paths(up_buf *dir, up_buf *out, up_buf *err)
{
    path_in(dir, "home");
    cr_assert_eq(mkdir(dir->data, 0755), 0);
    if (geteuid() == 0)
        cr_assert_eq(chown(dir->data, NOBODY, NOBODY), 0);
    path_in(dir, "home/tree");
    path_in(out, "outside");
    path_in(err, "stderr.txt");
    cr_assert_eq(mkdir(out->data, 0755), 0);
    up_buf_adds(out, "/keep.txt");
    touch(out->data);
}

Test(fs_rm, mode_000_folders_as_their_owner)
{
    up_buf dir = UP_BUF_INIT, out = UP_BUF_INIT, err = UP_BUF_INIT;
    up_buf text = UP_BUF_INIT;
    int rc;

    paths(&dir, &out, &err);
    hostile_tree(dir.data, parent);
    if (geteuid() == 0)
        chown_tree(dir.data, NOBODY);
    rc = rm_as(dir.data, NOBODY, err.data);
    (void)up_fs_read(&text, err.data, 65536, NULL);
    cr_assert_eq(rc, 0, "the owner removes a tree with folders of mode 000: %s",
                 text.data ? text.data : "");
    cr_assert_neq(access(dir.data, F_OK), 0, "the tree is gone");
    cr_assert_eq(access(out.data, F_OK), 0, "the link's target stays");
    up_buf_release(&text);
    up_buf_release(&dir);
    up_buf_release(&out);
    up_buf_release(&err);
}

Test(fs_rm, what_stays_is_named)
{
    up_buf dir = UP_BUF_INIT, out = UP_BUF_INIT, err = UP_BUF_INIT;
    up_buf text = UP_BUF_INIT, want = UP_BUF_INIT;

    if (geteuid() != 0)
        cr_skip_test("needs root to make a folder another user cannot open");
    paths(&dir, &out, &err);
    hostile_tree(dir.data, parent);
    chown_tree(dir.data, NOBODY);
    path_in(&want, "home/tree/locked");
    cr_assert_eq(chown(want.data, 0, 0), 0); /* nobody cannot chmod it */
    cr_assert_eq(rm_as(dir.data, NOBODY, err.data), 1,
                 "a folder that cannot be emptied fails the removal");
    cr_assert_eq(up_fs_read(&text, err.data, 65536, NULL), 0);
    up_buf_reset(&want);
    up_buf_addf(
        &want,
        "upskill: warning: cannot remove '%s/home/tree/locked': ", parent);
    cr_assert_not_null(strstr(text.data, want.data), "stderr: %s", text.data);
    cr_assert_not_null(strstr(text.data, "left behind"), "%s", text.data);
    path_in(&want, "home/tree/a.txt");
    cr_assert_neq(access(want.data, F_OK), 0, "the rest went");
    up_buf_release(&dir);
    up_buf_release(&out);
    up_buf_release(&err);
    up_buf_release(&text);
    up_buf_release(&want);
}

/* The library prints nothing itself (only src/cli prints): without a sink
 * the warning is dropped, with one it is a line whose quotes pair up. */
Test(fs_rm, the_warning_goes_to_the_sink_not_stderr)
{
    up_buf dir = UP_BUF_INIT, out = UP_BUF_INIT, err = UP_BUF_INIT;
    up_buf text = UP_BUF_INIT, want = UP_BUF_INIT;
    size_t quotes = 0;

    if (geteuid() != 0)
        cr_skip_test("needs root to make a folder another user cannot open");
    paths(&dir, &out, &err);
    hostile_tree(dir.data, parent);
    chown_tree(dir.data, NOBODY);
    path_in(&want, "home/tree/locked");
    cr_assert_eq(chown(want.data, 0, 0), 0);
    cr_assert_eq(rm_sink(dir.data, NOBODY, err.data, NULL), 1);
    cr_assert_eq(up_fs_read(&text, err.data, 65536, NULL), 0);
    cr_assert_eq(text.len, 0, "a library call printed: %s", text.data);
    up_buf_reset(&text);
    cr_assert_eq(rm_as(dir.data, NOBODY, err.data), 1);
    cr_assert_eq(up_fs_read(&text, err.data, 65536, NULL), 0);
    for (size_t i = 0; i < text.len; i++)
        quotes += text.data[i] == '\'';
    cr_assert_eq(quotes, 2, "the path is quoted, both ends: %s", text.data);
    cr_assert_not_null(strstr(text.data, "locked': "), "%s", text.data);
    up_buf_release(&dir);
    up_buf_release(&out);
    up_buf_release(&err);
    up_buf_release(&text);
    up_buf_release(&want);
}
