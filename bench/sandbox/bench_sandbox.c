/*
 * Sandbox start-up per call (issue 12 item 8): N runs of `true` through
 * up_sandbox_exec in each mode, and a bare fork/exec of /bin/true for
 * reference, interleaved; prints the median, p90 and mean per row.
 * Built and run by bench/sandbox.sh (`make bench`); not a test.
 *
 *   bench-sandbox [-n N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "upskill/sandbox.h"

enum { ROW_FORK, ROW_NONE, ROW_NONE_NOCG, ROW_BWRAP, ROW_BWRAP_NOCG, ROWS };

static const char *const row_names[ROWS] = {
    "fork+exec /bin/true", "sandbox none", "sandbox none, no cgroup",
    "sandbox bwrap", "sandbox bwrap, no cgroup"};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double fork_true(void)
{
    double t0 = now_ms();
    pid_t pid = fork();

    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);
    return now_ms() - t0;
}

static double sandbox_true(int row, const char *ws)
{
    up_sandbox_limits l;
    up_sandbox_result r;
    up_error e = {0};
    double t0 = now_ms();

    up_sandbox_limits_default(&l);
    if (row == ROW_BWRAP_NOCG || row == ROW_NONE_NOCG)
        l.nproc = 0, l.mem_total = 0; /* no pids nor memory cgroup */
    if (up_sandbox_exec(&r,
                        row == ROW_NONE || row == ROW_NONE_NOCG
                            ? UP_SANDBOX_NONE
                            : UP_SANDBOX_BWRAP,
                        ws, "true", &l, &e) < 0 ||
        r.exit_code != 0) {
        fprintf(stderr, "bench-sandbox: %s: %s%s\n", row_names[row], e.msg,
                r.err.data);
        exit(1);
    }
    up_sandbox_result_release(&r);
    return now_ms() - t0;
}

static void report(int row, double *v, int n)
{
    double sum = 0;

    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    for (int i = 0; i < n; i++)
        sum += v[i];
    printf("%-26s median %6.2f ms  p90 %6.2f ms  mean %6.2f ms  (n=%d)\n",
           row_names[row], v[n / 2], v[n * 9 / 10], sum / n, n);
}

int main(int argc, char **argv)
{
    char ws[] = "/tmp/upskill-bench-sandbox-XXXXXX";
    up_error e = {0};
    int n = argc > 2 && strcmp(argv[1], "-n") == 0
                ? (int)strtol(argv[2], NULL, 10)
                : 200;
    double *v[ROWS];

    if (n < 1 || !mkdtemp(ws))
        return 2;
    if (up_sandbox_check(&e) < 0) {
        printf("bench-sandbox: skipped: %s\n", e.msg);
        rmdir(ws);
        return 0;
    }
    for (int row = 0; row < ROWS; row++)
        v[row] = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int row = 0; row < ROWS; row++)
            v[row][i] = row == ROW_FORK ? fork_true() : sandbox_true(row, ws);
    for (int row = 0; row < ROWS; row++) {
        report(row, v[row], n);
        free(v[row]);
    }
    rmdir(ws);
    return 0;
}
