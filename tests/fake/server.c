/*
 * fake-llm server: the libmicrohttpd glue.
 *
 * One event thread of ours serves every connection, with MHD in
 * "external polling" epoll mode: it ppoll()s MHD's epoll fd no longer
 * than MHD_get_timeout() and the earliest hold allow (to the
 * nanosecond), resumes the holds that are due and calls MHD_run().
 * Nothing sleeps in a callback, and the server's counters need no lock.
 * A reply's delay_ms, a barrier and chunk_delay_ms suspend the
 * connection (MHD_ALLOW_SUSPEND_RESUME) and leave a hold (wait.c); once
 * resumed, the access handler is called again and answers, or the
 * content reader hands out the next event.
 *
 * Each request is collected (headers, body up to FAKE_MAX_BODY),
 * numbered, recorded, matched against the scenario and answered from a
 * buffer (headers and body leave in one write) or, for streams and
 * faults, a content-reader callback that can pause before each SSE
 * event and stop early ("early_close": the callback returns
 * MHD_CONTENT_READER_END_WITH_ERROR, so MHD closes the socket mid-body).
 *
 * "reset": MHD has no call to abort a connection, so the handler takes
 * the connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), sets
 * SO_LINGER {on, 0 s} and connect()s it to AF_UNSPEC, which on Linux
 * drops the association and sends RST at once; then it returns MHD_NO,
 * so MHD closes the (now dead) socket without writing a response.  The
 * client sees "connection reset by peer" (curl exit 56).
 */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

/* The "hold" fault's wait: longer than any server lives (--max-seconds). */
#define HOLD_FOREVER_MS (86400L * 1000L)

#include "upskill/alloc.h"

#include "fake.h"

/* One request in flight; owned by MHD's con_cls slot. */
struct conn {
    struct fake_hold hold; /* first: the timer hands this back */
    struct MHD_Connection *c;
    char *method, *path; /* copies; the request borrows them */
    struct fake_request rq;
    struct fake_reply r; /* the picked reply */
    struct fake_out out; /* its bytes, built before the hold */
    int held;            /* out is built and not sent yet */
};

/* ---- response body ---- */

/* End of the event containing pos (or the body's end). */
static size_t event_end(const struct fake_out *o, size_t pos, size_t limit)
{
    for (size_t i = 0; i < o->nmarks; i++)
        if (o->marks[i] > pos)
            return o->marks[i] < limit ? o->marks[i] : limit;
    return limit;
}

static int at_mark(const struct fake_out *o, size_t pos)
{
    for (size_t i = 0; i < o->nmarks; i++)
        if (o->marks[i] == pos)
            return 1;
    return 0;
}

/* A response body in flight: the bytes plus where the stream paused. */
struct body {
    struct fake_out o;
    struct fake_server *s;
    struct conn *cn;
    size_t paused_at; /* the mark whose chunk delay was served */
};

static ssize_t read_body(void *cls, uint64_t pos64, char *buf, size_t max)
{
    struct body *b = cls;
    struct fake_out *o = &b->o;
    size_t pos = (size_t)pos64, size = fake_out_size(o);
    size_t limit = o->cut < size ? o->cut : size, end;

    if (pos >= limit)
        return o->cut < size ? MHD_CONTENT_READER_END_WITH_ERROR
                             : MHD_CONTENT_READER_END_OF_STREAM;
    if (!o->chunk_delay_ms) {
        end = limit;
    } else if ((pos || o->stall) && b->paused_at != pos && at_mark(o, pos)) {
        b->paused_at = pos;
        MHD_suspend_connection(b->cn->c);
        fake_wait_after(&b->s->wait, &b->cn->hold, o->chunk_delay_ms);
        return 0;
    } else {
        end = event_end(o, pos, limit);
    }
    if (end - pos < max)
        max = end - pos;
    return (ssize_t)fake_out_copy(o, pos, buf, max);
}

static void free_body(void *cls)
{
    struct body *b = cls;

    fake_out_release(&b->o);
    free(b);
}

static void reset_socket(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct linger lg = {1, 0};
    struct sockaddr unspec;

    if (!ci)
        return;
    memset(&unspec, 0, sizeof(unspec));
    unspec.sa_family = AF_UNSPEC;
    setsockopt(ci->connect_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    /* Linux: dissolving the association sends RST at once. */
    connect(ci->connect_fd, &unspec, sizeof(unspec));
}

/*
 * A body sent in one piece: MHD then writes the headers and the body
 * with one call.  Streams (chunked), cut and padded bodies go through
 * read_body.
 */
static int whole(const struct fake_out *o)
{
    return !o->chunked && o->cut == SIZE_MAX && !o->pad_to;
}

/* Queue o (moved into the response) on cn's connection. */
static enum MHD_Result respond(struct fake_server *s, struct conn *cn,
                               struct fake_out *o)
{
    struct body *b;
    struct MHD_Response *resp;
    enum MHD_Result ret;
    const char *key;
    json_t *v;

    if (o->reset) {
        reset_socket(cn->c);
        fake_out_release(o);
        return MHD_NO;
    }
    b = up_xcalloc(1, sizeof(*b));
    b->paused_at = SIZE_MAX; /* a stall pauses at 0 */
    b->o = *o;
    b->s = s;
    b->cn = cn;
    if (whole(&b->o))
        resp = MHD_create_response_from_buffer_with_free_callback_cls(
            b->o.body.len, b->o.body.data, free_body, b);
    else
        resp = MHD_create_response_from_callback(
            b->o.chunked ? MHD_SIZE_UNKNOWN : fake_out_size(&b->o), 64 * 1024,
            read_body, b, free_body);
    json_object_foreach(b->o.headers, key, v)
    {
        MHD_add_response_header(resp, key, json_string_value(v));
    }
    ret = MHD_queue_response(cn->c, (unsigned)b->o.status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---- recording ---- */

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static json_t *body_value(const struct fake_request *rq)
{
    if (rq->json)
        return json_incref(rq->json);
    if (!rq->raw.len)
        return json_null();
    /* NULL (not UTF-8) packs as null thanks to "o?". */
    return json_stringn(rq->raw.data, rq->raw.len);
}

/* Append one JSON line describing rq (and its rule, if any). */
static void record(struct fake_server *s, const struct fake_request *rq,
                   const struct fake_reply *r, long conn)
{
    json_t *j;
    char *line;

    if (!s->record)
        return;
    j = json_pack("{sI ss ss sO so? sf sI}", "n", (json_int_t)rq->n, "method",
                  rq->method, "path", rq->path, "headers", rq->headers, "body",
                  body_value(rq), "ts", now_seconds(), "conns",
                  (json_int_t)s->conns);
    json_object_set_new(j, "conn", json_integer((json_int_t)conn));
    if (r && r->rule)
        json_object_set_new(j, "rule", json_string(r->rule));
    else if (r)
        json_object_set_new(j, "rule", json_integer((json_int_t)r->rule_index));
    if (r && r->fault)
        json_object_set_new(j, "fault", json_string(fake_fault_name(r->fault)));
    if (r && r->student)
        json_object_set_new(j, "student", json_string(r->student));
    if (r && r->agent)
        json_object_set_new(j, "agent", json_string(r->agent));
    line = json_dumps(j, JSON_COMPACT);
    fprintf(s->record, "%s\n", line);
    fflush(s->record);
    free(line);
    json_decref(j);
}

/* ---- requests ---- */

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
                                  const char *key, const char *value)
{
    (void)kind;
    fake_request_add_header(cls, key, value);
    return MHD_YES;
}

/*
 * Decide how to answer rq: 1 when a rule picked reply r (built later,
 * after its delay), 0 when o already holds the server's own answer.
 */
static int decide(struct fake_server *s, struct fake_request *rq,
                  struct fake_reply *r, struct fake_out *o)
{
    up_error err = {0, ""};

    memset(r, 0, sizeof(*r));
    if (rq->too_big) {
        fake_reply_error(o, rq, 413, NULL);
    } else if (fake_request_parse(rq, &err)) {
        fake_reply_error(o, rq, 400, err.msg);
    } else if (!fake_scenario_pick(&s->sc, rq, r)) {
        return 1;
    } else if (rq->api == FAKE_API_MODELS) {
        r->status = 200; /* no rule: the scenario's models, not a zero
                            status (an empty reply) */
        fake_reply_build(o, rq, r, s->sc.models);
    } else {
        fprintf(stderr, "fake-llm: no rule matched request %ld (%s %s)\n",
                rq->n, rq->method, rq->path);
        fake_reply_error(o, rq, rq->api == FAKE_API_NONE ? 404 : 400,
                         "fake-llm: no scenario rule matched");
    }
    return 0;
}

/* Send the held reply (or the barrier's timeout instead). */
static enum MHD_Result answer_held(struct fake_server *s, struct conn *cn)
{
    if (cn->hold.timed_out) {
        fake_out_release(&cn->out);
        fake_out_init(&cn->out);
        fake_reply_error(&cn->out, &cn->rq, 504, "fake-llm: barrier timed out");
    }
    cn->held = 0;
    return respond(s, cn, &cn->out);
}

/*
 * Build cn's reply now, then hold it until its barrier opens and its
 * delay has passed: the work is done before the clock starts running.
 */
/* Count the client connections open, for the record's "conns", and
 * number each one (from 1) for its "conn". */
static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    struct fake_server *s = cls;

    (void)c;
    s->conns += code == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        *socket_ctx = (void *)(intptr_t)++s->conns_seen;
}

/* The number on_connection gave c's connection, 0 when unknown. */
static long conn_number(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return i ? (long)(intptr_t)i->socket_context : 0;
}

static enum MHD_Result hold(struct fake_server *s, struct conn *cn)
{
    const struct fake_reply *r = &cn->r;

    fake_out_init(&cn->out);
    fake_reply_build(&cn->out, &cn->rq, r, s->sc.models);
    cn->held = 1;
    if (r->fault == FAKE_FAULT_HOLD) { /* until the server ends */
        MHD_suspend_connection(cn->c);
        fake_wait_after(&s->wait, &cn->hold, HOLD_FOREVER_MS);
        return MHD_YES;
    }
    if (!r->barrier && r->delay_ms <= 0)
        return answer_held(s, cn);
    MHD_suspend_connection(cn->c);
    if (r->barrier)
        fake_wait_barrier(&s->wait, &cn->hold, r->rule_index, r->barrier,
                          s->sc.rules[r->rule_index].barrier_timeout_ms,
                          r->delay_ms);
    else
        fake_wait_after(&s->wait, &cn->hold, r->delay_ms);
    return MHD_YES;
}

static enum MHD_Result answer(struct fake_server *s, struct conn *cn)
{
    struct fake_request *rq = &cn->rq;
    struct fake_out o;
    int picked;

    if (cn->held)
        return answer_held(s, cn);
    MHD_get_connection_values(cn->c, MHD_HEADER_KIND, add_header, rq);
    if (s->max_requests && s->requests >= s->max_requests) {
        rq->n = ++s->requests; /* recorded, then refused: it is going away */
        record(s, rq, NULL, conn_number(cn->c));
        return MHD_NO;
    }
    rq->n = ++s->requests;
    fake_out_init(&o);
    picked = decide(s, rq, &cn->r, &o);
    record(s, rq, picked ? &cn->r : NULL, conn_number(cn->c));
    if (!picked)
        return respond(s, cn, &o);
    fake_out_release(&o);
    return hold(s, cn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    struct fake_server *s = cls;
    struct conn *cn = *con_cls;

    (void)version;
    if (!cn) {
        cn = up_xcalloc(1, sizeof(*cn));
        cn->c = c;
        cn->method = up_xstrdup(method);
        cn->path = up_xstrdup(url);
        fake_request_init(&cn->rq, cn->method, cn->path);
        *con_cls = cn;
        return MHD_YES;
    }
    if (*size) {
        fake_request_add_body(&cn->rq, data, *size);
        *size = 0;
        return MHD_YES;
    }
    return answer(s, cn);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct fake_server *s = cls;
    struct conn *cn = *con_cls;
    int last;

    (void)c;
    (void)toe;
    if (!cn)
        return;
    if (cn->held)
        fake_out_release(&cn->out);
    fake_request_release(&cn->rq);
    json_decref(cn->r.owned);
    free(cn->method);
    free(cn->path);
    free(cn);
    *con_cls = NULL;
    last = ++s->done == s->max_requests;
    if (last && write(s->wake_fd, "m", 1) < 0)
        perror("fake-llm: wake");
}

/* ---- the event thread ---- */

static void resume(struct fake_hold *h)
{
    MHD_resume_connection(((struct conn *)h)->c);
}

/* How long ppoll may sleep: MHD's limit and the earliest hold's. */
static struct timespec *next_wake(struct fake_server *s, struct timespec *ts)
{
    MHD_UNSIGNED_LONG_LONG ms;
    int64_t ns = fake_wait_next_ns(&s->wait);

    if (MHD_get_timeout(s->daemon, &ms) == MHD_YES &&
        (ns < 0 || (MHD_UNSIGNED_LONG_LONG)ns / 1000000 > ms))
        ns = (int64_t)ms * 1000000;
    if (ns < 0)
        return NULL;
    ts->tv_sec = (time_t)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
    return ts;
}

static void *serve(void *arg)
{
    struct fake_server *s = arg;
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    struct pollfd p[2] = {{di->epoll_fd, POLLIN, 0},
                          {s->stop_pipe[0], POLLIN, 0}};
    struct timespec ts;

    for (;;) {
        struct fake_hold *h;

        while ((h = fake_wait_due(&s->wait)))
            resume(h);
        MHD_run(s->daemon);
        if (ppoll(p, 2, next_wake(s, &ts), NULL) > 0 && p[1].revents)
            return NULL;
        fake_wait_tick(&s->wait);
    }
}

int fake_server_start(struct fake_server *s, long port, up_error *err)
{
    struct sockaddr_in sa;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fake_wait_init(&s->wait, s->sc.nrules);
    s->daemon = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)port, NULL, NULL,
        on_request, s, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_NOTIFY_COMPLETED,
        on_done, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
        MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_LISTEN_BACKLOG_SIZE,
        512u, MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_END);
    if (!s->daemon)
        return up_error_set(err, UP_ENETWORK,
                            "cannot listen on 127.0.0.1:%ld: %s", port,
                            strerror(errno));
    s->port = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT)->port;
    if (pipe(s->stop_pipe) || pthread_create(&s->thread, NULL, serve, s))
        return up_error_set(err, UP_ENETWORK, "cannot start serving: %s",
                            strerror(errno));
    s->serving = 1;
    return 0;
}

void fake_server_stop(struct fake_server *s)
{
    struct fake_hold *h;

    if (s->serving) {
        if (write(s->stop_pipe[1], "x", 1) < 0)
            perror("fake-llm: stop");
        pthread_join(s->thread, NULL);
        s->serving = 0;
    }
    /* MHD must not be stopped with connections still suspended. */
    while ((h = fake_wait_any(&s->wait)))
        resume(h);
    if (s->daemon) {
        MHD_run(s->daemon);
        MHD_stop_daemon(s->daemon);
    }
    s->daemon = NULL;
    fake_wait_release(&s->wait);
}
