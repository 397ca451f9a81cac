/* Unit tests for the agent's tools (src/lib/agent/tools.c): the table, each
 * tool, and every bad or hostile call, with a sentinel outside the
 * workspace that must stay untouched. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "lib/agent/workspace.h"

#define N(a)       (sizeof(a) / sizeof((a)[0]))
#define WRITE_ARGS "{\"path\":\"%s\",\"content\":\"%.*s\"}"

static char top[] = "/tmp/upskill-tools-XXXXXX";
static char outside[256], sentinel[300], parent[300];
static up_workspace *w;

static void setup(void)
{
    up_error err;
    FILE *f;

    cr_assert_not_null(mkdtemp(top));
    snprintf(outside, sizeof(outside), "%s/outside", top);
    snprintf(sentinel, sizeof(sentinel), "%s/sentinel", outside);
    snprintf(parent, sizeof(parent), "%s/ws", top);
    cr_assert_eq(mkdir(outside, 0700), 0);
    cr_assert_eq(mkdir(parent, 0700), 0);
    f = fopen(sentinel, "w");
    cr_assert_not_null(f);
    fputs("SENTINEL", f);
    fclose(f);
    cr_assert_eq(up_workspace_new(&w, parent, NULL, &err), 0, "%s", err.msg);
}

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (!d)
        return (size_t)-1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* The sentinel is unchanged and nothing new appeared outside. */
static void check_outside_n(size_t in_parent)
{
    up_buf b = UP_BUF_INIT;

    /* cr_expect: the teardown goes on to clean up after a failure */
    cr_expect_eq(up_fs_read(&b, sentinel, 100, NULL), 0);
    cr_expect_str_eq(b.data, "SENTINEL");
    cr_expect_eq(entries(outside), 1, "a file appeared outside");
    cr_expect_eq(entries(top), 2, "a file appeared beside the workspace");
    cr_expect_eq(entries(parent), in_parent,
                 "a file appeared beside the workspace");
    up_buf_release(&b);
}

static void check_outside(void)
{
    check_outside_n(1);
}

static void teardown(void)
{
    char *path = up_xstrdup(w->path);

    int gone, clean;
    up_buf cmd = UP_BUF_INIT;

    up_workspace_free(w);
    gone = !up_fs_exists(path);
    free(path);
    check_outside_n(0);
    unlink(sentinel);
    clean = !rmdir(outside) && !rmdir(parent);
    /* leave no litter in /tmp even when a check failed */
    up_buf_addf(&cmd, "rm -rf '%s'", top);
    cr_assert_eq(system(cmd.data), 0);
    up_buf_release(&cmd);
    cr_assert(gone, "workspace left behind");
    cr_assert(clean, "something left outside the workspace");
}

/* A skill "demo" with a reference, a script (run bit) and an asset. */
static void demo_skill(up_skill *s)
{
    static const struct {
        const char *path, *data;
        int x;
    } f[] = {{"references/api.md", "API", 0},
             {"scripts/run.sh", "#!/bin/sh\n", 1},
             {"assets/t.txt", "T", 0}};

    up_skill_init(s);
    s->name = up_xstrdup("demo");
    s->description = up_xstrdup("a demo");
    s->body = up_xstrdup("Read references/api.md.");
    s->files = up_xcalloc(3, sizeof(*s->files));
    s->nfiles = 3;
    for (size_t i = 0; i < 3; i++) {
        s->files[i].path = up_xstrdup(f[i].path);
        s->files[i].data = up_xstrdup(f[i].data);
        s->files[i].len = strlen(f[i].data);
        s->files[i].executable = f[i].x;
    }
}

TestSuite(tools, .init = setup, .fini = teardown);

/* Call name with args; the is_error flag and the text. */
static int call(const char *name, const char *args, up_buf *out)
{
    up_buf_reset(out);
    return up_tool_invoke(w, name, args, args ? strlen(args) : 0, out);
}

static void plant(const char *rel, const char *text)
{
    up_error err;

    cr_assert_eq(up_workspace_add_file(w, rel, text, strlen(text), 0, &err), 0,
                 "%s", err.msg);
}

/* The counter row of calls to tools not in the table. */
static size_t unknown_row(void)
{
    size_t n;

    up_tool_table(&n);
    return n;
}

Test(tools, table_rows_have_schemas)
{
    size_t n;
    const up_tool *t = up_tool_table(&n);

    cr_assert_geq(n, 4);
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(t[i].description);
        cr_assert_not_null(strstr(t[i].parameters, "\"type\":\"object\""));
        cr_assert_eq(up_tool_find(t[i].name), &t[i]);
        cr_assert_str_eq(up_tool_stat_name(i), t[i].name);
    }
    cr_assert_str_eq(up_tool_stat_name(n), "unknown");
    cr_assert_null(up_tool_stat_name(n + 1));
    cr_assert(up_tool_find("run")->flags & UP_TOOL_SLOW);
}

Test(tools, write_read_list_edit)
{
    up_buf out = UP_BUF_INIT;

    cr_assert_eq(call("write_file",
                      "{\"path\":\"d/e/a.txt\",\"content\":"
                      "\"one two two\"}",
                      &out),
                 0, "%s", out.data);
    cr_assert_eq(call("read_file", "{\"path\":\"d/e/a.txt\"}", &out), 0);
    cr_assert_str_eq(out.data, "one two two");
    cr_assert_eq(call("list_files", "{}", &out), 0);
    cr_assert_str_eq(out.data, "d/\n");
    cr_assert_eq(call("list_files", "{\"recursive\":true}", &out), 0);
    cr_assert_str_eq(out.data, "d/\nd/e/\nd/e/a.txt\n");
    cr_assert_eq(call("list_files", "{\"path\":\"d\"}", &out), 0);
    cr_assert_str_eq(out.data, "d/e/\n");
    cr_assert_eq(call("edit_file",
                      "{\"path\":\"d/e/a.txt\",\"old_string\":"
                      "\"two\",\"new_string\":\"2\"}",
                      &out),
                 1);
    cr_assert_not_null(strstr(out.data, "more than once"));
    cr_assert_eq(call("edit_file",
                      "{\"path\":\"d/e/a.txt\",\"old_string\":"
                      "\"one\",\"new_string\":\"1\"}",
                      &out),
                 0);
    cr_assert_eq(call("edit_file",
                      "{\"path\":\"d/e/a.txt\",\"old_string\":"
                      "\"two\",\"new_string\":\"2\","
                      "\"replace_all\":true}",
                      &out),
                 0);
    cr_assert_eq(call("edit_file",
                      "{\"path\":\"d/e/a.txt\",\"old_string\":"
                      "\"zzz\",\"new_string\":\"2\"}",
                      &out),
                 1);
    cr_assert_not_null(strstr(out.data, "not found"));
    cr_assert_eq(call("read_file", "{\"path\":\"d/e/a.txt\"}", &out), 0);
    cr_assert_str_eq(out.data, "1 2 2");
    cr_assert_eq(w->stat[1].calls, 1); /* write_file */
    cr_assert_eq(w->stat[3].calls, 4); /* edit_file */
    cr_assert_eq(w->stat[3].errors, 2);
    up_buf_release(&out);
}

/* A hostile or bad call: tool, arguments, a piece of the error. */
struct bad {
    const char *tool;
    const char *args;
    const char *msg;
};

static const struct bad bads[] = {
    {"rm_rf", "{}", "unknown tool 'rm_rf'"},
    {"read_file", "{\"path\":", "not valid JSON"},
    {"read_file", "[\"x\"]", "must be a JSON object"},
    {"read_file", "{}", "missing argument 'path'"},
    {"read_file", "{\"path\":7}", "'path' must be a string"},
    {"read_file", "{\"path\":\"a\",\"path\":\"b\"}", "not valid JSON"},
    {"read_file", "{\"path\":\"a\",\"mode\":1}", "unknown argument 'mode'"},
    {"list_files", "{\"recursive\":\"yes\"}", "must be a boolean"},
    {"write_file", "{\"path\":\"x\"}", "missing argument 'content'"},
    {"read_file", "{\"path\":\"../outside/sentinel\"}", "stay inside"},
    {"read_file", "{\"path\":\"/etc/passwd\"}", "absolute"},
    {"read_file", "{\"path\":\"a/../../outside/sentinel\"}", "stay inside"},
    {"read_file", "{\"path\":\"./a\"}", "stay inside"},
    {"read_file", "{\"path\":\"a//b\"}", "stay inside"},
    {"read_file", "{\"path\":\"\"}", "empty"},
    {"read_file", "{\"path\":\"a\\u0000b\"}", "NUL"},
    {"read_file", "{\"path\":\"a\\nb\"}", "control character"},
    {"read_file", "{\"path\":\"link\"}", "outside"},
    {"read_file", "{\"path\":\"linkdir/sentinel\"}", "outside"},
    {"read_file", "{\"path\":\"nope\"}", "no such file"},
    {"read_file", "{\"path\":\"sub\"}", "folder"},
    {"write_file", "{\"path\":\"link\",\"content\":\"X\"}", "symlink"},
    {"write_file", "{\"path\":\"linkdir/new\",\"content\":\"X\"}", "symlink"},
    {"write_file", "{\"path\":\"linkdir/sentinel\",\"content\":\"X\"}",
     "symlink"},
    {"write_file", "{\"path\":\"../outside/new\",\"content\":\"X\"}",
     "stay inside"},
    {"write_file", "{\"path\":\"/tmp/upskill-x\",\"content\":\"X\"}",
     "absolute"},
    {"edit_file",
     "{\"path\":\"link\",\"old_string\":\"S\",\"new_string\":\"X\"}",
     "outside"},
    {"edit_file", "{\"path\":\"f\",\"old_string\":\"\",\"new_string\":\"X\"}",
     "empty"},
    {"list_files", "{\"path\":\"linkdir\"}", "symlink"},
    {"list_files", "{\"path\":\"..\"}", "stay inside"},
    {"list_files", "{\"path\":\"/\"}", "absolute"},
};

Test(tools, hostile_calls_are_tool_errors)
{
    up_buf out = UP_BUF_INIT;
    char target[300];

    plant("f", "text");
    plant("sub/g", "text");
    cr_assert_eq(symlinkat(sentinel, w->dirfd, "link"), 0);
    cr_assert_eq(symlinkat(outside, w->dirfd, "linkdir"), 0);
    for (size_t i = 0; i < N(bads); i++) {
        int rc = call(bads[i].tool, bads[i].args, &out);

        cr_assert_eq(rc, 1, "%s %s: passed: %s", bads[i].tool, bads[i].args,
                     out.data);
        cr_assert_not_null(strstr(out.data, bads[i].msg), "%s %s: '%s'",
                           bads[i].tool, bads[i].args, out.data);
        check_outside();
    }
    cr_assert(!up_fs_exists("/tmp/upskill-x"));
    snprintf(target, sizeof(target), "%s/sub/g", w->path);
    cr_assert(up_fs_exists(target));
    cr_assert_eq(w->stat[unknown_row()].calls, 1);
    up_buf_release(&out);
}

Test(tools, symlink_inside_is_read)
{
    up_buf out = UP_BUF_INIT;

    plant("real.txt", "inside");
    cr_assert_eq(symlinkat("real.txt", w->dirfd, "alias"), 0);
    /* openat2 follows a link that stays beneath; the fallback walk
     * refuses every link: either way nothing outside is read */
    if (call("read_file", "{\"path\":\"alias\"}", &out) == 0)
        cr_assert_str_eq(out.data, "inside");
    else
        cr_assert_not_null(strstr(out.data, "symlink"));
    up_buf_release(&out);
}

Test(tools, caps_on_writes_files_reads_and_args)
{
    up_ws_limits lim;
    up_buf out = UP_BUF_INIT, args = UP_BUF_INIT, big = UP_BUF_INIT;
    up_error err;

    up_workspace_free(w);
    up_ws_limits_default(&lim);
    lim.max_write = 1000;
    lim.max_total = 2500;
    lim.max_files = 3;
    lim.max_read = 10;
    lim.max_args = 100000;
    cr_assert_eq(up_workspace_new(&w, parent, &lim, &err), 0);
    for (int i = 0; i < 1001; i++)
        up_buf_addc(&big, 'x');
    up_buf_addf(&args, "{\"path\":\"big\",\"content\":\"%s\"}", big.data);
    cr_assert_eq(call("write_file", args.data, &out), 1);
    cr_assert_not_null(strstr(out.data, "over the cap of 1000 per write"));
    up_buf_truncate(&big, 900);
    for (int i = 0; i < 3; i++) {
        up_buf_reset(&args);
        up_buf_addf(&args, "{\"path\":\"f%d\",\"content\":\"%s\"}", i,
                    big.data);
        cr_assert_eq(call("write_file", args.data, &out), i < 2 ? 0 : 1);
    }
    cr_assert_not_null(strstr(out.data, "written in all"));
    cr_assert_eq(call("write_file", "{\"path\":\"g\",\"content\":\"\"}", &out),
                 0);
    cr_assert_eq(call("write_file", "{\"path\":\"h\",\"content\":\"\"}", &out),
                 1);
    cr_assert_not_null(strstr(out.data, "new files"));
    /* replacing an existing file is no new file */
    cr_assert_eq(call("write_file", "{\"path\":\"g\",\"content\":\"1\"}", &out),
                 0);
    cr_assert_eq(call("read_file", "{\"path\":\"f0\"}", &out), 0);
    cr_assert_not_null(strstr(out.data, "xxxxxxxxxx\n[cut: the file has 900 "
                                        "bytes, only the first 10"));
    up_buf_reset(&args);
    for (int i = 0; i < 100001; i++)
        up_buf_addc(&args, ' ');
    cr_assert_eq(call("read_file", args.data, &out), 1);
    cr_assert_not_null(strstr(out.data, "arguments over the cap"));
    up_buf_release(&out);
    up_buf_release(&args);
    up_buf_release(&big);
}

Test(tools, fifty_megabytes_refused_by_default)
{
    size_t n = 50u << 20;
    char *args = up_xmalloc(n + 64);
    int len;
    up_buf out = UP_BUF_INIT;

    len = snprintf(args, 64, "{\"path\":\"big\",\"content\":\"");
    memset(args + len, 'a', n);
    memcpy(args + (size_t)len + n, "\"}", 3);
    cr_assert_eq(up_tool_invoke(w, "write_file", args, strlen(args), &out), 1);
    cr_assert_not_null(strstr(out.data, "over the cap"));
    cr_assert_eq(entries(w->path), 0);
    free(args);
    up_buf_release(&out);
}

/* Bytes of address space this process has mapped now (/proc/self/statm). */
static size_t mapped_now(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f && fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    if (f)
        fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* In a child held to 512 MiB more address space than it has (so a
 * sanitizer's reserved shadow does not count): replace_all of "a" by
 * 2,000 bytes over a 1,000,000-byte file is refused before the 2 GB
 * result is built.  0 when the edit was refused and the file untouched. */
static int edit_product_child(void)
{
    struct rlimit rl;
    up_buf args = UP_BUF_INIT, out = UP_BUF_INIT, big = UP_BUF_INIT;
    int rc;

    up_buf_grow(&big, 1000000);
    memset(big.data, 'a', 1000000);
    big.len = 1000000;
    big.data[big.len] = '\0';
    plant("a.txt", big.data);
    up_buf_adds(&args, "{\"path\":\"a.txt\",\"old_string\":\"a\","
                       "\"replace_all\":true,\"new_string\":\"");
    for (int i = 0; i < 2000; i++)
        up_buf_addc(&args, 'b');
    up_buf_adds(&args, "\"}");
    rl.rlim_cur = rl.rlim_max = mapped_now() + (512u << 20);
    if (setrlimit(RLIMIT_AS, &rl))
        return 2;
    rc = call("edit_file", args.data, &out);
    if (rc != 1 || !strstr(out.data, "replacing 1000000 occurrences would "
                                     "make the file larger than the cap "
                                     "of 1048576 bytes per write"))
        return 3;
    up_buf_reset(&big);
    if (up_workspace_read(w, "a.txt", 2000000, &big, NULL))
        return 4;
    return big.len == 1000000 && !strchr(big.data, 'b') ? 0 : 5;
}

Test(tools, edit_refuses_a_product_over_the_cap_before_building_it)
{
    int status = 0;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (!pid)
        _exit(edit_product_child());
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the edit did not end as a tool error (status %d: killed by "
              "signal %d, exit %d)",
              status, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

Test(tools, many_calls_bounded_and_counted)
{
    up_buf out = UP_BUF_INIT;

    plant("a", "x");
    for (int i = 0; i < 10000; i++)
        call(i % 2 ? "read_file" : "nope", "{\"path\":\"a\"}", &out);
    cr_assert_eq(w->stat[0].calls, 5000);
    cr_assert_eq(w->stat[0].errors, 0);
    cr_assert_eq(w->stat[unknown_row()].calls, 5000);
    cr_assert_eq(w->stat[unknown_row()].errors, 5000);
    cr_assert_geq(w->stat[0].time_ms, 0.0);
    up_buf_reset(&out);
    up_workspace_stats_json(w, &out);
    cr_assert_not_null(strstr(out.data, "\"skill_read\":null"), "%s", out.data);
    up_buf_release(&out);
}

Test(tools, list_caps_entries)
{
    up_ws_limits lim;
    up_buf out = UP_BUF_INIT;
    up_error err;

    up_workspace_free(w);
    up_ws_limits_default(&lim);
    lim.max_list = 3;
    cr_assert_eq(up_workspace_new(&w, parent, &lim, &err), 0);
    for (int i = 0; i < 5; i++) {
        char name[16];

        snprintf(name, sizeof(name), "f%d", i);
        plant(name, "");
    }
    cr_assert_eq(call("list_files", "", &out), 0);
    cr_assert_not_null(strstr(out.data, "[cut: more than 3 entries]"));
    up_buf_release(&out);
}

Test(tools, skill_use_is_recorded)
{
    up_skill s;
    up_buf out = UP_BUF_INIT;
    up_error err;

    demo_skill(&s);
    cr_assert_eq(up_workspace_install_skill(w, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(call("list_files", "{\"recursive\":true}", &out), 0);
    cr_assert_eq(w->skill_read, 0);
    cr_assert_eq(
        call("read_file", "{\"path\":\".agents/skills/demo/SKILL.md\"}", &out),
        0);
    cr_assert_not_null(strstr(out.data, "name: demo"));
    cr_assert_eq(w->skill_read, 1);
    for (int i = 0; i < 2; i++)
        call("read_file",
             "{\"path\":\".agents/skills/demo/references/api.md\"}", &out);
    call("read_file", "{\"path\":\".agents/skills/demo/scripts/run.sh\"}",
         &out);
    cr_assert_eq(w->nrefs_read, 1);
    cr_assert_str_eq(w->refs_read[0], "references/api.md");
    cr_assert_eq(w->nscripts_used, 1);
    cr_assert_str_eq(w->scripts_used[0], "scripts/run.sh");
    call("nope", "{}", &out);
    call("read_file", "{\"path\":\"nope\"}", &out);
    up_buf_reset(&out);
    up_workspace_stats_json(w, &out);
    cr_assert_not_null(strstr(out.data, "{\"tool_calls\":7,\"tool_errors\":2,"
                                        "\"tool_call_map\":{\"read_file\":5,"
                                        "\"list_files\":1,\"unknown\":1},"
                                        "\"tool_error_map\":{\"read_file\":1,"
                                        "\"unknown\":1},\"tool_time_ms\":"),
                       "%s", out.data);
    cr_assert_not_null(strstr(out.data, ",\"skill_read\":true,"
                                        "\"references_read\":[\"references/"
                                        "api.md\"],\"scripts_used\":[\"scripts/"
                                        "run.sh\"]}"),
                       "%s", out.data);
    up_skill_release(&s);
    up_buf_release(&out);
}

Test(tools, read_text_only_and_cut_at_characters)
{
    up_ws_limits lim;
    up_buf out = UP_BUF_INIT;
    up_error err;

    up_workspace_free(w);
    up_ws_limits_default(&lim);
    lim.max_read = 4;
    cr_assert_eq(up_workspace_new(&w, parent, &lim, &err), 0);
    plant("e", "ab\xc3\xa9\xc3\xa9");
    cr_assert_eq(up_workspace_add_file(w, "bin", "a\0b", 3, 0, &err), 0);
    plant("bad", "\xff\xfe");
    cr_assert_eq(call("read_file", "{\"path\":\"e\"}", &out), 0);
    cr_assert_str_eq(out.data, "ab\xc3\xa9\n[cut: the file has 6 bytes, only "
                               "the first 4 are shown]");
    cr_assert_eq(call("read_file", "{\"path\":\"bin\"}", &out), 1);
    cr_assert_str_eq(out.data, "'bin': not UTF-8 text (3 bytes)");
    cr_assert_eq(call("read_file", "{\"path\":\"bad\"}", &out), 1);
    up_buf_release(&out);
}

/* ---- run (the sandbox; skipped where it cannot work) ---- */

static void need_sandbox(void)
{
    up_error e = {0};

    if (up_sandbox_check(&e) < 0) {
        teardown(); /* a skipped test does not run .fini */
        cr_skip_test("no sandbox here: %s", e.msg);
    }
    w->run_tool = 1;
}

/* Drive a started call to its end through its fds, as the loop does. */
static int drive(up_tool_pending *p, up_buf *out)
{
    while (!up_tool_pending_step(p)) {
        struct pollfd pfd[3];
        int fds[3], ms, n = up_tool_pending_fds(p, fds, &ms);

        for (int i = 0; i < n; i++)
            pfd[i] = (struct pollfd){fds[i], POLLIN, 0};
        poll(pfd, (nfds_t)n, ms);
    }
    return up_tool_pending_end(p, out);
}

Test(tools, run_gives_exit_code_and_both_streams)
{
    up_buf out = UP_BUF_INIT;
    size_t row = (size_t)(up_tool_find("run") - up_tool_table(NULL));

    need_sandbox();
    plant("in.txt", "from the workspace");
    cr_assert_eq(call("run",
                      "{\"command\":\"cat in.txt; echo oops >&2; "
                      "printf '\\\\033[2J'; exit 3\"}",
                      &out),
                 0, "%s", out.data);
    cr_assert_not_null(strstr(out.data, "exit code: 3\n"), "%s", out.data);
    cr_assert_not_null(strstr(out.data, "--- stdout ---\nfrom the workspace"),
                       "%s", out.data);
    cr_assert_not_null(strstr(out.data, "--- stderr ---\noops\n"), "%s",
                       out.data);
    cr_assert_null(strchr(out.data, '\033'), "escapes are escaped");
    cr_assert_eq(w->stat[row].calls, 1);
    cr_assert_eq(w->stat[row].errors, 0);
    up_buf_release(&out);
}

Test(tools, run_bad_arguments_are_tool_errors)
{
    up_buf out = UP_BUF_INIT;
    up_tool_pending *p = (up_tool_pending *)&out;

    cr_assert_eq(call("run", "{\"command\":\"touch x\"}", &out), 1);
    cr_assert_not_null(strstr(out.data, "unknown tool 'run'"),
                       "not offered, not callable");
    cr_assert_null(strstr(out.data, " run"), "nor listed: %s", out.data);
    w->run_tool = 1;
    cr_assert_eq(call("run", "{}", &out), 1);
    cr_assert_not_null(strstr(out.data, "missing argument 'command'"));
    cr_assert_eq(call("run", "{\"command\":\"\"}", &out), 1);
    cr_assert_not_null(strstr(out.data, "command is empty"));
    up_buf_reset(&out);
    cr_assert_eq(up_tool_begin(w, "run", "{\"command\":1}", 13, &p, &out), 1);
    cr_assert_null(p, "a refusal starts nothing");
    cr_assert_not_null(strstr(out.data, "must be a string"));
    up_buf_release(&out);
}

Test(tools, run_started_then_driven_names_the_broken_limit)
{
    up_buf out = UP_BUF_INIT;
    up_tool_pending *p = NULL;
    const char *args = "{\"command\":\"sleep 100000\"}";
    size_t row = (size_t)(up_tool_find("run") - up_tool_table(NULL));

    need_sandbox();
    w->run_lim.wall_ms = 300;
    cr_assert_eq(up_tool_begin(w, "run", args, strlen(args), &p, &out), 0);
    cr_assert_not_null(p, "run is started, not run to the end");
    cr_assert_eq(w->stat[row].calls, 0, "counted when it ends");
    cr_assert_eq(drive(p, &out), 1, "%s", out.data);
    cr_assert_not_null(strstr(out.data, "broke a limit: wall clock"), "%s",
                       out.data);
    cr_assert_eq(w->stat[row].calls, 1);
    cr_assert_eq(w->stat[row].errors, 1);
    up_buf_reset(&out);
    cr_assert_eq(
        up_tool_begin(w, "read_file", "{\"path\":\"x\"}", 12, &p, &out), 1);
    cr_assert_null(p, "a fast tool runs to the end at once");
    up_buf_release(&out);
}

Test(tools, run_cancelled_kills_the_command)
{
    up_buf out = UP_BUF_INIT;
    up_tool_pending *p = NULL;
    const char *args = "{\"command\":\"sleep 100000\"}";
    size_t row = (size_t)(up_tool_find("run") - up_tool_table(NULL));

    need_sandbox();
    cr_assert_eq(up_tool_begin(w, "run", args, strlen(args), &p, &out), 0);
    up_tool_pending_cancel(p); /* returns: the sandbox is killed, reaped */
    cr_assert_eq(w->stat[row].errors, 1);
    up_buf_release(&out);
}

Test(tools, run_notes_the_skill_scripts_it_names)
{
    up_buf out = UP_BUF_INIT;
    up_error err;
    up_skill s;

    need_sandbox();
    up_skill_init(&s);
    s.name = up_xstrdup("demo");
    s.description = up_xstrdup("d");
    s.body = up_xstrdup("b");
    cr_assert_eq(up_workspace_install_skill(w, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(call("run",
                      "{\"command\":\"sh .agents/skills/demo/scripts/a.sh; "
                      "cat .agents/skills/demo/scripts/b.py|wc\"}",
                      &out),
                 0, "%s", out.data);
    cr_assert_eq(w->nscripts_used, 2);
    cr_assert_str_eq(w->scripts_used[0], "scripts/a.sh");
    cr_assert_str_eq(w->scripts_used[1], "scripts/b.py");
    up_skill_release(&s);
    up_buf_release(&out);
}

/* ---- the workspace's quota (issue 23 item 1) ---- */

/* w made again with a quota of bytes and entries. */
static void quota(size_t bytes, size_t files)
{
    up_ws_limits lim;
    up_error err;

    up_workspace_free(w);
    up_ws_limits_default(&lim);
    lim.quota_bytes = bytes;
    lim.quota_files = files;
    cr_assert_eq(up_workspace_new(&w, parent, &lim, &err), 0, "%s", err.msg);
}

Test(tools, writes_past_the_quota_are_tool_errors)
{
    up_buf out = UP_BUF_INIT;
    char args[200];
    const char *x = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

    quota(100, 4);
    plant("ctx.txt", "0123456789"); /* setup counts: 10 bytes, 1 entry */
    up_workspace_usage(w, NULL);
    snprintf(args, sizeof(args), WRITE_ARGS, "a", 60, x);
    cr_assert_eq(call("write_file", args, &out), 0, "%s", out.data);
    snprintf(args, sizeof(args), WRITE_ARGS, "b", 40, x);
    cr_assert_eq(call("write_file", args, &out), 1);
    cr_assert_not_null(strstr(out.data, "'b': writing 40 bytes would take the "
                                        "workspace to 110 bytes, over its "
                                        "quota of 100 bytes (config "
                                        "workspace_max_bytes)"),
                       "%s", out.data);
    cr_assert_eq(faccessat(w->dirfd, "b", F_OK, AT_SYMLINK_NOFOLLOW), -1,
                 "nothing written");
    /* replacing a file counts its new size only */
    snprintf(args, sizeof(args), WRITE_ARGS, "a", 90, x);
    cr_assert_eq(call("write_file", args, &out), 0, "%s", out.data);
    cr_assert_eq(w->used_bytes, 100);
    /* entries: the folders a path makes count too */
    cr_assert_eq(
        call("write_file", "{\"path\":\"d/e/f\",\"content\":\"\"}", &out), 1);
    cr_assert_not_null(strstr(out.data, "its quota is 4 (config "
                                        "workspace_max_files)"),
                       "%s", out.data);
    cr_assert_eq(
        call("write_file", "{\"path\":\"d/f\",\"content\":\"\"}", &out), 0,
        "%s", out.data);
    cr_assert_eq(w->used_files, 4);
    cr_assert_eq(call("edit_file",
                      "{\"path\":\"ctx.txt\",\"old_string\":\"0\","
                      "\"new_string\":\"00\"}",
                      &out),
                 1, "an edit that grows past the quota");
    cr_assert_not_null(strstr(out.data, "workspace_max_bytes"), "%s", out.data);
    up_buf_release(&out);
}

Test(tools, a_command_past_the_quota_is_a_tool_error_and_run_stops)
{
    up_buf out = UP_BUF_INIT;

    quota(4096, 20);
    w->run_tool = 1;
    w->sandbox = UP_SANDBOX_NONE; /* the quota is the same in bwrap */
    /* one file: no larger than the room left (RLIMIT_FSIZE) */
    cr_assert_eq(
        call("run", "{\"command\":\"head -c 10000 /dev/zero > big\"}", &out), 1,
        "%s", out.data);
    cr_assert_not_null(strstr(out.data, "broke a limit: file size (4 KiB)"),
                       "%s", out.data);
    cr_assert_eq(call("run", "{\"command\":\"rm big\"}", &out), 0, "%s",
                 out.data);
    /* many files: measured after the command, reported, run refused */
    cr_assert_eq(call("run",
                      "{\"command\":\"for i in $(seq 30); do : > f$i; "
                      "done\"}",
                      &out),
                 1, "%s", out.data);
    cr_assert_not_null(strstr(out.data,
                              "the command broke the workspace's quota: the "
                              "workspace holds more than 20 files and "
                              "folders, its quota (config "
                              "workspace_max_files); run is refused"),
                       "%s", out.data);
    cr_assert_eq(call("run", "{\"command\":\"rm f*\"}", &out), 1);
    cr_assert_not_null(strstr(out.data, "run is refused while it is"), "%s",
                       out.data);
    cr_assert_eq(call("write_file", "{\"path\":\"g\",\"content\":\"\"}", &out),
                 1, "no new file either");
    up_buf_release(&out);
}
