/*
 * fake-llm: the command line and the server's life.
 *
 *   fake-llm --scenario FILE [--port N] [--port-file PATH]
 *            [--max-requests N] [--max-seconds T] [--record FILE.jsonl]
 *            [--seed N]
 *
 * The server binds 127.0.0.1 only.  Once listening it prints "port=N" on
 * stdout and writes N to --port-file atomically, so a shell harness can
 * wait for the file.  The main thread then sleeps in poll() on a pipe
 * that is written by the last of --max-requests requests, by SIGINT or
 * SIGTERM; after --max-seconds (default 300, so a forgotten server dies)
 * it gives up by itself.  Exit codes: 0 done, 2 usage, 3 bad scenario,
 * 4 cannot listen.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upskill/fs.h"

#include "fake.h"

struct opts {
    const char *scenario, *port_file, *record;
    long port, max_requests, max_seconds, seed;
    int seed_set;
};

static const struct opt {
    const char *name;
    int numeric;
    size_t off;
    long max;
} options[] = {
    {"--scenario", 0, offsetof(struct opts, scenario), 0},
    {"--port", 1, offsetof(struct opts, port), 65535},
    {"--port-file", 0, offsetof(struct opts, port_file), 0},
    {"--max-requests", 1, offsetof(struct opts, max_requests), LONG_MAX},
    {"--max-seconds", 1, offsetof(struct opts, max_seconds), 86400},
    {"--record", 0, offsetof(struct opts, record), 0},
    {"--seed", 1, offsetof(struct opts, seed), LONG_MAX},
};

static const char usage[] =
    "usage: fake-llm --scenario FILE [--port N] [--port-file PATH]\n"
    "                [--max-requests N] [--max-seconds T]\n"
    "                [--record FILE.jsonl] [--seed N]\n";

static int wake_pipe[2] = {-1, -1};

static int set_opt(struct opts *op, const struct opt *o, const char *val)
{
    char *end;
    long n;

    if (!o->numeric) {
        *(const char **)((char *)op + o->off) = val;
        return 0;
    }
    errno = 0;
    n = strtol(val, &end, 10);
    if (errno || end == val || *end || n < 0 || n > o->max) {
        fprintf(stderr, "fake-llm: error: %s: bad number '%s'\n", o->name, val);
        return -1;
    }
    *(long *)((char *)op + o->off) = n;
    op->seed_set |= !strcmp(o->name, "--seed");
    return 0;
}

static const struct opt *find_opt(const char *arg, size_t len)
{
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
        if (strlen(options[i].name) == len &&
            !strncmp(options[i].name, arg, len))
            return &options[i];
    return NULL;
}

/* Parse argv into op; returns 0, 1 for --help, -1 on a usage error. */
static int parse_args(struct opts *op, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t len = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        const struct opt *o = find_opt(argv[i], len);
        const char *val = eq ? eq + 1 : argv[i + 1];

        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
        if (!o || !val) {
            fprintf(stderr, "fake-llm: error: %s '%s'\n%s",
                    o ? "missing value for" : "unknown option", argv[i], usage);
            return -1;
        }
        if (set_opt(op, o, val))
            return -1;
        i += !eq;
    }
    if (!op->scenario) {
        fprintf(stderr, "fake-llm: error: --scenario is required\n%s", usage);
        return -1;
    }
    return 0;
}

static void on_signal(int sig)
{
    char c = (char)sig;

    if (write(wake_pipe[1], &c, 1) < 0)
        _exit(1);
}

static void handle_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static long now_ms(void)
{
    return (long)(fake_now_ns() / 1000000);
}

/* Sleep until the wake pipe is written or max_seconds have passed. */
static void wait_for_end(long max_seconds)
{
    long deadline = now_ms() + max_seconds * 1000;
    struct pollfd p = {wake_pipe[0], POLLIN, 0};

    for (;;) {
        long left = deadline - now_ms();
        int rc;

        if (left <= 0) {
            fprintf(stderr, "fake-llm: %ld s limit reached, exiting\n",
                    max_seconds);
            return;
        }
        rc = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (rc > 0 || (rc < 0 && errno != EINTR))
            return;
    }
}

/* Tell the harness the port: stdout, then --port-file (atomically). */
static int announce(unsigned port, const char *port_file, up_error *err)
{
    char line[32];
    int n = snprintf(line, sizeof(line), "%u\n", port);

    printf("port=%u\n", port);
    fflush(stdout);
    if (!port_file)
        return 0;
    return up_fs_write_atomic(port_file, line, (size_t)n, 0644, err);
}

static int setup(struct fake_server *s, const struct opts *op, up_error *err)
{
    int rc = fake_scenario_load(&s->sc, op->scenario, err);

    if (rc)
        return 3;
    if (op->seed_set)
        s->sc.seed = (uint64_t)op->seed;
    s->record = op->record ? fopen(op->record, "a") : NULL;
    if (op->record && !s->record) {
        up_error_set(err, UP_EIO, "'%s': cannot open: %s", op->record,
                     strerror(errno));
        return 3;
    }
    if (pipe(wake_pipe)) {
        up_error_set(err, UP_EIO, "pipe: %s", strerror(errno));
        return 4;
    }
    s->wake_fd = wake_pipe[1];
    s->max_requests = op->max_requests;
    handle_signals();
    if (fake_server_start(s, op->port, err))
        return 4;
    return announce(s->port, op->port_file, err) ? 3 : 0;
}

int main(int argc, char **argv)
{
    struct opts op = {NULL, NULL, NULL, 0, 0, 300, 0, 0};
    static struct fake_server s;
    up_error err = {0, ""};
    int rc = parse_args(&op, argc, argv);

    if (rc)
        return rc > 0 ? (fputs(usage, stdout), 0) : 2;
    rc = setup(&s, &op, &err);
    if (rc)
        fprintf(stderr, "fake-llm: error: %s\n", err.msg);
    else
        wait_for_end(op.max_seconds);
    fake_server_stop(&s);
    if (s.record)
        fclose(s.record);
    fake_scenario_release(&s.sc);
    return rc;
}
