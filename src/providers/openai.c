/*
 * OpenAI Chat Completions (POST {base}/chat/completions), which also
 * serves the OpenAI-compatible servers: llama.cpp, Ollama, vLLM, LM
 * Studio and the Hugging Face router.
 *
 * api.openai.com gets the official rules (developer role for the system
 * prompt, max_completion_tokens); any other host gets the compatible ones
 * (system role, max_tokens: Ollama ignores max_completion_tokens and many
 * chat templates reject "developer").  Reasoning may come back in
 * reasoning_content (llama.cpp, old vLLM), reasoning (Ollama, vLLM) or
 * inline <think> tags (split later, in provider.c); every usage field is
 * optional.  Streams ask for the final usage chunk with include_usage.
 */
#include <string.h>

#include "providers/providers.h"

#define DEFAULT_BASE UP_OPENAI_BASE_URL

/* x-ratelimit-remaining-<limit> / x-ratelimit-reset-<limit> (durations) */
static const up_http_limit limits[] = {
    {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
    {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
    {NULL, NULL},
};

/* OpenAI's sk-... and sk-proj-..., and the keys of the servers this wire
   reaches: the HF router (hf_), xAI (xai-), Groq (gsk_), Google (AIza);
   DeepSeek and OpenRouter (sk-or-) keys start with sk- too. */
static const char *const key_prefixes[] = {"sk-",  "hf_",  "xai-",
                                           "gsk_", "AIza", NULL};

/* a 429 for a spent quota or credit: waiting will not clear it */
static const char *const quota_words[] = {"insufficient_quota",
                                          "credit_balance_exhausted",
                                          "billing_hard_limit_reached", NULL};

void up_openai_url(const up_endpoint *ep, const char *def, const char *path,
                   up_buf *out)
{
    up_provider_base(ep, def, out);
    if (ep->deployment)
        up_buf_addf(out, "/openai/deployments/%s", ep->model ? ep->model : "");
    up_buf_adds(out, path);
    if (ep->query && *ep->query)
        up_buf_addf(out, "?%s", ep->query);
}

static void url(const up_endpoint *ep, up_buf *out)
{
    up_openai_url(ep, DEFAULT_BASE, "/chat/completions", out);
}

/* 1 when ep is a compatible server rather than OpenAI itself. */
static int is_compat(const up_endpoint *ep)
{
    const char *b = ep->base_url;
    const char *host;

    if (ep->compat)
        return ep->compat > 0;
    if (!b || !*b)
        return 0;
    host = strstr(b, "://");
    host = host ? host + 3 : b;
    return strncmp(host, "api.openai.com", 14) != 0 ||
           (host[14] != '/' && host[14] != '\0' && host[14] != ':');
}

void up_openai_auth(const up_endpoint *ep, up_hdrs *h)
{
    up_buf v = UP_BUF_INIT;

    if (ep->api_key && *ep->api_key && ep->key_header && *ep->key_header)
        up_hdrs_add(h, ep->key_header, ep->api_key);
    else if (ep->api_key && *ep->api_key) {
        up_buf_addf(&v, "Bearer %s", ep->api_key);
        up_hdrs_add(h, "Authorization", v.data);
        memset(v.data, 0, v.len);
    }
    up_buf_release(&v);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* An assistant's calls: {id, type: function, function: {name, arguments}}. */
static json_t *calls_json(const up_msg *m)
{
    json_t *a = json_array();

    for (size_t i = 0; i < m->ncalls; i++) {
        const up_tool_call *c = &m->calls[i];

        json_array_append_new(a, json_pack("{s:o, s:s, s:{s:o, s:s}}", "id",
                                           str_or_null(c->id), "type",
                                           "function", "function", "name",
                                           str_or_null(c->name), "arguments",
                                           c->args ? c->args : "{}"));
    }
    return a;
}

/* One up_msg; a tool error is a tool message like any other (the wire
   has no error flag: the text says what went wrong). */
static json_t *msg_json(const up_msg *m)
{
    json_t *o = json_pack("{s:s}", "role", up_role_name(m->role));

    if (m->role == UP_ROLE_TOOL)
        json_object_set_new(o, "tool_call_id", str_or_null(m->call_id));
    json_object_set_new(o, "content",
                        m->text || m->role != UP_ROLE_ASSISTANT
                            ? json_string(m->text ? m->text : "")
                            : json_null());
    if (m->role == UP_ROLE_ASSISTANT && m->ncalls)
        json_object_set_new(o, "tool_calls", calls_json(m));
    return o;
}

/* tools: [{type: function, function: {name, description, parameters}}] */
static json_t *tools_json(const up_request *rq)
{
    json_t *a = json_array();

    for (size_t i = 0; i < rq->ntools; i++) {
        const up_tool_spec *t = &rq->tools[i];

        json_array_append_new(a, json_pack("{s:s, s:{s:s, s:s, s:o}}", "type",
                                           "function", "function", "name",
                                           t->name, "description",
                                           t->description ? t->description : "",
                                           "parameters", up_tool_params(t)));
    }
    return a;
}

static json_t *messages(const up_endpoint *ep, const up_request *rq)
{
    json_t *a = json_array();

    if (rq->system)
        json_array_append_new(a,
                              json_pack("{s:s, s:s}", "role",
                                        is_compat(ep) ? "system" : "developer",
                                        "content", rq->system));
    for (size_t i = 0; i < rq->n_messages; i++)
        json_array_append_new(a, json_pack("{s:s, s:s}", "role",
                                           rq->messages[i].role, "content",
                                           rq->messages[i].content));
    for (size_t i = 0; i < rq->nmsgs; i++)
        json_array_append_new(a, msg_json(&rq->msgs[i]));
    return a;
}

static void add_schema(json_t *b, const up_request *rq)
{
    json_t *schema = json_loads(rq->schema, 0, NULL);

    json_object_set_new(b, "response_format",
                        json_pack("{s:s, s:{s:s, s:o, s:b}}", "type",
                                  "json_schema", "json_schema", "name",
                                  rq->schema_name ? rq->schema_name : "result",
                                  "schema", schema, "strict", 1));
}

static json_t *body(const up_endpoint *ep, const up_request *rq)
{
    int compat = is_compat(ep);
    const char *effort = up_provider_effort(ep);
    json_t *b = json_pack("{s:s, s:o}", "model", ep->model ? ep->model : "",
                          "messages", messages(ep, rq));

    json_object_set_new(b, compat ? "max_tokens" : "max_completion_tokens",
                        json_integer(up_provider_max_tokens(ep)));
    if (effort)
        json_object_set_new(b, "reasoning_effort", json_string(effort));
    /* OpenAI's reasoning models refuse a non-default temperature */
    if (rq->temperature >= 0 && (compat || !effort))
        json_object_set_new(b, "temperature", json_real(rq->temperature));
    if (rq->schema)
        add_schema(b, rq);
    if (up_provider_streams(ep, rq)) {
        json_object_set_new(b, "stream", json_true());
        json_object_set_new(b, "stream_options",
                            json_pack("{s:b}", "include_usage", 1));
    }
    return b;
}

static void read_usage(up_reply *r, json_t *u)
{
    int seen = 0, rseen = 0;

    if (!json_is_object(u))
        return;
    r->usage.input = up_pjson_long(u, "prompt_tokens", &seen);
    r->usage.output = up_pjson_long(u, "completion_tokens", &seen);
    r->usage.cached = up_pjson_long(json_object_get(u, "prompt_tokens_details"),
                                    "cached_tokens", NULL);
    r->usage.reasoning =
        up_pjson_long(json_object_get(u, "completion_tokens_details"),
                      "reasoning_tokens", &rseen);
    r->has_usage |= seen;
    r->has_rtokens |= rseen;
}

/* Text fields of a message or a delta; returns 1 if any had content. */
static int read_fields(up_reply *r, json_t *m)
{
    static const char *const rkeys[] = {"reasoning_content", "reasoning",
                                        "thinking"};
    const char *s;
    int any = 0;

    if ((s = up_json_str(m, "content")) && *s) {
        up_buf_adds(&r->text, s);
        any = 1;
    }
    for (size_t i = 0; i < sizeof(rkeys) / sizeof(*rkeys); i++)
        if ((s = up_json_str(m, rkeys[i])) && *s) {
            up_buf_adds(&r->reasoning, s);
            any = 1;
            break;
        }
    if (!r->text.len && (s = up_json_str(m, "refusal")) && *s)
        up_buf_adds(&r->text, s);
    return any;
}

/*
 * tool_calls of a message or a delta: id and name arrive once, arguments
 * in fragments joined per index (a whole message has one fragment each).
 * Returns 1 if any arrived.
 */
static int read_calls(up_reply *r, json_t *m)
{
    json_t *tc, *a = json_object_get(m, "tool_calls");
    size_t i;
    int any = 0;

    json_array_foreach(a, i, tc)
    {
        json_t *fn = json_object_get(tc, "function");
        json_t *ix = json_object_get(tc, "index");
        up_reply_call *c = up_reply_call_at(
            r, json_is_integer(ix) ? (int)json_integer_value(ix) : (int)i);
        const char *s;

        if ((s = up_json_str(tc, "id")) && !c->id.len)
            up_buf_adds(&c->id, s);
        if ((s = up_json_str(fn, "name")) && !c->name.len)
            up_buf_adds(&c->name, s);
        if ((s = up_json_str(fn, "arguments")))
            up_buf_adds(&c->args, s);
        any = 1;
    }
    return any;
}

static void read_finish(up_reply *r, json_t *choice)
{
    const char *f = up_json_str(choice, "finish_reason");

    if (!f)
        return;
    up_buf_reset(&r->stop);
    up_buf_adds(&r->stop, f);
}

static int parse(up_reply *r, json_t *root)
{
    json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
    json_t *m = json_object_get(choice, "message");

    if (!json_is_object(m))
        return UP_EPARSE;
    read_fields(r, m);
    read_calls(r, m);
    read_finish(r, choice);
    read_usage(r, json_object_get(root, "usage"));
    up_reply_model(r, root);
    r->ended = 1;
    return 0;
}

/*
 * One stream event.  An error comes in-band with status 200: newer
 * llama.cpp and vLLM send {"error": {...}} as data, older llama.cpp an
 * "error:" line (the parser's "error" event, the object bare).
 */
static int event(up_reply *r, const char *name, json_t *data)
{
    json_t *choice = json_array_get(json_object_get(data, "choices"), 0);
    json_t *e = json_object_get(data, "error");

    if (e && !json_is_null(e))
        return up_reply_error(r, e, 500);
    if (strcmp(name, "error") == 0)
        return up_reply_error(r, data, 500);
    if (choice) {
        if (read_fields(r, json_object_get(choice, "delta")) |
            read_calls(r, json_object_get(choice, "delta")))
            r->committed = 1;
        read_finish(r, choice);
    }
    read_usage(r, json_object_get(data, "usage"));
    up_reply_model(r, data);
    return 0;
}

const struct up_provider_ops up_openai_ops = {
    .name = "openai",
    .kind = UP_WIRE_OPENAI,
    .default_base = DEFAULT_BASE,
    .models_path = "/models",
    .limits = limits,
    .key_prefixes = key_prefixes,
    .quota_words = quota_words,
    .url = url,
    .headers = up_openai_auth,
    .body = body,
    .tools = tools_json,
    .parse = parse,
    .event = event,
};
