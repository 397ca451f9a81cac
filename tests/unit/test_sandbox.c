/*
 * Unit tests for the sandbox (src/lib/sandbox*.c): hostile commands are
 * contained (issue 12 item 6), limits are reported by name, no secret of
 * the caller's environment reaches a command.  Tests that need bubblewrap
 * are skipped, with the probe's reason, where it is missing or cannot
 * create namespaces.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"
#include "lib/sandbox/sandbox_int.h"

#define SECRET   "sk-ant-planted-0123456789abcdef"
#define SSH_KEY  "-----BEGIN PLANTED SSH KEY-----"
#define SENTINEL "the user's file, untouched\n"

/* A temp root: ws/ (the workspace), outside.txt, home/.ssh/id_rsa. */
static char root[64];
static up_buf ws = UP_BUF_INIT;

static void put(const char *rel, const char *text)
{
    up_buf p = UP_BUF_INIT;

    up_fs_join(&p, root, rel);
    cr_assert_eq(up_fs_write_atomic(p.data, text, strlen(text), 0600, NULL), 0);
    up_buf_release(&p);
}

static void slurp(up_buf *out, const char *rel)
{
    up_buf p = UP_BUF_INIT;

    up_buf_reset(out);
    up_fs_join(&p, root, rel);
    cr_assert_eq(up_fs_read(out, p.data, 1 << 20, NULL), 0, "%s", p.data);
    up_buf_release(&p);
}

static void setup(void)
{
    up_buf p = UP_BUF_INIT;

    snprintf(root, sizeof(root), "/tmp/upskill-sbx-test-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    up_fs_join(&ws, root, "ws");
    cr_assert_eq(mkdir(ws.data, 0700), 0);
    up_fs_join(&p, root, "home/.ssh");
    cr_assert_eq(up_fs_mkdir_p(p.data, 0700, NULL), 0);
    put("home/.ssh/id_rsa", SSH_KEY "\n");
    put("outside.txt", SENTINEL);
    up_buf_release(&p);
}

static void teardown(void)
{
    up_fs_rm_tree(root);
    up_buf_release(&ws);
}

static void need_bwrap(void)
{
    up_error e = {0};

    if (up_sandbox_check(&e) < 0) {
        teardown(); /* a skipped test does not run .fini */
        cr_skip_test("no sandbox here: %s", e.msg);
    }
}

static void lims(up_sandbox_limits *l)
{
    up_sandbox_limits_default(l);
    l->wall_ms = 20000;
}

/* Run cmd under bwrap with limits l (NULL: lims()). */
static void run(up_sandbox_result *res, const char *cmd,
                const up_sandbox_limits *l)
{
    up_sandbox_limits d;
    up_error e = {0};

    lims(&d);
    cr_assert_eq(
        up_sandbox_exec(res, UP_SANDBOX_BWRAP, ws.data, cmd, l ? l : &d, &e), 0,
        "%s", e.msg);
}

/* 1 when some process's command line contains mark. */
static int process_with(const char *mark)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int found = 0;

    cr_assert_not_null(d);
    while (!found && (de = readdir(d)) != NULL) {
        up_buf p = UP_BUF_INIT, text = UP_BUF_INIT;
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        up_buf_addf(&p, "/proc/%s/cmdline", de->d_name);
        if (up_fs_read(&text, p.data, 1 << 16, NULL) == 0)
            for (size_t i = 0; i < text.len; i += strlen(text.data + i) + 1)
                if (strstr(text.data + i, mark))
                    found = 1;
        up_buf_release(&p);
        up_buf_release(&text);
    }
    closedir(d);
    return found;
}

static void user_files_untouched(void)
{
    up_buf b = UP_BUF_INIT;
    char **names = NULL;
    size_t n = 0;

    slurp(&b, "outside.txt");
    cr_assert_str_eq(b.data, SENTINEL);
    slurp(&b, "home/.ssh/id_rsa");
    cr_assert_str_eq(b.data, SSH_KEY "\n");
    cr_assert_eq(up_fs_list(&names, &n, root, NULL), 0);
    cr_assert_eq(n, 3, "something new appeared next to the workspace");
    up_strv_free(names);
    up_buf_release(&b);
}

TestSuite(sandbox, .init = setup, .fini = teardown, .timeout = 60);

Test(sandbox, runs_in_the_workspace)
{
    up_sandbox_result r;
    up_buf b = UP_BUF_INIT;

    need_bwrap();
    run(&r, "pwd; echo made > f.txt; id -u >/dev/null; exit 3", NULL);
    cr_assert_str_eq(r.out.data, "/workspace\n");
    cr_assert_eq(r.exit_code, 3);
    cr_assert_eq(r.limit, UP_SANDBOX_OK);
    cr_assert_str_eq(r.limit_text, "");
    slurp(&b, "ws/f.txt");
    cr_assert_str_eq(b.data, "made\n");
    up_sandbox_result_release(&r);
    up_buf_release(&b);
}

Test(sandbox, planted_key_never_reaches_a_command)
{
    up_sandbox_result r;

    need_bwrap();
    setenv("ANTHROPIC_API_KEY", SECRET, 1);
    setenv("OPENAI_API_KEY", SECRET, 1);
    run(&r,
        "env; cat /proc/self/environ; cat /proc/1/environ; "
        "cat /proc/$PPID/environ; echo",
        NULL);
    cr_assert_null(strstr(r.out.data, "planted"), "%s", r.out.data);
    cr_assert_null(strstr(r.err.data, "planted"), "%s", r.err.data);
    cr_assert_null(strstr(r.out.data, "API_KEY"));
    cr_assert_not_null(strstr(r.out.data, "HOME=/workspace\n"));
    cr_assert_not_null(strstr(r.out.data, "LC_ALL=C.UTF-8\n"));
    cr_assert_not_null(strstr(r.out.data, "TMPDIR=/tmp\n"));
    up_sandbox_result_release(&r);
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("OPENAI_API_KEY");
}

Test(sandbox, none_mode_strips_the_environment_too)
{
    up_sandbox_result r;
    up_error e = {0};

    setenv("ANTHROPIC_API_KEY", SECRET, 1);
    cr_assert_eq(up_sandbox_exec(&r, UP_SANDBOX_NONE, ws.data,
                                 "env; pwd; exit 4", NULL, &e),
                 0, "%s", e.msg);
    cr_assert_null(strstr(r.out.data, "planted"));
    cr_assert_not_null(strstr(r.out.data, "TERM=dumb\n"));
    cr_assert_not_null(strstr(r.out.data, root), "pwd is the workspace");
    cr_assert_eq(r.exit_code, 4);
    up_sandbox_result_release(&r);
    unsetenv("ANTHROPIC_API_KEY");
}

Test(sandbox, extra_env_replaces_or_adds_and_a_bind_needs_bwrap)
{
    static const char *const env[] = {"HOME=/elsewhere", "EXTRA_X=1",
                                      "TERM=xterm", NULL};
    up_sandbox_extra x = {NULL, NULL, env, NULL, NULL, NULL, NULL};
    up_sandbox_run *run_ = NULL;
    up_sandbox_result r;
    up_error e = {0};

    cr_assert_eq(up_sandbox_start_with(&run_, UP_SANDBOX_NONE, ws.data, "env",
                                       NULL, &x, &e),
                 0, "%s", e.msg);
    up_sandbox_wait(run_);
    up_sandbox_finish(run_, &r, &e);
    cr_expect_not_null(strstr(r.out.data, "HOME=/elsewhere\n"));
    cr_expect_not_null(strstr(r.out.data, "EXTRA_X=1\n"));
    cr_expect_not_null(strstr(r.out.data, "TERM=xterm\n"));
    cr_expect_null(strstr(r.out.data, "TERM=dumb"), "replaced, not doubled");
    up_sandbox_result_release(&r);
    x = (up_sandbox_extra){root, "/tests", NULL, NULL, NULL, NULL, NULL};
    cr_expect_eq(up_sandbox_start_with(&run_, UP_SANDBOX_NONE, ws.data, "true",
                                       NULL, &x, &e),
                 UP_EUNSAFE);
    cr_expect_null(run_);
    cr_expect_not_null(strstr(e.msg, "needs bubblewrap"), "%s", e.msg);
}

Test(sandbox, a_read_only_folder_is_bound_where_asked)
{
    up_sandbox_extra x = {root, "/tests", NULL, NULL, NULL, NULL, NULL};
    up_sandbox_run *run_ = NULL;
    up_sandbox_result r;
    up_error e = {0};

    need_bwrap();
    cr_assert_eq(up_sandbox_start_with(&run_, UP_SANDBOX_BWRAP, ws.data,
                                       "cat /tests/outside.txt; "
                                       "touch /tests/x || echo read-only",
                                       NULL, &x, &e),
                 0, "%s", e.msg);
    up_sandbox_wait(run_);
    up_sandbox_finish(run_, &r, &e);
    cr_expect_not_null(strstr(r.out.data, SENTINEL), "%s", r.out.data);
    cr_expect_not_null(strstr(r.out.data, "read-only"), "%s", r.out.data);
    up_sandbox_result_release(&r);
}

/* A Harbor task's workspace at its WORKDIR (/app: the working folder and
 * HOME) and a verifier's writable /logs/verifier (issue 24). */
Test(sandbox, workspace_at_a_workdir_and_a_writable_folder)
{
    up_sandbox_extra x = {NULL, NULL, NULL, "/app", root, "/logs/verifier",
                          NULL};
    up_sandbox_run *run_ = NULL;
    up_sandbox_result r;
    up_buf p = UP_BUF_INIT, got = UP_BUF_INIT;
    up_error e = {0};

    need_bwrap();
    cr_assert_eq(up_sandbox_start_with(&run_, UP_SANDBOX_BWRAP, ws.data,
                                       "pwd; echo $HOME; echo hi > f.txt; "
                                       "echo 1 > /logs/verifier/reward.txt; "
                                       "ls /workspace 2>&1 | head -1",
                                       NULL, &x, &e),
                 0, "%s", e.msg);
    up_sandbox_wait(run_);
    up_sandbox_finish(run_, &r, &e);
    cr_expect(!strncmp(r.out.data, "/app\n/app\n", 10), "%s", r.out.data);
    cr_expect_not_null(strstr(r.out.data, "No such file"), "%s", r.out.data);
    up_fs_join(&p, ws.data, "f.txt");
    cr_expect(up_fs_is_file(p.data), "the workspace is what /app holds");
    up_buf_reset(&p);
    up_fs_join(&p, root, "reward.txt");
    cr_expect_eq(up_fs_read(&got, p.data, 64, &e), 0, "%s", e.msg);
    cr_expect_str_eq(got.data, "1\n");
    unlink(p.data);
    up_buf_reset(&p);
    up_fs_join(&p, ws.data, "f.txt");
    unlink(p.data);
    up_sandbox_result_release(&r);
    up_buf_release(&p);
    up_buf_release(&got);
    x = (up_sandbox_extra){NULL, NULL, NULL, "/usr/app", NULL, NULL, NULL};
    cr_expect_eq(up_sandbox_start_with(&run_, UP_SANDBOX_BWRAP, ws.data, "true",
                                       NULL, &x, &e),
                 UP_EUNSAFE, "a system folder never holds the workspace");
}

/* A Harbor task's places outside its WORKDIR (issue 24): which can be
 * one, and a place's folder that leads out of the workspace refused. */
Test(sandbox, places_outside_the_workdir)
{
    const char *const bad[] = {"/x", NULL};
    up_buf p = UP_BUF_INIT;
    up_error e = {0};

    cr_expect_null(up_sandbox_place_why("/data", "/root"));
    cr_expect_not_null(up_sandbox_place_why("/usr", "/root"));
    cr_expect_not_null(up_sandbox_place_why("/data/x", "/root"));
    cr_expect_not_null(up_sandbox_place_why("/home", "/root"));
    cr_expect_not_null(up_sandbox_place_why("/app", "/app/work"));
    cr_expect_not_null(up_sandbox_place_why("/..", "/root"));
    up_buf_addf(&p, "%s/" UP_SANDBOX_PLACES, ws.data);
    cr_assert(mkdir(p.data, 0755) == 0 || errno == EEXIST);
    up_buf_adds(&p, "/x");
    cr_assert_eq(symlink("/etc", p.data), 0);
    cr_expect_eq(up_sandbox_places_ok(ws.data, "/root", bad, &e), UP_EUNSAFE);
    cr_expect_not_null(strstr(e.msg, "not a folder of it"), "%s", e.msg);
    unlink(p.data);
    cr_expect_eq(up_sandbox_places_ok(ws.data, "/root", bad, &e), 0, "%s",
                 e.msg);
    cr_expect(up_fs_is_dir(p.data), "a missing place's folder is made");
    rmdir(p.data);
    up_buf_release(&p);
}

/* No network: each fails at once with "unreachable", not by a timeout. */
Test(sandbox, no_network_beyond_loopback)
{
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT;
    int wget = access("/usr/bin/wget", X_OK) == 0;

    need_bwrap();
    up_buf_adds(&cmd, "curl -sS -m 15 http://192.0.2.1/ >/dev/null 2>&1; "
                      "echo curl=$?; ");
    if (wget)
        up_buf_adds(&cmd, "wget -q -T 15 -t 1 -O /dev/null "
                          "http://192.0.2.1/ 2>/dev/null; echo wget=$?; ");
    up_buf_adds(
        &cmd,
        "python3 -c 'import socket\ns = socket.socket()\ns.settimeout(15)\n"
        "try:\n s.connect((\"192.0.2.1\", 80))\n"
        "except OSError as e:\n print(\"py=%d\" % e.errno)'");
    run(&r, cmd.data, NULL);
    /* curl 7: could not connect (28 would be a timeout); wget 4: network
     * failure; errno 101: ENETUNREACH. */
    cr_assert_str_eq(r.out.data,
                     wget ? "curl=7\nwget=4\npy=101\n" : "curl=7\npy=101\n",
                     "%s %s", r.out.data, r.err.data);
    cr_assert_eq(r.limit, UP_SANDBOX_OK);
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
}

Test(sandbox, host_loopback_is_not_reachable)
{
    struct sockaddr_in a = {0};
    socklen_t len = sizeof(a);
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

    need_bwrap();
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(listen(s, 4), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    up_buf_addf(&cmd,
                "python3 -c 'import socket\ns = socket.socket()\n"
                "try:\n s.connect((\"127.0.0.1\", %d))\n print(\"connected\")\n"
                "except OSError as e:\n print(\"py=%%d\" %% e.errno)'",
                ntohs(a.sin_port));
    run(&r, cmd.data, NULL);
    cr_assert_str_eq(r.out.data, "py=111\n", "%s", r.err.data);
    cr_assert_eq(accept(s, NULL, NULL), -1, "the host's listener got a call");
    cr_assert_eq(errno, EAGAIN);
    close(s);
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
}

Test(sandbox, secrets_outside_are_not_readable)
{
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT;
    const char *home = getenv("HOME");

    need_bwrap();
    up_buf_addf(&cmd,
                "cat %s/home/.ssh/id_rsa ../home/.ssh/id_rsa /etc/shadow "
                "/etc/gshadow; ls /root /home '%s'; ls ~/.ssh; echo end",
                root, home ? home : "/root");
    run(&r, cmd.data, NULL);
    cr_assert_str_eq(r.out.data, "end\n", "%s", r.out.data);
    cr_assert_null(strstr(r.err.data, "PLANTED"));
    cr_assert_not_null(strstr(r.err.data, "/etc/shadow: No such file"));
    user_files_untouched();
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
}

/* Issue 23 item 15: bwrap is pid 1 of the sandbox and its command line
 * (every --bind) is readable there; it holds no host path. */
Test(sandbox, no_command_line_inside_shows_a_host_path)
{
    up_sandbox_result r;

    need_bwrap();
    run(&r,
        "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' <$f; echo; done; "
        "echo end",
        NULL);
    cr_assert_not_null(strstr(r.out.data, "bwrap"), "%s", r.out.data);
    cr_assert_not_null(strstr(r.out.data, "end\n"), "%s", r.out.data);
    cr_assert_null(strstr(r.out.data, root), "%s", r.out.data);
    up_sandbox_result_release(&r);
}

/* Issue 23 item 11: of /etc/ssl only the certificates are there. */
Test(sandbox, only_the_certificate_store_of_etc_ssl)
{
    up_sandbox_result r;

    need_bwrap();
    run(&r, "ls /etc/ssl; ls /etc/ssl/private && echo LISTED", NULL);
    cr_assert_str_eq(r.out.data, "certs\n", "%s", r.out.data);
    up_sandbox_result_release(&r);
}

Test(sandbox, writes_outside_the_workspace_fail)
{
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT, probe = UP_BUF_INIT, passwd = UP_BUF_INIT;
    up_buf after = UP_BUF_INIT;

    need_bwrap();
    cr_assert_eq(up_fs_read(&passwd, "/etc/passwd", 1 << 20, NULL), 0);
    up_buf_addf(&probe, "/tmp/upskill-sbx-probe-%ld", (long)getpid());
    up_buf_addf(&cmd,
                "echo x > ../outside.txt; echo x > %s/outside.txt; "
                "echo x > ../new.txt; echo x >> /etc/passwd; "
                "echo x > /usr/new; mkdir /new; echo x > %s; "
                "rm -rf %s/home; echo end",
                root, probe.data, root);
    run(&r, cmd.data, NULL);
    cr_assert_str_eq(r.out.data, "end\n");
    cr_assert_eq(access(probe.data, F_OK), -1, "/tmp is not private");
    cr_assert_eq(access("/usr/new", F_OK), -1);
    cr_assert_eq(access("/new", F_OK), -1);
    cr_assert_eq(up_fs_read(&after, "/etc/passwd", 1 << 20, NULL), 0);
    cr_assert_str_eq(after.data, passwd.data);
    user_files_untouched();
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
    up_buf_release(&probe);
    up_buf_release(&passwd);
    up_buf_release(&after);
}

Test(sandbox, fork_bomb_is_contained)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT, mark = UP_BUF_INIT;

    sbx_cgroup cg;

    need_bwrap();
    lims(&l);
    l.nproc = 32;
    l.wall_ms = 3000;
    /* Root without a pids cgroup has no process cap (docs/sandbox.md):
     * only the wall clock ends the bomb, so keep it short. */
    if (sbx_cgroup_open(&cg, &(up_sandbox_limits){.nproc = 1}) == 0)
        sbx_cgroup_close(&cg);
    else if (geteuid() == 0)
        l.wall_ms = 1000;
    up_buf_addf(&mark, "upskill-bomb-%ld", (long)getpid());
    up_buf_addf(&cmd, ": %s; b() { b | b & }; b; wait", mark.data);
    run(&r, cmd.data, &l);
    /* Which limit shows depends on timing: the process cap, the wall
     * clock, or neither when the first shell returns (its `wait` sees only
     * its own children) and the pid namespace's end kills the rest.  What
     * must hold is that the call ended and nothing of the bomb lives. */
    cr_assert(r.limit == UP_SANDBOX_NPROC || r.limit == UP_SANDBOX_WALL ||
                  r.limit == UP_SANDBOX_OK,
              "limit %d: %s", r.limit, r.err.data);
    cr_assert_eq(process_with(mark.data), 0, "a process of the bomb lives");
    user_files_untouched();
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
    up_buf_release(&mark);
}

Test(sandbox, sleep_forever_hits_the_wall_clock)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT, mark = UP_BUF_INIT;

    need_bwrap();
    lims(&l);
    l.wall_ms = 1000;
    up_buf_addf(&mark, "upskill-sleep-%ld", (long)getpid());
    up_buf_addf(&cmd, "sleep 100000 & sleep 100000; echo %s", mark.data);
    run(&r, cmd.data, &l);
    cr_assert_eq(r.limit, UP_SANDBOX_WALL);
    cr_assert_str_eq(r.limit_text, "wall clock (1 s)");
    cr_assert_eq(process_with(mark.data), 0, "the shell survived");
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
    up_buf_release(&mark);
}

Test(sandbox, yes_forever_hits_the_output_cap)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    lims(&l);
    l.out_cap = 1000;
    l.out_kill = 1 << 20;
    run(&r, "yes", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_OUTPUT);
    cr_assert_str_eq(r.limit_text, "output cap (1 MiB)");
    cr_assert_eq(r.out.len, 1000);
    cr_assert_eq(r.out_cut, 1);
    cr_assert_eq(r.err_cut, 0);
    up_sandbox_result_release(&r);
}

Test(sandbox, long_output_is_cut_and_marked)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    lims(&l);
    l.out_cap = 100;
    run(&r, "seq 1 10000; seq 1 10 >&2", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_OK);
    cr_assert_eq(r.exit_code, 0);
    cr_assert_eq(r.out.len, 100);
    cr_assert_eq(r.out_cut, 1);
    cr_assert_eq(r.err_cut, 0);
    cr_assert_eq(strncmp(r.err.data, "1\n2\n", 4), 0);
    up_sandbox_result_release(&r);
}

Test(sandbox, huge_file_hits_the_file_size_limit)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    struct stat st;
    up_buf p = UP_BUF_INIT;

    need_bwrap();
    lims(&l);
    l.fsize_bytes = 1 << 20;
    run(&r, "head -c 10000000000 /dev/zero > big", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_FSIZE, "%d %s", r.exit_code, r.err.data);
    cr_assert_str_eq(r.limit_text, "file size (1 MiB)");
    up_fs_join(&p, ws.data, "big");
    cr_assert_eq(stat(p.data, &st), 0);
    cr_assert_leq(st.st_size, 1 << 20);
    up_sandbox_result_release(&r);
    up_buf_release(&p);
}

Test(sandbox, cpu_spin_hits_the_cpu_limit)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    lims(&l);
    l.cpu_s = 1;
    run(&r, "while :; do :; done", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_CPU, "%d %d", r.exit_code, r.signal);
    cr_assert_str_eq(r.limit_text, "cpu time limit (1 s)");
    up_sandbox_result_release(&r);
}

Test(sandbox, big_allocation_hits_the_memory_limit)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    lims(&l);
    l.mem_bytes = (size_t)256 << 20;
    run(&r, "python3 -c 'x = bytearray(1 << 30)'", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_MEMORY, "%s", r.err.data);
    cr_assert_str_eq(r.limit_text, "memory (256 MiB)");
    up_sandbox_result_release(&r);
}

Test(sandbox, killing_its_parent_harms_nobody_outside)
{
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT;
    pid_t bystander;

    need_bwrap();
    bystander = fork();
    cr_assert_geq(bystander, 0);
    if (bystander == 0) {
        pause();
        _exit(0);
    }
    up_buf_addf(&cmd, "kill -9 %ld %ld; kill -9 $PPID; kill -9 -1; echo end",
                (long)getpid(), (long)bystander);
    run(&r, cmd.data, NULL);
    cr_assert_eq(kill(bystander, 0), 0, "a process outside was killed");
    cr_assert_eq(waitpid(bystander, NULL, WNOHANG), 0);
    kill(bystander, SIGKILL);
    waitpid(bystander, NULL, 0);
    user_files_untouched();
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
}

Test(sandbox, async_start_poll_finish)
{
    up_sandbox_run *run_ = NULL;
    up_sandbox_result r;
    up_error e = {0};
    struct pollfd pfd[3];
    int fds[3], n;

    need_bwrap();
    cr_assert_eq(up_sandbox_start(&run_, UP_SANDBOX_BWRAP, ws.data,
                                  "echo out; echo err >&2; exit 9", NULL, &e),
                 0, "%s", e.msg);
    while (!up_sandbox_step(run_)) {
        n = up_sandbox_pollfds(run_, fds);
        for (int i = 0; i < n; i++)
            pfd[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        poll(pfd, (nfds_t)n, n ? up_sandbox_timeout_ms(run_) : 1);
    }
    cr_assert_eq(up_sandbox_finish(run_, &r, &e), 0);
    cr_assert_str_eq(r.out.data, "out\n");
    cr_assert_str_eq(r.err.data, "err\n");
    cr_assert_eq(r.exit_code, 9);
    cr_assert_gt(r.wall_ms, 0);
    up_sandbox_result_release(&r);
}

Test(sandbox, missing_workspace_is_an_error)
{
    up_sandbox_result r;
    up_error e = {0};

    cr_assert_eq(up_sandbox_exec(&r, UP_SANDBOX_NONE, "/nonexistent/ws", "true",
                                 NULL, &e),
                 UP_ENOTFOUND);
    cr_assert_not_null(strstr(e.msg, "'/nonexistent/ws'"));
    up_sandbox_result_release(&r);
}

Test(sandbox, missing_bwrap_says_what_to_install)
{
    up_error e = {0};

    cr_assert_eq(sbx_probe("/nonexistent/bwrap", &e), UP_ENOTFOUND);
    cr_assert_str_eq(e.msg, "sandbox: '/nonexistent/bwrap' not found: "
                            "install bubblewrap: apt-get install bubblewrap");
}

Test(sandbox, check_is_cached_and_agrees_with_the_probe)
{
    up_error a = {0}, b = {0};
    int rc = up_sandbox_check(&a);

    cr_assert_eq(up_sandbox_check(&b), rc);
    cr_assert_str_eq(a.msg, b.msg);
    if (access("/usr/bin/bwrap", X_OK) != 0)
        cr_assert_eq(rc, UP_ENOTFOUND);
}

/* A background job does not outlive its call, in either mode. */
static void background_job_dies(up_sandbox_mode mode)
{
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT, mark = UP_BUF_INIT;
    up_error e = {0};

    up_buf_addf(&mark, "upskill-bg-%ld-%d", (long)getpid(), (int)mode);
    up_buf_addf(&cmd,
                "sh -c 'sleep 100000; : %s' >/dev/null 2>&1 & echo started",
                mark.data);
    cr_assert_eq(up_sandbox_exec(&r, mode, ws.data, cmd.data, NULL, &e), 0,
                 "%s", e.msg);
    cr_assert_str_eq(r.out.data, "started\n");
    cr_assert_eq(r.limit, UP_SANDBOX_OK);
    cr_assert_eq(process_with(mark.data), 0, "the background job lives");
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
    up_buf_release(&mark);
}

Test(sandbox, background_job_dies_with_the_call)
{
    need_bwrap();
    background_job_dies(UP_SANDBOX_BWRAP);
}

Test(sandbox, background_job_dies_with_the_call_in_none_mode)
{
    background_job_dies(UP_SANDBOX_NONE);
}

/* A job left in the command's group is an orphan of upskill (its
 * subreaper) once killed: the call's end, revisited by the loop
 * (end_pass: it never sleeps), kills and reaps it before the steps say
 * the call is over.  So once the loop is done with the call (old: only
 * finish killed it, after waiting on the loop thread) the job is gone,
 * not even a zombie, whose group would have held the end for its whole
 * bound. */
Test(sandbox, a_killed_background_job_is_reaped_before_the_call_is_over)
{
    up_sandbox_run *run_ = NULL;
    up_sandbox_result r;
    up_error e = {0};
    up_buf pid = UP_BUF_INIT;
    long stray;

    cr_assert_eq(up_sandbox_start(&run_, UP_SANDBOX_NONE, ws.data,
                                  "sleep 100000 >/dev/null 2>&1 & "
                                  "echo $! > stray.pid; echo started",
                                  NULL, &e),
                 0, "%s", e.msg);
    up_sandbox_wait(run_); /* the scheduler steps it to its end */
    slurp(&pid, "ws/stray.pid");
    stray = strtol(pid.data, NULL, 10);
    cr_assert_gt(stray, 0);
    cr_expect_eq(kill((pid_t)stray, 0), -1, "the stray %ld still exists",
                 stray);
    cr_expect_eq(errno, ESRCH);
    cr_assert_eq(up_sandbox_finish(run_, &r, &e), 0);
    cr_assert_str_eq(r.out.data, "started\n");
    up_sandbox_result_release(&r);
    up_buf_release(&pid);
}

Test(sandbox, closed_output_then_hang_hits_the_wall_clock)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    lims(&l);
    l.wall_ms = 500;
    run(&r, "echo bye; exec >&- 2>&-; sleep 100000", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_WALL);
    cr_assert_str_eq(r.limit_text, "wall clock (0.5 s)");
    cr_assert_str_eq(r.out.data, "bye\n");
    up_sandbox_result_release(&r);
}

Test(sandbox, open_files_of_the_caller_do_not_leak_in)
{
    up_sandbox_result r;
    up_buf p = UP_BUF_INIT, cmd = UP_BUF_INIT;
    int fd;

    need_bwrap();
    up_fs_join(&p, root, "home/.ssh/id_rsa");
    fd = open(p.data, O_RDONLY); /* no O_CLOEXEC, on purpose */
    cr_assert_geq(fd, 0);
    up_buf_addf(&cmd, "cat <&%d; cat /proc/self/fd/%d; ls /proc/self/fd", fd,
                fd);
    run(&r, cmd.data, NULL);
    cr_assert_null(strstr(r.out.data, "PLANTED"), "%s", r.out.data);
    cr_assert_str_eq(r.out.data, "0\n1\n2\n3\n"); /* 3: ls's own */
    close(fd);
    up_sandbox_result_release(&r);
    up_buf_release(&p);
    up_buf_release(&cmd);
}

/* Issue 21: a program that exits at once while a child of its own keeps
 * its output open past the wall clock.  The runner has reaped the
 * program, so it must kill that child's session, and nothing else: a
 * kill(-1) (every process we may signal) would take this sentinel. */
Test(sandbox, a_reaped_program_s_leftovers_are_killed_alone)
{
    char sh[] = "/bin/sh", c[] = "-c", path[] = "PATH=/usr/bin:/bin";
    char cmd[] = "(sleep 5; echo late) & exit 0";
    char *argv[] = {sh, c, cmd, NULL};
    char *envp[] = {path, NULL};
    up_sandbox_limits l;
    up_sandbox_run *r;
    up_sandbox_result res;
    up_error err;
    pid_t sentinel = fork();

    if (sentinel == 0) {
        setpgid(0, 0);
        pause();
        _exit(0);
    }
    cr_assert_gt(sentinel, 0);
    memset(&l, 0, sizeof(l));
    l.wall_ms = 300;
    l.out_cap = 4096;
    cr_assert_eq(
        up_sandbox_spawn(
            &r, &(up_sandbox_proc){argv, envp, ws.data, 0, NULL, 0}, &l, &err),
        0, "%s", err.msg);
    while (!up_sandbox_step(r)) {
        struct pollfd p[3];
        int fds[3], n = up_sandbox_pollfds(r, fds);

        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){fds[i], POLLIN, 0};
        poll(p, (nfds_t)n, up_sandbox_timeout_ms(r));
    }
    up_sandbox_finish(r, &res, &err);
    cr_expect_eq(res.limit, UP_SANDBOX_WALL, "the wall clock ended it");
    cr_expect_null(strstr(res.out.data ? res.out.data : "", "late"),
                   "its leftover child was killed");
    cr_expect_eq(waitpid(sentinel, NULL, WNOHANG), 0,
                 "a process outside the sandbox is untouched");
    kill(sentinel, SIGKILL);
    waitpid(sentinel, NULL, 0);
    up_sandbox_result_release(&res);
}

Test(sandbox, spawn_needs_an_absolute_program)
{
    char sh[] = "sh", c[] = "-c", cmd[] = "true";
    char *argv[] = {sh, c, cmd, NULL};
    char *envp[] = {NULL};
    up_sandbox_run *r;
    up_error err;

    cr_expect_eq(
        up_sandbox_spawn(&r, &(up_sandbox_proc){argv, envp, NULL, 0, NULL, 0},
                         NULL, &err),
        UP_ENOTFOUND);
    cr_expect_null(r);
}

/* Issue 23 item 7: in none mode a process that starts a session of its
 * own escapes the process group and holds the output open.  The call
 * still ends at the wall clock and the process does not survive it,
 * with the per-call cgroups (root) and without them (nproc and
 * mem_total 0: the subreaper's sweep). */
static void escaped_session_dies(int cgroups)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    up_buf cmd = UP_BUF_INIT, mark = UP_BUF_INIT;
    up_error e = {0};

    lims(&l);
    l.wall_ms = 1000;
    if (!cgroups)
        l.nproc = 0, l.mem_total = 0;
    up_buf_addf(&mark, "1000.%ld%d", (long)getpid(), cgroups);
    up_buf_addf(&cmd, "(setsid sleep %s &); echo started", mark.data);
    cr_assert_eq(
        up_sandbox_exec(&r, UP_SANDBOX_NONE, ws.data, cmd.data, &l, &e), 0,
        "%s", e.msg);
    cr_assert_str_eq(r.out.data, "started\n");
    cr_assert_eq(r.limit, UP_SANDBOX_WALL, "%s", r.limit_text);
    cr_assert_eq(process_with(mark.data), 0, "the escaped process lives");
    up_sandbox_result_release(&r);
    up_buf_release(&cmd);
    up_buf_release(&mark);
}

Test(sandbox, escaped_session_ends_at_the_wall_clock_in_none_mode)
{
    escaped_session_dies(0);
}

Test(sandbox, escaped_session_ends_at_the_wall_clock_with_cgroups)
{
    escaped_session_dies(1);
}

/* Issue 23 item 8: signal n reads as exit code 128+n in both modes. */
static void signal_reads_128_plus_n(up_sandbox_mode mode)
{
    up_sandbox_result r;
    up_error e = {0};

    cr_assert_eq(up_sandbox_exec(&r, mode, ws.data, "kill -KILL $$", NULL, &e),
                 0, "%s", e.msg);
    cr_assert_eq(r.exit_code, 128 + SIGKILL, "mode %d", (int)mode);
    cr_assert_eq(r.signal, SIGKILL);
    up_sandbox_result_release(&r);
}

Test(sandbox, signal_reads_128_plus_n_in_none_mode)
{
    signal_reads_128_plus_n(UP_SANDBOX_NONE);
}

Test(sandbox, signal_reads_128_plus_n_in_bwrap_mode)
{
    need_bwrap();
    signal_reads_128_plus_n(UP_SANDBOX_BWRAP);
}

/* Issue 23 item 2: /tmp and /dev/shm are sized tmpfs, /dev is not
 * writable (its tmpfs has no size).  Nothing is written to measure it. */
Test(sandbox, tmpfs_mounts_are_sized)
{
    up_sandbox_result r;

    need_bwrap();
    run(&r,
        "df -k /tmp /dev/shm | awk 'NR > 1 { print $2 }'; "
        "touch /dev/upskill-x 2>/dev/null || echo read-only",
        NULL);
    cr_assert_str_eq(r.out.data, "131072\n131072\nread-only\n", "%s",
                     r.err.data);
    up_sandbox_result_release(&r);
}

/* 1 when a memory cgroup per call can be made here. */
static int have_memory_cgroup(void)
{
    up_sandbox_limits l;
    sbx_cgroup cg;
    int ok;

    up_sandbox_limits_default(&l);
    l.nproc = 0;
    sbx_cgroup_open(&cg, &l);
    ok = cg.has_mem;
    sbx_cgroup_close(&cg);
    return ok;
}

/* Issue 23 item 2: the memory of the whole call is bounded (RLIMIT_AS
 * alone would let this one process, or 64 of them, have 1 GiB each).
 * Bounded itself: the cgroup's 64 MiB, else the test is skipped. */
Test(sandbox, memory_of_the_call_is_bounded)
{
    up_sandbox_limits l;
    up_sandbox_result r;

    need_bwrap();
    if (!have_memory_cgroup()) {
        teardown();
        cr_skip_test("no memory cgroup can be made here");
    }
    lims(&l);
    l.mem_total = (size_t)64 << 20;
    run(&r, "python3 -c \"x = b'x' * (200 << 20)\"", &l);
    cr_assert_eq(r.limit, UP_SANDBOX_MEMORY_ALL, "%s / %s", r.limit_text,
                 r.err.data);
    cr_assert_str_eq(r.limit_text, "memory of the call (64 MiB)");
    up_sandbox_result_release(&r);
}

/* Without a memory cgroup the call's per-process limits are lowered. */
Test(sandbox, no_memory_cgroup_lowers_the_limits)
{
    up_sandbox_limits l;
    sbx_cgroup cg;

    up_sandbox_limits_default(&l);
    l.mem_total = (size_t)1 << 30;
    sbx_cgroup_open(&cg, &l);
    if (cg.has_mem) {
        cr_assert_eq(l.mem_bytes, (size_t)1 << 30);
        cr_assert_eq(l.nproc, 64);
    } else {
        cr_assert_eq(l.mem_bytes, (size_t)512 << 20);
        cr_assert_eq(l.nproc, 16);
    }
    sbx_cgroup_close(&cg);
}

/* The call is in its pids cgroup under bwrap too (root with a pids
 * cgroup only): the 9th of 20 forks is refused by pids.max and the limit
 * is named.  The child joins its cgroups before it moves its descriptors
 * (a cgroup's cgroup.procs fd may be one of the low numbers it reuses). */
Test(sandbox, the_call_joins_its_pids_cgroup_under_bwrap)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    sbx_cgroup cg;
    int pids;

    need_bwrap();
    sbx_cgroup_open(&cg, &(up_sandbox_limits){.nproc = 1});
    pids = cg.has_pids;
    sbx_cgroup_close(&cg);
    if (!pids) {
        teardown();
        cr_skip_test("no pids cgroup here (root only)");
    }
    lims(&l);
    l.nproc = 8;
    run(&r,
        "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; "
        "do sleep 1 & done; wait",
        &l);
    cr_assert_eq(r.limit, UP_SANDBOX_NPROC, "%s / %s", r.limit_text,
                 r.err.data);
    up_sandbox_result_release(&r);
}
