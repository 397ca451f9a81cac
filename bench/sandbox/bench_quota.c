/*
 * The workspace quota kept within a call (issue 35 item 2; see
 * bench/README.md, "The workspace quota within a call"): the cost a run
 * call pays to copy its workspace into its own tmpfs and back, for a few
 * workspace shapes, against the same call with the folder bound as it is;
 * then three bombs with the default quota (256 MiB, 10,000 entries): how
 * far each gets in its tmpfs (df inside the call), what is on the host
 * afterwards, and how long the call takes.  Built and run by
 * bench/quota.sh; not a test.
 *
 *   bench-quota [-n N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "upskill/sandbox.h"

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

/* One call of cmd in ws; its wall time; its result into r (released by
 * the caller) when r is not NULL. */
static double call(const char *ws, const char *cmd, size_t quota,
                   up_sandbox_result *r)
{
    up_sandbox_limits l;
    up_sandbox_result own;
    up_error e = {0};
    double t0 = now_ms();

    up_sandbox_limits_default(&l);
    l.ws_bytes = quota;
    l.ws_files = quota ? 10000 : 0;
    l.wall_ms = 60000;
    l.cpu_s = 60;
    if (up_sandbox_exec(r ? r : &own, UP_SANDBOX_BWRAP, ws, cmd, &l, &e) < 0) {
        fprintf(stderr, "bench-quota: %s\n", e.msg);
        exit(1);
    }
    if (!r)
        up_sandbox_result_release(&own);
    return now_ms() - t0;
}

static void sh(const char *fmt, const char *ws)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), fmt, ws, ws, ws);
    if (system(cmd) != 0)
        exit(1);
}

static const struct {
    const char *name;
    const char *make; /* %s: the workspace */
} shapes[] = {
    {"empty", "true %s"},
    {"100 files, 1 MB", "cd %s && for i in $(seq 100); do head -c 10000 "
                        "/dev/urandom > f$i; done"},
    {"2000 files, 2 MB", "cd %s && mkdir d && for i in $(seq 2000); do head "
                         "-c 1000 /dev/urandom > d/f$i; done"},
    {"1 file, 50 MB", "head -c 50000000 /dev/urandom > %s/big"},
    {"1 file, 200 MB", "head -c 200000000 /dev/zero > %s/big"},
};

static void shape_row(size_t k, int n)
{
    char ws[] = "/tmp/upskill-bench-quota-XXXXXX";
    double *a = calloc((size_t)n, sizeof(double));
    double *b = calloc((size_t)n, sizeof(double));

    if (!mkdtemp(ws))
        exit(2);
    sh(shapes[k].make, ws);
    for (int i = 0; i < n; i++) {
        a[i] = call(ws, "true", 0, NULL);
        b[i] = call(ws, "true", (size_t)256 << 20, NULL);
    }
    qsort(a, (size_t)n, sizeof(*a), cmp_double);
    qsort(b, (size_t)n, sizeof(*b), cmp_double);
    printf("%-18s bound as is %7.1f ms   own tmpfs %7.1f ms  (medians, "
           "n=%d)\n",
           shapes[k].name, a[n / 2], b[n / 2], n);
    sh("rm -rf %s", ws);
    free(a);
    free(b);
}

static const struct {
    const char *name;
    const char *cmd;
} bombs[] = {
    {"fallocate 40 x 50 MB",
     "for i in $(seq 40); do fallocate -l 50M f$i 2>/dev/null; done"},
    {"dd 40 x 50 MB",
     "for i in $(seq 40); do dd if=/dev/zero of=d$i bs=1M count=50 "
     "2>/dev/null; done"},
    {"20,000 empty files", "for i in $(seq 20000); do : > g$i || break; "
                           "done 2>/dev/null"},
};

static void bomb_row(size_t k)
{
    char ws[] = "/tmp/upskill-bench-quota-XXXXXX", cmd[512];
    up_sandbox_result r;
    double ms;
    FILE *du;
    char line[128] = "";

    if (!mkdtemp(ws))
        exit(2);
    snprintf(cmd, sizeof(cmd), "%s; df -B1 --output=used,iused . | tail -1",
             bombs[k].cmd);
    ms = call(ws, cmd, (size_t)256 << 20, &r);
    snprintf(cmd, sizeof(cmd), "du -sb %s | cut -f1", ws);
    du = popen(cmd, "r");
    if (du && !fgets(line, sizeof(line), du))
        line[0] = '\0';
    if (du)
        pclose(du);
    line[strcspn(line, "\n")] = '\0';
    if (r.out.data)
        r.out.data[strcspn(r.out.data, "\n")] = '\0';
    printf("%-22s %7.0f ms; its tmpfs at the end (bytes, inodes): %s; "
           "limit: %s; the host folder after: %s bytes\n",
           bombs[k].name, ms, r.out.data ? r.out.data : "", r.limit_text, line);
    up_sandbox_result_release(&r);
    sh("rm -rf %s", ws);
}

int main(int argc, char **argv)
{
    up_error e = {0};
    int n = argc > 2 && strcmp(argv[1], "-n") == 0
                ? (int)strtol(argv[2], NULL, 10)
                : 20;

    if (n < 1)
        return 2;
    if (up_sandbox_check(&e) < 0) {
        printf("bench-quota: skipped: %s\n", e.msg);
        return 0;
    }
    for (size_t k = 0; k < sizeof(shapes) / sizeof(*shapes); k++)
        shape_row(k, n);
    for (size_t k = 0; k < sizeof(bombs) / sizeof(*bombs); k++)
        bomb_row(k);
    return 0;
}
