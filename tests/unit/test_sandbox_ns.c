/*
 * No process of a sandbox call outlives the call (src/lib/sandbox/
 * sandbox.c, wait_ns_gone): its end waits until the call's pid
 * namespace is gone, also where no cgroup kills what is left (an
 * unprivileged user: run here as nobody when the tests run as root,
 * whose calls get a cgroup).  Before, --die-with-parent killed such a
 * process only a moment after the call had returned: 13 of 20 calls
 * returned with it still running (issue 35 item 1: nothing the student
 * leaves running may act after its call).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/sandbox.h"

#define MARK "upskill-ns-marker-1902"

/* How many live processes have MARK in their command line. */
static int left(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)) != NULL) {
        char p[300], b[512];
        FILE *f;
        size_t k;

        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
        if ((f = fopen(p, "r")) == NULL)
            continue;
        k = fread(b, 1, sizeof(b) - 1, f);
        fclose(f);
        b[k] = '\0';
        for (size_t i = 0; i < k; i++)
            b[i] = b[i] ? b[i] : ' ';
        n += strstr(b, MARK) != NULL;
    }
    if (d)
        closedir(d);
    return n;
}

/* In a child (nobody when root): 20 calls that each leave a busy loop
 * in the background; exit 1 when one was still running after its
 * call returned, 0 when none was, 77 when the sandbox cannot run. */
static int calls(void)
{
    char dir[] = "/tmp/upskill-ns-XXXXXX";
    int bad = 0, ran = 0;

    if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
        return 77;
    if (!mkdtemp(dir))
        return 77;
    for (int i = 0; i < 20; i++) {
        up_sandbox_result res;
        up_error e;

        if (up_sandbox_exec(&res, UP_SANDBOX_BWRAP, dir,
                            "sh -c 'while :; do :; done; : " MARK
                            "' >/dev/null 2>&1 & echo started",
                            NULL, &e) == 0) {
            ran += strstr(res.out.data, "started") != NULL;
            bad += left() > 0;
            up_sandbox_result_release(&res);
        }
    }
    rmdir(dir);
    return !ran ? 77 : bad ? 1 : 0;
}

Test(sandbox_ns, no_process_outlives_its_call)
{
    up_error e;
    pid_t pid;
    int st = 0;

    if (up_sandbox_check(&e) < 0)
        cr_skip_test("no sandbox here: %s", e.msg);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(calls());
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
        cr_skip_test("bubblewrap does not run for an unprivileged user here");
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "a call returned while a process it left was still running");
}
