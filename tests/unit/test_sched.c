/* Unit tests for the scheduler's circuit breaker and connection caps. */
#include <criterion/criterion.h>
#include <string.h>

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

    up_endpoint_init(&ep, UP_PROVIDER_OPENAI);
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
