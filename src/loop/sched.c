/*
 * The job scheduler: many conversations over one HTTP client.
 *
 * One thread, one curl multi handle: the command's loop, kept from run to
 * run so the connections stay open between one-job calls.  The loop tops up the
 * in-flight set to the current limit, then lets up_http_run move bytes and fire
 * completions.  A job is a small state machine: build a request for its
 * conversation, submit, read the reply; for schema requests whose reply is
 * not JSON it appends the bad reply and a repair prompt and submits again
 * (at most rq->json_repairs times).  429s seen by the attempt log halve the
 * limit, but only for attempts that started after the previous cut, so a
 * burst of 429s from one round counts once (like TCP's one cut per
 * window).
 *
 * The circuit breaker (sched.h) sees the same attempts.  Once an
 * endpoint trips, the loop cancels that endpoint's jobs in flight and
 * ends its jobs not started without a request, so a dead server costs
 * one wave of attempts, not every job's retries.  The loop also watches
 * for long stretches in which no job gets its answer (retries, rate
 * limits, a silent server) and tells the caller why, so a run without a
 * terminal is never silent for long.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "providers/providers.h"
#include "upskill/alloc.h"
#include "upskill/sched.h"

#define REPAIR_PROMPT                                                          \
    "Your reply was not valid JSON (%s). Reply again with only the JSON "      \
    "value that matches the schema, and no other text."

typedef struct sched sched;

typedef struct job {
    sched *s;
    size_t index;     /* the order in which the source gave it */
    size_t slot;      /* in s->active */
    up_job spec;      /* a copy: what it points to stays borrowed */
    up_request rq;    /* spec->rq with the grown conversation */
    up_message *msgs; /* original turns + repair turns */
    size_t nmsgs, cap;
    char **owned; /* strings of the repair turns */
    size_t nowned;
    int repairs_left;
    up_reply reply;
    up_response res;
    up_http_xfer *xfer; /* the request in flight */
    long t0, deadline;
    long turn_t0; /* when the turn in flight was submitted */
    int broken;   /* cancelled by the breaker */
    int parked;   /* next gave UP_JOB_PARKED: slow work, no request */
    int streamed; /* the request in flight asked for a stream */
} job;

struct sched {
    const up_sched_opts *o;
    up_http_client *client;
    job **active; /* jobs in flight, o->jobs slots */
    size_t nactive;
    int limit, max;
    int successes; /* since the last change of limit */
    long last_cut; /* when the limit was last halved */
    up_sched_stats st;
    up_breaker *br;      /* o->breaker or own */
    up_buf last_fail;    /* the last failed attempt's target and reason */
    long last_delay;     /* its wait before the next try, -1 for none */
    long last_ok;        /* when a job last got its answer (or the start) */
    long next_note;      /* when to call o->waiting next */
    int *fds;            /* the parked jobs' fds, UP_JOB_MAX_FDS per slot */
    up_sched_source src; /* where the jobs come from */
    void *src_ud;
    size_t taken;   /* jobs the source gave so far */
    int dry;        /* 1: the source said it has no more */
    int stop_noted; /* the stop flag was seen (and said) */
};

const up_request up_job_parked;

/* ---- the circuit breaker ---------------------------------------------- */

/* Codes of attempts that got no HTTP answer: nobody is answering at ep. */
static const int dead_codes[] = {UP_ENETWORK, UP_ETIMEOUT};

/* Answers that no retry or other request to ep will change: the key is
 * refused, or the model (or the path) is unknown. */
static const long dead_statuses[] = {401, 403, 404};

static int is_dead(int code, long status)
{
    for (size_t i = 0; !status && i < sizeof(dead_codes) / sizeof(*dead_codes);
         i++)
        if (dead_codes[i] == code)
            return 1;
    for (size_t i = 0; i < sizeof(dead_statuses) / sizeof(*dead_statuses); i++)
        if (dead_statuses[i] == status)
            return 1;
    return 0;
}

int up_breaker_threshold(int jobs)
{
    return jobs < 3 ? 3 : jobs > 8 ? 8 : jobs;
}

void up_breaker_init(up_breaker *b, int threshold)
{
    memset(b, 0, sizeof(*b));
    b->threshold = threshold > 0 ? threshold : up_breaker_threshold(4);
}

void up_breaker_release(up_breaker *b)
{
    free(b->v);
    memset(b, 0, sizeof(*b));
}

static up_breaker_ep *find_ep(const up_breaker *b, const void *ep)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].ep == ep)
            return &b->v[i];
    return NULL;
}

int up_breaker_note(up_breaker *b, const void *ep, int code, long status,
                    const char *target, const char *why)
{
    up_breaker_ep *e = find_ep(b, ep);

    if (!e) {
        UP_GROW(b->v, b->cap, b->n + 1);
        e = &b->v[b->n++];
        memset(e, 0, sizeof(*e));
        e->ep = ep;
    }
    if (e->tripped)
        return 0;
    if (!is_dead(code, status)) {
        e->fails = 0;
        return 0;
    }
    if (++e->fails < b->threshold)
        return 0;
    e->tripped = 1;
    up_error_set(&e->why, code,
                 "'%s': gave up on this endpoint after %d failed requests "
                 "in a row: %s",
                 target ? target : "?", e->fails,
                 why ? why : up_strerror(code));
    return 1;
}

const up_error *up_breaker_tripped(const up_breaker *b, const void *ep)
{
    const up_breaker_ep *e = b ? find_ep(b, ep) : NULL;

    return e && e->tripped ? &e->why : NULL;
}

/* ---- the command's loop ----------------------------------------------- */

/*
 * The loop's HTTP client, one per thread (only the command's thread runs
 * jobs): built by the first run, reused by every later one, so serial
 * one-job calls keep their connections.  busy: a run drives it now (a run
 * started from inside another's callback gets a private client).
 */
static _Thread_local struct {
    up_http_client *client;
    int busy;
    size_t built; /* clients built so far, the loop's and private ones */
} the_loop;

/* The client for a run of max jobs; *own says it is a private one. */
static up_http_client *loop_take(int max, int *own)
{
    up_http_client *c;

    *own = the_loop.busy;
    if (*own || !the_loop.client) {
        c = up_http_client_new(max);
        if (!c)
            return NULL;
        the_loop.built++;
        if (*own)
            return c;
        the_loop.client = c;
    }
    up_http_client_set_conns(the_loop.client, max);
    the_loop.busy = 1;
    return the_loop.client;
}

/* A run is over with c (every transfer of it ended). */
static void loop_give(up_http_client *c, int own)
{
    if (own) {
        up_http_client_free(c);
        return;
    }
    up_http_client_set_log(c, NULL, NULL);
    the_loop.busy = 0;
}

void up_loop_release(void)
{
    if (the_loop.busy)
        return;
    up_http_client_free(the_loop.client);
    the_loop.client = NULL;
}

size_t up_loop_clients(void)
{
    return the_loop.built;
}

/* ---- the scheduler ---------------------------------------------------- */

void up_sched_opts_init(up_sched_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->jobs = 4;
    o->grow_after = 8;
}

/* Remember a failed attempt for the next "still waiting" note. */
static void note_fail(sched *s, const up_http_attempt *a)
{
    up_buf_reset(&s->last_fail);
    up_buf_addf(&s->last_fail, "'%s': %s", a->target,
                a->error ? a->error : up_strerror(a->code));
    s->last_delay = a->delay_ms;
}

static void on_attempt(void *ud, const up_http_attempt *a)
{
    sched *s = ud;
    long now = up_http_now_ms();
    const job *j = a->ud;

    /* a CLI's 404 is about its own path (a probe), not the endpoint */
    if (j && !(j->rq.raw && a->status == 404))
        up_breaker_note(s->br, j->spec.ep, a->code, a->status, a->target,
                        a->error);
    if (a->code)
        note_fail(s, a);

    if (a->status == 429 && now - a->elapsed_ms >= s->last_cut &&
        s->limit > 1) {
        s->limit /= 2;
        s->last_cut = now;
        s->successes = 0;
        if (s->limit < s->st.min_limit)
            s->st.min_limit = s->limit;
    }
    if (s->o->log)
        s->o->log(s->o->log_ud, a);
}

static void count_success(sched *s)
{
    if (++s->successes < s->o->grow_after)
        return;
    s->successes = 0;
    if (s->limit < s->max)
        s->limit++;
}

/* The job is over: hand the response over, free the job. */
static void complete(job *j)
{
    sched *s = j->s;

    j->res.latency_ms = up_http_now_ms() - j->t0;
    s->st.broken += j->broken;
    if (j->res.code == 0) {
        s->last_ok = up_http_now_ms();
        s->st.ok++;
        count_success(s);
    } else if (j->res.code == UP_EINTR) {
        s->st.stopped++;
    } else {
        s->st.failed++;
    }
    s->active[j->slot] = s->active[--s->nactive];
    s->active[j->slot]->slot = j->slot;
    j->spec.done(j->spec.ud, j->index, &j->res);
    up_response_release(&j->res);
    up_reply_release(&j->reply);
    for (size_t i = 0; i < j->nowned; i++)
        free(j->owned[i]);
    free(j->owned);
    free(j->msgs);
    free(j);
}

static void fail(job *j, int code, const up_error *err)
{
    j->res.code = code;
    if (err)
        j->res.err = *err;
    complete(j);
}

static int on_data(void *ud, const char *p, size_t n, up_buf *msg)
{
    job *j = ud;

    return up_reply_feed(&j->reply, p, n, msg);
}

static void on_reset(void *ud)
{
    up_reply_reset(&((job *)ud)->reply);
}

static int committed(void *ud)
{
    return ((job *)ud)->reply.committed;
}

static void http_done(void *ud, up_http_result *res);

static void fill_request(job *j, up_http_request *hr)
{
    const up_endpoint *ep = j->spec.ep;

    memset(hr, 0, sizeof(*hr));
    hr->connect_timeout_ms = ep->connect_timeout_ms;
    hr->total_timeout_ms = ep->total_timeout_ms;
    hr->idle_timeout_ms = ep->idle_timeout_ms;
    hr->first_byte_ms = ep->first_byte_ms;
    hr->deadline_ms = j->deadline;
    up_http_policy_default(&hr->policy);
    if (ep->max_retries >= 0)
        hr->policy.max_retries = ep->max_retries;
    if (ep->stream)
        hr->on_data = on_data;
    hr->on_reset = on_reset;
    hr->committed = committed;
    hr->ud = j;
    hr->limits = up_provider_limits(ep->kind);
    hr->key_prefixes = up_provider_key_prefixes();
    hr->quota_words = up_provider_quota_words();
    hr->refusals = up_provider_refusal_words();
}

/* Submit a relayed request as it is (a coding-agent CLI's, through its
 * proxy): the real key added, nothing built; on failure the job
 * completes. */
static void submit_raw(job *j)
{
    const up_raw_request *raw = j->rq.raw;
    up_hdrs h = {0};
    up_http_request hr;
    up_error err;

    if (up_provider_raw_headers(j->spec.ep, raw, &h, &err)) {
        fail(j, err.code, &err);
        up_hdrs_release(&h);
        return;
    }
    fill_request(j, &hr);
    hr.on_data = NULL; /* the CLI reads the stream: keep it whole */
    hr.url = raw->url;
    hr.method = raw->method;
    hr.headers = (const char *const *)h.v;
    hr.body = raw->body;
    hr.body_len = raw->body_len;
    if (raw->deadline_ms > 0 &&
        (!hr.deadline_ms || raw->deadline_ms < hr.deadline_ms))
        hr.deadline_ms = raw->deadline_ms;
    j->res.turns++;
    j->turn_t0 = up_http_now_ms();
    j->xfer = up_http_submit(j->s->client, &hr, http_done, j);
    up_hdrs_release(&h);
}

/* A job of up_sched_http: rq is the_http, ud this. */
typedef struct http_call {
    const up_http_request *rq;
    up_http_result *out;
    int taken; /* out holds the transfer's result */
} http_call;

static const up_request the_http;

/* Submit an up_sched_http job's request as it is. */
static void submit_http(job *j)
{
    const http_call *c = j->spec.ud;
    up_http_request hr = *c->rq;

    hr.on_data = NULL;
    hr.on_reset = NULL;
    hr.committed = NULL;
    hr.ud = j;
    if (j->deadline && (!hr.deadline_ms || j->deadline < hr.deadline_ms))
        hr.deadline_ms = j->deadline;
    j->res.turns++;
    j->turn_t0 = up_http_now_ms();
    j->xfer = up_http_submit(j->s->client, &hr, http_done, j);
}

/* Build and submit the next turn; on failure the job completes. */
static void submit(job *j)
{
    up_buf url = UP_BUF_INIT, body = UP_BUF_INIT;
    up_hdrs h = {0};
    up_http_request hr;
    up_error err;

    if (j->rq.raw) {
        submit_raw(j);
        return;
    }
    up_reply_reset(&j->reply);
    if (up_provider_build(j->spec.ep, &j->rq, &url, &h, &body, &err)) {
        fail(j, err.code, &err);
        goto out;
    }
    fill_request(j, &hr);
    j->streamed = up_provider_streams(j->spec.ep, &j->rq);
    hr.url = url.data;
    hr.headers = (const char *const *)h.v;
    hr.body = body.data;
    hr.body_len = body.len;
    j->res.turns++;
    j->turn_t0 = up_http_now_ms();
    j->xfer = up_http_submit(j->s->client, &hr, http_done, j);
out:
    up_hdrs_release(&h);
    up_buf_release(&url);
    up_buf_release(&body);
}

static void add_turn(job *j, const char *role, char *content)
{
    UP_GROW(j->msgs, j->cap, j->nmsgs + 1);
    j->msgs[j->nmsgs].role = role;
    j->msgs[j->nmsgs++].content = content;
    j->owned = up_xrealloc(j->owned, (j->nowned + 1) * sizeof(char *));
    j->owned[j->nowned++] = content;
    j->rq.messages = j->msgs;
    j->rq.n_messages = j->nmsgs;
}

/* A schema reply that is not JSON: ask again, or give up. */
static void repair_or_fail(job *j, const char *why)
{
    up_buf prompt = UP_BUF_INIT;
    up_error err;

    if (j->repairs_left-- <= 0) {
        up_error_set(
            &err, UP_EPARSE, "'%s': reply is not JSON after %d turns: %s",
            j->spec.ep->model ? j->spec.ep->model : "model", j->res.turns, why);
        fail(j, UP_EPARSE, &err);
        return;
    }
    up_buf_addf(&prompt, REPAIR_PROMPT, why);
    add_turn(j, "assistant", up_xstrdup(j->res.text));
    add_turn(j, "user", up_buf_detach(&prompt));
    submit(j);
}

/* What next gave: submit the request, end the job, or park it. */
static void go_on(job *j, const up_request *rq)
{
    int attempts = j->res.attempts, turns = j->res.turns;

    j->parked = rq == UP_JOB_PARKED;
    if (j->parked)
        return;
    if (!rq) {
        complete(j);
        return;
    }
    if (j->s->o->stop && *j->s->o->stop) { /* a turn boundary: stop here */
        up_error e;

        up_error_set(&e, UP_EINTR, "interrupted between two turns");
        fail(j, UP_EINTR, &e);
        return;
    }
    up_response_release(&j->res);
    up_response_init(&j->res);
    j->res.attempts = attempts;
    j->res.turns = turns;
    j->rq = *rq;
    submit(j);
}

/* A multi-turn job's turn is answered: its next request, or the end. */
static void next_turn(job *j)
{
    j->res.latency_ms = up_http_now_ms() - j->turn_t0;
    go_on(j, j->spec.next(j->spec.ud, j->index, &j->res));
}

/* Warn (once per endpoint) of a prompt the server seems to have cut. */
static void check_prompt(job *j)
{
    up_buf msg = UP_BUF_INIT;

    if (j->s->o->warn && up_reply_prompt_cut(&j->reply, &j->rq, &msg))
        j->s->o->warn(j->s->o->warn_ud, msg.data);
    up_buf_release(&msg);
}

/* A 2xx arrived: read it into the response, check JSON if asked. */
static void take_reply(job *j, up_http_result *res)
{
    up_error err;
    up_buf why = UP_BUF_INIT;
    int rc = j->spec.ep->stream ? up_reply_end(&j->reply, res->ctype, &err)
                                : up_reply_parse(&j->reply, res->body.data,
                                                 res->body.len, &err);

    if (rc) {
        rc = rc == UP_ENETWORK ? UP_ENETWORK : UP_EHTTP;
        if (rc == UP_ENETWORK) /* a cut stream: keep the partial output */
            up_reply_finish(&j->reply, &j->rq, &j->res);
        up_error_prefix(&err, "'%s': ", j->spec.ep->model);
        fail(j, rc, &err);
    } else {
        check_prompt(j);
        up_reply_finish(&j->reply, &j->rq, &j->res);
        if (j->rq.schema && !j->rq.msgs &&
            up_provider_check_json(&j->res.text, &why))
            repair_or_fail(j, why.data);
        else if (j->spec.next)
            next_turn(j);
        else
            complete(j);
    }
    up_buf_release(&why);
}

/* A relayed request's reply into the response as it came (an error
 * status too: the CLI reads it), or a 502 saying why none came; then
 * the job's next request. */
static void take_raw(job *j, up_http_result *res)
{
    up_response *r = &j->res;

    if (res->status) {
        r->raw_len = res->body.len;
        r->raw_body =
            res->body.data ? up_buf_detach(&res->body) : up_xstrdup("");
        snprintf(r->raw_ctype, sizeof(r->raw_ctype), "%s", res->ctype);
        r->http_status = res->status;
    } else {
        json_t *e = json_pack("{s:{s:s,s:s}}", "error", "type", "proxy_error",
                              "message", res->err.msg);

        r->raw_body = json_dumps(e, JSON_COMPACT);
        r->raw_len = strlen(r->raw_body);
        json_decref(e);
        snprintf(r->raw_ctype, sizeof(r->raw_ctype), "application/json");
        r->http_status = 502;
    }
    next_turn(j);
}

/* An up_sched_http transfer ended: its result is the caller's. */
static void take_http(job *j, up_http_result *res)
{
    http_call *c = j->spec.ud;

    *c->out = *res;
    up_buf_init(&res->body);
    c->taken = 1;
    j->res.code = res->code;
    if (res->code)
        j->res.err = res->err;
    complete(j);
}

static void http_done(void *ud, up_http_result *res)
{
    job *j = ud;
    const up_error *tripped = up_breaker_tripped(j->s->br, j->spec.ep);

    if (j->broken && tripped) { /* cancelled: end with the breaker's word */
        res->code = tripped->code;
        res->err = *tripped;
    }
    j->xfer = NULL;
    j->res.attempts += res->attempts;
    j->res.http_status = res->status;
    memcpy(j->res.request_id, res->request_id, sizeof(j->res.request_id));
    if (j->spec.rq == &the_http) {
        take_http(j, res);
        return;
    }
    if (j->rq.raw && !j->broken && res->code != UP_EINTR) {
        take_raw(j, res);
        return;
    }
    if (res->code == 0) {
        take_reply(j, res);
        return;
    }
    if (j->streamed && res->code != UP_ECONTEXT &&
        up_provider_stream_refused(j->spec.ep, &j->rq, res->status,
                                   res->body.data, res->body.len)) {
        submit(j); /* once more without "stream"; remembered */
        return;
    }
    up_reply_finish(&j->reply, &j->rq, &j->res); /* keep partial output */
    up_provider_refusal_fix(res->body.data, res->body.len, &res->err);
    fail(j, res->code, &res->err);
}

static void start(sched *s, const up_job *spec, size_t index)
{
    job *j = up_xcalloc(1, sizeof(*j));

    j->s = s;
    j->index = index;
    j->spec = *spec;
    if (spec->rq) {
        j->rq = *spec->rq;
        j->repairs_left =
            spec->rq->json_repairs < 0 ? 2 : spec->rq->json_repairs;
        UP_GROW(j->msgs, j->cap, spec->rq->n_messages + 4);
        if (spec->rq->n_messages) /* an agent's turn has msgs instead */
            memcpy(j->msgs, spec->rq->messages,
                   spec->rq->n_messages * sizeof(up_message));
        j->nmsgs = spec->rq->n_messages;
        j->rq.messages = j->msgs;
    }
    up_reply_init(&j->reply, spec->ep);
    up_response_init(&j->res);
    j->t0 = up_http_now_ms();
    if (s->o->job_timeout_ms > 0)
        j->deadline = j->t0 + s->o->job_timeout_ms;
    j->slot = s->nactive;
    s->active[s->nactive++] = j;
    if (spec->rq == &the_http) {
        submit_http(j);
        return;
    }
    if (!spec->rq && spec->next) { /* the conversation's first request */
        const up_request *rq = spec->next(spec->ud, index, NULL);

        if (!rq)
            fail(j, UP_EIO, NULL);
        else
            go_on(j, rq); /* or parked from the start (a process) */
        return;
    }
    submit(j);
}

/* A job that never ran because of the stop flag. */
static void never_ran(sched *s, const up_job *spec, size_t index)
{
    up_response res;

    up_response_init(&res);
    res.code = up_error_set(&res.err, UP_EINTR, "interrupted before start");
    s->st.stopped++;
    spec->done(spec->ud, index, &res);
    up_response_release(&res);
}

/* A job whose endpoint's breaker tripped before it started. */
static void not_sent(sched *s, const up_job *spec, size_t index,
                     const up_error *why)
{
    up_response res;

    up_response_init(&res);
    res.code = why->code;
    res.err = *why;
    s->st.failed++;
    s->st.broken++;
    spec->done(spec->ud, index, &res);
    up_response_release(&res);
}

/* Cancel the jobs in flight whose endpoint's breaker has tripped. */
static void sweep_broken(sched *s)
{
    /* Downwards: completing slot i moves the last job, already seen, in. */
    for (size_t i = s->nactive; i-- > 0;) {
        job *j = i < s->nactive ? s->active[i] : NULL;
        const up_error *why = j ? up_breaker_tripped(s->br, j->spec.ep) : NULL;

        if (!why)
            continue;
        j->broken = 1;
        if (j->xfer)
            up_http_cancel(s->client, j->xfer);
        else
            fail(j, why->code, why);
    }
}

/* No answer for a while: tell the caller what the run waits for. */
static void maybe_note_wait(sched *s)
{
    long now = up_http_now_ms();
    long every = s->o->wait_every_ms > 0 ? s->o->wait_every_ms : 10000;
    up_sched_wait w;

    if (!s->o->waiting || now - s->last_ok < every || now < s->next_note)
        return;
    s->next_note = now + every;
    w.waited_ms = now - s->last_ok;
    w.in_flight = s->nactive;
    w.failed = s->st.failed;
    w.last = s->last_fail.len ? s->last_fail.data : NULL;
    w.retry_in_ms = s->last_delay;
    w.stopping = 0;
    s->o->waiting(s->o->waiting_ud, &w);
}

/* The first sight of the stop flag: tell the caller how many jobs are
 * finishing their turn, unless they are cancelled now anyway. */
static void note_stop(sched *s, int cancelling)
{
    up_sched_wait w;

    if (s->stop_noted)
        return;
    s->stop_noted = 1;
    if (!s->o->waiting || !s->nactive || cancelling)
        return;
    memset(&w, 0, sizeof(w));
    w.waited_ms = up_http_now_ms() - s->last_ok;
    w.in_flight = s->nactive;
    w.failed = s->st.failed;
    w.retry_in_ms = -1;
    w.stopping = 1;
    s->o->waiting(s->o->waiting_ud, &w);
}

static void cancel_all(sched *s)
{
    while (s->nactive) {
        job *j = s->active[s->nactive - 1];

        if (j->xfer)
            up_http_cancel(s->client, j->xfer);
        else
            fail(j, UP_EINTR, NULL);
    }
}

/* The parked jobs' fds into s->fds (their count) and the wait in *ms. */
static size_t parked_fds(sched *s, long *ms)
{
    size_t n = 0;

    for (size_t i = 0; i < s->nactive; i++) {
        const job *j = s->active[i];
        int t = 0;

        if (!j->parked || !j->spec.wait)
            continue;
        n += (size_t)j->spec.wait(j->spec.ud, j->index, s->fds + n,
                                  UP_JOB_MAX_FDS, &t);
        if (t < *ms)
            *ms = t < 0 ? 0 : t;
    }
    return n;
}

/* Ask every parked job again: it may have its next request now. */
static void resume_parked(sched *s)
{
    /* Downwards: completing slot i moves the last job, already seen, in. */
    for (size_t i = s->nactive; i-- > 0;) {
        job *j = i < s->nactive ? s->active[i] : NULL;

        if (j && j->parked)
            go_on(j, j->spec.next(j->spec.ud, j->index, NULL));
    }
}

/* One round of waiting: HTTP transfers and parked jobs' fds together. */
static void run_round(sched *s)
{
    long ms = 100;
    size_t n = parked_fds(s, &ms);

    up_http_run_fds(s->client, ms, s->fds, n);
    resume_parked(s);
}

/* The source's next job into *spec and its index; 0 once it has none,
 * or none for now (UP_SCHED_LATER: asked again after the next round). */
static int take(sched *s, up_job *spec, size_t *index)
{
    int got;

    if (s->dry)
        return 0;
    memset(spec, 0, sizeof(*spec));
    got = s->src(s->src_ud, spec);
    if (got == UP_SCHED_LATER && s->nactive)
        return 0;
    if (got != 1) {
        s->dry = 1; /* never asked again */
        return 0;
    }
    *index = s->taken++;
    return 1;
}

static void loop(sched *s)
{
    volatile sig_atomic_t *stop = s->o->stop;
    int cancel_at = s->o->cancel_at > 0 ? s->o->cancel_at : 2;
    up_job spec;
    size_t i;

    while (!s->dry || s->nactive) {
        if (stop && *stop)
            note_stop(s, *stop >= cancel_at);
        if (stop && *stop >= cancel_at)
            cancel_all(s);
        if (stop && *stop)
            while (take(s, &spec, &i))
                never_ran(s, &spec, i);
        while (s->nactive < (size_t)s->limit && take(s, &spec, &i)) {
            const up_error *why = up_breaker_tripped(s->br, spec.ep);

            if (why)
                not_sent(s, &spec, i, why);
            else
                start(s, &spec, i);
        }
        if (s->nactive)
            run_round(s);
        sweep_broken(s);
        maybe_note_wait(s);
    }
}

int up_sched_run_src(up_sched_source src, void *src_ud, const up_sched_opts *o,
                     up_sched_stats *stats, up_error *err)
{
    sched s;
    up_breaker own;
    long t0 = up_http_now_ms();
    size_t timeouts0;
    int private_client;

    memset(&s, 0, sizeof(s));
    s.o = o;
    s.src = src;
    s.src_ud = src_ud;
    s.max = s.limit = o->jobs > 0 ? o->jobs : 4;
    up_breaker_init(&own, up_breaker_threshold(s.max));
    s.br = o->breaker ? o->breaker : &own;
    up_buf_init(&s.last_fail);
    s.last_delay = -1;
    s.last_ok = t0;
    s.st.min_limit = s.limit;
    s.client = loop_take(s.max, &private_client);
    if (!s.client)
        return up_error_set(err, UP_ENETWORK, "cannot set up libcurl");
    timeouts0 = up_http_client_timeouts(s.client);
    up_http_client_set_log(s.client, on_attempt, &s);
    s.active = up_xcalloc((size_t)s.max, sizeof(job *));
    s.fds = up_xcalloc((size_t)s.max * UP_JOB_MAX_FDS, sizeof(int));
    loop(&s);
    s.st.timeouts = up_http_client_timeouts(s.client) - timeouts0;
    free(s.fds);
    loop_give(s.client, private_client);
    free(s.active);
    up_breaker_release(&own);
    up_buf_release(&s.last_fail);
    s.st.elapsed_ms = up_http_now_ms() - t0;
    if (stats)
        *stats = s.st;
    if (o->stop && *o->stop)
        return up_error_set(err, UP_EINTR, "interrupted");
    return 0;
}

/* The source over a caller's array of jobs. */
struct array {
    const up_job *jobs;
    size_t n, next;
};

static int from_array(void *ud, up_job *spec)
{
    struct array *a = ud;

    if (a->next >= a->n)
        return 0;
    *spec = a->jobs[a->next++];
    return 1;
}

int up_sched_run(const up_job *jobs, size_t n, const up_sched_opts *o,
                 up_sched_stats *stats, up_error *err)
{
    struct array a = {jobs, n, 0};

    return up_sched_run_src(from_array, &a, o, stats, err);
}

static void take_one(void *ud, size_t index, up_response *res)
{
    (void)index;
    *(up_response *)ud = *res;
    up_response_init(res);
}

int up_provider_complete(const up_endpoint *ep, const up_request *rq,
                         up_http_log_fn log, void *log_ud,
                         volatile sig_atomic_t *stop, up_response *out)
{
    up_sched_opts o;

    up_sched_opts_init(&o);
    o.log = log;
    o.log_ud = log_ud;
    o.stop = stop;
    return up_provider_complete_with(ep, rq, &o, out);
}

int up_provider_complete_with(const up_endpoint *ep, const up_request *rq,
                              const up_sched_opts *opts, up_response *out)
{
    up_job one = {ep, rq, take_one, out, NULL, NULL};
    up_sched_opts o = *opts;
    up_error err;
    int rc;

    up_response_init(out);
    o.jobs = 1;
    o.cancel_at = 1; /* one call: nothing to drain, so stop means now */
    rc = up_sched_run(&one, 1, &o, NULL, &err);
    if (rc && !out->code) {
        out->code = rc;
        out->err = err;
    }
    return out->code;
}

/* An up_sched_http job's end: what never reached the wire (the stop
 * flag, a tripped breaker) is the caller's error too. */
static void http_call_done(void *ud, size_t index, up_response *res)
{
    http_call *c = ud;

    (void)index;
    if (c->taken)
        return;
    c->out->code = res->code ? res->code : UP_EIO;
    c->out->err = res->err;
}

int up_sched_http(const up_endpoint *ep, const up_http_request *rq,
                  volatile sig_atomic_t *stop, up_http_result *res)
{
    http_call c = {rq, res, 0};
    up_job one = {ep, &the_http, http_call_done, &c, NULL, NULL};
    up_sched_opts o;
    up_error err;
    int rc;

    up_http_result_init(res);
    up_sched_opts_init(&o);
    o.jobs = 1;
    o.stop = stop;
    o.cancel_at = 1; /* one call: stop means now */
    rc = up_sched_run(&one, 1, &o, NULL, &err);
    if (rc && !res->code) {
        res->code = rc;
        res->err = err;
    }
    return res->code;
}
