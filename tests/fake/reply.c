/*
 * fake-llm replies: from a picked reply to the bytes to send.
 *
 * A fake_out is everything fake.c needs to answer: status, headers, the
 * body (or a prefix plus a padded size for "oversized"), where SSE events
 * start (so each event is written, and delayed, on its own), and where to
 * cut the connection for "early_close".  Faults are a table from fault
 * kind to builder; errors use each provider's own error JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"

#include "fake.h"

/* Default size of an "oversized" body: 16 MiB. */
#define OVERSIZED_DEFAULT (16L * 1024 * 1024)

void fake_out_init(struct fake_out *o)
{
    memset(o, 0, sizeof(*o));
    o->status = 200;
    o->headers = json_object();
    up_buf_init(&o->body);
    o->cut = SIZE_MAX;
}

void fake_out_release(struct fake_out *o)
{
    json_decref(o->headers);
    up_buf_release(&o->body);
    free(o->marks);
    memset(o, 0, sizeof(*o));
}

size_t fake_out_size(const struct fake_out *o)
{
    return o->pad_to ? o->pad_to : o->body.len;
}

size_t fake_out_copy(const struct fake_out *o, size_t pos, char *buf,
                     size_t max)
{
    size_t size = fake_out_size(o), n = 0;

    for (; n < max && pos + n < size; n++) {
        size_t i = pos + n;

        if (i < o->body.len)
            buf[n] = o->body.data[i];
        else
            buf[n] = i + 2 >= size ? "\"}"[i + 2 - size] : 'x';
    }
    return n;
}

/* ---- errors ---- */

static const struct err_kind {
    long status;
    const char *anthropic; /* error.type for Anthropic */
    const char *openai;    /* error.type for OpenAI */
    const char *code;      /* OpenAI error.code, or NULL */
    const char *message;
} err_kinds[] = {
    {400, "invalid_request_error", "invalid_request_error", NULL,
     "invalid request"},
    {401, "authentication_error", "invalid_request_error", "invalid_api_key",
     "invalid x-api-key"},
    {403, "permission_error", "invalid_request_error", NULL,
     "permission denied"},
    {404, "not_found_error", "invalid_request_error", NULL, "not found"},
    {413, "request_too_large", "invalid_request_error", NULL,
     "request exceeds the maximum allowed number of bytes"},
    {429, "rate_limit_error", "requests", "rate_limit_exceeded",
     "rate limit reached"},
    {500, "api_error", "server_error", NULL, "internal server error"},
    {503, "api_error", "server_error", NULL,
     "the server is overloaded or not ready yet"},
    {504, "timeout_error", "server_error", NULL, "request timed out"},
    {529, "overloaded_error", "server_error", NULL, "overloaded"},
    {0, "invalid_request_error", "invalid_request_error", NULL, "error"},
    {0, "api_error", "server_error", NULL, "server error"},
};

static const struct err_kind *err_kind(long status)
{
    size_t n = sizeof(err_kinds) / sizeof(err_kinds[0]);

    for (size_t i = 0; i + 2 < n; i++)
        if (err_kinds[i].status == status)
            return &err_kinds[i];
    return &err_kinds[status >= 500 ? n - 1 : n - 2];
}

static void request_id(char *id, size_t size, const struct fake_request *rq)
{
    snprintf(id, size, "req_fake%06ld", rq->n);
}

/* An error body; type and message NULL mean the status's defaults. */
static void error_body(struct fake_out *o, const struct fake_request *rq,
                       long status, const char *type, const char *message)
{
    const struct err_kind *k = err_kind(status);
    char id[64];

    o->status = status;
    message = message ? message : k->message;
    request_id(id, sizeof(id), rq);
    if (rq->api == FAKE_API_GEMINI)
        fake_out_json(o, fake_gemini_error(status, type, message));
    else if (rq->api == FAKE_API_ANTHROPIC)
        fake_out_json(o, json_pack("{ss s{ss ss} ss}", "type", "error", "error",
                                   "type", type ? type : k->anthropic,
                                   "message", message, "request_id", id));
    else
        fake_out_json(o, json_pack("{s{ss ss sn ss?}}", "error", "message",
                                   message, "type", type ? type : k->openai,
                                   "param", "code", k->code));
    fake_out_header(o, "Content-Type", "application/json");
}

void fake_reply_error(struct fake_out *o, const struct fake_request *rq,
                      long status, const char *message)
{
    error_body(o, rq, status, NULL, message);
}

/* ---- normal replies ---- */

static void models_body(struct fake_out *o, const json_t *models)
{
    json_t *data = json_array();
    size_t i;
    json_t *m;

    json_array_foreach(models, i, m)
    {
        json_array_append_new(
            data, json_pack("{ss ss sI ss}", "id", json_string_value(m),
                            "object", "model", "created",
                            (json_int_t)1700000000, "owned_by", "fake-llm"));
    }
    if (!json_array_size(data))
        json_array_append_new(data, json_pack("{ss ss sI ss}", "id",
                                              "fake-model", "object", "model",
                                              "created", (json_int_t)1700000000,
                                              "owned_by", "fake-llm"));
    fake_out_json(o, json_pack("{ss so}", "object", "list", "data", data));
    fake_out_header(o, "Content-Type", "application/json");
}

static void success_body(struct fake_out *o, const struct fake_request *rq,
                         const struct fake_reply *r, const json_t *models)
{
    switch (rq->api) {
    case FAKE_API_MODELS:
        models_body(o, models);
        return;
    case FAKE_API_OPENAI:
        fake_shape_openai(o, rq, r);
        break;
    case FAKE_API_ANTHROPIC:
        fake_shape_anthropic(o, rq, r);
        break;
    case FAKE_API_GEMINI:
        fake_shape_gemini(o, rq, r);
        break;
    case FAKE_API_RESPONSES:
        fake_shape_responses(o, rq, r);
        break;
    case FAKE_API_NONE:
        error_body(o, rq, 404, NULL, NULL);
        return;
    }
    o->chunked = rq->stream;
    o->chunk_delay_ms = r->chunk_delay_ms;
    fake_out_header(o, "Content-Type",
                    rq->stream ? "text/event-stream" : "application/json");
    if (rq->stream)
        fake_out_header(o, "Cache-Control", "no-cache");
}

static void build_normal(struct fake_out *o, const struct fake_request *rq,
                         const struct fake_reply *r, const json_t *models)
{
    if (r->body) {
        o->status = r->status;
        up_buf_adds(&o->body, r->body);
        fake_out_header(o, "Content-Type", "application/json");
    } else if (r->status >= 400) {
        error_body(o, rq, r->status, r->error_type, r->error_msg);
    } else {
        o->status = r->status;
        success_body(o, rq, r, models);
    }
}

/* ---- faults ---- */

static void build_early_close(struct fake_out *o, const struct fake_request *rq,
                              const struct fake_reply *r, const json_t *models)
{
    size_t size;

    build_normal(o, rq, r, models);
    size = fake_out_size(o);
    o->cut =
        r->bytes >= 0 && (size_t)r->bytes < size ? (size_t)r->bytes : size / 2;
}

static void build_invalid_json(struct fake_out *o,
                               const struct fake_request *rq,
                               const struct fake_reply *r, const json_t *models)
{
    (void)r;
    (void)models;
    if (rq->stream && rq->api == FAKE_API_ANTHROPIC)
        up_buf_adds(&o->body, "event: message_start\ndata: {not json\n\n");
    else if (rq->stream)
        up_buf_adds(&o->body, "data: {not json\n\ndata: [DONE]\n\n");
    else
        up_buf_adds(&o->body, "{\"id\": \"fake\", \"choices\": [ not json");
    fake_out_header(o, "Content-Type",
                    rq->stream ? "text/event-stream" : "application/json");
}

static void build_oversized(struct fake_out *o, const struct fake_request *rq,
                            const struct fake_reply *r, const json_t *models)
{
    long size = r->bytes >= 0 ? r->bytes : OVERSIZED_DEFAULT;

    (void)rq;
    (void)models;
    up_buf_adds(&o->body, "{\"pad\":\"");
    o->pad_to = (size_t)size < o->body.len + 2 ? o->body.len + 2 : (size_t)size;
    fake_out_header(o, "Content-Type", "application/json");
}

static void build_reset(struct fake_out *o, const struct fake_request *rq,
                        const struct fake_reply *r, const json_t *models)
{
    (void)rq;
    (void)r;
    (void)models;
    o->reset = 1;
}

static void build_retry_after(struct fake_out *o, const struct fake_request *rq,
                              const struct fake_reply *r, const json_t *models)
{
    (void)models;
    error_body(o, rq, 429, r->error_type, r->error_msg);
    fake_out_header(o, "Retry-After", r->retry_after);
}

static void build_500(struct fake_out *o, const struct fake_request *rq,
                      const struct fake_reply *r, const json_t *models)
{
    (void)models;
    error_body(o, rq, 500, r->error_type, r->error_msg);
}

static void build_overloaded(struct fake_out *o, const struct fake_request *rq,
                             const struct fake_reply *r, const json_t *models)
{
    (void)models;
    error_body(o, rq, rq->api == FAKE_API_ANTHROPIC ? 529 : 503, r->error_type,
               r->error_msg);
}

/*
 * Half the events of the stream, then the provider's in-stream error
 * (Anthropic `event: error`, OpenAI a data line with an "error" key) and
 * the end of the stream, without message_stop or [DONE].  Not streaming:
 * the same as "overloaded".
 */
static void build_stream_error(struct fake_out *o,
                               const struct fake_request *rq,
                               const struct fake_reply *r, const json_t *models)
{
    if (!rq->stream || rq->api == FAKE_API_MODELS || rq->api == FAKE_API_NONE) {
        build_overloaded(o, rq, r, models);
        return;
    }
    build_normal(o, rq, r, models);
    if (o->nmarks < 2)
        return; /* a verbatim body or an error: nothing to cut */
    o->nmarks /= 2;
    up_buf_truncate(&o->body, o->marks[o->nmarks]);
    if (rq->api == FAKE_API_ANTHROPIC)
        fake_out_event(o, "error",
                       json_pack("{ss s{ss ss}}", "type", "error", "error",
                                 "type", "overloaded_error", "message",
                                 "Overloaded"));
    else if (rq->api == FAKE_API_RESPONSES)
        fake_out_event(o, "error",
                       json_pack("{ss ss ss sn}", "type", "error", "code",
                                 "server_error", "message",
                                 "the server had an error while processing "
                                 "your request",
                                 "param"));
    else
        fake_out_event(o, NULL,
                       json_pack("{s{ss ss sn sn}}", "error", "message",
                                 "the server had an error while processing "
                                 "your request",
                                 "type", "server_error", "param", "code"));
}

/*
 * What llama.cpp sends when a streamed request fails after the 200 (a
 * prompt over its context): the error object {code, message, type} as an
 * "error:" line (before late 2025) or as data under "error", then [DONE].
 * The code is the reply's status when >= 400, else 400; the message its
 * error_message.  Not streaming: that error as a plain error reply.
 */
static void llama_error(struct fake_out *o, const struct fake_request *rq,
                        const struct fake_reply *r, int as_line)
{
    long code = r->status >= 400 ? r->status : 400;
    const char *msg = r->error_msg ? r->error_msg
                                   : "the request exceeds the available "
                                     "context size, try increasing it";
    json_t *e = json_pack(
        "{sI ss ss}", "code", (json_int_t)code, "message", msg, "type",
        r->error_type ? r->error_type : "exceed_context_size_error");

    if (!rq->stream) {
        json_decref(e);
        error_body(o, rq, code, r->error_type, msg);
        return;
    }
    o->chunked = 1;
    if (as_line) {
        up_buf_adds(&o->body, "error: ");
        fake_out_json(o, e);
        up_buf_adds(&o->body, "\n\n");
    } else {
        fake_out_event(o, NULL, json_pack("{so}", "error", e));
    }
    up_buf_adds(&o->body, "data: [DONE]\n\n");
    fake_out_header(o, "Content-Type", "text/event-stream");
}

static void build_sse_error_line(struct fake_out *o,
                                 const struct fake_request *rq,
                                 const struct fake_reply *r,
                                 const json_t *models)
{
    (void)models;
    llama_error(o, rq, r, 1);
}

static void build_sse_error_data(struct fake_out *o,
                                 const struct fake_request *rq,
                                 const struct fake_reply *r,
                                 const json_t *models)
{
    (void)models;
    llama_error(o, rq, r, 0);
}

/* A stream (or body) with no choices, finish reason or usage. */
static void build_empty_stream(struct fake_out *o,
                               const struct fake_request *rq,
                               const struct fake_reply *r, const json_t *models)
{
    json_t *c =
        json_pack("{ss ss sI ss s[]}", "id", "chatcmpl-fake", "object",
                  rq->stream ? "chat.completion.chunk" : "chat.completion",
                  "created", (json_int_t)1760000000, "model",
                  rq->model ? rq->model : "fake", "choices");

    (void)r;
    (void)models;
    o->chunked = rq->stream;
    if (!rq->stream) {
        fake_out_json(o, c);
        fake_out_header(o, "Content-Type", "application/json");
        return;
    }
    fake_out_event(o, NULL, c);
    up_buf_adds(&o->body, "data: [DONE]\n\n");
    fake_out_header(o, "Content-Type", "text/event-stream");
}

/* The normal reply, its body held back chunk_delay_ms after the headers
   (streams only): a server that began to answer and went quiet. */
static void build_stall(struct fake_out *o, const struct fake_request *rq,
                        const struct fake_reply *r, const json_t *models)
{
    build_normal(o, rq, r, models);
    o->stall = o->chunked && o->chunk_delay_ms > 0;
}

/* Sent only if the server shuts down while the request is held. */
static void build_hold(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r, const json_t *models)
{
    (void)models;
    error_body(o, rq, 504, r->error_type, r->error_msg);
}

typedef void (*build_fn)(struct fake_out *, const struct fake_request *,
                         const struct fake_reply *, const json_t *);

static const build_fn builders[FAKE_FAULT_COUNT] = {
    [FAKE_FAULT_NONE] = build_normal,
    [FAKE_FAULT_EARLY_CLOSE] = build_early_close,
    [FAKE_FAULT_INVALID_JSON] = build_invalid_json,
    [FAKE_FAULT_OVERSIZED] = build_oversized,
    [FAKE_FAULT_RESET] = build_reset,
    [FAKE_FAULT_RETRY_AFTER] = build_retry_after,
    [FAKE_FAULT_NO_USAGE] = build_normal,
    [FAKE_FAULT_ERROR_500] = build_500,
    [FAKE_FAULT_OVERLOADED] = build_overloaded,
    [FAKE_FAULT_STREAM_ERROR] = build_stream_error,
    [FAKE_FAULT_HOLD] = build_hold,
    [FAKE_FAULT_SSE_ERROR_LINE] = build_sse_error_line,
    [FAKE_FAULT_SSE_ERROR_DATA] = build_sse_error_data,
    [FAKE_FAULT_EMPTY_STREAM] = build_empty_stream,
    [FAKE_FAULT_STALL] = build_stall,
};

/*
 * The body with each UTF-8 encoded U+0080..U+00FF (C2/C3 and one byte)
 * turned into that single byte, so a scenario can script bytes that are
 * not UTF-8; the event marks move with the bytes they follow.
 */
static void to_latin1(struct fake_out *o)
{
    unsigned char *p = (unsigned char *)o->body.data;
    size_t in = 0, out = 0, m = 0;

    for (; in < o->body.len; out++) {
        for (; m < o->nmarks && o->marks[m] == in; m++)
            o->marks[m] = out;
        if ((p[in] == 0xc2 || p[in] == 0xc3) && in + 1 < o->body.len) {
            p[out] = (unsigned char)(((p[in] & 1) << 6) | (p[in + 1] & 0x3f));
            p[out] |= 0x80;
            in += 2;
        } else {
            p[out] = p[in++];
        }
    }
    for (; m < o->nmarks; m++)
        o->marks[m] = out;
    up_buf_truncate(&o->body, out);
}

void fake_reply_build(struct fake_out *o, const struct fake_request *rq,
                      const struct fake_reply *r, const json_t *models)
{
    struct fake_request as = *rq; /* read-only copy: the shape to answer */
    char id[64];
    const char *key;
    json_t *v;

    if (r->stream >= 0)
        as.stream = r->stream;
    builders[r->fault](o, &as, r, models);
    if (r->latin1)
        to_latin1(o);
    request_id(id, sizeof(id), rq);
    fake_out_header(
        o, rq->api == FAKE_API_ANTHROPIC ? "request-id" : "x-request-id", id);
    if (r->student)
        fake_out_header(o, "x-fake-student", r->student);
    json_object_foreach(r->headers, key, v)
    {
        fake_out_header(o, key, json_string_value(v));
    }
}
