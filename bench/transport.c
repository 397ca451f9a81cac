/*
 * bench-transport: N bare chat requests through up_sched_run, timed.
 *
 * The provider-level benchmark of issue 3: no skill, no grading, no
 * journal, just the scheduler, the OpenAI-compatible provider and the
 * HTTP client against a server given on the command line (bench/run.sh
 * points it at build/fake-llm answering after 50 ms).  It prints one
 * line: the request count, how many succeeded, the wall time, the
 * physical limit ceil(N / J) x TURNS x DELAY and their ratio, and the
 * median and largest per-request latency (to tell server time from client
 * time).  -t TURNS makes each job a chain of TURNS requests, each sent when
 * the one before is answered, and -s BYTES pads the system prompt to about
 * BYTES: with -t 3 -s 2400 the chains have the shape of agent mode's
 * conversations (bench/README.md, row transport-3) without its tools,
 * workspaces or grading.
 * Exit 0 when every request succeeded, 1 otherwise, 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/provider.h"
#include "upskill/sched.h"

#define USAGE                                                                  \
    "usage: bench-transport BASE_URL [-n REQUESTS] [-j JOBS] "                 \
    "[-d DELAY_MS] [-m MODEL] [-t TURNS] [-s SYSTEM_BYTES]\n"

typedef struct args {
    const char *url, *model;
    long n, jobs, delay_ms, turns, system_bytes;
} args;

typedef struct tally {
    const up_request *rq;
    long turns;
    long *turn;    /* per job, turns sent */
    long *latency; /* per job, ms (all its turns) */
    size_t ok;
    up_error first_err;
    int have_err;
} tally;

/* A positive integer from s into *out, or -1. */
static int parse_count(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v <= 0)
        return -1;
    *out = v;
    return 0;
}

/* The option letter of argv[i] ("-n" -> 'n'), or 0. */
static int option_letter(const char *a)
{
    static const char letters[] = "njdmts";

    if (a[0] != '-' || a[1] == '\0' || a[2] != '\0')
        return 0;
    return strchr(letters, a[1]) ? a[1] : 0;
}

static int parse_args(int argc, char **argv, args *a)
{
    a->url = NULL;
    a->model = "local";
    a->n = 2000;
    a->jobs = 64;
    a->delay_ms = 50;
    a->turns = 1;
    a->system_bytes = 0;
    for (int i = 1; i < argc; i++) {
        int opt = option_letter(argv[i]);
        long *dst = opt == 'n'   ? &a->n
                    : opt == 'j' ? &a->jobs
                    : opt == 't' ? &a->turns
                    : opt == 's' ? &a->system_bytes
                                 : &a->delay_ms;

        if (!opt && !a->url && argv[i][0] != '-')
            a->url = argv[i];
        else if (!opt || i + 1 == argc)
            return -1;
        else if (opt == 'm')
            a->model = argv[++i];
        else if (parse_count(argv[++i], dst))
            return -1;
    }
    return a->url && a->jobs <= 1024 ? 0 : -1;
}

static void on_done(void *ud, size_t index, up_response *res)
{
    tally *t = ud;

    t->latency[index] = res->latency_ms;
    if (res->code == 0) {
        t->ok++;
    } else if (!t->have_err) {
        t->first_err = res->err;
        t->have_err = 1;
    }
}

/* A job's next turn: the same request until it has sent turns of them. */
static const up_request *next_turn(void *ud, size_t index, up_response *res)
{
    tally *t = ud;

    (void)res;
    return t->turn[index]++ < t->turns ? t->rq : NULL;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;

    return (x > y) - (x < y);
}

static void report(const args *a, const tally *t, const up_sched_stats *st)
{
    long rounds = (a->n + a->jobs - 1) / a->jobs;
    long limit = rounds * a->turns * a->delay_ms;

    qsort(t->latency, (size_t)a->n, sizeof(long), cmp_long);
    printf("requests %ld ok %zu jobs %ld wall_ms %ld limit_ms %ld "
           "ratio %.3f turns %ld latency_ms p50 %ld p90 %ld p99 %ld max %ld\n",
           a->n, t->ok, a->jobs, st->elapsed_ms, limit,
           (double)st->elapsed_ms / (double)limit, a->turns,
           t->latency[a->n / 2], t->latency[a->n * 9 / 10],
           t->latency[a->n * 99 / 100], t->latency[a->n - 1]);
    if (t->have_err)
        fprintf(stderr, "bench-transport: first error: %s\n", t->first_err.msg);
}

/* The system prompt, padded with words to about bytes. */
static char *padded_system(long bytes)
{
    static const char base[] = "You are a helpful assistant.";
    size_t n = bytes > (long)sizeof(base) ? (size_t)bytes : sizeof(base);
    char *s = up_xmalloc(n);

    memcpy(s, base, sizeof(base));
    for (size_t i = sizeof(base) - 1; i + 1 < n; i++)
        s[i] = i % 6 ? 'x' : ' ';
    s[n - 1] = '\0';
    return s;
}

int main(int argc, char **argv)
{
    args a;
    up_endpoint ep;
    up_request rq;
    up_message msg = {"user", "question number 1"};
    up_sched_opts o;
    up_sched_stats st;
    up_job *jobs = NULL;
    tally t = {0};
    char *system = NULL;
    up_error err;
    int rc = 2;

    if (parse_args(argc, argv, &a)) {
        fputs(USAGE, stderr);
        goto out;
    }
    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.base_url = a.url;
    ep.model = a.model;
    ep.compat = 1;
    up_request_init(&rq);
    system = padded_system(a.system_bytes);
    rq.system = system;
    rq.messages = &msg;
    rq.n_messages = 1;
    jobs = up_xcalloc((size_t)a.n, sizeof(*jobs));
    t.latency = up_xcalloc((size_t)a.n, sizeof(long));
    t.turn = up_xcalloc((size_t)a.n, sizeof(long));
    t.rq = &rq;
    t.turns = a.turns;
    for (long i = 0; i < a.n; i++)
        jobs[i] = (up_job){.ep = &ep,
                           .rq = a.turns > 1 ? NULL : &rq,
                           .done = on_done,
                           .ud = &t,
                           .next = a.turns > 1 ? next_turn : NULL};
    up_sched_opts_init(&o);
    o.jobs = (int)a.jobs;
    rc = 1;
    if (up_sched_run(jobs, (size_t)a.n, &o, &st, &err)) {
        fprintf(stderr, "bench-transport: %s\n", err.msg);
        goto out;
    }
    report(&a, &t, &st);
    rc = t.ok == (size_t)a.n ? 0 : 1;
out:
    free(jobs);
    free(t.latency);
    free(t.turn);
    free(system);
    return rc;
}
