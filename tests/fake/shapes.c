/*
 * fake-llm shapes: the bodies a real provider sends for a successful
 * reply, byte for byte in field order and framing (compact JSON, as the
 * providers send it).  See the provider protocol reference:
 *   OpenAI chat completions: one JSON object, or `data: {chunk}\n\n`
 *   lines (role chunk, reasoning_content deltas, content deltas, a
 *   finish chunk, the usage chunk with empty choices when
 *   stream_options.include_usage, then `data: [DONE]`);
 *   Anthropic messages: one Message, or message_start,
 *   content_block_start, ping, content_block_delta..., content_block_stop,
 *   message_delta, message_stop, each as `event: X\ndata: {...}\n\n`.
 * Texts are cut into deltas of chunk_size characters, never inside a
 * UTF-8 sequence.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upskill/alloc.h"

#include "fake.h"

void fake_out_json(struct fake_out *o, json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);

    up_buf_adds(&o->body, s ? s : "null");
    free(s);
    json_decref(j);
}

void fake_out_event(struct fake_out *o, const char *name, json_t *j)
{
    UP_GROW(o->marks, o->mcap, o->nmarks + 1);
    o->marks[o->nmarks++] = o->body.len;
    if (name)
        up_buf_addf(&o->body, "event: %s\n", name);
    up_buf_adds(&o->body, "data: ");
    fake_out_json(o, j);
    up_buf_adds(&o->body, "\n\n");
}

void fake_out_header(struct fake_out *o, const char *name, const char *value)
{
    up_buf low = UP_BUF_INIT;

    /* Lowercase, as HTTP/2 providers send them, so overrides replace. */
    for (const char *p = name; *p; p++)
        up_buf_addc(&low, (char)tolower((unsigned char)*p));
    json_object_set_new(o->headers, low.data, json_string(value));
    up_buf_release(&low);
}

/* Bytes in the first n characters of s (a UTF-8 string). */
static size_t piece_len(const char *s, long n)
{
    size_t i = 0;

    while (s[i] && n > 0) {
        i++;
        while (((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        n--;
    }
    return i;
}

static long estimate(const char *text)
{
    size_t n = text ? strlen(text) : 0;

    return n > 4 ? (long)((n + 3) / 4) : 1;
}

static long calls_estimate(const struct fake_reply *r);

/* The reply's token counts, derived from the texts where not given. */
static struct fake_usage usage_of(const struct fake_request *rq,
                                  const struct fake_reply *r)
{
    struct fake_usage u = r->usage;

    if (u.input < 0)
        u.input = estimate(rq->all.data);
    if (u.reasoning < 0)
        u.reasoning = r->reasoning ? estimate(r->reasoning) : 0;
    if (u.output < 0)
        u.output = estimate(r->text) + u.reasoning + calls_estimate(r);
    if (u.cached < 0)
        u.cached = 0;
    if (u.cache_creation < 0)
        u.cache_creation = 0;
    return u;
}

static const char *model_of(const struct fake_request *rq,
                            const struct fake_reply *r)
{
    if (r->model)
        return r->model;
    return rq->model ? rq->model : "fake-model";
}

static const char *text_of(const struct fake_reply *r)
{
    return r->text ? r->text : "";
}

static int with_usage(const struct fake_reply *r)
{
    return r->fault != FAKE_FAULT_NO_USAGE;
}

/* ---- tool calls (reply "tool_calls") ---- */

static size_t ncalls(const struct fake_reply *r)
{
    return json_array_size(r->tool_calls);
}

static const char *call_name(const struct fake_reply *r, size_t i)
{
    return json_string_value(
        json_object_get(json_array_get(r->tool_calls, i), "name"));
}

/* The call's id: its "id", else "<prefix><request>_<i>". */
static void call_id(const struct fake_request *rq, const struct fake_reply *r,
                    size_t i, const char *prefix, char *out, size_t n)
{
    const char *id = json_string_value(
        json_object_get(json_array_get(r->tool_calls, i), "id"));

    if (id)
        snprintf(out, n, "%s", id);
    else
        snprintf(out, n, "%s%06ld_%zu", prefix, rq->n, i);
}

/* The arguments as JSON text (a string is sent as it is: it may be
   malformed on purpose); the caller frees. */
static char *call_args(const struct fake_reply *r, size_t i)
{
    json_t *a = json_object_get(json_array_get(r->tool_calls, i), "arguments");

    if (json_is_string(a))
        return up_xstrdup(json_string_value(a));
    return a ? json_dumps(a, JSON_COMPACT) : up_xstrdup("{}");
}

/* The arguments as an object (Anthropic's input): bad text gives {}. */
static json_t *call_input(const struct fake_reply *r, size_t i)
{
    char *s = call_args(r, i);
    json_t *j = json_loads(s, 0, NULL);

    free(s);
    if (json_is_object(j))
        return j;
    json_decref(j);
    return json_object();
}

static long calls_estimate(const struct fake_reply *r)
{
    long n = 0;

    for (size_t i = 0; i < ncalls(r); i++) {
        char *s = call_args(r, i);

        n += estimate(s) + estimate(call_name(r, i));
        free(s);
    }
    return n;
}

/* ---- OpenAI ---- */

static json_t *openai_usage(const struct fake_usage *u)
{
    return json_pack(
        "{sI sI sI s{sI sI} s{sI sI sI sI}}", "prompt_tokens",
        (json_int_t)u->input, "completion_tokens", (json_int_t)u->output,
        "total_tokens", (json_int_t)(u->input + u->output),
        "prompt_tokens_details", "cached_tokens", (json_int_t)u->cached,
        "audio_tokens", (json_int_t)0, "completion_tokens_details",
        "reasoning_tokens", (json_int_t)u->reasoning, "audio_tokens",
        (json_int_t)0, "accepted_prediction_tokens", (json_int_t)0,
        "rejected_prediction_tokens", (json_int_t)0);
}

/* The fields every OpenAI object starts with. */
static json_t *openai_head(const struct fake_request *rq,
                           const struct fake_reply *r, const char *object)
{
    char id[64];

    snprintf(id, sizeof(id), "chatcmpl-fake%06ld", rq->n);
    return json_pack("{ss ss sI ss}", "id", id, "object", object, "created",
                     (json_int_t)time(NULL), "model", model_of(rq, r));
}

static const char *openai_finish(const struct fake_reply *r)
{
    if (r->finish)
        return r->finish;
    return ncalls(r) ? "tool_calls" : "stop";
}

/* message.tool_calls: [{id, type, function: {name, arguments}}] */
static json_t *openai_calls(const struct fake_request *rq,
                            const struct fake_reply *r)
{
    json_t *a = json_array();
    char id[64];

    for (size_t i = 0; i < ncalls(r); i++) {
        char *args = call_args(r, i);

        call_id(rq, r, i, "call_fake", id, sizeof(id));
        json_array_append_new(a, json_pack("{ss ss s{ss ss}}", "id", id, "type",
                                           "function", "function", "name",
                                           call_name(r, i), "arguments", args));
        free(args);
    }
    return a;
}

static void openai_json(struct fake_out *o, const struct fake_request *rq,
                        const struct fake_reply *r)
{
    json_t *j = openai_head(rq, r, "chat.completion");
    json_t *msg = json_pack("{ss ss sn}", "role", "assistant", "content",
                            text_of(r), "refusal");
    struct fake_usage u = usage_of(rq, r);

    if (r->reasoning)
        json_object_set_new(msg, "reasoning_content",
                            json_string(r->reasoning));
    if (ncalls(r)) {
        if (!r->text)
            json_object_set_new(msg, "content", json_null());
        json_object_set_new(msg, "tool_calls", openai_calls(rq, r));
    }
    json_object_set_new(j, "choices",
                        json_pack("[{sI so sn ss}]", "index", (json_int_t)0,
                                  "message", msg, "logprobs", "finish_reason",
                                  openai_finish(r)));
    if (with_usage(r))
        json_object_set_new(j, "usage", openai_usage(&u));
    json_object_set_new(j, "system_fingerprint", json_string("fp_fake"));
    fake_out_json(o, j);
}

/* One chunk with delta (stolen) and finish (NULL: null). */
static void openai_chunk(struct fake_out *o, const struct fake_request *rq,
                         const struct fake_reply *r, json_t *delta,
                         const char *finish)
{
    json_t *j = openai_head(rq, r, "chat.completion.chunk");

    json_object_set_new(j, "system_fingerprint", json_string("fp_fake"));
    json_object_set_new(j, "choices",
                        json_pack("[{sI so sn so}]", "index", (json_int_t)0,
                                  "delta", delta, "logprobs", "finish_reason",
                                  finish ? json_string(finish) : json_null()));
    if (rq->include_usage && with_usage(r))
        json_object_set_new(j, "usage", json_null());
    fake_out_event(o, NULL, j);
}

/* Chunks of text as deltas {field: piece}. */
static void openai_pieces(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r, const char *field,
                          const char *text)
{
    while (text && *text) {
        size_t n = piece_len(text, r->chunk_size);

        openai_chunk(o, rq, r, json_pack("{ss%}", field, text, n), NULL);
        text += n;
    }
}

/* One streamed call: id and name first, then argument fragments of
   chunk_size characters, all keyed by the call's index. */
static void openai_call_chunks(struct fake_out *o,
                               const struct fake_request *rq,
                               const struct fake_reply *r, size_t i)
{
    char id[64];
    char *args = call_args(r, i);
    const char *p = args;

    call_id(rq, r, i, "call_fake", id, sizeof(id));
    openai_chunk(o, rq, r,
                 json_pack("{s[{sI ss ss s{ss ss}}]}", "tool_calls", "index",
                           (json_int_t)i, "id", id, "type", "function",
                           "function", "name", call_name(r, i), "arguments",
                           ""),
                 NULL);
    for (size_t n; *p; p += n) {
        n = piece_len(p, r->chunk_size);
        openai_chunk(o, rq, r,
                     json_pack("{s[{sI s{ss%}}]}", "tool_calls", "index",
                               (json_int_t)i, "function", "arguments", p, n),
                     NULL);
    }
    free(args);
}

static void openai_sse(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r)
{
    struct fake_usage u = usage_of(rq, r);

    openai_chunk(
        o, rq, r,
        json_pack("{ss ss sn}", "role", "assistant", "content", "", "refusal"),
        NULL);
    openai_pieces(o, rq, r, "reasoning_content", r->reasoning);
    openai_pieces(o, rq, r, "content", text_of(r));
    for (size_t i = 0; i < ncalls(r); i++)
        openai_call_chunks(o, rq, r, i);
    openai_chunk(o, rq, r, json_object(), openai_finish(r));
    if (rq->include_usage && with_usage(r)) {
        json_t *j = openai_head(rq, r, "chat.completion.chunk");

        json_object_set_new(j, "system_fingerprint", json_string("fp_fake"));
        json_object_set_new(j, "choices", json_array());
        json_object_set_new(j, "usage", openai_usage(&u));
        fake_out_event(o, NULL, j);
    }
    UP_GROW(o->marks, o->mcap, o->nmarks + 1);
    o->marks[o->nmarks++] = o->body.len;
    up_buf_adds(&o->body, "data: [DONE]\n\n");
}

void fake_shape_openai(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r)
{
    if (rq->stream)
        openai_sse(o, rq, r);
    else
        openai_json(o, rq, r);
}

/* ---- Anthropic ---- */

/* usage.output_tokens_details, set when the reply thought (usage NULL:
   the reply has no usage). */
static void anthropic_thinking(json_t *usage, const struct fake_usage *u)
{
    if (usage && u->reasoning > 0)
        json_object_set_new(
            usage, "output_tokens_details",
            json_pack("{sI}", "thinking_tokens", (json_int_t)u->reasoning));
}

static json_t *anthropic_usage(const struct fake_usage *u, long output)
{
    return json_pack("{sI sI sI sI}", "input_tokens", (json_int_t)u->input,
                     "cache_creation_input_tokens",
                     (json_int_t)u->cache_creation, "cache_read_input_tokens",
                     (json_int_t)u->cached, "output_tokens",
                     (json_int_t)output);
}

/* The Message object; content (stolen) and stop_reason (NULL: null). */
static json_t *anthropic_message(const struct fake_request *rq,
                                 const struct fake_reply *r, json_t *content,
                                 const char *stop, long output)
{
    struct fake_usage u = usage_of(rq, r);
    char id[64];
    json_t *j;

    snprintf(id, sizeof(id), "msg_fake%06ld", rq->n);
    j = json_pack("{ss ss ss ss so so sn}", "id", id, "type", "message", "role",
                  "assistant", "model", model_of(rq, r), "content", content,
                  "stop_reason", stop ? json_string(stop) : json_null(),
                  "stop_sequence");
    if (with_usage(r))
        json_object_set_new(j, "usage", anthropic_usage(&u, output));
    return j;
}

static const char *stop_of(const struct fake_reply *r)
{
    if (r->finish)
        return r->finish;
    return ncalls(r) ? "tool_use" : "end_turn";
}

/* A text block is sent unless the reply only calls tools. */
static int has_text_block(const struct fake_reply *r)
{
    return r->text || !ncalls(r);
}

static json_t *tool_use_block(const struct fake_request *rq,
                              const struct fake_reply *r, size_t i,
                              json_t *input)
{
    char id[64];

    call_id(rq, r, i, "toolu_fake", id, sizeof(id));
    return json_pack("{ss ss ss so}", "type", "tool_use", "id", id, "name",
                     call_name(r, i), "input", input);
}

static void anthropic_json(struct fake_out *o, const struct fake_request *rq,
                           const struct fake_reply *r)
{
    json_t *content = json_array();
    struct fake_usage u = usage_of(rq, r);
    json_t *msg;

    if (r->reasoning)
        json_array_append_new(
            content, json_pack("{ss ss ss}", "type", "thinking", "thinking",
                               r->reasoning, "signature", "fake-signature"));
    if (has_text_block(r))
        json_array_append_new(
            content, json_pack("{ss ss}", "type", "text", "text", text_of(r)));
    for (size_t i = 0; i < ncalls(r); i++)
        json_array_append_new(content,
                              tool_use_block(rq, r, i, call_input(r, i)));
    msg = anthropic_message(rq, r, content, stop_of(r), u.output);
    anthropic_thinking(json_object_get(msg, "usage"), &u);
    fake_out_json(o, msg);
}

/* Kinds of content block: type, delta type, text field. */
static const struct block_kind {
    const char *type, *delta, *field;
} thinking_block = {"thinking", "thinking_delta", "thinking"},
  text_block = {"text", "text_delta", "text"};

static void anthropic_block(struct fake_out *o, const struct fake_reply *r,
                            size_t index, const struct block_kind *k,
                            const char *text)
{
    json_t *start = json_pack("{ss ss}", "type", k->type, k->field, "");

    if (k == &thinking_block)
        json_object_set_new(start, "signature", json_string(""));
    fake_out_event(o, "content_block_start",
                   json_pack("{ss sI so}", "type", "content_block_start",
                             "index", (json_int_t)index, "content_block",
                             start));
    if (!index)
        fake_out_event(o, "ping", json_pack("{ss}", "type", "ping"));
    for (size_t n; *text; text += n) {
        n = piece_len(text, r->chunk_size);
        fake_out_event(o, "content_block_delta",
                       json_pack("{ss sI s{ss ss%}}", "type",
                                 "content_block_delta", "index",
                                 (json_int_t)index, "delta", "type", k->delta,
                                 k->field, text, n));
    }
    if (k == &thinking_block)
        fake_out_event(
            o, "content_block_delta",
            json_pack("{ss sI s{ss ss}}", "type", "content_block_delta",
                      "index", (json_int_t)index, "delta", "type",
                      "signature_delta", "signature", "fake-signature"));
    fake_out_event(o, "content_block_stop",
                   json_pack("{ss sI}", "type", "content_block_stop", "index",
                             (json_int_t)index));
}

/* A tool_use block: start with input {}, input_json_delta fragments of
   chunk_size characters, stop. */
static void anthropic_tool_block(struct fake_out *o,
                                 const struct fake_request *rq,
                                 const struct fake_reply *r, size_t index,
                                 size_t i)
{
    char *args = call_args(r, i);

    fake_out_event(o, "content_block_start",
                   json_pack("{ss sI so}", "type", "content_block_start",
                             "index", (json_int_t)index, "content_block",
                             tool_use_block(rq, r, i, json_object())));
    for (const char *p = args, *end = args + strlen(args); p < end;) {
        size_t n = piece_len(p, r->chunk_size);

        fake_out_event(o, "content_block_delta",
                       json_pack("{ss sI s{ss ss%}}", "type",
                                 "content_block_delta", "index",
                                 (json_int_t)index, "delta", "type",
                                 "input_json_delta", "partial_json", p, n));
        p += n;
    }
    fake_out_event(o, "content_block_stop",
                   json_pack("{ss sI}", "type", "content_block_stop", "index",
                             (json_int_t)index));
    free(args);
}

static void anthropic_sse(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r)
{
    struct fake_usage u = usage_of(rq, r);
    json_t *delta;
    size_t index = 0;

    fake_out_event(o, "message_start",
                   json_pack("{ss so}", "type", "message_start", "message",
                             anthropic_message(rq, r, json_array(), NULL, 1)));
    if (r->reasoning)
        anthropic_block(o, r, index++, &thinking_block, r->reasoning);
    if (has_text_block(r))
        anthropic_block(o, r, index++, &text_block, text_of(r));
    for (size_t i = 0; i < ncalls(r); i++)
        anthropic_tool_block(o, rq, r, index++, i);
    delta = json_pack("{ss s{ss sn}}", "type", "message_delta", "delta",
                      "stop_reason", stop_of(r), "stop_sequence");
    if (with_usage(r)) {
        json_t *usage =
            json_pack("{sI}", "output_tokens", (json_int_t)u.output);

        anthropic_thinking(usage, &u);
        json_object_set_new(delta, "usage", usage);
    }
    fake_out_event(o, "message_delta", delta);
    fake_out_event(o, "message_stop",
                   json_pack("{ss}", "type", "message_stop"));
}

void fake_shape_anthropic(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r)
{
    if (rq->stream)
        anthropic_sse(o, rq, r);
    else
        anthropic_json(o, rq, r);
}

/* ---- OpenAI Responses API ---- */

/* A response being streamed: events carry a growing sequence_number. */
struct rs_stream {
    struct fake_out *o;
    const struct fake_request *rq;
    const struct fake_reply *r;
    long seq;
};

static json_t *responses_usage(const struct fake_usage *u)
{
    return json_pack("{sI s{sI} sI s{sI} sI}", "input_tokens",
                     (json_int_t)u->input, "input_tokens_details",
                     "cached_tokens", (json_int_t)u->cached, "output_tokens",
                     (json_int_t)u->output, "output_tokens_details",
                     "reasoning_tokens", (json_int_t)u->reasoning,
                     "total_tokens", (json_int_t)(u->input + u->output));
}

/* The incomplete reason a finish override stands for, or NULL. */
static const char *responses_incomplete(const struct fake_reply *r)
{
    static const struct {
        const char *finish, *reason;
    } map[] = {
        {"length", "max_output_tokens"},
        {"max_tokens", "max_output_tokens"},
        {"max_output_tokens", "max_output_tokens"},
        {"content_filter", "content_filter"},
    };

    for (size_t i = 0; r->finish && i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(map[i].finish, r->finish))
            return map[i].reason;
    return NULL;
}

static json_t *rs_message(const struct fake_request *rq, const char *status)
{
    char id[64];

    snprintf(id, sizeof(id), "msg_fake%06ld", rq->n);
    return json_pack("{ss ss ss ss s[]}", "id", id, "type", "message", "status",
                     status, "role", "assistant", "content");
}

static json_t *rs_text_part(const char *text)
{
    return json_pack("{ss ss s[]}", "type", "output_text", "text", text,
                     "annotations");
}

static json_t *rs_reasoning(const struct fake_request *rq, const char *text)
{
    char id[64];
    json_t *item;

    snprintf(id, sizeof(id), "rs_fake%06ld", rq->n);
    item = json_pack("{ss ss s[]}", "id", id, "type", "reasoning", "summary");
    if (text)
        json_array_append_new(
            json_object_get(item, "summary"),
            json_pack("{ss ss}", "type", "summary_text", "text", text));
    return item;
}

static json_t *rs_call(const struct fake_request *rq,
                       const struct fake_reply *r, size_t i, const char *args)
{
    char id[64], fc[64];

    call_id(rq, r, i, "call_fake", id, sizeof(id));
    snprintf(fc, sizeof(fc), "fc_fake%06ld_%zu", rq->n, i);
    return json_pack("{ss ss ss ss ss ss}", "id", fc, "type", "function_call",
                     "status", "completed", "call_id", id, "name",
                     call_name(r, i), "arguments", args);
}

/* The output items of the whole reply. */
static json_t *rs_output(const struct fake_request *rq,
                         const struct fake_reply *r)
{
    json_t *out = json_array();

    if (r->reasoning)
        json_array_append_new(out, rs_reasoning(rq, r->reasoning));
    if (r->text || !ncalls(r)) {
        json_t *m = rs_message(rq, "completed");

        json_array_append_new(json_object_get(m, "content"),
                              rs_text_part(text_of(r)));
        json_array_append_new(out, m);
    }
    for (size_t i = 0; i < ncalls(r); i++) {
        char *args = call_args(r, i);

        json_array_append_new(out, rs_call(rq, r, i, args));
        free(args);
    }
    return out;
}

/* The response object; done: its final state, else in progress. */
static json_t *rs_response(const struct fake_request *rq,
                           const struct fake_reply *r, int done)
{
    const char *why = responses_incomplete(r);
    struct fake_usage u = usage_of(rq, r);
    char id[64];
    json_t *j;

    snprintf(id, sizeof(id), "resp_fake%06ld", rq->n);
    j = json_pack("{ss ss sI ss sn sn ss}", "id", id, "object", "response",
                  "created_at", (json_int_t)time(NULL), "status",
                  !done ? "in_progress"
                  : why ? "incomplete"
                        : "completed",
                  "error", "incomplete_details", "model", model_of(rq, r));
    if (done && why)
        json_object_set_new(j, "incomplete_details",
                            json_pack("{ss}", "reason", why));
    json_object_set_new(j, "output", done ? rs_output(rq, r) : json_array());
    if (done && with_usage(r))
        json_object_set_new(j, "usage", responses_usage(&u));
    else
        json_object_set_new(j, "usage", json_null());
    return j;
}

/* One named event: "type" and "sequence_number" first, then j's. */
static void rs_event(struct rs_stream *s, const char *type, json_t *j)
{
    json_t *e = json_pack("{ss sI}", "type", type, "sequence_number",
                          (json_int_t)s->seq++);

    json_object_update(e, j);
    json_decref(j);
    fake_out_event(s->o, type, e);
}

/* text as delta events of chunk_size characters. */
static void rs_deltas(struct rs_stream *s, const char *type, size_t index,
                      const char *text)
{
    while (text && *text) {
        size_t n = piece_len(text, s->r->chunk_size);

        rs_event(s, type,
                 json_pack("{sI ss%}", "output_index", (json_int_t)index,
                           "delta", text, n));
        text += n;
    }
}

static void rs_item(struct rs_stream *s, size_t index, json_t *added,
                    json_t *done)
{
    rs_event(
        s, "response.output_item.added",
        json_pack("{sI so}", "output_index", (json_int_t)index, "item", added));
    if (!strcmp(json_string_value(json_object_get(done, "type")), "message"))
        rs_deltas(s, "response.output_text.delta", index, s->r->text);
    else if (!strcmp(json_string_value(json_object_get(done, "type")),
                     "reasoning"))
        rs_deltas(s, "response.reasoning_summary_text.delta", index,
                  s->r->reasoning);
    else
        rs_deltas(s, "response.function_call_arguments.delta", index,
                  json_string_value(json_object_get(done, "arguments")));
    rs_event(
        s, "response.output_item.done",
        json_pack("{sI so}", "output_index", (json_int_t)index, "item", done));
}

/* Every output item: added (empty), its deltas, done (whole). */
static void rs_items(struct rs_stream *s)
{
    json_t *out = rs_output(s->rq, s->r), *item;
    size_t i;

    json_array_foreach(out, i, item)
    {
        json_t *added = json_deep_copy(item);
        const char *type = json_string_value(json_object_get(item, "type"));

        if (json_object_get(added, "status"))
            json_object_set_new(added, "status", json_string("in_progress"));
        if (!strcmp(type, "message"))
            json_array_clear(json_object_get(added, "content"));
        else if (!strcmp(type, "reasoning"))
            json_array_clear(json_object_get(added, "summary"));
        else
            json_object_set_new(added, "arguments", json_string(""));
        rs_item(s, i, added, json_incref(item));
    }
    json_decref(out);
}

static void responses_sse(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r)
{
    struct rs_stream s = {o, rq, r, 0};

    rs_event(&s, "response.created",
             json_pack("{so}", "response", rs_response(rq, r, 0)));
    rs_event(&s, "response.in_progress",
             json_pack("{so}", "response", rs_response(rq, r, 0)));
    rs_items(&s);
    rs_event(&s,
             responses_incomplete(r) ? "response.incomplete"
                                     : "response.completed",
             json_pack("{so}", "response", rs_response(rq, r, 1)));
}

void fake_shape_responses(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r)
{
    if (rq->stream)
        responses_sse(o, rq, r);
    else
        fake_out_json(o, rs_response(rq, r, 1));
}
