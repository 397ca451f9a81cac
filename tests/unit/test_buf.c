/* Unit tests for up_buf and the fs helpers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/upskill.h"

Test(buf, empty_is_safe)
{
    up_buf b = UP_BUF_INIT;

    cr_assert_str_eq(b.data, "");
    up_buf_release(&b);
    cr_assert_eq(b.len, 0);
}

Test(buf, addf_grows)
{
    up_buf b = UP_BUF_INIT;

    for (int i = 0; i < 1000; i++)
        up_buf_addf(&b, "%d,", i);
    cr_assert(b.len > 3000);
    cr_assert_eq(strncmp(b.data, "0,1,2,", 6), 0);
    cr_assert_eq(b.data[b.len], '\0');
    up_buf_release(&b);
}

Test(buf, rtrim_and_detach)
{
    up_buf b = UP_BUF_INIT;
    char *s;

    up_buf_adds(&b, "abc \n\t ");
    up_buf_rtrim(&b);
    s = up_buf_detach(&b);
    cr_assert_str_eq(s, "abc");
    cr_assert_str_eq(b.data, "");
    free(s);
}

static const struct {
    const char *path;
    int ok;
} rel_cases[] = {
    {"references/a.md", 1},
    {"a", 1},
    {"", 0},
    {"/etc/passwd", 0},
    {"../x", 0},
    {"a/../b", 0},
    {"a//b", 0},
    {"./a", 0},
    {"a/\x01", 0},
    {"a\\b", 0},
    {"a/b/", 0},
    {"..a", 1},
};

Test(fs, holds_by_whole_components)
{
    cr_assert(up_fs_holds("/data", "/data"));
    cr_assert(up_fs_holds("/data", "/data/x/y"));
    cr_assert_not(up_fs_holds("/data", "/database"));
    cr_assert_not(up_fs_holds("/data/x", "/data"));
    cr_assert_not(up_fs_holds("/data", "data"));
}

Test(fs, name_of_dead_reads_the_pid_after_the_prefix)
{
    up_buf name = UP_BUF_INIT;
    pid_t dead = fork();

    cr_assert_geq(dead, 0);
    if (dead == 0)
        _exit(0);
    cr_assert_eq(waitpid(dead, NULL, 0), dead);
    up_buf_addf(&name, "x-%ld-abc", (long)dead);
    cr_assert(up_fs_name_of_dead(name.data, "x-"));
    cr_assert_not(up_fs_name_of_dead(name.data, "y-"));
    up_buf_reset(&name);
    up_buf_addf(&name, "x-%ld-abc", (long)getpid());
    cr_assert_not(up_fs_name_of_dead(name.data, "x-"), "we live");
    cr_assert_not(up_fs_name_of_dead("x-abc", "x-"), "no pid");
    cr_assert_not(up_fs_name_of_dead("x--5-a", "x-"), "no pid");
    cr_assert_not(up_fs_name_of_dead("x-99999999999999999999-a", "x-"));
    up_buf_release(&name);
}

Test(fs, check_relative)
{
    for (size_t i = 0; i < sizeof(rel_cases) / sizeof(rel_cases[0]); i++) {
        int rc = up_fs_check_relative(rel_cases[i].path, NULL);

        cr_assert_eq(rc == 0, rel_cases[i].ok, "path '%s'", rel_cases[i].path);
    }
}

Test(fs, basename_dirname)
{
    up_buf b = UP_BUF_INIT;

    up_fs_basename(&b, "a/b/skill/");
    cr_assert_str_eq(b.data, "skill");
    up_buf_reset(&b);
    up_fs_dirname(&b, "a/b/c");
    cr_assert_str_eq(b.data, "a/b");
    up_buf_reset(&b);
    up_fs_dirname(&b, "c");
    cr_assert_str_eq(b.data, ".");
    up_buf_release(&b);
}

Test(fs, atomic_write_and_read)
{
    char dir[] = "/tmp/upskill-unit.XXXXXX";
    up_buf path = UP_BUF_INIT, got = UP_BUF_INIT;
    up_error err;

    cr_assert_not_null(mkdtemp(dir));
    up_fs_join(&path, dir, "f.txt");
    cr_assert_eq(up_fs_write_atomic(path.data, "hello", 5, 0644, &err), 0);
    cr_assert_eq(up_fs_read(&got, path.data, 100, &err), 0);
    cr_assert_str_eq(got.data, "hello");
    up_buf_reset(&got);
    cr_assert_eq(up_fs_read(&got, path.data, 2, &err), UP_ETOOBIG);
    cr_assert_eq(up_fs_read(&got, dir, 100, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "is a directory"));
    remove(path.data);
    rmdir(dir);
    up_buf_release(&path);
    up_buf_release(&got);
}
