/* Unit tests for request building and reply reading of each provider. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "providers/providers.h"
#include "upskill/config.h"
#include "upskill/http.h"

static const up_message hello[] = {{"user", "Hello there"}};

typedef struct built {
    up_buf url;
    up_hdrs h;
    json_t *body;
} built;

static built build(const up_endpoint *ep, const up_request *rq)
{
    built b = {UP_BUF_INIT, {0}, NULL};
    up_buf body = UP_BUF_INIT;
    up_error err;

    cr_assert_eq(up_provider_build(ep, rq, &b.url, &b.h, &body, &err), 0, "%s",
                 err.msg);
    b.body = json_loads(body.data, 0, NULL);
    cr_assert_not_null(b.body);
    up_buf_release(&body);
    return b;
}

static void built_release(built *b)
{
    up_buf_release(&b->url);
    up_hdrs_release(&b->h);
    json_decref(b->body);
}

static int has_header(const built *b, const char *line)
{
    for (size_t i = 0; i < b->h.n; i++)
        if (strcmp(b->h.v[i], line) == 0)
            return 1;
    return 0;
}

static json_t *at(json_t *j, const char *path)
{
    char key[64];

    while (j && *path) {
        size_t n = strcspn(path, ".");

        snprintf(key, sizeof(key), "%.*s", (int)n, path);
        j = json_is_array(j) ? json_array_get(j, strtoul(key, NULL, 10))
                             : json_object_get(j, key);
        path += n + (path[n] == '.');
    }
    return j;
}

static const char *str_at(json_t *j, const char *path)
{
    return json_string_value(at(j, path));
}

static up_request basic(void)
{
    up_request rq;

    up_request_init(&rq);
    rq.system = "Be terse.";
    rq.messages = hello;
    rq.n_messages = 1;
    return rq;
}

Test(providers, anthropic_basic_request)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-haiku-4-5";
    ep.api_key = "sk-ant-test-123456789";
    rq.temperature = 0.5;
    b = build(&ep, &rq);
    cr_assert_str_eq(b.url.data, "https://api.anthropic.com/v1/messages");
    cr_assert(has_header(&b, "x-api-key: sk-ant-test-123456789"));
    cr_assert(has_header(&b, "anthropic-version: 2023-06-01"));
    cr_assert(has_header(&b, "Content-Type: application/json"));
    cr_assert_str_eq(str_at(b.body, "system"), "Be terse.");
    cr_assert_str_eq(str_at(b.body, "messages.0.role"), "user");
    cr_assert_eq(json_integer_value(at(b.body, "max_tokens")), 4096);
    cr_assert_float_eq(json_real_value(at(b.body, "temperature")), 0.5, 1e-9);
    cr_assert_null(at(b.body, "thinking"));
    cr_assert_null(at(b.body, "stream"));
    built_release(&b);
}

Test(providers, anthropic_base_url_forms)
{
    const char *bases[] = {"http://127.0.0.1:9/", "http://127.0.0.1:9/v1"};
    up_endpoint ep;
    up_request rq = basic();

    for (size_t i = 0; i < 2; i++) {
        built b;

        up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
        ep.base_url = bases[i];
        b = build(&ep, &rq);
        cr_assert_str_eq(b.url.data, "http://127.0.0.1:9/v1/messages");
        cr_assert_not(b.h.n > 0 && strncmp(b.h.v[0], "x-api-key", 9) == 0);
        built_release(&b);
    }
}

Test(providers, anthropic_budget_thinking)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-sonnet-4-5";
    ep.effort = "medium";
    ep.max_tokens = 1000;
    rq.temperature = 0.2;
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "thinking.type"), "enabled");
    cr_assert_eq(json_integer_value(at(b.body, "thinking.budget_tokens")),
                 8192);
    cr_assert_eq(json_integer_value(at(b.body, "max_tokens")), 9192);
    cr_assert_null(at(b.body, "temperature"));
    built_release(&b);
}

Test(providers, anthropic_adaptive_family)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-sonnet-5";
    ep.effort = "high";
    rq.temperature = 0.2;
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "thinking.type"), "adaptive");
    cr_assert_str_eq(str_at(b.body, "output_config.effort"), "high");
    cr_assert_null(at(b.body, "thinking.budget_tokens"));
    cr_assert_null(at(b.body, "temperature"));
    built_release(&b);
}

Test(providers, anthropic_schema_forced_tool)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-haiku-4-5";
    rq.schema = "{\"type\":\"object\"}";
    rq.schema_name = "cases";
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "tools.0.name"), "cases");
    cr_assert_str_eq(str_at(b.body, "tools.0.input_schema.type"), "object");
    cr_assert_str_eq(str_at(b.body, "tool_choice.type"), "tool");
    cr_assert_str_eq(str_at(b.body, "tool_choice.name"), "cases");
    built_release(&b);
}

Test(providers, anthropic_schema_with_thinking_not_forced)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-opus-4-5";
    ep.effort = "low";
    rq.schema = "{\"type\":\"object\"}";
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "tool_choice.type"), "auto");
    cr_assert_str_eq(str_at(b.body, "tools.0.name"), "result");
    built_release(&b);
}

Test(providers, anthropic_schema_output_format_on_new_models)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.model = "claude-sonnet-5-5";
    ep.stream = 1;
    rq.schema = "{\"type\":\"object\"}";
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "output_config.format.type"),
                     "json_schema");
    cr_assert_null(at(b.body, "tool_choice"));
    cr_assert(json_is_true(at(b.body, "stream")));
    built_release(&b);
}

Test(providers, bad_schema_refused)
{
    up_endpoint ep;
    up_request rq = basic();
    up_buf url = UP_BUF_INIT, body = UP_BUF_INIT;
    up_hdrs h = {0};
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    rq.schema = "{not json";
    cr_assert_eq(up_provider_build(&ep, &rq, &url, &h, &body, &err), UP_EUSAGE);
    cr_assert(strstr(err.msg, "schema") != NULL);
    up_hdrs_release(&h);
    up_buf_release(&url);
    up_buf_release(&body);
}

Test(providers, openai_official_request)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.model = "gpt-5.5";
    ep.api_key = "sk-test-abcdefgh";
    ep.effort = "low";
    rq.temperature = 0.3;
    b = build(&ep, &rq);
    cr_assert_str_eq(b.url.data, "https://api.openai.com/v1/chat/completions");
    cr_assert(has_header(&b, "Authorization: Bearer sk-test-abcdefgh"));
    cr_assert_str_eq(str_at(b.body, "messages.0.role"), "developer");
    cr_assert_str_eq(str_at(b.body, "messages.1.content"), "Hello there");
    cr_assert_eq(json_integer_value(at(b.body, "max_completion_tokens")), 4096);
    cr_assert_null(at(b.body, "max_tokens"));
    cr_assert_str_eq(str_at(b.body, "reasoning_effort"), "low");
    cr_assert_null(at(b.body, "temperature"));
    built_release(&b);
}

Test(providers, openai_compatible_request)
{
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.base_url = "http://127.0.0.1:11434/v1/";
    ep.model = "qwen3:8b";
    ep.stream = 1;
    ep.max_tokens = 100;
    rq.temperature = 0;
    b = build(&ep, &rq);
    cr_assert_str_eq(b.url.data, "http://127.0.0.1:11434/v1/chat/completions");
    cr_assert_str_eq(str_at(b.body, "messages.0.role"), "system");
    cr_assert_eq(json_integer_value(at(b.body, "max_tokens")), 100);
    cr_assert_null(at(b.body, "max_completion_tokens"));
    cr_assert_null(at(b.body, "reasoning_effort"));
    cr_assert(json_is_true(at(b.body, "stream_options.include_usage")));
    cr_assert_float_eq(json_real_value(at(b.body, "temperature")), 0, 1e-9);
    cr_assert_eq(b.h.n, 1); /* no key, no Authorization */
    built_release(&b);
}

Test(providers, openai_schema_and_extra_headers)
{
    const char *extra[] = {"X-Trace: 1", NULL};
    up_endpoint ep;
    up_request rq = basic();
    built b;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.headers = extra;
    ep.compat = 1;
    ep.base_url = "https://api.openai.com/v1";
    rq.schema = "{\"type\":\"object\",\"properties\":{}}";
    rq.schema_name = "person";
    b = build(&ep, &rq);
    cr_assert_str_eq(str_at(b.body, "response_format.type"), "json_schema");
    cr_assert_str_eq(str_at(b.body, "response_format.json_schema.name"),
                     "person");
    cr_assert(json_is_true(at(b.body, "response_format.json_schema.strict")));
    cr_assert_str_eq(str_at(b.body, "response_format.json_schema.schema.type"),
                     "object");
    cr_assert(has_header(&b, "X-Trace: 1"));
    cr_assert_str_eq(str_at(b.body, "messages.0.role"), "system");
    built_release(&b);
}

/* ---- replies ---------------------------------------------------------- */

typedef struct got {
    up_endpoint ep;
    up_reply r;
    up_response res;
} got;

static void parse_body(got *g, int kind, const char *body)
{
    up_request rq = basic();
    up_error err;

    up_endpoint_init(&g->ep, kind);
    up_reply_init(&g->r, &g->ep);
    up_response_init(&g->res);
    cr_assert_eq(up_reply_parse(&g->r, body, strlen(body), &err), 0, "%s",
                 err.msg);
    up_reply_finish(&g->r, &rq, &g->res);
}

static void parse_stream(got *g, int kind, const char *sse)
{
    up_request rq = basic();
    up_buf msg = UP_BUF_INIT;

    up_endpoint_init(&g->ep, kind);
    up_reply_init(&g->r, &g->ep);
    up_response_init(&g->res);
    for (size_t i = 0; sse[i]; i++) /* byte by byte */
        cr_assert_eq(up_reply_feed(&g->r, sse + i, 1, &msg), 0, "%s", msg.data);
    cr_assert(g->r.ended);
    up_reply_finish(&g->r, &rq, &g->res);
    up_buf_release(&msg);
}

static void got_release(got *g)
{
    up_reply_release(&g->r);
    up_response_release(&g->res);
}

Test(providers, anthropic_reply_blocks_and_usage)
{
    got g;

    parse_body(&g, UP_WIRE_ANTHROPIC,
               "{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\","
               "\"signature\":\"x\"},{\"type\":\"text\",\"text\":\"Hi.\"}],"
               "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":12,"
               "\"output_tokens\":40,\"cache_creation_input_tokens\":5,"
               "\"cache_read_input_tokens\":100,\"output_tokens_details\":"
               "{\"thinking_tokens\":31}}}");
    cr_assert_str_eq(g.res.text, "Hi.");
    cr_assert_str_eq(g.res.reasoning, "hmm");
    cr_assert_str_eq(g.res.stop_reason, "end_turn");
    cr_assert_eq(g.res.usage.input, 117);
    cr_assert_eq(g.res.usage.cached, 100);
    cr_assert_eq(g.res.usage.cache_write, 5);
    cr_assert_eq(g.res.usage.output, 40);
    cr_assert_eq(g.res.usage.reasoning, 31);
    cr_assert_eq(g.res.usage.estimated, 0);
    got_release(&g);
}

Test(providers, anthropic_reply_tool_use_is_the_answer)
{
    got g;

    parse_body(&g, UP_WIRE_ANTHROPIC,
               "{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":"
               "\"result\",\"input\":{\"a\":[1,2]}}],\"stop_reason\":"
               "\"tool_use\",\"usage\":{\"input_tokens\":1,"
               "\"output_tokens\":2}}");
    cr_assert_str_eq(g.res.text, "{\"a\":[1,2]}");
    got_release(&g);
}

Test(providers, anthropic_stream)
{
    got g;

    parse_stream(
        &g, UP_WIRE_ANTHROPIC,
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
        "{\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":4,"
        "\"output_tokens\":1}}}\n\n"
        "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
        "\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":"
        "\"let me\"}}\n\n"
        "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\""
        ",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}"
        "\r\n\r\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
        "\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
        "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
        "{},\"usage\":{\"output_tokens\":9}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    cr_assert_str_eq(g.res.text, "Hello");
    cr_assert_str_eq(g.res.reasoning, "let me");
    cr_assert_str_eq(g.res.stop_reason, "end_turn");
    cr_assert_eq(g.res.usage.input, 14);
    cr_assert_eq(g.res.usage.cached, 4);
    cr_assert_eq(g.res.usage.output, 9); /* cumulative, not summed */
    cr_assert(g.r.committed);
    got_release(&g);
}

Test(providers, anthropic_stream_error_event)
{
    up_endpoint ep;
    up_reply r;
    up_buf msg = UP_BUF_INIT;
    const char *s =
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\""
        ":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    up_reply_init(&r, &ep);
    cr_assert_eq(up_reply_feed(&r, s, strlen(s), &msg), 529);
    cr_assert_str_eq(msg.data, "stream error: Overloaded");
    cr_assert_not(r.committed);
    up_reply_release(&r);
    up_buf_release(&msg);
}

Test(providers, openai_reply_usage_details)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"index\":0,\"finish_reason\":\"stop\","
               "\"message\":{\"role\":\"assistant\",\"content\":\"42\"}}],"
               "\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":300,"
               "\"prompt_tokens_details\":{\"cached_tokens\":64},"
               "\"completion_tokens_details\":{\"reasoning_tokens\":256}}}");
    cr_assert_str_eq(g.res.text, "42");
    cr_assert_str_eq(g.res.reasoning, "");
    cr_assert_str_eq(g.res.stop_reason, "stop");
    cr_assert_eq(g.res.usage.input, 120);
    cr_assert_eq(g.res.usage.cached, 64);
    cr_assert_eq(g.res.usage.output, 300);
    cr_assert_eq(g.res.usage.reasoning, 256);
    cr_assert_eq(g.res.usage.estimated, 0);
    got_release(&g);
}

Test(providers, openai_reasoning_content_field)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"yes\","
               "\"reasoning_content\":\"abcdefgh\"}}],\"usage\":"
               "{\"prompt_tokens\":3,\"completion_tokens\":5}}");
    cr_assert_str_eq(g.res.text, "yes");
    cr_assert_str_eq(g.res.reasoning, "abcdefgh");
    cr_assert_eq(g.res.usage.reasoning, 2); /* estimated: 8 chars / 4 */
    cr_assert_eq(g.res.usage.estimated, 1);
    cr_assert_eq(g.res.usage.output, 5);
    got_release(&g);
}

Test(providers, openai_reasoning_field_ollama)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"ok\","
               "\"reasoning\":\"thought\"}}]}");
    cr_assert_str_eq(g.res.text, "ok");
    cr_assert_str_eq(g.res.reasoning, "thought");
    got_release(&g);
}

Test(providers, think_tags_split_out)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"\\n<think>\\nplan "
               "it\\n</think>\\n\\nThe answer\"}}],\"usage\":{"
               "\"prompt_tokens\":3,\"completion_tokens\":9,"
               "\"completion_tokens_details\":{\"reasoning_tokens\":4}}}");
    cr_assert_str_eq(g.res.text, "The answer");
    cr_assert_str_eq(g.res.reasoning, "\nplan it\n");
    cr_assert_eq(g.res.usage.reasoning, 4);
    cr_assert_eq(g.res.usage.estimated, 0);
    got_release(&g);
}

Test(providers, think_close_only_and_unclosed)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"hidden</think>"
               "shown\"}}]}");
    cr_assert_str_eq(g.res.text, "shown");
    cr_assert_str_eq(g.res.reasoning, "hidden");
    got_release(&g);
    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"<thinking>cut off"
               "\"}}]}");
    cr_assert_str_eq(g.res.text, "");
    cr_assert_str_eq(g.res.reasoning, "cut off");
    got_release(&g);
}

Test(providers, missing_usage_estimated)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"12345678\"}}]}");
    cr_assert_eq(g.res.usage.estimated, 1);
    cr_assert_eq(g.res.usage.output, 2);
    /* "Be terse." + "Hello there" = 20 chars */
    cr_assert_eq(g.res.usage.input, 5);
    got_release(&g);
}

Test(providers, openai_stream_with_usage_chunk)
{
    got g;

    parse_stream(
        &g, UP_WIRE_OPENAI,
        ": ping\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}"
        "\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":"
        "\"r1\"}}]}\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}"
        "\n\n"
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"!\"},"
        "\"finish_reason\":\"length\"}]}\n\n"
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
        "\"completion_tokens\":2}}\n\n"
        "data: [DONE]\n\n");
    cr_assert_str_eq(g.res.text, "Hi!");
    cr_assert_str_eq(g.res.reasoning, "r1");
    cr_assert_str_eq(g.res.stop_reason, "length");
    cr_assert_eq(g.res.usage.input, 9);
    cr_assert_eq(g.res.usage.output, 2);
    got_release(&g);
}

Test(providers, openai_stream_error_chunk)
{
    up_endpoint ep;
    up_reply r;
    up_buf msg = UP_BUF_INIT;
    const char *s = "data: {\"error\":{\"message\":\"boom\",\"code\":503}}\n\n";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    cr_assert_eq(up_reply_feed(&r, s, strlen(s), &msg), 503);
    cr_assert_str_eq(msg.data, "stream error 503: boom");
    up_reply_release(&r);
    up_buf_release(&msg);
}

Test(providers, non_json_body_is_an_error)
{
    up_endpoint ep;
    up_reply r;
    up_error err;
    const char *body = "<html>502 Bad Gateway</html>";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    cr_assert_eq(up_reply_parse(&r, body, strlen(body), &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "not JSON") != NULL);
    cr_assert_eq(up_reply_parse(&r, "{\"choices\":[]}", 14, &err), UP_EPARSE);
    up_reply_release(&r);
}

/* Feed s to r in chunks of k bytes (an SSE or JSON body). */
static void feed_chunks(up_reply *r, const char *s, size_t k)
{
    up_buf msg = UP_BUF_INIT;

    for (size_t i = 0, n = strlen(s); i < n; i += k)
        cr_assert_eq(up_reply_feed(r, s + i, n - i < k ? n - i : k, &msg), 0,
                     "%s", msg.data);
    up_buf_release(&msg);
}

Test(providers, json_body_on_a_stream_is_read_whole)
{
    up_request rq = basic();
    up_endpoint ep;
    up_reply r;
    up_response res;
    up_error err;
    const char *body =
        "\r\n {\"choices\":[{\"message\":{\"content\":\"Hi\",\"reasoning_"
        "content\":\"hm\"},\"finish_reason\":\"stop\"}],\"usage\":{"
        "\"prompt_tokens\":7,\"completion_tokens\":3,"
        "\"completion_tokens_details\":{\"reasoning_tokens\":1}}}";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    up_response_init(&res);
    for (size_t k = 1; k < 40; k += 13) { /* any split of the body */
        up_reply_reset(&r);
        feed_chunks(&r, body, k);
        cr_assert_eq(r.shape, REPLY_JSON);
        cr_assert_not(r.ended, "read only at the end");
        cr_assert_eq(up_reply_end(&r, "application/json", &err), 0, "%s",
                     err.msg);
    }
    up_reply_finish(&r, &rq, &res);
    cr_assert_str_eq(res.text, "Hi");
    cr_assert_str_eq(res.reasoning, "hm");
    cr_assert_str_eq(res.stop_reason, "stop");
    cr_assert_eq(res.usage.input, 7);
    cr_assert_eq(res.usage.reasoning, 1);
    cr_assert_eq(res.usage.estimated, 0);
    up_reply_release(&r);
    up_response_release(&res);
}

Test(providers, stream_after_a_json_attempt)
{
    up_endpoint ep;
    up_reply r;
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    feed_chunks(&r, "{\"choices\":", 5);
    up_reply_reset(&r); /* a retry */
    feed_chunks(&r,
                "\ndata: {\"choices\":[{\"delta\":{\"content\":\"ok\"},"
                "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
                3);
    cr_assert_eq(r.shape, REPLY_SSE);
    cr_assert_eq(up_reply_end(&r, "text/event-stream", &err), 0, "%s", err.msg);
    cr_assert_str_eq(r.text.data, "ok");
    up_reply_release(&r);
}

Test(providers, garbage_body_names_type_and_first_bytes)
{
    up_endpoint ep;
    up_reply r;
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_ANTHROPIC);
    ep.api_key = "plainkey42";
    up_reply_init(&r, &ep);
    feed_chunks(&r,
                "<html>proxy error sk-abcdefghijklmnopqrstuv plainkey42"
                "</html>",
                7);
    cr_assert_eq(up_reply_end(&r, "text/html", &err), UP_EHTTP);
    cr_assert(strstr(err.msg, "neither an event stream nor JSON"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "content-type 'text/html'"), "%s", err.msg);
    cr_assert(strstr(err.msg, "<html>proxy error [redacted] [redacted]"), "%s",
              err.msg);
    cr_assert_null(strstr(err.msg, "plainkey42"));
    up_reply_reset(&r);
    cr_assert_eq(up_reply_end(&r, NULL, &err), UP_EHTTP);
    cr_assert(strstr(err.msg, "content-type 'none'"), "%s", err.msg);
    up_reply_release(&r);
}

Test(providers, bad_json_body_on_a_stream)
{
    up_endpoint ep;
    up_reply r;
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    feed_chunks(&r, "{\"id\": \"x\", \"choices\": [ not json", 4);
    cr_assert_eq(up_reply_end(&r, "application/json", &err), UP_EHTTP);
    cr_assert(strstr(err.msg, "openai reply is not JSON"), "%s", err.msg);
    cr_assert(strstr(err.msg, "'application/json'): {\"id\""), "%s", err.msg);
    up_reply_reset(&r);
    feed_chunks(&r, "{\"object\":\"chat.completion\"}", 4);
    cr_assert_eq(up_reply_end(&r, "application/json", &err), UP_EHTTP);
    cr_assert(strstr(err.msg, "no message content"), "%s", err.msg);
    up_reply_release(&r);
}

Test(providers, cut_stream_ended_early)
{
    up_endpoint ep;
    up_reply r;
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    feed_chunks(
        &r, "data: {\"choices\":[{\"delta\":{\"content\":\"pa\"}}]}\n\n", 64);
    cr_assert_eq(up_reply_end(&r, "text/event-stream", &err), UP_ENETWORK);
    cr_assert_str_eq(err.msg, "stream ended early");
    cr_assert_str_eq(r.text.data, "pa");
    up_reply_release(&r);
}

Test(providers, check_json)
{
    char *t = strdup("Sure! ```json\n{\"a\": 1}\n``` done");
    up_buf why = UP_BUF_INIT;

    cr_assert_eq(up_provider_check_json(&t, &why), 0);
    cr_assert_str_eq(t, "{\"a\": 1}");
    free(t);
    t = strdup("[1, 2]");
    cr_assert_eq(up_provider_check_json(&t, &why), 0);
    cr_assert_str_eq(t, "[1, 2]");
    free(t);
    t = strdup("no json {here");
    cr_assert_eq(up_provider_check_json(&t, &why), UP_EPARSE);
    cr_assert(why.len > 0);
    free(t);
    up_buf_release(&why);
}

Test(providers, kinds_by_name)
{
    cr_assert_eq(up_wire_kind_of("anthropic"), UP_WIRE_ANTHROPIC);
    cr_assert_eq(up_wire_kind_of("openai"), UP_WIRE_OPENAI);
    cr_assert_eq(up_wire_kind_of("nope"), -1);
    cr_assert_str_eq(up_wire_name(UP_WIRE_ANTHROPIC), "anthropic");
}

Test(providers, control_characters_in_a_key_or_header_refused)
{
    static const char *const bad_hdr[] = {"X-Team: a\r\nX-Injected: yes", NULL};
    up_endpoint ep;
    up_request rq = basic();
    up_buf url = UP_BUF_INIT, body = UP_BUF_INIT;
    up_hdrs h = {0};
    up_error err;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.api_key = "sk-abc\r\nX-Injected: yes";
    cr_assert_eq(up_provider_build(&ep, &rq, &url, &h, &body, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "control character"), "%s", err.msg);
    cr_assert_null(strstr(err.msg, "sk-abc"), "%s", err.msg);
    cr_assert_eq(h.n, 0, "no header was built");
    ep.api_key = "sk-abc\tdef";
    cr_assert_eq(up_endpoint_check(&ep, &err), UP_EPARSE);
    ep.api_key = "sk-fine";
    ep.headers = bad_hdr;
    cr_assert_eq(up_endpoint_check(&ep, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, "header 'X-Team'"), "%s", err.msg);
    cr_assert_null(strstr(err.msg, "X-Injected"), "%s", err.msg);
    cr_assert(up_header_value_ok("Bearer sk-abc"));
    cr_assert(up_header_value_ok(NULL));
    cr_assert_not(up_header_value_ok("a\x7f"));
    up_buf_release(&url);
    up_buf_release(&body);
    up_hdrs_release(&h);
}

Test(providers, a_refused_stream_is_asked_again_without)
{
    up_endpoint ep, other;
    up_request rq = basic();
    const char *no = "{\"error\":{\"message\":\"Unrecognized request "
                     "argument supplied: stream_options\"}}";
    const char *busy = "{\"error\":{\"message\":\"bad model\"}}";
    built b;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.base_url = "http://127.0.0.1:9/v1";
    ep.stream = 1;
    other = ep;
    other.base_url = "http://127.0.0.1:10/v1";
    b = build(&ep, &rq);
    cr_assert(json_is_true(at(b.body, "stream")));
    cr_assert(json_is_true(at(b.body, "stream_options.include_usage")));
    built_release(&b);
    /* other 400s and other statuses are not about streaming */
    cr_assert_not(
        up_provider_stream_refused(&ep, NULL, 400, busy, strlen(busy)));
    cr_assert_not(up_provider_stream_refused(&ep, NULL, 500, no, strlen(no)));
    cr_assert(up_provider_stream_refused(&ep, NULL, 400, no, strlen(no)));
    b = build(&ep, &rq);
    cr_assert_null(at(b.body, "stream"));
    cr_assert_null(at(b.body, "stream_options"));
    built_release(&b);
    /* remembered; a refusal of a request in flight meanwhile is one too */
    cr_assert(up_provider_stream_refused(&ep, NULL, 400, no, strlen(no)));
    cr_assert_not(up_provider_streams(&ep, NULL));
    cr_assert(up_provider_streams(&other, NULL), "remembered per endpoint");
}

Test(providers, a_rejected_request_adds_no_estimated_tokens)
{
    up_endpoint ep;
    up_reply r;
    up_request rq = basic();
    up_response res;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    up_response_init(&res);
    up_reply_finish(&r, &rq, &res); /* a 400: nothing arrived */
    cr_assert_eq(res.usage.input, 0);
    cr_assert_eq(res.usage.output, 0);
    cr_assert_eq(res.usage.estimated, 0);
    up_reply_release(&r);
    up_response_release(&res);
}

Test(providers, cut_at_the_output_cap_and_who_answered)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"model\":\"qwen3-4b-q4\",\"choices\":[{\"message\":"
               "{\"content\":\"half\"},\"finish_reason\":\"length\"}]}");
    cr_assert_eq(g.res.truncated, 1);
    cr_assert_eq(g.res.max_tokens, UP_DEFAULT_MAX_TOKENS);
    cr_assert_str_eq(g.res.model, "qwen3-4b-q4");
    got_release(&g);
    parse_stream(&g, UP_WIRE_ANTHROPIC,
                 "event: message_start\ndata: {\"type\":\"message_start\","
                 "\"message\":{\"model\":\"claude-x-1\",\"usage\":"
                 "{\"input_tokens\":3}}}\n\n"
                 "event: message_delta\ndata: {\"type\":\"message_delta\","
                 "\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":"
                 "{\"output_tokens\":7}}\n\n"
                 "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    cr_assert_eq(g.res.truncated, 1);
    cr_assert_str_eq(g.res.model, "claude-x-1");
    got_release(&g);
    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"message\":{\"content\":\"all\"},"
               "\"finish_reason\":\"stop\"}]}");
    cr_assert_eq(g.res.truncated, 0);
    cr_assert_str_eq(g.res.model, "");
    got_release(&g);
}

Test(providers, masked_and_project_keys_scrubbed)
{
    static const char *const bodies[] = {
        "{\"error\":{\"message\":\"Incorrect API key provided: "
        "sk-proj-PL****************************************abcd. You can "
        "find your API key at https://platform.openai.com\"}}",
        "{\"error\":{\"message\":\"bad key sk-proj-PL**\xe2\x80\xa6\"}}",
        "{\"error\":{\"message\":\"bad key sk-ant-api03-AbCdEfGhIjKl\"}}",
        "{\"error\":{\"message\":\"bad key sk-****\"}}",
    };

    for (size_t i = 0; i < sizeof(bodies) / sizeof(*bodies); i++) {
        up_buf out = UP_BUF_INIT;

        up_http_error_message(bodies[i], strlen(bodies[i]),
                              up_provider_key_prefixes(), &out);
        cr_assert_null(strstr(out.data, "sk-"), "%s", out.data);
        cr_assert(strstr(out.data, "[redacted]"), "%s", out.data);
        up_buf_release(&out);
    }
}

Test(providers, json_option_names_never_reach_a_message)
{
    up_endpoint ep;
    up_reply r;
    up_error err;
    const char *body =
        "{\"choices\":[{\"message\":{\"content\":\"a\\u0000\"}}]}";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    cr_assert_eq(up_reply_parse(&r, body, strlen(body), &err), UP_EPARSE);
    cr_assert_null(strstr(err.msg, "JSON_"), "%s", err.msg);
    cr_assert(strstr(err.msg, "NUL character"), "%s", err.msg);
    up_reply_release(&r);
}

Test(providers, configured_providers_map_to_their_wire)
{
    static const struct {
        int provider, wire, compat;
    } rows[] = {
        {UP_PROV_ANTHROPIC, UP_WIRE_ANTHROPIC, 1},
        {UP_PROV_OPENAI, UP_WIRE_OPENAI, 0},
        {UP_PROV_GENERIC, UP_WIRE_OPENAI, 1},
        {UP_PROV_HF, UP_WIRE_OPENAI, 1},
    };
    up_endpoint ep;

    for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
        cr_assert_eq(up_endpoint_init_for(&ep, rows[i].provider), 0);
        cr_assert_eq(ep.kind, rows[i].wire);
        cr_assert_eq(ep.compat, rows[i].compat);
        cr_assert_eq(ep.max_retries, -1);
    }
    cr_assert_eq(up_endpoint_init_for(&ep, 99), UP_EUSAGE);
}

Test(providers, wire_knowledge_comes_from_the_providers)
{
    const char *const *p = up_provider_key_prefixes();
    const up_http_limit *a = up_provider_limits(UP_WIRE_ANTHROPIC);
    const up_http_limit *o = up_provider_limits(UP_WIRE_OPENAI);
    size_t n = 0;
    int ant = 0, groq = 0;

    for (; p[n]; n++) {
        ant |= !strcmp(p[n], "sk-ant-");
        groq |= !strcmp(p[n], "gsk_");
    }
    cr_assert(ant && groq);
    cr_assert_str_eq(a[0].remaining, "anthropic-ratelimit-requests-remaining");
    cr_assert_str_eq(a[3].reset, "anthropic-ratelimit-output-tokens-reset");
    cr_assert_null(a[4].remaining);
    cr_assert_str_eq(o[1].reset, "x-ratelimit-reset-tokens");
    cr_assert_null(o[2].remaining);
    cr_assert_null(up_provider_limits(99));
}

/* Feed s to a new reply on wire kind; the in-band status, msg filled. */
static int inband(int kind, const char *s, up_buf *msg)
{
    up_endpoint ep;
    up_reply r;
    int rc;

    up_endpoint_init(&ep, kind);
    up_reply_init(&r, &ep);
    rc = up_reply_feed(&r, s, strlen(s), msg);
    up_reply_release(&r);
    return rc;
}

/* llama.cpp before late 2025: "error: {...}" then [DONE], with HTTP 200;
   the error is the server's, code and message, on every wire. */
Test(providers, llama_error_line_is_an_error)
{
    const char *s = "error: {\"code\":400,\"message\":\"the request exceeds "
                    "the available context size\",\"type\":\"exceed_context_"
                    "size_error\"}\n\ndata: [DONE]\n\n";
    const int kinds[] = {UP_WIRE_OPENAI, UP_WIRE_ANTHROPIC, UP_WIRE_RESPONSES};

    for (size_t i = 0; i < 3; i++) {
        up_buf msg = UP_BUF_INIT;

        cr_assert_eq(inband(kinds[i], s, &msg), 400, "wire %zu", i);
        cr_assert(strstr(msg.data, "exceeds the available context size"),
                  "wire %zu: %s", i, msg.data);
        up_buf_release(&msg);
    }
}

/* An error event with a bare message, and Anthropic's `event: error` from
   a proxy without the "type" field. */
Test(providers, error_events_without_type)
{
    up_buf msg = UP_BUF_INIT;

    cr_assert_eq(inband(UP_WIRE_OPENAI, "error: out of memory\n\n", &msg), 500);
    cr_assert_str_eq(msg.data, "stream error: out of memory");
    up_buf_reset(&msg);
    cr_assert_eq(inband(UP_WIRE_ANTHROPIC,
                        "event: error\ndata: {\"error\":{\"type\":\"overloaded_"
                        "error\",\"message\":\"busy\"}}\n\n",
                        &msg),
                 529);
    cr_assert_str_eq(msg.data, "stream error: busy");
    up_buf_release(&msg);
}

/* A stream of nothing but an empty chunk and [DONE] is no answer. */
Test(providers, empty_stream_is_an_error)
{
    up_endpoint ep;
    up_reply r;
    up_buf msg = UP_BUF_INIT;
    up_error err;
    const char *s = "data: {\"id\":\"x\",\"choices\":[]}\n\ndata: [DONE]\n\n";
    const char *ok = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":"
                     "\"stop\"}]}\n\ndata: [DONE]\n\n";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_reply_init(&r, &ep);
    cr_assert_eq(up_reply_feed(&r, s, strlen(s), &msg), 0);
    cr_assert_eq(up_reply_end(&r, "text/event-stream", &err), UP_EHTTP);
    cr_assert(strstr(err.msg, "ended without an answer"), "%s", err.msg);
    up_reply_reset(&r);
    cr_assert_eq(up_reply_feed(&r, ok, strlen(ok), &msg), 0);
    cr_assert_eq(up_reply_end(&r, "text/event-stream", &err), 0,
                 "an empty answer with a finish reason is an answer");
    up_reply_release(&r);
    up_buf_release(&msg);
}

/* llama-server before May 2025: "Cannot use tools with stream" (a 500)
   turns streaming off for this endpoint's requests with tools only. */
Test(providers, tools_stream_refusal_is_remembered_for_tools_only)
{
    up_endpoint ep;
    up_request rq = basic();
    up_tool_spec t = {"read_file", "reads a file", NULL};
    const char *no = "{\"error\":{\"code\":500,\"message\":\"Cannot use tools "
                     "with stream\",\"type\":\"server_error\"}}";
    up_error err = {UP_ESERVER, "http 500: tools param requires --jinja flag"};
    const char *jinja = "{\"error\":{\"message\":\"tools param requires "
                        "--jinja flag\"}}";

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    ep.base_url = "http://127.0.0.1:9/tools-refused";
    ep.stream = 1;
    cr_assert_not(up_provider_stream_refused(&ep, &rq, 500, no, strlen(no)),
                  "without tools the words are not about this request");
    rq.tools = &t;
    rq.ntools = 1;
    cr_assert(up_provider_stream_refused(&ep, &rq, 500, no, strlen(no)));
    cr_assert_not(up_provider_streams(&ep, &rq), "tools: no stream now");
    rq.ntools = 0;
    cr_assert(up_provider_streams(&ep, &rq), "no tools: still streams");
    up_provider_refusal_fix(jinja, strlen(jinja), &err);
    cr_assert_str_eq(err.msg, "http 500: tools param requires --jinja flag "
                              "(start llama-server with --jinja)");
}
