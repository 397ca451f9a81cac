/*
 * Anthropic Messages API (POST {base}/v1/messages).
 *
 * Wire rules: x-api-key and anthropic-version: 2023-06-01 headers; the
 * system prompt is the top-level "system" field, never a message;
 * max_tokens is required and includes thinking.  Requests are shaped per
 * model family (a table below): newer families take adaptive thinking
 * with output_config.effort, reject sampling parameters, and (the 5.5
 * line) reject forced tool_choice, so structured output goes through
 * output_config.format there and through a forced tool elsewhere.
 * Replies are read block by block by type, never by position.
 */
#include <stdlib.h>
#include <string.h>

#include "providers/providers.h"

#define DEFAULT_BASE UP_ANTHROPIC_BASE_URL
#define VERSION      "2023-06-01"

enum {
    F_ADAPTIVE = 1,     /* thinking {type: adaptive} + output_config.effort */
    F_NO_SAMPLING = 2,  /* temperature/top_p/top_k give a 400 */
    F_OUTPUT_FORMAT = 4 /* structured output via output_config.format */
};

/* First matching prefix wins: keep longer prefixes first. */
static const struct {
    const char *prefix;
    int flags;
} families[] = {
    {"claude-opus-4-7", F_ADAPTIVE | F_NO_SAMPLING},
    {"claude-opus-4-8", F_ADAPTIVE | F_NO_SAMPLING},
    {"claude-opus-5-5", F_ADAPTIVE | F_NO_SAMPLING | F_OUTPUT_FORMAT},
    {"claude-opus-5", F_ADAPTIVE | F_NO_SAMPLING},
    {"claude-sonnet-5-5", F_ADAPTIVE | F_NO_SAMPLING | F_OUTPUT_FORMAT},
    {"claude-sonnet-5", F_ADAPTIVE | F_NO_SAMPLING},
    {"claude-haiku-5", F_ADAPTIVE | F_NO_SAMPLING | F_OUTPUT_FORMAT},
    {"claude-fable", F_ADAPTIVE | F_NO_SAMPLING | F_OUTPUT_FORMAT},
    {"claude-mythos", F_ADAPTIVE | F_NO_SAMPLING | F_OUTPUT_FORMAT},
};

static int family_flags(const char *model)
{
    for (size_t i = 0; model && i < sizeof(families) / sizeof(*families); i++)
        if (strncmp(model, families[i].prefix, strlen(families[i].prefix)) == 0)
            return families[i].flags;
    return 0;
}

/* Thinking budgets for models that take budget_tokens. */
static const struct {
    const char *effort;
    int budget;
    const char *adaptive; /* the output_config.effort value */
} efforts[] = {
    {"minimal", 1024, "low"},   {"low", 2048, "low"},
    {"medium", 8192, "medium"}, {"high", 16384, "high"},
    {"xhigh", 24576, "xhigh"},  {"max", 32000, "max"},
};

static int effort_index(const char *effort)
{
    for (size_t i = 0; effort && i < sizeof(efforts) / sizeof(*efforts); i++)
        if (strcmp(efforts[i].effort, effort) == 0)
            return (int)i;
    return effort ? 3 : -1; /* unknown names think "high" */
}

/* anthropic-ratelimit-<limit>-remaining / -reset (RFC 3339 times). */
#define LIMIT(l)                                                               \
    {                                                                          \
        "anthropic-ratelimit-" l "-remaining",                                 \
            "anthropic-ratelimit-" l "-reset"                                  \
    }
static const up_http_limit limits[] = {
    LIMIT("requests"),      LIMIT("tokens"), LIMIT("input-tokens"),
    LIMIT("output-tokens"), {NULL, NULL},
};
#undef LIMIT

/* sk-ant-api03-..., sk-ant-admin01-... */
static const char *const key_prefixes[] = {"sk-ant-", NULL};

/* a 429 for the month's spend cap: waiting will not clear it */
static const char *const quota_words[] = {"enforced_spend_limit_reached", NULL};

static void url(const up_endpoint *ep, up_buf *out)
{
    up_provider_base(ep, DEFAULT_BASE, out);
    if (out->len < 3 || strcmp(out->data + out->len - 3, "/v1") != 0)
        up_buf_adds(out, "/v1");
    up_buf_adds(out, "/messages");
}

static void headers(const up_endpoint *ep, up_hdrs *h)
{
    if (ep->api_key && *ep->api_key)
        up_hdrs_add(h, "x-api-key", ep->api_key);
    up_hdrs_add(h, "anthropic-version", VERSION);
}

/* The model's argument text as an object; malformed text gives {} (the
   API takes only an object, and the tool already saw the bad text). */
static json_t *args_json(const char *args)
{
    json_t *j = args ? json_loads(args, 0, NULL) : NULL;

    if (json_is_object(j))
        return j;
    json_decref(j);
    return json_object();
}

/* An assistant turn: carried thinking blocks, text, tool_use blocks. */
static json_t *assistant_json(const up_msg *m)
{
    json_t *c = m->carry ? json_loads(m->carry, 0, NULL) : NULL;

    if (!json_is_array(c)) {
        json_decref(c);
        if (!m->ncalls)
            return json_pack("{s:s, s:s}", "role", "assistant", "content",
                             m->text ? m->text : "");
        c = json_array();
    }
    if (m->text && *m->text)
        json_array_append_new(
            c, json_pack("{s:s, s:s}", "type", "text", "text", m->text));
    for (size_t i = 0; i < m->ncalls; i++)
        json_array_append_new(
            c, json_pack("{s:s, s:s, s:s, s:o}", "type", "tool_use", "id",
                         m->calls[i].id ? m->calls[i].id : "", "name",
                         m->calls[i].name ? m->calls[i].name : "", "input",
                         args_json(m->calls[i].args)));
    return json_pack("{s:s, s:o}", "role", "assistant", "content", c);
}

/* A tool_result block; into the user message that holds the run of
   consecutive tool turns (*run, opened here when NULL). */
static void tool_result(json_t *a, json_t **run, const up_msg *m)
{
    json_t *b = json_pack("{s:s, s:s, s:s}", "type", "tool_result",
                          "tool_use_id", m->call_id ? m->call_id : "",
                          "content", m->text ? m->text : "");

    if (m->is_error)
        json_object_set_new(b, "is_error", json_true());
    if (!*run) {
        *run = json_array();
        json_array_append_new(
            a, json_pack("{s:s, s:o}", "role", "user", "content", *run));
    }
    json_array_append_new(*run, b);
}

static json_t *messages(const up_request *rq)
{
    json_t *a = json_array();
    json_t *run = NULL;

    for (size_t i = 0; i < rq->n_messages; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "role",
                                           rq->messages[i].role, "content",
                                           rq->messages[i].content));
    for (size_t i = 0; i < rq->nmsgs; i++) {
        const up_msg *m = &rq->msgs[i];

        if (m->role == UP_ROLE_TOOL) {
            tool_result(a, &run, m);
            continue;
        }
        run = NULL;
        json_array_append_new(a, m->role == UP_ROLE_ASSISTANT
                                     ? assistant_json(m)
                                     : json_pack("{s:s, s:s}", "role", "user",
                                                 "content",
                                                 m->text ? m->text : ""));
    }
    return a;
}

/* The offered tools: [{name, description, input_schema}]. */
static json_t *tools_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->ntools; i++) {
        const up_tool_spec *t = &rq->tools[i];

        json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "name", t->name,
                                           "description",
                                           t->description ? t->description : "",
                                           "input_schema", up_tool_params(t)));
    }
    return a;
}

/* thinking / output_config.effort; returns whether thinking is on. */
static int add_thinking(json_t *b, json_t *oc, const up_endpoint *ep, int flags,
                        int *max_tokens)
{
    int e = effort_index(up_provider_effort(ep));

    if (e < 0)
        return 0;
    if (flags & F_ADAPTIVE) {
        json_object_set_new(b, "thinking",
                            json_pack("{s:s}", "type", "adaptive"));
        json_object_set_new(oc, "effort", json_string(efforts[e].adaptive));
        return 1;
    }
    json_object_set_new(b, "thinking",
                        json_pack("{s:s, s:i}", "type", "enabled",
                                  "budget_tokens", efforts[e].budget));
    *max_tokens += efforts[e].budget;
    return 1;
}

/*
 * Structured output: output_config.format where forced tools are
 * refused, else a tool whose input is the schema, forced unless thinking
 * is on (the API refuses forced tools with thinking).
 */
static void add_schema(json_t *b, json_t *oc, const up_request *rq, int flags,
                       int thinking)
{
    const char *name = rq->schema_name ? rq->schema_name : "result";
    json_t *schema = json_loads(rq->schema, 0, NULL);

    if (flags & F_OUTPUT_FORMAT) {
        json_object_set_new(
            oc, "format",
            json_pack("{s:s, s:o}", "type", "json_schema", "schema", schema));
        return;
    }
    json_object_set_new(b, "tools",
                        json_pack("[{s:s, s:s, s:o}]", "name", name,
                                  "description",
                                  "Give the answer as this tool's input.",
                                  "input_schema", schema));
    json_object_set_new(
        b, "tool_choice",
        thinking ? json_pack("{s:s}", "type", "auto")
                 : json_pack("{s:s, s:s}", "type", "tool", "name", name));
}

static json_t *body(const up_endpoint *ep, const up_request *rq)
{
    int flags = family_flags(ep->model);
    int max_tokens = up_provider_max_tokens(ep);
    json_t *b = json_pack("{s:s}", "model", ep->model ? ep->model : "");
    json_t *oc = json_object();
    int thinking = add_thinking(b, oc, ep, flags, &max_tokens);

    json_object_set_new(b, "max_tokens", json_integer(max_tokens));
    if (rq->system)
        json_object_set_new(b, "system", json_string(rq->system));
    json_object_set_new(b, "messages", messages(rq));
    if (rq->temperature >= 0 && !thinking && !(flags & F_NO_SAMPLING))
        json_object_set_new(b, "temperature", json_real(rq->temperature));
    if (rq->schema)
        add_schema(b, oc, rq, flags, thinking);
    if (json_object_size(oc))
        json_object_set(b, "output_config", oc);
    json_decref(oc);
    if (up_provider_streams(ep, rq))
        json_object_set_new(b, "stream", json_true());
    return b;
}

/* usage object of a message or message_delta; counts are cumulative. */
static void read_usage(up_reply *r, json_t *u)
{
    int seen = 0, rseen = 0;
    long in = up_pjson_long(u, "input_tokens", &seen);
    long cw = up_pjson_long(u, "cache_creation_input_tokens", NULL);
    long cr = up_pjson_long(u, "cache_read_input_tokens", NULL);
    long out = up_pjson_long(u, "output_tokens", &seen);
    long th = up_pjson_long(json_object_get(u, "output_tokens_details"),
                            "thinking_tokens", &rseen);

    if (!json_is_object(u))
        return;
    if (json_object_get(u, "input_tokens")) {
        r->usage.input = in + cw + cr;
        r->usage.cached = cr;
        r->usage.cache_write = cw;
    }
    if (json_object_get(u, "output_tokens"))
        r->usage.output = out;
    if (rseen) {
        r->usage.reasoning = th;
        r->has_rtokens = 1;
    }
    r->has_usage |= seen;
}

/* A whole tool_use block (a JSON body) as a call. */
static void read_call(up_reply *r, json_t *blk, int index)
{
    up_reply_call *c = up_reply_call_at(r, index);
    char *s = json_dumps(json_object_get(blk, "input"),
                         JSON_COMPACT | JSON_ENCODE_ANY);

    up_buf_adds(&c->id, up_json_str(blk, "id") ? up_json_str(blk, "id") : "");
    up_buf_adds(&c->name,
                up_json_str(blk, "name") ? up_json_str(blk, "name") : "");
    if (s)
        up_buf_adds(&c->args, s);
    free(s);
}

/* Thinking blocks go back verbatim in a tool loop. */
static int is_thinking(const char *type)
{
    return strcmp(type, "thinking") == 0 ||
           strcmp(type, "redacted_thinking") == 0;
}

static void read_block(up_reply *r, json_t *blk, int index)
{
    const char *type = up_json_str(blk, "type");
    char *s;

    if (!type)
        return;
    if (is_thinking(type))
        up_reply_carry(r, json_incref(blk));
    if (strcmp(type, "tool_use") == 0)
        read_call(r, blk, index);
    if (strcmp(type, "text") == 0 && up_json_str(blk, "text"))
        up_buf_adds(&r->text, up_json_str(blk, "text"));
    else if (strcmp(type, "thinking") == 0 && up_json_str(blk, "thinking"))
        up_buf_adds(&r->reasoning, up_json_str(blk, "thinking"));
    else if (strcmp(type, "tool_use") == 0 &&
             (s = json_dumps(json_object_get(blk, "input"),
                             JSON_COMPACT | JSON_ENCODE_ANY))) {
        up_buf_adds(&r->tool, s);
        free(s);
    }
}

static int parse(up_reply *r, json_t *root)
{
    json_t *content = json_object_get(root, "content");
    size_t i;
    json_t *blk;

    if (!json_is_array(content))
        return UP_EPARSE;
    json_array_foreach(content, i, blk) read_block(r, blk, (int)i);
    if (up_json_str(root, "stop_reason"))
        up_buf_adds(&r->stop, up_json_str(root, "stop_reason"));
    read_usage(r, json_object_get(root, "usage"));
    up_reply_model(r, root);
    r->ended = 1;
    return 0;
}

/* error.type of an in-band error event -> the status it stands for. */
static const struct {
    const char *type;
    int status;
} error_types[] = {
    {"invalid_request_error", 400}, {"authentication_error", 401},
    {"billing_error", 402},         {"permission_error", 403},
    {"not_found_error", 404},       {"request_too_large", 413},
    {"rate_limit_error", 429},      {"api_error", 500},
    {"timeout_error", 504},         {"overloaded_error", 529},
};

/* {"type": "error", "error": {...}}, or a proxy's bare error object or
   message under `event: error`. */
static int stream_error(up_reply *r, json_t *data)
{
    json_t *e = json_object_get(data, "error");
    const char *type = up_json_str(e ? e : data, "type");
    int st = 500;

    for (size_t i = 0; type && i < sizeof(error_types) / sizeof(*error_types);
         i++)
        if (strcmp(error_types[i].type, type) == 0)
            st = error_types[i].status;
    return up_reply_error(r, e ? e : data, st);
}

/* content_block_start: a tool call or a thinking block opens. */
static void block_start(up_reply *r, json_t *data)
{
    json_t *blk = json_object_get(data, "content_block");
    json_t *ix = json_object_get(data, "index");
    const char *type = up_json_str(blk, "type");
    up_reply_call *c;

    r->blk = BLK_OTHER;
    r->blk_index = json_is_integer(ix) ? (int)json_integer_value(ix) : 0;
    if (!type)
        return;
    if (strcmp(type, "redacted_thinking") == 0)
        up_reply_carry(r, json_incref(blk));
    else if (strcmp(type, "thinking") == 0) {
        r->blk = BLK_THINKING;
        r->blk_from = r->reasoning.len;
        up_buf_reset(&r->sig);
    } else if (strcmp(type, "tool_use") == 0) {
        c = up_reply_call_at(r, r->blk_index);
        up_buf_adds(&c->id,
                    up_json_str(blk, "id") ? up_json_str(blk, "id") : "");
        up_buf_adds(&c->name,
                    up_json_str(blk, "name") ? up_json_str(blk, "name") : "");
        r->committed = 1;
    }
}

/* content_block_stop: a thinking block is whole, keep it to carry. */
static void block_stop(up_reply *r)
{
    if (r->blk == BLK_THINKING)
        up_reply_carry(r, json_pack("{s:s, s:s%, s:s%}", "type", "thinking",
                                    "thinking", r->reasoning.data + r->blk_from,
                                    r->reasoning.len - r->blk_from, "signature",
                                    r->sig.data, r->sig.len));
    r->blk = BLK_NONE;
}

static void delta(up_reply *r, json_t *d)
{
    const char *type = up_json_str(d, "type");
    const char *s;

    if (!type)
        return;
    if (strcmp(type, "signature_delta") == 0 &&
        (s = up_json_str(d, "signature"))) {
        up_buf_adds(&r->sig, s);
        return;
    }
    /* a tool call's arguments go to its call, and (below) to r->tool,
       which holds a structured-output tool's input */
    if (strcmp(type, "input_json_delta") == 0 &&
        (s = up_json_str(d, "partial_json")))
        up_buf_adds(&up_reply_call_at(r, r->blk_index)->args, s);
    if (strcmp(type, "text_delta") == 0 && (s = up_json_str(d, "text")))
        up_buf_adds(&r->text, s);
    else if (strcmp(type, "thinking_delta") == 0 &&
             (s = up_json_str(d, "thinking")))
        up_buf_adds(&r->reasoning, s);
    else if (strcmp(type, "input_json_delta") == 0 &&
             (s = up_json_str(d, "partial_json")))
        up_buf_adds(&r->tool, s);
    else
        return;
    r->committed = 1;
}

static int event(up_reply *r, const char *name, json_t *data)
{
    json_t *d = json_object_get(data, "delta");

    /* the JSON type repeats the event name; an error may come without
       it, or (an old llama.cpp "error:" line) with a type of its own */
    if (strcmp(name, "error") == 0 ||
        json_is_object(json_object_get(data, "error")))
        name = "error";
    else if (up_json_str(data, "type"))
        name = up_json_str(data, "type");
    if (strcmp(name, "error") == 0)
        return stream_error(r, data);
    if (strcmp(name, "message_start") == 0) {
        read_usage(r,
                   json_object_get(json_object_get(data, "message"), "usage"));
        up_reply_model(r, json_object_get(data, "message"));
    } else if (strcmp(name, "content_block_start") == 0)
        block_start(r, data);
    else if (strcmp(name, "content_block_stop") == 0)
        block_stop(r);
    else if (strcmp(name, "content_block_delta") == 0)
        delta(r, d);
    else if (strcmp(name, "message_delta") == 0) {
        if (up_json_str(d, "stop_reason")) {
            up_buf_reset(&r->stop);
            up_buf_adds(&r->stop, up_json_str(d, "stop_reason"));
        }
        read_usage(r, json_object_get(data, "usage"));
    } else if (strcmp(name, "message_stop") == 0)
        r->ended = 1;
    return 0;
}

const struct up_provider_ops up_anthropic_ops = {
    .name = "anthropic",
    .kind = UP_WIRE_ANTHROPIC,
    .default_base = DEFAULT_BASE,
    .models_path = "/v1/models",
    .limits = limits,
    .key_prefixes = key_prefixes,
    .quota_words = quota_words,
    .url = url,
    .headers = headers,
    .body = body,
    .tools = tools_json,
    .parse = parse,
    .event = event,
};
