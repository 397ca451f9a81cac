/*
 * The OpenAI Responses API wire and the provider presets: request bodies
 * (input items, instructions, flat function tools, function_call and
 * function_call_output items, reasoning.effort, max_output_tokens,
 * stream), replies whole and streamed (split at every chunk size),
 * function calls, usage with reasoning and cached tokens, the
 * incomplete stop at the cap, in-band failures; presets' URLs, auth
 * headers and Azure's deployment path and api-version query.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "providers/providers.h"
#include "upskill/upskill.h"

static const up_tool_spec tools[] = {
    {"read_file", "Read a file.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"},
};

static char id1[] = "call_1", rf[] = "read_file";
static char args1[] = "{\"path\":\"a.txt\"}";
static const up_tool_call calls[] = {{id1, rf, args1}};

static const up_msg convo[] = {
    {UP_ROLE_USER, "Read a.txt", NULL, 0, NULL, 0, NULL},
    {UP_ROLE_ASSISTANT, NULL, calls, 1, NULL, 0, NULL},
    {UP_ROLE_TOOL, "alpha", NULL, 0, "call_1", 1, NULL},
};

static up_request tool_request(void)
{
    up_request rq;

    up_request_init(&rq);
    rq.system = "Be terse.";
    rq.msgs = convo;
    rq.nmsgs = 3;
    rq.tools = tools;
    rq.ntools = 1;
    return rq;
}

/* Build rq on ep; the body as JSON, the URL and headers kept. */
static json_t *build(const up_endpoint *ep, const up_request *rq, up_buf *url,
                     up_hdrs *h)
{
    up_buf raw = UP_BUF_INIT;
    up_error err;
    json_t *j;

    cr_assert_eq(up_provider_build(ep, rq, url, h, &raw, &err), 0, "%s",
                 err.msg);
    j = json_loads(raw.data, 0, NULL);
    cr_assert_not_null(j, "%s", raw.data);
    up_buf_release(&raw);
    return j;
}

static const char *str_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    cr_assert_not_null(s, "no string '%s'", key);
    return s;
}

static int has_header(const up_hdrs *h, const char *line)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->v[i], line))
            return 1;
    return 0;
}

Test(responses, request_items_tools_effort_and_cap)
{
    up_endpoint ep;
    up_request rq = tool_request();
    up_buf url = UP_BUF_INIT;
    up_hdrs h = {0};
    json_t *b, *in, *t;

    up_endpoint_init_for(&ep, up_preset_find("responses", 9));
    ep.model = "gpt-5.1";
    ep.effort = "high";
    ep.api_key = "sk-test";
    ep.max_tokens = 900;
    ep.stream = 1;
    b = build(&ep, &rq, &url, &h);
    cr_assert_str_eq(url.data, "https://api.openai.com/v1/responses");
    cr_assert(has_header(&h, "Authorization: Bearer sk-test"));
    cr_assert_str_eq(str_of(b, "instructions"), "Be terse.");
    cr_assert_eq(json_integer_value(json_object_get(b, "max_output_tokens")),
                 900);
    cr_assert_str_eq(str_of(json_object_get(b, "reasoning"), "effort"), "high");
    cr_assert(json_is_true(json_object_get(b, "stream")));
    cr_assert(json_is_false(json_object_get(b, "store")));
    cr_assert_null(json_object_get(b, "messages"));
    cr_assert_null(json_object_get(b, "temperature"));
    in = json_object_get(b, "input");
    cr_assert_eq(json_array_size(in), 3);
    cr_assert_str_eq(str_of(json_array_get(in, 0), "role"), "user");
    cr_assert_str_eq(str_of(json_array_get(in, 0), "content"), "Read a.txt");
    cr_assert_str_eq(str_of(json_array_get(in, 1), "type"), "function_call");
    cr_assert_str_eq(str_of(json_array_get(in, 1), "call_id"), "call_1");
    cr_assert_str_eq(str_of(json_array_get(in, 1), "name"), "read_file");
    cr_assert_str_eq(str_of(json_array_get(in, 1), "arguments"), args1);
    cr_assert_str_eq(str_of(json_array_get(in, 2), "type"),
                     "function_call_output");
    cr_assert_str_eq(str_of(json_array_get(in, 2), "call_id"), "call_1");
    cr_assert_str_eq(str_of(json_array_get(in, 2), "output"), "alpha");
    t = json_array_get(json_object_get(b, "tools"), 0);
    cr_assert_str_eq(str_of(t, "type"), "function");
    cr_assert_str_eq(str_of(t, "name"), "read_file"); /* flat, no "function" */
    cr_assert(json_is_object(json_object_get(t, "parameters")));
    json_decref(b);
    up_buf_release(&url);
    up_hdrs_release(&h);
}

Test(responses, plain_request_schema_and_temperature)
{
    up_endpoint ep;
    up_request rq;
    up_message m = {"user", "Hi"};
    up_buf url = UP_BUF_INIT;
    up_hdrs h = {0};
    json_t *b, *fmt;

    up_endpoint_init(&ep, UP_WIRE_RESPONSES);
    ep.base_url = "http://127.0.0.1:9/v1/";
    ep.model = "m";
    up_request_init(&rq);
    rq.messages = &m;
    rq.n_messages = 1;
    rq.temperature = 0.5;
    rq.schema = "{\"type\":\"object\"}";
    b = build(&ep, &rq, &url, &h);
    cr_assert_str_eq(url.data, "http://127.0.0.1:9/v1/responses");
    cr_assert_null(json_object_get(b, "stream"));
    cr_assert_null(json_object_get(b, "reasoning"));
    cr_assert_null(json_object_get(b, "instructions"));
    cr_assert_eq(json_integer_value(json_object_get(b, "max_output_tokens")),
                 UP_DEFAULT_MAX_TOKENS);
    cr_assert_float_eq(json_real_value(json_object_get(b, "temperature")), 0.5,
                       1e-9);
    fmt = json_object_get(json_object_get(b, "text"), "format");
    cr_assert_str_eq(str_of(fmt, "type"), "json_schema");
    cr_assert_str_eq(str_of(fmt, "name"), "result");
    json_decref(b);
    up_buf_release(&url);
    up_hdrs_release(&h);
}

/* ---- replies ---------------------------------------------------------- */

typedef struct got {
    up_endpoint ep;
    up_reply r;
    up_response res;
} got;

static void start(got *g)
{
    up_endpoint_init(&g->ep, UP_WIRE_RESPONSES);
    g->ep.max_tokens = 64;
    up_reply_init(&g->r, &g->ep);
    up_response_init(&g->res);
}

static void parse_body(got *g, const char *body)
{
    up_request rq = tool_request();
    up_error err;

    start(g);
    cr_assert_eq(up_reply_parse(&g->r, body, strlen(body), &err), 0, "%s",
                 err.msg);
    up_reply_finish(&g->r, &rq, &g->res);
}

/* Feed sse in chunks of k bytes; the in-band status is returned. */
static int parse_stream(got *g, const char *sse, size_t k, up_buf *msg)
{
    up_request rq = tool_request();
    int rc = 0;

    start(g);
    for (size_t i = 0, n = strlen(sse); i < n && !rc; i += k)
        rc = up_reply_feed(&g->r, sse + i, n - i < k ? n - i : k, msg);
    up_reply_finish(&g->r, &rq, &g->res);
    return rc;
}

static void got_release(got *g)
{
    up_reply_release(&g->r);
    up_response_release(&g->res);
}

Test(responses, whole_reply_text_reasoning_usage)
{
    got g;

    parse_body(&g, "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":"
                   "\"completed\",\"model\":\"gpt-5.1-2025\",\"output\":[{"
                   "\"type\":\"reasoning\",\"summary\":[{\"type\":"
                   "\"summary_text\",\"text\":\"weighed it\"}]},{\"type\":"
                   "\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
                   "\"output_text\",\"text\":\"Hello \"},{\"type\":"
                   "\"output_text\",\"text\":\"world\"}]}],\"usage\":{"
                   "\"input_tokens\":20,\"input_tokens_details\":{"
                   "\"cached_tokens\":8},\"output_tokens\":15,"
                   "\"output_tokens_details\":{\"reasoning_tokens\":9},"
                   "\"total_tokens\":35}}");
    cr_assert_str_eq(g.res.text, "Hello world");
    cr_assert_str_eq(g.res.reasoning, "weighed it");
    cr_assert_str_eq(g.res.stop_reason, "completed");
    cr_assert_eq(g.res.stop, UP_STOP_END);
    cr_assert_eq(g.res.usage.input, 20);
    cr_assert_eq(g.res.usage.cached, 8);
    cr_assert_eq(g.res.usage.output, 15);
    cr_assert_eq(g.res.usage.reasoning, 9);
    cr_assert_eq(g.res.usage.estimated, 0);
    cr_assert_str_eq(g.res.model, "gpt-5.1-2025");
    cr_assert_eq(up_response_cut_at(&g.res, &g.ep), 0);
    got_release(&g);
}

Test(responses, whole_reply_function_calls)
{
    got g;

    parse_body(&g, "{\"status\":\"completed\",\"output\":[{\"type\":"
                   "\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_9\","
                   "\"name\":\"read_file\",\"arguments\":"
                   "\"{\\\"path\\\":\\\"a.txt\\\"}\"}],\"usage\":{"
                   "\"input_tokens\":5,\"output_tokens\":4}}");
    cr_assert_eq(g.res.ncalls, 1);
    cr_assert_str_eq(g.res.calls[0].id, "call_9");
    cr_assert_str_eq(g.res.calls[0].name, "read_file");
    cr_assert_str_eq(g.res.calls[0].args, "{\"path\":\"a.txt\"}");
    cr_assert_eq(g.res.stop, UP_STOP_TOOL);
    got_release(&g);
}

Test(responses, incomplete_at_the_cap_is_cut)
{
    got g;

    parse_body(&g, "{\"status\":\"incomplete\",\"incomplete_details\":{"
                   "\"reason\":\"max_output_tokens\"},\"output\":[{\"type\":"
                   "\"message\",\"content\":[{\"type\":\"output_text\","
                   "\"text\":\"Half\"}]}],\"usage\":{\"input_tokens\":3,"
                   "\"output_tokens\":64}}");
    cr_assert_str_eq(g.res.text, "Half");
    cr_assert_str_eq(g.res.stop_reason, "max_output_tokens");
    cr_assert_eq(g.res.stop, UP_STOP_LENGTH);
    cr_assert_eq(g.res.truncated, 1);
    cr_assert_eq(up_response_cut_at(&g.res, &g.ep), 64);
    got_release(&g);
}

Test(responses, reply_without_output_is_refused)
{
    got g;
    up_error err;

    start(&g);
    cr_assert_eq(up_reply_parse(&g.r, "{\"choices\":[]}", 14, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "responses reply"), "%s", err.msg);
    got_release(&g);
}

static const char stream[] =
    "event: response.created\n"
    "data: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":"
    "{\"id\":\"r1\",\"status\":\"in_progress\",\"model\":\"gpt-5.1\","
    "\"output\":[]}}\n\n"
    "event: response.reasoning_summary_text.delta\n"
    "data: {\"type\":\"response.reasoning_summary_text.delta\","
    "\"output_index\":0,\"delta\":\"hm\"}\n\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"output_index\":1,"
    "\"delta\":\"Hé\"}\n\n"
    "event: response.output_text.delta\n"
    "data: {\"type\":\"response.output_text.delta\",\"output_index\":1,"
    "\"delta\":\"llo\"}\n\n"
    "event: response.output_item.added\n"
    "data: {\"type\":\"response.output_item.added\",\"output_index\":2,"
    "\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":"
    "\"call_1\",\"name\":\"read_file\",\"arguments\":\"\"}}\n\n"
    "event: response.function_call_arguments.delta\n"
    "data: {\"type\":\"response.function_call_arguments.delta\","
    "\"output_index\":2,\"delta\":\"{\\\"pa\"}\n\n"
    "event: response.function_call_arguments.delta\n"
    "data: {\"type\":\"response.function_call_arguments.delta\","
    "\"output_index\":2,\"delta\":\"th\\\":\\\"a.txt\\\"}\"}\n\n"
    "event: response.output_item.done\n"
    "data: {\"type\":\"response.output_item.done\",\"output_index\":2,"
    "\"item\":{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":"
    "\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}}\n\n"
    "event: response.completed\n"
    "data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\","
    "\"status\":\"completed\",\"model\":\"gpt-5.1-x\",\"output\":[],"
    "\"usage\":{\"input_tokens\":12,\"input_tokens_details\":{"
    "\"cached_tokens\":4},\"output_tokens\":30,\"output_tokens_details\":{"
    "\"reasoning_tokens\":20}}}}\n\n";

Test(responses, stream_split_at_every_chunk_size)
{
    for (size_t k = 1; k <= sizeof(stream); k++) {
        got g;
        up_buf msg = UP_BUF_INIT;

        cr_assert_eq(parse_stream(&g, stream, k, &msg), 0, "%zu: %s", k,
                     msg.data);
        cr_assert(g.r.ended, "%zu", k);
        cr_assert_str_eq(g.res.text, "Héllo", "%zu", k);
        cr_assert_str_eq(g.res.reasoning, "hm");
        cr_assert_eq(g.res.ncalls, 1, "%zu", k);
        cr_assert_str_eq(g.res.calls[0].id, "call_1");
        cr_assert_str_eq(g.res.calls[0].args, "{\"path\":\"a.txt\"}");
        cr_assert_eq(g.res.stop, UP_STOP_TOOL);
        cr_assert_eq(g.res.usage.input, 12);
        cr_assert_eq(g.res.usage.cached, 4);
        cr_assert_eq(g.res.usage.output, 30);
        cr_assert_eq(g.res.usage.reasoning, 20);
        cr_assert_eq(g.res.usage.estimated, 0);
        cr_assert_str_eq(g.res.model, "gpt-5.1-x");
        got_release(&g);
        up_buf_release(&msg);
    }
}

Test(responses, stream_incomplete_and_failures)
{
    static const char cut[] =
        "event: response.output_text.delta\n"
        "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Ha\"}\n\n"
        "event: response.incomplete\n"
        "data: {\"type\":\"response.incomplete\",\"response\":{\"status\":"
        "\"incomplete\",\"incomplete_details\":{\"reason\":"
        "\"max_output_tokens\"},\"usage\":{\"input_tokens\":1,"
        "\"output_tokens\":64}}}\n\n";
    static const char failed[] =
        "event: response.failed\n"
        "data: {\"type\":\"response.failed\",\"response\":{\"status\":"
        "\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":"
        "\"slow down\"}}}\n\n";
    static const char error[] =
        "event: error\n"
        "data: {\"type\":\"error\",\"code\":\"server_error\",\"message\":"
        "\"boom\"}\n\n";
    static const char status[] =
        "event: error\n"
        "data: {\"type\":\"error\",\"code\":503,\"message\":\"busy\"}\n\n";
    got g;
    up_buf msg = UP_BUF_INIT;

    cr_assert_eq(parse_stream(&g, cut, 5, &msg), 0);
    cr_assert_str_eq(g.res.text, "Ha");
    cr_assert_eq(g.res.stop, UP_STOP_LENGTH);
    cr_assert_eq(up_response_cut_at(&g.res, &g.ep), 64);
    got_release(&g);
    cr_assert_eq(parse_stream(&g, failed, 3, &msg), 429);
    cr_assert_str_eq(msg.data, "stream error rate_limit_exceeded: slow down");
    got_release(&g);
    up_buf_reset(&msg);
    cr_assert_eq(parse_stream(&g, error, 3, &msg), 500);
    cr_assert_str_eq(msg.data, "stream error server_error: boom");
    got_release(&g);
    up_buf_reset(&msg);
    /* an HTTP status as the code: the words of every other wire's */
    cr_assert_eq(parse_stream(&g, status, 3, &msg), 503);
    cr_assert_str_eq(msg.data, "stream error 503: busy");
    got_release(&g);
    up_buf_release(&msg);
}

Test(responses, stream_of_only_the_final_response)
{
    static const char only[] =
        "event: response.completed\n"
        "data: {\"type\":\"response.completed\",\"response\":{\"status\":"
        "\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{"
        "\"type\":\"output_text\",\"text\":\"All at once\"}]}],\"usage\":{"
        "\"input_tokens\":2,\"output_tokens\":3}}}\n\n";
    got g;
    up_buf msg = UP_BUF_INIT;

    cr_assert_eq(parse_stream(&g, only, 7, &msg), 0);
    cr_assert_str_eq(g.res.text, "All at once");
    cr_assert_eq(g.res.stop, UP_STOP_END);
    cr_assert_eq(g.res.usage.output, 3);
    got_release(&g);
    up_buf_release(&msg);
}

/* ---- presets ---------------------------------------------------------- */

Test(responses, azure_deployment_query_and_key_header)
{
    up_endpoint ep;
    up_request rq;
    up_message m = {"user", "Hi"};
    up_buf url = UP_BUF_INIT;
    up_hdrs h = {0};
    json_t *b;

    cr_assert_eq(up_endpoint_init_for(&ep, up_preset_find("azure", 5)), 0);
    ep.base_url = "https://res.openai.azure.com/";
    ep.model = "my-gpt4o";
    ep.api_key = "azkey123";
    up_request_init(&rq);
    rq.messages = &m;
    rq.n_messages = 1;
    rq.system = "S";
    b = build(&ep, &rq, &url, &h);
    cr_assert_str_eq(url.data, "https://res.openai.azure.com/openai/"
                               "deployments/my-gpt4o/chat/completions"
                               "?api-version=2024-10-21");
    cr_assert(has_header(&h, "api-key: azkey123"));
    for (size_t i = 0; i < h.n; i++)
        cr_assert_null(strstr(h.v[i], "Authorization"), "%s", h.v[i]);
    /* official rules: developer role, max_completion_tokens */
    cr_assert_str_eq(
        str_of(json_array_get(json_object_get(b, "messages"), 0), "role"),
        "developer");
    cr_assert_not_null(json_object_get(b, "max_completion_tokens"));
    json_decref(b);
    up_buf_release(&url);
    up_hdrs_release(&h);
}

Test(responses, hosted_presets_urls_and_bearer)
{
    static const struct {
        const char *spec, *url;
    } cases[] = {
        {"gemini25pro", "https://generativelanguage.googleapis.com/v1beta/"
                        "openai/chat/completions"},
        {"deepseek", "https://api.deepseek.com/chat/completions"},
        {"grok-4-fast", "https://api.x.ai/v1/chat/completions"},
        {"kimigroq", "https://api.groq.com/openai/v1/chat/completions"},
        {"openrouter.a/b", "https://openrouter.ai/api/v1/chat/completions"},
        {"gpt52", "https://api.openai.com/v1/responses"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_model mo;
        up_endpoint ep;
        up_request rq;
        up_message m = {"user", "Hi"};
        up_buf url = UP_BUF_INIT;
        up_hdrs h = {0};
        up_error err;
        json_t *b;

        up_model_init(&mo);
        cr_assert_eq(
            up_model_resolve(&mo, cases[i].spec, NULL, NULL, NULL, &err), 0,
            "%s", err.msg);
        cr_assert(mo.key_required, "%s", cases[i].spec);
        up_endpoint_init_for(&ep, (int)mo.provider);
        ep.base_url = mo.base_url;
        ep.model = mo.model_id;
        ep.api_key = "k1";
        up_request_init(&rq);
        rq.messages = &m;
        rq.n_messages = 1;
        b = build(&ep, &rq, &url, &h);
        cr_assert_str_eq(url.data, cases[i].url);
        cr_assert(has_header(&h, "Authorization: Bearer k1"), "%s",
                  cases[i].spec);
        json_decref(b);
        up_buf_release(&url);
        up_hdrs_release(&h);
        up_model_release(&mo);
    }
}

struct env {
    const char *name, *value;
};

static const char *env_get(const char *name, void *ctx)
{
    const struct env *e = ctx;

    for (; e->name; e++)
        if (!strcmp(e->name, name))
            return e->value;
    return NULL;
}

Test(responses, azure_needs_a_resource_url)
{
    static const struct env none[] = {{NULL, NULL}};
    static const struct env set[] = {
        {"AZURE_OPENAI_ENDPOINT", "https://res.openai.azure.com/"},
        {NULL, NULL}};
    up_config cfg;
    up_model m;
    up_error err;

    up_config_init(&cfg);
    up_config_set_env(&cfg, env_get, (void *)none);
    up_config_apply_env(&cfg);
    up_model_init(&m);
    cr_assert_eq(up_model_resolve(&m, "azure.my-dep", NULL, NULL, &cfg, &err),
                 UP_EPARSE);
    cr_assert(strstr(err.msg, "'azure.my-dep': no base URL for provider "
                              "'azure'"),
              "%s", err.msg);
    cr_assert(strstr(err.msg, "AZURE_OPENAI_ENDPOINT"), "%s", err.msg);
    up_config_release(&cfg);
    up_config_init(&cfg);
    up_config_set_env(&cfg, env_get, (void *)set);
    up_config_apply_env(&cfg);
    cr_assert_eq(up_model_resolve(&m, "azure.my-dep", NULL, NULL, &cfg, &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(m.base_url, "https://res.openai.azure.com");
    cr_assert_str_eq(m.api_key_env, "AZURE_OPENAI_API_KEY");
    cr_assert_str_eq(m.resolved, "azure.my-dep");
    up_model_release(&m);
    up_config_release(&cfg);
}

Test(responses, base_url_flag_keeps_the_responses_wire)
{
    up_model m;
    up_error err;
    up_endpoint ep;

    up_model_init(&m);
    cr_assert_eq(up_model_resolve(&m, "responses.gpt-5.1.low",
                                  "http://127.0.0.1:9/v1", NULL, NULL, &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(up_provider_name(m.provider), "responses");
    cr_assert_str_eq(m.resolved, "responses.gpt-5.1.low");
    cr_assert_eq(m.key_required, 0);
    up_endpoint_init_for(&ep, (int)m.provider);
    cr_assert_eq(ep.kind, UP_WIRE_RESPONSES);
    cr_assert_eq(up_model_resolve(&m, "deepseek.x", "http://127.0.0.1:9/v1",
                                  NULL, NULL, &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(up_provider_name(m.provider), "generic");
    cr_assert_str_eq(m.model_id, "x");
    up_model_release(&m);
}

Test(responses, every_preset_is_a_named_provider_with_a_wire)
{
    for (int i = 0; i < UP_PROV_COUNT; i++) {
        const up_preset *p = up_preset_at(i);
        enum up_provider_kind k;
        up_endpoint ep;

        cr_assert_not_null(p);
        cr_assert_eq(up_provider_parse(&k, p->name), 0, "%s", p->name);
        cr_assert_eq((int)k, i);
        cr_assert_eq(up_endpoint_init_for(&ep, i), 0);
        cr_assert_not_null(up_provider_ops_for(ep.kind), "%s", p->name);
    }
    cr_assert_null(up_preset_at(UP_PROV_COUNT));
    cr_assert_eq(up_wire_kind_of("responses"), UP_WIRE_RESPONSES);
}

Test(responses, preset_default_headers_yield_to_the_config)
{
    static const char yaml[] = "providers:\n"
                               "  openrouter:\n"
                               "    headers:\n"
                               "      x-title: mine\n"
                               "      X-Extra: 1\n";
    up_config cfg;
    up_model m;
    up_error err;

    up_model_init(&m);
    cr_assert_eq(up_model_resolve(&m, "openrouter.a/b", NULL, NULL, NULL, &err),
                 0, "%s", err.msg);
    cr_assert_eq(m.nheaders, 1);
    cr_assert_str_eq(m.headers[0].name, "X-Title");
    cr_assert_str_eq(m.headers[0].value, "upskill");
    up_config_init(&cfg);
    cr_assert_eq(up_config_parse(&cfg, yaml, strlen(yaml), "c.yaml", &err), 0,
                 "%s", err.msg);
    cr_assert_eq(up_model_resolve(&m, "openrouter.a/b", NULL, NULL, &cfg, &err),
                 0, "%s", err.msg);
    cr_assert_eq(m.nheaders, 2);
    cr_assert_str_eq(m.headers[0].value, "mine");
    cr_assert_str_eq(m.headers[1].name, "X-Extra");
    cr_assert_eq(up_model_resolve(&m, "deepseek", NULL, NULL, NULL, &err), 0);
    cr_assert_eq(m.nheaders, 0);
    up_model_release(&m);
    up_config_release(&cfg);
}

Test(responses, fastagent_azure_section_reaches_the_preset)
{
    static const char yaml[] = "azure:\n"
                               "  api_key: az-secret\n"
                               "  base_url: https://res.openai.azure.com/\n"
                               "xai:\n"
                               "  base_url: http://127.0.0.1:9/v1\n";
    static const struct env none[] = {{NULL, NULL}};
    up_config cfg;
    up_model m;
    up_error err;

    up_config_init(&cfg);
    up_config_set_env(&cfg, env_get, (void *)none);
    cr_assert_eq(up_config_parse_fastagent(&cfg, yaml, strlen(yaml),
                                           "fastagent.secrets.yaml", &err),
                 0, "%s", err.msg);
    up_config_apply_env(&cfg);
    cr_assert_str_eq(up_config_getenv(&cfg, "AZURE_OPENAI_API_KEY"),
                     "az-secret");
    up_model_init(&m);
    cr_assert_eq(up_model_resolve(&m, "azure.dep", NULL, NULL, &cfg, &err), 0,
                 "%s", err.msg);
    cr_assert_str_eq(m.base_url, "https://res.openai.azure.com");
    cr_assert_eq(up_model_resolve(&m, "grok-4", NULL, NULL, &cfg, &err), 0,
                 "%s", err.msg);
    cr_assert_str_eq(m.base_url, "http://127.0.0.1:9/v1");
    up_model_release(&m);
    up_config_release(&cfg);
}
