/* Unit tests for the scheduler's circuit breaker and connection caps. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "upskill/http.h"
#include "upskill/sched.h"

#define URL "http://127.0.0.1:1/v1/chat/completions"

static const int ep_a = 1, ep_b = 2; /* endpoints are keys: any address */

/* Note n attempts to ep with code and status; returns how many tripped. */
static int note(up_breaker *b, const void *ep, int n, int code, long status)
{
    int trips = 0;

    for (int i = 0; i < n; i++)
        trips += up_breaker_note(b, ep, code, status, URL, "refused");
    return trips;
}

Test(breaker, threshold_follows_jobs_within_3_to_8)
{
    cr_assert_eq(up_breaker_threshold(1), 3);
    cr_assert_eq(up_breaker_threshold(3), 3);
    cr_assert_eq(up_breaker_threshold(5), 5);
    cr_assert_eq(up_breaker_threshold(8), 8);
    cr_assert_eq(up_breaker_threshold(2000), 8);
}

Test(breaker, trips_after_threshold_transport_failures_in_a_row)
{
    up_breaker b;
    const up_error *e;

    up_breaker_init(&b, 4);
    cr_assert_eq(note(&b, &ep_a, 3, UP_ENETWORK, 0), 0);
    cr_assert_null(up_breaker_tripped(&b, &ep_a), "3 of 4: still closed");
    cr_assert_eq(note(&b, &ep_a, 1, UP_ETIMEOUT, 0), 1, "the 4th trips");
    e = up_breaker_tripped(&b, &ep_a);
    cr_assert_not_null(e);
    cr_assert_eq(e->code, UP_ETIMEOUT, "the code of the tripping attempt");
    cr_assert(strstr(e->msg, "'" URL "'"), "names the endpoint: %s", e->msg);
    cr_assert(strstr(e->msg, "4 failed requests in a row: refused"),
              "and the cause: %s", e->msg);
    cr_assert_eq(note(&b, &ep_a, 5, UP_ENETWORK, 0), 0, "trips once");
    up_breaker_release(&b);
}

Test(breaker, any_answer_from_the_server_resets_the_count)
{
    static const struct {
        int code;
        long status;
    } alive[] = {
        {0, 200},          {UP_ERATELIMIT, 429}, {UP_ESERVER, 500},
        {UP_EBADREQ, 400}, {UP_ETIMEOUT, 408},   {UP_EHTTP, 418},
    };
    up_breaker b;

    up_breaker_init(&b, 3);
    for (size_t i = 0; i < sizeof(alive) / sizeof(*alive); i++) {
        cr_assert_eq(note(&b, &ep_a, 2, UP_ENETWORK, 0), 0);
        cr_assert_eq(note(&b, &ep_a, 1, alive[i].code, alive[i].status), 0);
        cr_assert_null(up_breaker_tripped(&b, &ep_a), "reset by %ld",
                       alive[i].status);
    }
    cr_assert_eq(note(&b, &ep_a, 2, UP_ENETWORK, 0), 0, "count restarted");
    up_breaker_release(&b);
}

Test(breaker, a_refused_key_counts_like_a_dead_server)
{
    up_breaker b;

    up_breaker_init(&b, 3);
    cr_assert_eq(note(&b, &ep_a, 3, UP_EAUTH, 401), 1);
    cr_assert_eq(up_breaker_tripped(&b, &ep_a)->code, UP_EAUTH);
    up_breaker_release(&b);
}

Test(breaker, an_unknown_model_counts_too)
{
    up_breaker b;

    up_breaker_init(&b, 3);
    cr_assert_eq(note(&b, &ep_a, 3, UP_EBADREQ, 404), 1);
    cr_assert_eq(up_breaker_tripped(&b, &ep_a)->code, UP_EBADREQ);
    up_breaker_release(&b);
}

Test(breaker, endpoints_are_counted_apart)
{
    up_breaker b;

    up_breaker_init(&b, 3);
    note(&b, &ep_a, 2, UP_ENETWORK, 0);
    note(&b, &ep_b, 2, UP_ENETWORK, 0);
    note(&b, &ep_b, 1, 0, 200);
    cr_assert_eq(note(&b, &ep_a, 1, UP_ENETWORK, 0), 1, "a's run goes on");
    cr_assert_not_null(up_breaker_tripped(&b, &ep_a));
    cr_assert_null(up_breaker_tripped(&b, &ep_b), "b answered in between");
    cr_assert_null(up_breaker_tripped(NULL, &ep_a), "no breaker: closed");
    up_breaker_release(&b);
}

Test(breaker, default_threshold_is_the_one_for_4_jobs)
{
    up_breaker b;

    up_breaker_init(&b, 0);
    cr_assert_eq(b.threshold, up_breaker_threshold(4));
    up_breaker_release(&b);
}

Test(http, connections_are_capped_per_host)
{
    cr_assert_eq(up_http_conn_cap(0), 64);
    cr_assert_eq(up_http_conn_cap(8), 8);
    cr_assert_eq(up_http_conn_cap(256), UP_HTTP_MAX_HOST_CONNS);
    cr_assert_eq(up_http_conn_cap(2000), UP_HTTP_MAX_HOST_CONNS);
}

/* ---- the breaker inside the scheduler: a closed port ----------------------
 */

struct tally {
    size_t calls, network;
    int gave_up; /* every error names the breaker */
};

static void count_done(void *ud, size_t index, up_response *res)
{
    struct tally *t = ud;

    (void)index;
    t->calls++;
    t->network += res->code == UP_ENETWORK;
    t->gave_up &= strstr(res->err.msg, "gave up on this endpoint") != NULL;
}

Test(breaker, a_closed_port_ends_every_job_with_the_breakers_error)
{
    enum { N = 40 };
    up_endpoint ep;
    up_request rq;
    up_message msg = {"user", "hi"};
    up_job jobs[N];
    up_sched_opts o;
    up_sched_stats st;
    struct tally t = {0, 0, 1};
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.base_url = "http://127.0.0.1:1/v1";
    ep.model = "m";
    up_request_init(&rq);
    rq.messages = &msg;
    rq.n_messages = 1;
    for (size_t i = 0; i < N; i++)
        jobs[i] = (up_job){&ep, &rq, count_done, &t, NULL, NULL};
    up_sched_opts_init(&o);
    o.jobs = 4;
    cr_assert_eq(up_sched_run(jobs, N, &o, &st, &err), 0);
    cr_assert_eq(t.calls, N, "every job is called back once");
    cr_assert_eq(t.network, N, "each with the network error");
    cr_assert(t.gave_up, "and the breaker's message");
    cr_assert_eq(st.failed, N);
    cr_assert_geq(st.broken, N - 4, "at most one wave was tried (%zu)",
                  st.broken);
}

/* ---- jobs from a source: lent slots, the breaker, the stop flag ----------
 */

enum { FEED_MAX = 64, FEED_SLOTS = 8 };

struct feed;

/* What a job borrows: the feed keeps FEED_SLOTS, reused as jobs end. */
struct fslot {
    struct feed *f;
    size_t nth; /* the job it holds: given as the nth */
    int busy;   /* lent out, its done not yet called */
};

struct feed {
    const up_endpoint *ep;
    const up_request *rq;
    size_t n;            /* jobs it has */
    size_t ends_at;      /* says "none left" after this many */
    size_t given, asked; /* jobs given; calls */
    size_t asked_after;  /* calls after it said none left */
    int over;
    size_t out, most_out; /* jobs given, not done; the most at once */
    size_t no_slot;       /* calls that found every slot lent */
    size_t wrong_ud;      /* done calls whose ud or index did not match */
    size_t hits[FEED_MAX];
    int codes[FEED_MAX];
    int gave_up; /* every error names the breaker */
    volatile sig_atomic_t *stop;
    struct fslot slots[FEED_SLOTS];
};

static void feed_done(void *ud, size_t index, up_response *res)
{
    struct fslot *sl = ud;
    struct feed *f = sl->f;

    if (!sl->busy || sl->nth != index || index >= f->given) {
        f->wrong_ud++;
        return;
    }
    sl->busy = 0;
    f->out--;
    f->hits[index]++;
    f->codes[index] = res->code;
    f->gave_up &= strstr(res->err.msg, "gave up on this endpoint") != NULL;
    if (f->stop && !*f->stop)
        *f->stop = 1; /* the first job to end stops the run */
}

static int feed_next(void *ud, up_job *job)
{
    struct feed *f = ud;
    struct fslot *sl = NULL;

    f->asked++;
    f->asked_after += f->over;
    if (f->given >= f->n || f->given >= f->ends_at) {
        f->over = 1;
        return 0;
    }
    for (size_t i = 0; !sl && i < FEED_SLOTS; i++)
        sl = f->slots[i].busy ? NULL : &f->slots[i];
    if (!sl) {
        f->no_slot++;
        return 0;
    }
    *sl = (struct fslot){f, f->given++, 1};
    if (++f->out > f->most_out)
        f->most_out = f->out;
    *job = (up_job){f->ep, f->rq, feed_done, sl, NULL, NULL};
    return 1;
}

/* A closed port, no retries: each attempt fails at once. */
static void closed_port(up_endpoint *ep, up_request *rq, up_message *msg)
{
    up_endpoint_init(ep, UP_WIRE_OPENAI);
    ep->base_url = "http://127.0.0.1:1/v1";
    ep->model = "m";
    ep->max_retries = 0;
    up_request_init(rq);
    rq->messages = msg;
    rq->n_messages = 1;
}

static void feed_init(struct feed *f, size_t n, const up_endpoint *ep,
                      const up_request *rq)
{
    memset(f, 0, sizeof(*f));
    f->ep = ep;
    f->rq = rq;
    f->n = f->ends_at = n;
    f->gave_up = 1;
}

/* One source test's set-up: a closed port, the feed of n jobs, at most
 * jobs at once, and a breaker of its own unless threshold is 0. */
struct rig {
    up_endpoint ep;
    up_request rq;
    up_message msg;
    up_breaker br;
    up_sched_opts o;
    up_sched_stats st;
    up_error err;
};

static void rig_init(struct rig *g, struct feed *f, size_t n, int jobs,
                     int threshold)
{
    g->msg = (up_message){"user", "hi"};
    closed_port(&g->ep, &g->rq, &g->msg);
    feed_init(f, n, &g->ep, &g->rq);
    up_breaker_init(&g->br, threshold);
    up_sched_opts_init(&g->o);
    g->o.jobs = jobs;
    g->o.breaker = threshold ? &g->br : NULL;
}

/* Every job given was called back exactly once, through its own slot. */
static void assert_each_done_once(const struct feed *f)
{
    cr_assert_eq(f->wrong_ud, 0, "done with another job's slot or index");
    cr_assert_eq(f->no_slot, 0, "more jobs out than slots");
    cr_assert_eq(f->out, 0, "every job given got its done");
    for (size_t i = 0; i < f->given; i++)
        cr_assert_eq(f->hits[i], 1, "job %zu: %zu done calls", i, f->hits[i]);
    cr_assert_eq(f->asked_after, 0, "asked again after it had none left");
}

Test(sched_source, more_jobs_than_slots_run_with_at_most_jobs_out)
{
    enum { N = 40 };
    static struct feed f;
    struct rig g;

    rig_init(&g, &f, N, 3, 1000); /* no trip: every job is tried */
    cr_assert_eq(up_sched_run_src(feed_next, &f, &g.o, &g.st, &g.err), 0);
    cr_assert_eq(f.given, N, "the source was read to its end");
    cr_assert_eq(f.asked, N + 1, "and once more, to hear it had no more");
    assert_each_done_once(&f);
    cr_assert_leq(f.most_out, 3, "%zu jobs out at once", f.most_out);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(f.codes[i], UP_ENETWORK, "job %zu: code %d", i,
                     f.codes[i]);
    cr_assert_eq(g.st.failed, N);
    cr_assert_eq(g.st.broken, 0);
    up_breaker_release(&g.br);
}

Test(sched_source, a_source_that_ends_early_is_not_asked_again)
{
    static struct feed f;
    struct rig g;

    rig_init(&g, &f, 30, 2, 1000);
    f.ends_at = 5;
    cr_assert_eq(up_sched_run_src(feed_next, &f, &g.o, &g.st, &g.err), 0);
    cr_assert_eq(f.given, 5);
    assert_each_done_once(&f);
    cr_assert_eq(g.st.failed, 5);

    feed_init(&f, 0, &g.ep, &g.rq); /* nothing at all */
    cr_assert_eq(up_sched_run_src(feed_next, &f, &g.o, &g.st, &g.err), 0);
    cr_assert_eq(f.asked, 1);
    cr_assert_eq(g.st.ok + g.st.failed + g.st.stopped, 0);
    up_breaker_release(&g.br);
}

Test(sched_source, a_tripped_breaker_drains_the_source_without_requests)
{
    enum { N = 40 };
    static struct feed f;
    struct rig g;

    rig_init(&g, &f, N, 4, 0); /* the run's breaker: 4 failures in a row */
    g.ep.max_retries = -1;     /* retrying when the breaker trips: cancelled */
    cr_assert_eq(up_sched_run_src(feed_next, &f, &g.o, &g.st, &g.err), 0);
    cr_assert_eq(f.given, N, "every job was taken from the source");
    assert_each_done_once(&f);
    cr_assert(f.gave_up, "each ended with the breaker's message");
    cr_assert_leq(f.most_out, 4);
    cr_assert_eq(g.st.failed, N);
    cr_assert_geq(g.st.broken, N - 4, "at most one wave was tried (%zu)",
                  g.st.broken);
}

Test(sched_source, the_stop_flag_ends_the_jobs_left_with_eintr)
{
    enum { N = 20 };
    static struct feed f;
    static volatile sig_atomic_t stop;
    struct rig g;

    rig_init(&g, &f, N, 2, 1000);
    stop = 0;
    f.stop = &stop;
    g.o.stop = &stop;
    cr_assert_eq(up_sched_run_src(feed_next, &f, &g.o, &g.st, &g.err),
                 UP_EINTR);
    cr_assert_eq(f.given, N, "the jobs left were taken to be ended");
    assert_each_done_once(&f);
    cr_assert_leq(f.most_out, 3, "jobs + the one drained: %zu", f.most_out);
    for (size_t i = 0; i < 2; i++) /* in flight when the flag rose */
        cr_assert_eq(f.codes[i], UP_ENETWORK, "job %zu ran: %d", i, f.codes[i]);
    for (size_t i = 2; i < N; i++)
        cr_assert_eq(f.codes[i], UP_EINTR, "job %zu never ran: %d", i,
                     f.codes[i]);
    cr_assert_eq(g.st.stopped, N - 2);
    cr_assert_eq(g.st.failed, 2);
    up_breaker_release(&g.br);
}

/* ---- parked jobs: every descriptor is watched (no fixed cap) ---------- */

/*
 * 64 jobs park at once, each on UP_JOB_MAX_FDS pipes of its own; only the
 * last pipe of job k is ever written, by job k-1 as it ends (job 0's at
 * the start, once all have parked).  Each round so has one ready descriptor,
 * somewhere in the 1,536 the loop is handed: a loop that watched only some
 * would find none ready and wait out its 100 ms tick (stats.timeouts), and the
 * jobs wait for an hour of their own, so no wait but a descriptor's ends early.
 */
enum { PJOBS = 64 };

struct pjob {
    struct pjobs *all;
    int rd[UP_JOB_MAX_FDS], wr[UP_JOB_MAX_FDS];
    int done;
};

struct pjobs {
    struct pjob j[PJOBS];
    up_endpoint ep;
    int all_parked;
};

static void pjob_open(struct pjob *p)
{
    for (int i = 0; i < UP_JOB_MAX_FDS; i++) {
        int fd[2];

        cr_assert_eq(pipe(fd), 0, "pipe: %s", strerror(errno));
        p->rd[i] = fd[0];
        p->wr[i] = fd[1];
    }
}

static void pjob_close(struct pjob *p)
{
    for (int i = 0; i < UP_JOB_MAX_FDS; i++) {
        close(p->rd[i]);
        close(p->wr[i]);
    }
}

static void pjob_kick(struct pjob *p)
{
    cr_assert_eq(write(p->wr[UP_JOB_MAX_FDS - 1], "x", 1), 1);
}

static const up_request *pjob_next(void *ud, size_t index, up_response *res)
{
    struct pjobs *a = ud;
    struct pjob *p = &a->j[index];
    struct pollfd q = {p->rd[UP_JOB_MAX_FDS - 1], POLLIN, 0};

    (void)res;
    if (index + 1 == PJOBS && !a->all_parked) { /* the last one starts */
        a->all_parked = 1;
        pjob_kick(&a->j[0]);
    }
    if (poll(&q, 1, 0) != 1)
        return UP_JOB_PARKED;
    if (index + 1 < PJOBS)
        pjob_kick(&a->j[index + 1]);
    return NULL;
}

static int pjob_wait(void *ud, size_t index, int *fds, int max, int *ms)
{
    struct pjobs *a = ud;

    cr_assert_eq(max, UP_JOB_MAX_FDS);
    memcpy(fds, a->j[index].rd, sizeof(a->j[index].rd));
    *ms = 3600 * 1000;
    return UP_JOB_MAX_FDS;
}

static void pjob_done(void *ud, size_t index, up_response *res)
{
    struct pjobs *a = ud;

    (void)res;
    a->j[index].done++;
}

Test(sched_parked, every_descriptor_of_64_full_jobs_wakes_its_job)
{
    static struct pjobs a;
    up_job jobs[PJOBS];
    up_sched_opts o;
    up_sched_stats st;
    up_error err;

    up_endpoint_init(&a.ep, UP_WIRE_OPENAI);
    for (size_t i = 0; i < PJOBS; i++) {
        pjob_open(&a.j[i]);
        jobs[i] = (up_job){&a.ep, NULL, pjob_done, &a, pjob_next, pjob_wait};
    }
    up_sched_opts_init(&o);
    o.jobs = PJOBS;
    cr_assert_eq(up_sched_run(jobs, PJOBS, &o, &st, &err), 0);
    for (size_t i = 0; i < PJOBS; i++) {
        cr_assert_eq(a.j[i].done, 1, "job %zu: %d done calls", i, a.j[i].done);
        pjob_close(&a.j[i]);
    }
    cr_assert_eq(st.ok, PJOBS);
    cr_assert_eq(st.timeouts, 0,
                 "%zu rounds woke on the tick, not on a descriptor",
                 st.timeouts);
}

/* The models listing runs as a job of the loop: a raised stop flag ends
 * it before any request, with UP_EINTR (the old private loop of
 * up_http_perform had no stop flag). */
Test(sched_http, the_stop_flag_ends_it_before_the_request)
{
    up_endpoint ep;
    up_http_request rq;
    up_http_result res;
    volatile sig_atomic_t stop = 1;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    memset(&rq, 0, sizeof(rq));
    rq.url = "http://127.0.0.1:1/v1/models";
    cr_assert_eq(up_sched_http(&ep, &rq, &stop, &res), UP_EINTR);
    cr_assert_eq(res.code, UP_EINTR);
    cr_assert_eq(res.attempts, 0, "no request went out");
    up_http_result_release(&res);
}

/* A refused connection ends it with the transfer's own error, after its
 * retries, as before; and the runs share the command's loop: one client
 * for both calls (a fresh curl multi handle each, before). */
Test(sched_http, a_closed_port_fails_with_the_transfers_error_on_one_loop)
{
    up_endpoint ep;
    up_http_request rq;
    up_http_result res;
    size_t built;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    memset(&rq, 0, sizeof(rq));
    rq.url = "http://127.0.0.1:1/v1/models";
    rq.policy.max_retries = 1;
    rq.policy.base_delay_ms = 1;
    rq.policy.max_delay_ms = 1;
    rq.policy.max_retry_after_ms = 1;
    cr_assert_eq(up_sched_http(&ep, &rq, NULL, &res), UP_ENETWORK);
    cr_assert_eq(res.attempts, 2, "the request's retries are kept");
    cr_assert(strstr(res.err.msg, "127.0.0.1:1"), "%s", res.err.msg);
    up_http_result_release(&res);
    built = up_loop_clients();
    cr_assert_eq(up_sched_http(&ep, &rq, NULL, &res), UP_ENETWORK);
    up_http_result_release(&res);
    cr_assert_eq(up_loop_clients(), built, "the second call reuses the loop");
    up_loop_release();
}
