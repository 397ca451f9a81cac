/*
 * Unit tests for executable checks (src/lib/sandbox/check.c and the command
 * assertion of src/lib/cases/assert.c): the program lookup, a check's result
 * and output, a missing program is not gradable (never a pass, never a
 * failure), the pool runs every item.  The checks run with
 * UP_SANDBOX_NONE so they need no bubblewrap; the sandboxed path is
 * covered end to end by tests/e2e/t1510-checks.sh.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "lib/cases/assert.h"
#include "upskill/buf.h"
#include "lib/sandbox/check.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/upskill-check-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(check, .init = setup, .fini = teardown);

/* Parse one command assertion from value into l. */
static void parse_cmd(up_assert_list *l, const char *value)
{
    up_buf j = UP_BUF_INIT;
    up_error err;

    up_buf_addf(&j, "[{\"type\": \"command\", \"value\": \"%s\"}]", value);
    up_assert_list_init(l);
    cr_assert_eq(up_assert_list_parse(l, j.data, "t.json", NULL, &err), 0, "%s",
                 err.msg);
    up_buf_release(&j);
}

/* Drive the checks c[0..n) as the scheduler does (poll their fds, step)
 * until each has ended; each ended one is settled and set to NULL. */
static void drive(up_check_run **c, size_t n)
{
    for (size_t left = n; left;) {
        struct pollfd p[3 * 4];
        int fds[3], ms = 1000, t;
        nfds_t k = 0;

        for (size_t i = 0; i < n; i++)
            for (int f = 0, m = c[i] ? up_check_wait(c[i], fds, &t) : 0;
                 f < m && k < 12; f++) {
                p[k++] = (struct pollfd){fds[f], POLLIN, 0};
                ms = t < ms ? t : ms;
            }
        poll(p, k, ms);
        for (size_t i = 0; i < n; i++)
            if (c[i] && up_check_step(c[i])) {
                up_check_end(c[i], 0);
                c[i] = NULL;
                left--;
            }
    }
}

/* Run it (its a and res filled here) with command line value in mode;
 * the result into *r (caller frees). */
static up_assert_result *run_item(up_check_item *it, const char *value,
                                  up_sandbox_mode mode)
{
    up_assert_list l;
    up_assert_result *r = up_assert_results_new(1);
    up_check_run *c;

    parse_cmd(&l, value);
    it->a = &l.items[0];
    it->res = r;
    c = up_check_start(it, mode);
    drive(&c, c ? 1 : 0);
    up_assert_list_release(&l);
    return r;
}

/* Run value as a check in dir; the result into *r (caller frees). */
static up_assert_result *run_cmd(const char *value)
{
    up_check_item it = {.ws = dir};

    return run_item(&it, value, UP_SANDBOX_NONE);
}

Test(check, find_looks_up_the_first_program)
{
    up_buf d = UP_BUF_INIT, p = UP_BUF_INIT;

    cr_expect_eq(up_check_find("sh -c true", &d, &p), 1);
    cr_expect_str_eq(p.data, "sh");
    cr_expect_eq(d.len, 0, "no folder to add for a program on PATH");
    cr_expect_eq(up_check_find("CC=gcc no-such-prog-x1 -v", &d, &p), 0);
    cr_expect_str_eq(p.data, "no-such-prog-x1", "VAR=value words skipped");
    cr_expect_eq(up_check_find("cd src && make", NULL, &p), 1,
                 "a builtin is not looked up");
    cr_expect_eq(up_check_find("./run_tests.sh", NULL, NULL), 1,
                 "a workspace path is not looked up");
    cr_expect_eq(up_check_find("/no/such/tool --x", NULL, &p), 0);
    cr_expect_str_eq(p.data, "/no/such/tool");
    cr_expect_eq(up_check_find("/bin/sh -c true", NULL, NULL), 1);
    cr_expect_eq(up_check_find("/tmp/sh -c true", NULL, NULL), 0,
                 "a program outside the sandbox's system folders");
    up_buf_release(&d);
    up_buf_release(&p);
}

Test(check, exit_zero_passes_and_keeps_the_output)
{
    up_assert_result *r = run_cmd("echo compiled; echo note >&2");

    cr_expect_eq(r->status, UP_ASSERT_PASS);
    cr_expect_str_eq(r->message.data, "exit 0");
    cr_expect(strstr(r->output.data, "--- stdout ---\ncompiled\n"));
    cr_expect(strstr(r->output.data, "--- stderr ---\nnote\n"));
    up_assert_results_free(r, 1);
}

Test(check, a_failure_names_the_exit_code_and_the_first_error_line)
{
    up_assert_result *r = run_cmd("echo 'main.c:3: error: x' >&2; exit 2");

    cr_expect_eq(r->status, UP_ASSERT_FAIL);
    cr_expect_str_eq(r->message.data, "exit 2: main.c:3: error: x");
    up_assert_results_free(r, 1);
}

Test(check, runs_in_the_workspace)
{
    up_assert_result *r = run_cmd("test -f here.txt");

    cr_expect_eq(r->status, UP_ASSERT_FAIL);
    up_assert_results_free(r, 1);
    cr_assert_eq(chdir(dir), 0);
    cr_assert_eq(system("touch here.txt"), 0);
    cr_assert_eq(chdir("/"), 0);
    r = run_cmd("test -f here.txt");
    cr_expect_eq(r->status, UP_ASSERT_PASS, "%s", r->message.data);
    up_assert_results_free(r, 1);
}

Test(check, a_missing_program_is_not_gradable)
{
    up_assert_result *r = run_cmd("no-such-compiler-x1 -c k.cu");
    up_assert_summary s;

    cr_expect_eq(r->status, UP_ASSERT_UNGRADABLE);
    cr_expect(strstr(r->message.data, "'no-such-compiler-x1' is not installed"),
              "%s", r->message.data);
    r->check = 1;
    up_assert_summarize(&s, r, 1);
    cr_expect_eq(s.ungradable, 1);
    cr_expect_eq(s.failed, 0, "never a silent fail");
    cr_expect_eq(up_assert_summary_ok(&s), 0, "never a pass");
    up_assert_results_free(r, 1);
}

Test(check, the_assertion_waits_for_its_check_and_needs_a_workspace)
{
    up_assert_list l;
    up_assert_result *r = up_assert_results_new(1);
    up_assert_usage u = {-1, NULL, NULL};
    up_assert_summary s;

    parse_cmd(&l, "true");
    cr_expect_eq(up_assert_list_has_checks(&l), 1);
    cr_expect_eq(up_assert_list_needs_workspace(&l), 1);
    up_assert_check(&l, "answer", &u, r);
    cr_expect_eq(r->status, UP_ASSERT_FAIL, "no workspace: never a pass");
    cr_expect(strstr(r->message.data, "needs agent mode"));
    up_assert_summarize(&s, r, 1);
    cr_expect_eq(s.checks, 1);
    cr_expect_eq(s.checks_ok, 0);
    up_assert_results_free(r, 1);
    up_assert_list_release(&l);
}

Test(check, cannot_be_negated_and_needs_a_value)
{
    up_assert_list l;
    up_error err;

    up_assert_list_init(&l);
    cr_expect_eq(up_assert_list_parse(&l,
                                      "[{\"type\": \"not-command\", "
                                      "\"value\": \"true\"}]",
                                      "t.json", NULL, &err),
                 UP_EPARSE);
    cr_expect_eq(up_assert_list_parse(&l, "[{\"type\": \"command\"}]", "t.json",
                                      NULL, &err),
                 UP_EPARSE);
    cr_expect(strstr(err.msg, "value"), "%s", err.msg);
    up_assert_list_release(&l);
}

Test(check, runs_without_blocking_until_it_ends)
{
    up_assert_list l;
    up_assert_result *r = up_assert_results_new(2);
    up_check_item it[2];
    up_check_run *c[2];
    int fds[3], ms;

    parse_cmd(&l, "sleep 0.2; true");
    for (size_t i = 0; i < 2; i++) {
        it[i] = (up_check_item){.a = &l.items[0], .ws = dir, .res = &r[i]};
        c[i] = up_check_start(&it[i], UP_SANDBOX_NONE);
        cr_assert_not_null(c[i], "both run at once");
        cr_expect(up_check_wait(c[i], fds, &ms) > 0, "fds to poll");
    }
    drive(c, 2);
    for (size_t i = 0; i < 2; i++)
        cr_expect_eq(r[i].status, UP_ASSERT_PASS, "item %zu", i);
    up_assert_results_free(r, 2);
    up_assert_list_release(&l);
}

Test(check, a_missing_program_needs_no_run)
{
    up_assert_list l;
    up_assert_result *r = up_assert_results_new(1);
    up_check_item it;

    parse_cmd(&l, "no-such-program-upskill --x");
    it = (up_check_item){.a = &l.items[0], .ws = dir, .res = &r[0]};
    cr_expect_null(up_check_start(&it, UP_SANDBOX_NONE));
    cr_expect_eq(r[0].status, UP_ASSERT_UNGRADABLE);
    up_assert_results_free(r, 1);
    up_assert_list_release(&l);
}

Test(check, a_killed_check_settles_nothing)
{
    up_assert_list l;
    up_assert_result *r = up_assert_results_new(1);
    up_check_item it;

    parse_cmd(&l, "sleep 30");
    it = (up_check_item){.a = &l.items[0], .ws = dir, .res = &r[0]};
    r[0].status = UP_ASSERT_CHECK;
    up_check_end(up_check_start(&it, UP_SANDBOX_NONE), 1);
    cr_expect_eq(r[0].status, UP_ASSERT_CHECK, "still waiting for a run");
    up_assert_results_free(r, 1);
    up_assert_list_release(&l);
}

Test(check, programs_text_lists_what_is_installed)
{
    up_buf b = UP_BUF_INIT;

    up_check_programs_text(&b);
    cr_expect(b.len > 0);
    cr_expect(strstr(b.data, "nosuch") == NULL);
    up_buf_release(&b);
}

/* ---- pristine checks (issue 22) ------------------------------------------ */

/* Write text to path (a test's own file, outside the code under test). */
static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(check, owned_files_are_put_back_over_what_the_student_left)
{
    static const up_fs_entry owned[] = {{"t.py", "T1", 2, 0},
                                        {"sub/x.py", "X1", 2, 0},
                                        {"d/e/f.py", "F1", 2, 0}};
    char out[128], p[128], q[192];
    up_check_item it = {.ws = p, .owned = owned, .nowned = 3};
    up_assert_result *r;
    up_buf b = UP_BUF_INIT;

    /* the workspace is dir/ws; dir/out is a folder outside it */
    snprintf(p, sizeof(p), "%s/ws", dir);
    snprintf(out, sizeof(out), "%s/out", dir);
    cr_assert_eq(mkdir(p, 0700) | mkdir(out, 0700), 0);
    snprintf(q, sizeof(q), "%s/target", out);
    put(q, "OUTSIDE");
    snprintf(q, sizeof(q), "%s/t.py", p);
    cr_assert_eq(symlink("../out/target", q), 0); /* a file as a symlink */
    snprintf(q, sizeof(q), "%s/sub", p);
    cr_assert_eq(symlink("../out", q), 0); /* a folder as a symlink */
    snprintf(q, sizeof(q), "%s/d", p);
    put(q, "a file where a folder goes");
    r = run_item(&it, "cat t.py sub/x.py d/e/f.py", UP_SANDBOX_NONE);
    cr_expect_eq(r->status, UP_ASSERT_PASS, "%s", r->message.data);
    cr_expect(strstr(r->output.data, "T1X1F1") != NULL, "%s", r->output.data);
    snprintf(q, sizeof(q), "%s/target", out);
    cr_expect_eq(up_fs_read(&b, q, 64, NULL), 0);
    cr_expect_str_eq(b.data, "OUTSIDE", "nothing written through a link");
    snprintf(q, sizeof(q), "%s/x.py", out);
    cr_expect_eq(access(q, F_OK), -1, "nothing written outside");
    up_assert_results_free(r, 1);
    up_buf_release(&b);
}

Test(check, a_bad_owned_path_fails_the_check)
{
    static const up_fs_entry owned[] = {{"../t.py", "T", 1, 0}};
    up_check_item it = {.ws = dir, .owned = owned, .nowned = 1};
    up_assert_result *r = run_item(&it, "true", UP_SANDBOX_NONE);

    cr_expect_eq(r->status, UP_ASSERT_FAIL);
    cr_expect(strstr(r->message.data, "could not be put back: '../t.py'"), "%s",
              r->message.data);
    up_assert_results_free(r, 1);
}

Test(check, hidden_files_need_the_sandbox)
{
    static const up_fs_entry files[] = {{"test_h.py", "H", 1, 0}};
    up_check_item it = {.ws = dir, .files = files, .nfiles = 1};
    up_assert_result *r = run_item(&it, "true", UP_SANDBOX_NONE);

    cr_expect_eq(r->status, UP_ASSERT_FAIL, "never a pass it did not see");
    cr_expect(strstr(r->message.data, "only at /tests in the sandbox"), "%s",
              r->message.data);
    up_assert_results_free(r, 1);
}

Test(check, the_environment_keeps_python_off_the_workspace)
{
    up_assert_result *r =
        run_cmd("echo safe=$PYTHONSAFEPATH nousersite=$PYTHONNOUSERSITE");

    cr_expect(strstr(r->output.data, "safe=1 nousersite=1"), "%s",
              r->output.data);
    up_assert_results_free(r, 1);
}

Test(check, hidden_files_are_read_only_at_tests_and_go_after)
{
    static const up_fs_entry files[] = {{"test_h.py", "HIDDEN", 6, 0},
                                        {"data/in.txt", "IN", 2, 0}};
    char ws[160];
    up_check_item it = {.ws = ws, .files = files, .nfiles = 2};
    up_assert_result *r;
    char **names = NULL;
    size_t n = 0;
    up_error e;

    if (up_sandbox_check(&e) < 0) {
        teardown(); /* a skipped test does not run .fini */
        cr_skip_test("no sandbox here: %s", e.msg);
    }
    snprintf(ws, sizeof(ws), "%s/ws", dir);
    cr_assert_eq(mkdir(ws, 0700), 0);
    r = run_item(&it,
                 "cat /tests/test_h.py /tests/data/in.txt; echo; "
                 "touch /tests/x 2>/dev/null || echo read-only; "
                 "echo home=$HOME safe=$PYTHONSAFEPATH",
                 UP_SANDBOX_BWRAP);
    cr_expect_eq(r->status, UP_ASSERT_PASS, "%s", r->message.data);
    cr_expect(strstr(r->output.data, "HIDDENIN\nread-only\nhome=/tmp safe=1"),
              "%s", r->output.data);
    cr_assert_eq(up_fs_list(&names, &n, dir, NULL), 0);
    cr_expect_eq(n, 1, "the hidden files' folder is removed at the end");
    up_strv_free(names);
    up_assert_results_free(r, 1);
}

/* A verifier's reward is read only from files test.sh can have written,
 * and only once no other process of its sandbox is left (issue 35 item
 * 1): each command leaves /logs/verifier one way; the status it gets
 * and a part of its message. */
Test(check, a_planted_reward_is_a_grading_error)
{
    static const struct {
        const char *cmd, *why;
        int status;
    } cases[] = {
        {"echo 1 > /logs/verifier/reward.txt; exit 3", "reward 1, at least",
         UP_ASSERT_PASS},
        {"chmod 777 /logs/verifier; echo 0.5 > /logs/verifier/reward.txt",
         "reward 0.5, below", UP_ASSERT_FAIL},
        {"echo 1 > /logs/verifier/reward.txt; "
         "printf '{\"reward\": 1.0}' > /logs/verifier/reward.json",
         "reward 1, at least", UP_ASSERT_PASS},
        {"echo 1 > /logs/verifier/reward.txt; "
         "printf '{\"reward\": 0}' > /logs/verifier/reward.json",
         "reward.txt and reward.json disagree", UP_ASSERT_FAIL},
        {"echo 1 > /logs/verifier/reward.txt; "
         "chmod 444 /logs/verifier/reward.txt",
         "reward.txt is a read-only file", UP_ASSERT_FAIL},
        {"echo 1 > /logs/verifier/one; "
         "ln /logs/verifier/one /logs/verifier/reward.txt",
         "reward.txt is a file with several links", UP_ASSERT_FAIL},
        {"mkfifo /logs/verifier/reward.txt", "reward.txt is not a regular file",
         UP_ASSERT_FAIL},
        {"mkdir /logs/verifier/reward.txt; "
         "printf '{\"reward\": 1}' > /logs/verifier/reward.json",
         "reward.txt is a folder", UP_ASSERT_FAIL},
        {"printf '{\"reward\": 1}' > /logs/verifier/reward.json; "
         "chmod 500 /logs/verifier",
         "/logs/verifier was made read-only", UP_ASSERT_FAIL},
        {"sleep 30 >/dev/null 2>&1 & echo 1 > /logs/verifier/reward.txt",
         "was still running when it ended", UP_ASSERT_FAIL},
    };
    char ws[160];
    up_error e;

    if (up_sandbox_check(&e) < 0) {
        teardown();
        cr_skip_test("no sandbox here: %s", e.msg);
    }
    snprintf(ws, sizeof(ws), "%s/ws", dir);
    cr_assert_eq(mkdir(ws, 0700), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = json_pack("[{s:s, s:s}]", "type", "verifier", "value",
                              cases[i].cmd);
        char *text = json_dumps(v, 0);
        up_check_item it = {.ws = ws};
        up_assert_result *r = up_assert_results_new(1);
        up_assert_list l;
        up_check_run *c;

        up_assert_list_init(&l);
        cr_assert_eq(up_assert_list_parse(&l, text, "t.json", NULL, &e), 0,
                     "%s", e.msg);
        it.a = &l.items[0];
        it.res = r;
        c = up_check_start(&it, UP_SANDBOX_BWRAP);
        drive(&c, c ? 1 : 0);
        cr_expect_eq(r->status, cases[i].status, "%s: %s", cases[i].cmd,
                     r->message.data);
        cr_expect(strstr(r->message.data, cases[i].why), "%s: %s", cases[i].cmd,
                  r->message.data);
        up_assert_results_free(r, 1);
        up_assert_list_release(&l);
        free(text);
        json_decref(v);
    }
}

/* Before a check, the workspace is the student's own bytes (issue 37
 * item 2): symlinks (to a file, to a folder, dangling) and FIFOs gone,
 * never followed; hard-linked files each with an inode of its own and
 * their bytes; plain files and folders kept; a nest past
 * UP_CHECK_OWN_DEPTH refused. */
Test(check, the_workspace_is_made_the_students_own_bytes)
{
    char cmd[1024];
    struct stat a, b;
    up_buf p = UP_BUF_INIT, q = UP_BUF_INIT;
    up_error e;

    snprintf(cmd, sizeof(cmd),
             "cd '%s' && mkdir -p sub/deep out && echo truth > out/t.json && "
             "ln out/t.json pred.json && ln -s out/t.json link.json && "
             "ln -s sub dirlink && ln -s /nowhere dangling && "
             "mkfifo sub/fifo && echo keep > sub/deep/k.txt && "
             "ln -s /etc/passwd sub/deep/pw",
             dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(up_check_own_bytes(dir, &e), 0, "%s", e.msg);
    up_fs_join(&p, dir, "pred.json");
    up_fs_join(&q, dir, "out/t.json");
    cr_assert_eq(lstat(p.data, &a), 0);
    cr_assert_eq(lstat(q.data, &b), 0);
    cr_expect(S_ISREG(a.st_mode) && a.st_nlink == 1 && b.st_nlink == 1);
    cr_expect_neq(a.st_ino, b.st_ino, "each name has its own inode");
    up_buf_reset(&p);
    cr_assert_eq(up_fs_read(&p, q.data, 64, &e), 0);
    cr_expect_str_eq(p.data, "truth\n", "the bytes are kept");
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && test ! -e link.json && test ! -L link.json && "
             "test ! -L dirlink && test ! -L dangling && test ! -e sub/fifo "
             "&& test ! -L sub/deep/pw && test -f sub/deep/k.txt && "
             "test -d sub && test -e /etc/passwd",
             dir);
    cr_expect_eq(system(cmd), 0, "links and the FIFO are gone, files kept");
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && d=n; for i in $(seq 70); do d=$d/n; done; "
             "mkdir -p .$d",
             dir);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(up_check_own_bytes(dir, &e), UP_ETOOBIG);
    cr_expect(strstr(e.msg, "nest deeper than 64"), "%s", e.msg);
    up_buf_release(&p);
    up_buf_release(&q);
}

/* The walk's bytes bound (UP_CHECK_OWN_BYTES): hard links that would
 * copy more than 256 MiB (a sparse file: nothing is copied before the
 * refusal).  (UP_CHECK_OWN_ENTRIES is not tested here: making 100,000
 * files takes 10 to 30 s on a shared disk; the walk of them took 0.8 to
 * 1.6 s.) */
Test(check, the_own_bytes_walk_is_bounded)
{
    char cmd[512];
    up_error e;

    snprintf(cmd, sizeof(cmd), "cd '%s' && truncate -s 300M big && ln big big2",
             dir);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(up_check_own_bytes(dir, &e), UP_ETOOBIG);
    cr_expect(strstr(e.msg, "would copy more than 256 MiB"), "%s", e.msg);
}

/* up_check_reason: what a verifier's output says failed (issue 37 item
 * 6), one row per shape of output. */
static const struct {
    const char *out, *want;
} reasons[] = {
    {"--- stdout ---\n___ test_a ___\nE   assert 1 == 2\n"
     "FAILED t.py::test_a - assert 1 == 2\n== 1 failed in 0.01s ==\n",
     ": FAILED t.py::test_a: assert 1 == 2"},
    {"--- stdout ---\nFAILED t.py::test_a - AssertionError: x\n"
     "FAILED t.py::test_b - AssertionError: y\n",
     ": FAILED t.py::test_a - AssertionError: x (and 1 more)"},
    {"--- stdout ---\n____ test_c ____\n    def test_c():\nE       "
     "KeyError: 'k'\nprogress\n[cut at 8192 bytes]\n",
     ": test_c: KeyError: 'k'"},
    {"--- stderr ---\nFAIL: test_d (m.T.test_d)\nTraceback (most recent call "
     "last):\n  File \"x\", line 1\nAssertionError: 3 != 4\n\nFAILED "
     "(failures=1)\n",
     ": FAIL: test_d (m.T.test_d): AssertionError: 3 != 4"},
    {"--- stdout ---\nall done\n[cut at 8192 bytes]\n--- stderr ---\n",
     ": all done"},
    {"--- stdout ---\n", ""},
};

Test(check, reason_names_the_failing_test_and_its_assertion)
{
    for (size_t i = 0; i < sizeof(reasons) / sizeof(*reasons); i++) {
        up_buf why = UP_BUF_INIT;

        up_check_reason(&why, reasons[i].out, strlen(reasons[i].out));
        cr_expect_str_eq(why.len ? why.data : "", reasons[i].want, "row %zu",
                         i);
        up_buf_release(&why);
    }
}
