/*
 * Unit tests for a bounded folder (src/lib/sandbox/sandbox_bound.c,
 * issue 35 item 2): the workspace is a tmpfs of its quota's size while a
 * call runs.  What a call leaves within the quota is copied back
 * faithfully (contents, modes, times, symlinks, removals); a call past
 * it leaves the folder as it was and reads as the "workspace quota"
 * limit; a fallocate bomb never reaches the host folder.  Skipped where
 * bubblewrap cannot run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/upskill-bound-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    up_fs_rm_tree(dir);
}

static void need_bwrap(void)
{
    up_error e;

    if (up_sandbox_check(&e) != 0) {
        teardown();
        cr_skip_test("no sandbox here: %s", e.msg);
    }
}

/* cmd run in dir with a quota of bytes and files; its result. */
static void run(up_sandbox_result *r, const char *cmd, size_t bytes,
                size_t files)
{
    up_sandbox_limits l;
    up_error e;

    up_sandbox_limits_default(&l);
    l.ws_bytes = bytes;
    l.ws_files = files;
    cr_assert_eq(up_sandbox_exec(r, UP_SANDBOX_BWRAP, dir, cmd, &l, &e), 0,
                 "%s", e.msg);
}

/* Bytes of the blocks under dir (du), to bound what the host holds. */
static long long disk_bytes(void)
{
    char cmd[128], line[64] = "";
    FILE *p;

    snprintf(cmd, sizeof(cmd), "du -sB1 %s | cut -f1", dir);
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    if (!fgets(line, sizeof(line), p))
        line[0] = '\0';
    pclose(p);
    return strtoll(line, NULL, 10);
}

static void put(const char *rel, const char *text)
{
    up_buf p = UP_BUF_INIT;

    up_fs_join(&p, dir, rel);
    cr_assert_eq(up_fs_write_atomic(p.data, text, strlen(text), 0644, NULL), 0);
    up_buf_release(&p);
}

static int exists(const char *rel, struct stat *st)
{
    up_buf p = UP_BUF_INIT;
    int ok;

    up_fs_join(&p, dir, rel);
    ok = lstat(p.data, st) == 0;
    up_buf_release(&p);
    return ok;
}

TestSuite(sandbox_bound, .init = setup, .fini = teardown);

Test(sandbox_bound, a_call_within_the_quota_is_copied_back)
{
    up_sandbox_result r;
    struct stat st;
    up_buf b = UP_BUF_INIT, p = UP_BUF_INIT;

    need_bwrap();
    put("keep.txt", "kept\n");
    put("gone.txt", "removed by the command\n");
    run(&r,
        "cat keep.txt && rm gone.txt && mkdir -p a/b && echo new > a/b/n.txt "
        "&& chmod 750 a && touch -d @1000000000 a/b/n.txt && ln -s "
        "/etc/passwd link && df -B1 --output=fstype,size . | tail -1",
        1 << 20, 100);
    cr_assert_eq(r.exit_code, 0, "%s", r.err.data);
    cr_assert_eq(r.limit, UP_SANDBOX_OK, "%s", r.limit_text);
    cr_expect(strstr(r.out.data, "kept\n"), "%s", r.out.data);
    cr_expect(strstr(r.out.data, "tmpfs"), "a file system of its own: %s",
              r.out.data);
    cr_expect(!exists("gone.txt", &st), "a removal is copied back");
    cr_assert(exists("a/b/n.txt", &st), "a new file is copied back");
    cr_expect_eq(st.st_mtime, 1000000000, "with its time");
    cr_assert(exists("a", &st));
    cr_expect_eq(st.st_mode & 0777, 0750, "a folder keeps its mode");
    cr_assert(exists("link", &st));
    cr_expect(S_ISLNK(st.st_mode), "a symlink stays a symlink, unfollowed");
    up_fs_join(&p, dir, "keep.txt");
    cr_expect_eq(up_fs_read(&b, p.data, 100, NULL), 0);
    cr_expect_str_eq(b.data, "kept\n");
    up_buf_release(&b);
    up_buf_release(&p);
    up_sandbox_result_release(&r);
}

Test(sandbox_bound, a_bomb_leaves_the_folder_as_it_was)
{
    up_sandbox_result r;
    struct stat st;

    need_bwrap();
    put("keep.txt", "kept\n");
    run(&r,
        "for i in $(seq 40); do fallocate -l 1M f$i; done; "
        "dd if=/dev/zero of=big bs=1M count=64; echo over",
        1 << 20, 100);
    cr_expect_eq(r.limit, UP_SANDBOX_QUOTA, "limit %d", r.limit);
    cr_expect_str_eq(r.limit_text, "workspace quota (1 MiB, 100 files)");
    cr_expect(exists("keep.txt", &st), "what it held stays");
    cr_expect(!exists("f1", &st) && !exists("big", &st),
              "what the call wrote is discarded");
    /* the bound: the quota, plus a block per entry (docs/sandbox.md) */
    cr_expect_leq(disk_bytes(), (1 << 20) + 101 * 4096, "%lld bytes",
                  disk_bytes());
    up_sandbox_result_release(&r);
}

Test(sandbox_bound, many_files_are_a_breach)
{
    up_sandbox_result r;
    struct stat st;

    need_bwrap();
    run(&r, "for i in $(seq 200); do : > g$i; done", 1 << 20, 100);
    cr_expect_eq(r.limit, UP_SANDBOX_QUOTA, "limit %d", r.limit);
    cr_expect(!exists("g1", &st), "none of them is kept");
    up_sandbox_result_release(&r);
}

Test(sandbox_bound, a_folder_over_its_quota_does_not_start)
{
    up_sandbox_run *run_ = NULL;
    up_sandbox_limits l;
    up_error e;
    char big[4096];

    need_bwrap();
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    put("big.txt", big);
    up_sandbox_limits_default(&l);
    l.ws_bytes = 1024;
    cr_expect_eq(up_sandbox_start(&run_, UP_SANDBOX_BWRAP, dir, "true", &l, &e),
                 UP_ETOOBIG);
    cr_expect(strstr(e.msg, "does not fit its quota"), "%s", e.msg);
    cr_expect_null(run_);
}
