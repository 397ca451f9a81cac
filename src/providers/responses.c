/*
 * The OpenAI Responses API (POST {base}/responses): upstream's
 * "responses." provider (gpt51, gpt52, codex) and what Codex speaks.
 *
 * A request is stateless ("store": false): the system prompt goes into
 * "instructions", the conversation into "input" items (messages,
 * function_call and function_call_output items), tools are flat function
 * tools, the effort is reasoning.effort and the cap max_output_tokens.
 * A reply is "output" items (message with output_text parts, reasoning
 * with summary text, function_call); its status says how it ended:
 * "completed", or "incomplete" with incomplete_details.reason
 * "max_output_tokens" (the cut-at-cap stop) or "content_filter".  Usage
 * is input_tokens (cached ones in input_tokens_details.cached_tokens) and
 * output_tokens (reasoning in output_tokens_details.reasoning_tokens).
 * Streams are named events (response.output_text.delta,
 * response.function_call_arguments.delta, response.completed ...) with
 * no [DONE] sentinel: the terminal response.* event ends them.
 */
#include <string.h>

#include "providers/providers.h"

#define DEFAULT_BASE UP_OPENAI_BASE_URL

static const up_http_limit limits[] = {
    {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
    {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
    {NULL, NULL},
};

static void url(const up_endpoint *ep, up_buf *out)
{
    up_openai_url(ep, DEFAULT_BASE, "/responses", out);
}

static json_t *str_or_empty(const char *s)
{
    return json_string(s ? s : "");
}

static json_t *message(const char *role, const char *text)
{
    return json_pack("{s:s, s:o}", "role", role, "content", str_or_empty(text));
}

/* One up_msg as input items, appended to a. */
static void msg_items(json_t *a, const up_msg *m)
{
    if (m->role == UP_ROLE_TOOL) {
        json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "type",
                                           "function_call_output", "call_id",
                                           str_or_empty(m->call_id), "output",
                                           str_or_empty(m->text)));
        return;
    }
    if (m->text || m->role != UP_ROLE_ASSISTANT || !m->ncalls)
        json_array_append_new(a, message(up_role_name(m->role), m->text));
    for (size_t i = 0; m->role == UP_ROLE_ASSISTANT && i < m->ncalls; i++)
        json_array_append_new(
            a, json_pack("{s:s, s:o, s:o, s:s}", "type", "function_call",
                         "call_id", str_or_empty(m->calls[i].id), "name",
                         str_or_empty(m->calls[i].name), "arguments",
                         m->calls[i].args ? m->calls[i].args : "{}"));
}

static json_t *input(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->n_messages; i++)
        json_array_append_new(
            a, message(rq->messages[i].role, rq->messages[i].content));
    for (size_t i = 0; i < rq->nmsgs; i++)
        msg_items(a, &rq->msgs[i]);
    return a;
}

/* tools: [{type: function, name, description, parameters}] (flat) */
static json_t *tools_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->ntools; i++) {
        const up_tool_spec *t = &rq->tools[i];

        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o}", "type",
                                           "function", "name", t->name,
                                           "description",
                                           t->description ? t->description : "",
                                           "parameters", up_tool_params(t)));
    }
    return a;
}

static void add_schema(json_t *b, const up_request *rq)
{
    json_t *schema = json_loads(rq->schema, 0, NULL);

    json_object_set_new(b, "text",
                        json_pack("{s:{s:s, s:s, s:o, s:b}}", "format", "type",
                                  "json_schema", "name",
                                  rq->schema_name ? rq->schema_name : "result",
                                  "schema", schema, "strict", 1));
}

static json_t *body(const up_endpoint *ep, const up_request *rq)
{
    const char *effort = up_provider_effort(ep);
    json_t *b = json_pack(
        "{s:s, s:o, s:i, s:b}", "model", ep->model ? ep->model : "", "input",
        input(rq), "max_output_tokens", up_provider_max_tokens(ep), "store", 0);

    if (rq->system)
        json_object_set_new(b, "instructions", json_string(rq->system));
    if (effort)
        json_object_set_new(b, "reasoning",
                            json_pack("{s:s}", "effort", effort));
    /* reasoning models refuse a non-default temperature */
    if (rq->temperature >= 0 && !effort)
        json_object_set_new(b, "temperature", json_real(rq->temperature));
    if (rq->schema)
        add_schema(b, rq);
    if (up_provider_streams(ep, rq))
        json_object_set_new(b, "stream", json_true());
    return b;
}

static void read_usage(up_reply *r, json_t *u)
{
    int seen = 0, rseen = 0;

    if (!json_is_object(u))
        return;
    r->usage.input = up_pjson_long(u, "input_tokens", &seen);
    r->usage.output = up_pjson_long(u, "output_tokens", &seen);
    r->usage.cached = up_pjson_long(json_object_get(u, "input_tokens_details"),
                                    "cached_tokens", NULL);
    r->usage.reasoning =
        up_pjson_long(json_object_get(u, "output_tokens_details"),
                      "reasoning_tokens", &rseen);
    r->has_usage |= seen;
    r->has_rtokens |= rseen;
}

/* The text of every part of type `type` in arr, appended to out. */
static void add_parts(up_buf *out, json_t *arr, const char *type)
{
    json_t *part;
    size_t i;

    json_array_foreach(arr, i, part)
    {
        const char *s = up_json_str(part, "text");
        const char *t = up_json_str(part, "type");

        if (s && (!type || (t && !strcmp(t, type))))
            up_buf_adds(out, s);
    }
}

/* A function_call item (whole, or as .added/.done announce it). */
static void read_call(up_reply *r, json_t *item, int index)
{
    up_reply_call *c = up_reply_call_at(r, index);
    const char *s;

    if ((s = up_json_str(item, "call_id")) && !c->id.len)
        up_buf_adds(&c->id, s);
    if ((s = up_json_str(item, "name")) && !c->name.len)
        up_buf_adds(&c->name, s);
    if ((s = up_json_str(item, "arguments")) && !c->args.len)
        up_buf_adds(&c->args, s);
}

static void read_item(up_reply *r, json_t *item, int index)
{
    const char *type = up_json_str(item, "type");

    if (!type)
        return;
    if (!strcmp(type, "message")) {
        add_parts(&r->text, json_object_get(item, "content"), "output_text");
        if (!r->text.len)
            add_parts(&r->text, json_object_get(item, "content"), "refusal");
    } else if (!strcmp(type, "reasoning")) {
        add_parts(&r->reasoning, json_object_get(item, "summary"), NULL);
        add_parts(&r->reasoning, json_object_get(item, "content"), NULL);
    } else if (!strcmp(type, "function_call"))
        read_call(r, item, index);
}

/*
 * The stop reason of a finished response: "completed" (or
 * "function_call" when it called tools), the incomplete reason
 * ("max_output_tokens": the cap), or the status itself.
 */
static void read_status(up_reply *r, json_t *resp)
{
    const char *st = up_json_str(resp, "status");
    const char *why =
        up_json_str(json_object_get(resp, "incomplete_details"), "reason");

    if (!st)
        return;
    up_buf_reset(&r->stop);
    if (!strcmp(st, "incomplete") && why)
        up_buf_adds(&r->stop, why);
    else if (!strcmp(st, "completed") && r->ncalls)
        up_buf_adds(&r->stop, "function_call");
    else
        up_buf_adds(&r->stop, st);
}

/* A whole response object: output items (unless a stream sent them),
   status, usage, model. */
static void read_response(up_reply *r, json_t *resp, int items)
{
    json_t *item;
    size_t i;

    json_array_foreach(items ? json_object_get(resp, "output") : NULL, i, item)
        read_item(r, item, (int)i);
    read_status(r, resp);
    read_usage(r, json_object_get(resp, "usage"));
    up_reply_model(r, resp);
}

static int parse(up_reply *r, json_t *root)
{
    if (!json_is_array(json_object_get(root, "output")))
        return UP_EPARSE;
    read_response(r, root, 1);
    r->ended = 1;
    return 0;
}

/* error codes of a failed response -> an HTTP-like status */
static const struct {
    const char *code;
    int status;
} error_codes[] = {
    {"rate_limit_exceeded", 429}, {"insufficient_quota", 429},
    {"invalid_prompt", 400},      {"invalid_request_error", 400},
    {"server_error", 500},        {"vector_store_timeout", 504},
};

/* e: an error object (its code a word or an HTTP status), or a bare
   message (an old llama.cpp "error:" line): up_reply_error's words, the
   status of a word code from the table above (else 500). */
static int inband_error(up_reply *r, json_t *e)
{
    const char *code = up_json_str(e, "code");
    int st = 500;

    for (size_t i = 0; code && i < sizeof(error_codes) / sizeof(*error_codes);
         i++)
        if (!strcmp(error_codes[i].code, code))
            st = error_codes[i].status;
    return up_reply_error(r, e, st);
}

static int output_index(json_t *data)
{
    json_t *ix = json_object_get(data, "output_index");

    return json_is_integer(ix) ? (int)json_integer_value(ix) : 0;
}

/* The events that carry content; 1 if the event was one of them. */
static int content_event(up_reply *r, const char *type, json_t *data)
{
    const char *delta = up_json_str(data, "delta");
    json_t *item = json_object_get(data, "item");
    const char *itype = up_json_str(item, "type");

    if (!strcmp(type, "response.output_text.delta") ||
        !strcmp(type, "response.refusal.delta"))
        up_buf_adds(&r->text, delta ? delta : "");
    else if (!strcmp(type, "response.reasoning_summary_text.delta") ||
             !strcmp(type, "response.reasoning_text.delta"))
        up_buf_adds(&r->reasoning, delta ? delta : "");
    else if (!strcmp(type, "response.function_call_arguments.delta"))
        up_buf_adds(&up_reply_call_at(r, output_index(data))->args,
                    delta ? delta : "");
    else if ((!strcmp(type, "response.output_item.added") ||
              !strcmp(type, "response.output_item.done")) &&
             itype && !strcmp(itype, "function_call"))
        read_call(r, item, output_index(data));
    else
        return 0;
    return 1;
}

static int event(up_reply *r, const char *name, json_t *data)
{
    const char *type = up_json_str(data, "type");
    json_t *resp = json_object_get(data, "response");

    if (!type && json_is_object(json_object_get(data, "error")))
        type = "error"; /* {"error": {...}} as a proxy may send it */
    if (!type || (name && !strcmp(name, "error")))
        type = name ? name : ""; /* an "error" event whatever its type */
    if (!strcmp(type, "error"))
        return inband_error(r, json_is_object(json_object_get(data, "error"))
                                   ? json_object_get(data, "error")
                                   : data);
    if (content_event(r, type, data)) {
        r->committed = 1;
        return 0;
    }
    if (json_is_object(resp))
        up_reply_model(r, resp);
    if (!strcmp(type, "response.failed"))
        return inband_error(r, json_object_get(resp, "error"));
    if (!strcmp(type, "response.completed") ||
        !strcmp(type, "response.incomplete")) {
        /* the items again, unless deltas delivered them */
        read_response(r, resp, !r->committed);
        r->ended = 1;
    }
    return 0;
}

const struct up_provider_ops up_responses_ops = {
    .name = "responses",
    .kind = UP_WIRE_RESPONSES,
    .default_base = DEFAULT_BASE,
    .models_path = "/models",
    .limits = limits,
    .key_prefixes = NULL, /* the openai wire lists OpenAI's */
    .quota_words = NULL,
    .url = url,
    .headers = up_openai_auth,
    .body = body,
    .tools = tools_json,
    .parse = parse,
    .event = event,
};
