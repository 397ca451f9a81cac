/*
 * Tool calling on both wire formats: request bodies built from a tool
 * conversation (up_msg, up_tool_spec), replies read back into calls,
 * whole and streamed (argument fragments split across chunks), several
 * calls per turn, tool errors, carried thinking blocks, the cache key.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "providers/providers.h"
#include "upskill/cache.h"

static const up_message hello[] = {{"user", "Hello there"}};

static const up_tool_spec tools[] = {
    {"read_file", "Read a file.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"},
    {"list_files", "List files.", NULL},
};

static char id1[] = "call_1", id2[] = "call_2", rf[] = "read_file";
static char args1[] = "{\"path\":\"a.txt\"}", args2[] = "{\"path\":\"../x\"}";

static const up_tool_call calls[] = {
    {id1, rf, args1},
    {id2, rf, args2},
};

/* user, assistant with two parallel calls, two results (one an error) */
static const up_msg convo[] = {
    {UP_ROLE_USER, "Read a.txt", NULL, 0, NULL, 0, NULL},
    {UP_ROLE_ASSISTANT, "Reading.", calls, 2, NULL, 0,
     "[{\"type\":\"thinking\",\"thinking\":\"hm\",\"signature\":\"s1\"}]"},
    {UP_ROLE_TOOL, "alpha", NULL, 0, "call_1", 0, NULL},
    {UP_ROLE_TOOL, "path leaves the workspace", NULL, 0, "call_2", 1, NULL},
};

static up_request tool_request(void)
{
    up_request rq;

    up_request_init(&rq);
    rq.system = "Be terse.";
    rq.msgs = convo;
    rq.nmsgs = 4;
    rq.tools = tools;
    rq.ntools = 2;
    return rq;
}

static json_t *build(int kind, const up_request *rq, up_buf *raw)
{
    up_endpoint ep;
    up_buf url = UP_BUF_INIT;
    up_hdrs h = {0};
    up_error err;
    json_t *j;

    up_endpoint_init(&ep, kind);
    ep.model = "m";
    cr_assert_eq(up_provider_build(&ep, rq, &url, &h, raw, &err), 0, "%s",
                 err.msg);
    j = json_loads(raw->data, 0, NULL);
    cr_assert_not_null(j);
    up_buf_release(&url);
    up_hdrs_release(&h);
    return j;
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
    const char *s = json_string_value(at(j, path));

    cr_assert_not_null(s, "no string at %s", path);
    return s;
}

Test(tools_wire, openai_request_with_tools_calls_and_results)
{
    up_request rq = tool_request();
    up_buf raw = UP_BUF_INIT;
    json_t *b = build(UP_WIRE_OPENAI, &rq, &raw);

    cr_assert_str_eq(str_at(b, "messages.0.role"), "developer");
    cr_assert_str_eq(str_at(b, "messages.1.content"), "Read a.txt");
    cr_assert_str_eq(str_at(b, "messages.2.role"), "assistant");
    cr_assert_str_eq(str_at(b, "messages.2.content"), "Reading.");
    cr_assert_str_eq(str_at(b, "messages.2.tool_calls.0.id"), "call_1");
    cr_assert_str_eq(str_at(b, "messages.2.tool_calls.0.type"), "function");
    cr_assert_str_eq(str_at(b, "messages.2.tool_calls.1.function.name"),
                     "read_file");
    cr_assert_str_eq(str_at(b, "messages.2.tool_calls.1.function.arguments"),
                     "{\"path\":\"../x\"}");
    cr_assert_str_eq(str_at(b, "messages.3.role"), "tool");
    cr_assert_str_eq(str_at(b, "messages.3.tool_call_id"), "call_1");
    cr_assert_str_eq(str_at(b, "messages.4.tool_call_id"), "call_2");
    cr_assert_str_eq(str_at(b, "messages.4.content"),
                     "path leaves the workspace");
    cr_assert_eq(json_array_size(at(b, "messages")), 5);
    cr_assert_str_eq(str_at(b, "tools.0.type"), "function");
    cr_assert_str_eq(str_at(b, "tools.0.function.name"), "read_file");
    cr_assert_str_eq(str_at(b, "tools.0.function.parameters.type"), "object");
    cr_assert(json_is_object(at(b, "tools.1.function.parameters")));
    json_decref(b);
    up_buf_release(&raw);
}

Test(tools_wire, anthropic_request_with_tools_calls_and_results)
{
    up_request rq = tool_request();
    up_buf raw = UP_BUF_INIT;
    json_t *b = build(UP_WIRE_ANTHROPIC, &rq, &raw);

    cr_assert_str_eq(str_at(b, "system"), "Be terse.");
    cr_assert_str_eq(str_at(b, "messages.0.content"), "Read a.txt");
    cr_assert_str_eq(str_at(b, "messages.1.role"), "assistant");
    /* thinking carried back first, verbatim, then text, then the calls */
    cr_assert_str_eq(str_at(b, "messages.1.content.0.type"), "thinking");
    cr_assert_str_eq(str_at(b, "messages.1.content.0.signature"), "s1");
    cr_assert_str_eq(str_at(b, "messages.1.content.1.text"), "Reading.");
    cr_assert_str_eq(str_at(b, "messages.1.content.2.type"), "tool_use");
    cr_assert_str_eq(str_at(b, "messages.1.content.2.id"), "call_1");
    cr_assert_str_eq(str_at(b, "messages.1.content.2.input.path"), "a.txt");
    cr_assert_str_eq(str_at(b, "messages.1.content.3.input.path"), "../x");
    /* both results in one user message; the error flagged */
    cr_assert_eq(json_array_size(at(b, "messages")), 3);
    cr_assert_str_eq(str_at(b, "messages.2.role"), "user");
    cr_assert_str_eq(str_at(b, "messages.2.content.0.type"), "tool_result");
    cr_assert_str_eq(str_at(b, "messages.2.content.0.tool_use_id"), "call_1");
    cr_assert_null(at(b, "messages.2.content.0.is_error"));
    cr_assert_str_eq(str_at(b, "messages.2.content.1.tool_use_id"), "call_2");
    cr_assert(json_is_true(at(b, "messages.2.content.1.is_error")));
    cr_assert_str_eq(str_at(b, "tools.0.name"), "read_file");
    cr_assert_str_eq(str_at(b, "tools.0.input_schema.type"), "object");
    cr_assert_str_eq(str_at(b, "tools.1.input_schema.type"), "object");
    json_decref(b);
    up_buf_release(&raw);
}

Test(tools_wire, plain_requests_are_byte_identical)
{
    up_request rq;
    up_buf raw = UP_BUF_INIT;
    json_t *b;

    up_request_init(&rq);
    rq.system = "S";
    rq.messages = hello;
    rq.n_messages = 1;
    b = build(UP_WIRE_OPENAI, &rq, &raw);
    cr_assert_str_eq(raw.data,
                     "{\"model\":\"m\",\"messages\":[{\"role\":\"developer\","
                     "\"content\":\"S\"},{\"role\":\"user\",\"content\":"
                     "\"Hello there\"}],\"max_completion_tokens\":4096}");
    json_decref(b);
    up_buf_reset(&raw);
    b = build(UP_WIRE_ANTHROPIC, &rq, &raw);
    cr_assert_str_eq(raw.data,
                     "{\"model\":\"m\",\"max_tokens\":4096,\"system\":\"S\","
                     "\"messages\":[{\"role\":\"user\",\"content\":\"Hello "
                     "there\"}]}");
    json_decref(b);
    up_buf_release(&raw);
}

/* ---- replies ---------------------------------------------------------- */

typedef struct got {
    up_endpoint ep;
    up_reply r;
    up_response res;
} got;

static void start(got *g, int kind)
{
    up_endpoint_init(&g->ep, kind);
    up_reply_init(&g->r, &g->ep);
    up_response_init(&g->res);
}

static void parse_body(got *g, int kind, const char *body)
{
    up_request rq = tool_request();
    up_error err;

    start(g, kind);
    cr_assert_eq(up_reply_parse(&g->r, body, strlen(body), &err), 0, "%s",
                 err.msg);
    up_reply_finish(&g->r, &rq, &g->res);
}

/* Feed sse in chunks of k bytes: fragments split anywhere. */
static void parse_stream(got *g, int kind, const char *sse, size_t k)
{
    up_request rq = tool_request();
    up_buf msg = UP_BUF_INIT;

    start(g, kind);
    for (size_t i = 0, n = strlen(sse); i < n; i += k)
        cr_assert_eq(up_reply_feed(&g->r, sse + i, n - i < k ? n - i : k, &msg),
                     0, "%s", msg.data);
    cr_assert(g->r.ended);
    up_reply_finish(&g->r, &rq, &g->res);
    up_buf_release(&msg);
}

static void got_release(got *g)
{
    up_reply_release(&g->r);
    up_response_release(&g->res);
}

static void two_calls(const up_response *res)
{
    cr_assert_eq(res->ncalls, 2);
    cr_assert_eq(res->stop, UP_STOP_TOOL);
    cr_assert_str_eq(res->calls[0].id, "c1");
    cr_assert_str_eq(res->calls[0].name, "read_file");
    cr_assert_str_eq(res->calls[0].args, "{\"path\":\"a.txt\"}");
    cr_assert_str_eq(res->calls[1].id, "c2");
    cr_assert_str_eq(res->calls[1].name, "list_files");
    cr_assert_str_eq(res->calls[1].args, "{}");
}

Test(tools_wire, openai_reply_with_parallel_calls)
{
    got g;

    parse_body(&g, UP_WIRE_OPENAI,
               "{\"choices\":[{\"finish_reason\":\"tool_calls\",\"message\":{"
               "\"role\":\"assistant\",\"content\":null,\"reasoning_content\":"
               "\"think\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
               "\"function\":{\"name\":\"read_file\",\"arguments\":"
               "\"{\\\"path\\\":\\\"a.txt\\\"}\"}},{\"id\":\"c2\",\"type\":"
               "\"function\",\"function\":{\"name\":\"list_files\","
               "\"arguments\":\"{}\"}}]}}],\"usage\":{\"prompt_tokens\":10,"
               "\"completion_tokens\":7,\"completion_tokens_details\":{"
               "\"reasoning_tokens\":3}}}");
    two_calls(&g.res);
    cr_assert_str_eq(g.res.text, "");
    cr_assert_str_eq(g.res.reasoning, "think");
    cr_assert_eq(g.res.usage.reasoning, 3);
    cr_assert_eq(g.res.usage.output, 7);
    cr_assert_null(g.res.carry);
    got_release(&g);
}

static const char openai_stream[] =
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
    "\"reasoning_content\":\"th\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
    "\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\","
    "\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
    "\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
    "\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":"
    "\"list_files\",\"arguments\":\"{\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
    "\"function\":{\"arguments\":\"th\\\":\\\"a.txt\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
    "\"function\":{\"arguments\":\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
    "\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,"
    "\"completion_tokens\":7}}\n\n"
    "data: [DONE]\n\n";

Test(tools_wire, openai_stream_fragments_joined_per_index)
{
    size_t sizes[] = {1, 7, 64, sizeof(openai_stream)};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
        got g;

        parse_stream(&g, UP_WIRE_OPENAI, openai_stream, sizes[i]);
        two_calls(&g.res);
        cr_assert_str_eq(g.res.reasoning, "th");
        cr_assert_eq(g.res.usage.input, 10);
        got_release(&g);
    }
}

Test(tools_wire, anthropic_reply_with_parallel_calls_and_thinking)
{
    got g;

    parse_body(&g, UP_WIRE_ANTHROPIC,
               "{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hm\","
               "\"signature\":\"sig\"},{\"type\":\"text\",\"text\":\"Let me "
               "look.\"},{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":"
               "\"read_file\",\"input\":{\"path\":\"a.txt\"}},{\"type\":"
               "\"tool_use\",\"id\":\"c2\",\"name\":\"list_files\",\"input\":"
               "{}}],\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":"
               "5,\"output_tokens\":9}}");
    two_calls(&g.res);
    cr_assert_str_eq(g.res.text, "Let me look.");
    cr_assert_str_eq(g.res.reasoning, "hm");
    cr_assert_str_eq(g.res.carry, "[{\"type\":\"thinking\",\"thinking\":"
                                  "\"hm\",\"signature\":\"sig\"}]");
    got_release(&g);
}

static const char anthropic_stream[] =
    "event: message_start\ndata: {\"type\":\"message_start\",\"me"
    "ssage\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}"
    "}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_"
    "start\",\"index\":0,\"content_block\":{\"type\":\"thinking\""
    ",\"thinking\":\"\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_"
    "delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\""
    "thinking\":\"h\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_"
    "delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\""
    "thinking\":\"m\"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_"
    "delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\","
    "\"signature\":\"sig\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_s"
    "top\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_"
    "start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\""
    ",\"id\":\"c1\",\"name\":\"read_file\",\"input\":{}}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_"
    "delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\""
    ",\"partial_json\":\"{\\\"path\\\": \"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_"
    "delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\""
    ",\"partial_json\":\"\\\"a.txt\\\"}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_s"
    "top\",\"index\":1}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_"
    "start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\""
    ",\"id\":\"c2\",\"name\":\"list_files\",\"input\":{}}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_s"
    "top\",\"index\":2}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"de"
    "lta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tok"
    "ens\":9}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

Test(tools_wire, anthropic_stream_tool_use_and_signed_thinking)
{
    size_t sizes[] = {1, 5, sizeof(anthropic_stream)};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
        got g;

        parse_stream(&g, UP_WIRE_ANTHROPIC, anthropic_stream, sizes[i]);
        cr_assert_eq(g.res.ncalls, 2);
        cr_assert_str_eq(g.res.calls[0].args, "{\"path\": \"a.txt\"}");
        cr_assert_str_eq(g.res.calls[1].args, "{}");
        cr_assert_str_eq(g.res.calls[1].name, "list_files");
        cr_assert_eq(g.res.stop, UP_STOP_TOOL);
        cr_assert_str_eq(g.res.reasoning, "hm");
        cr_assert_str_eq(g.res.carry, "[{\"type\":\"thinking\",\"thinking\":"
                                      "\"hm\",\"signature\":\"sig\"}]");
        cr_assert_eq(g.res.usage.output, 9);
        got_release(&g);
    }
}

Test(tools_wire, usage_summed_exactly_over_turns)
{
    got g;
    up_request rq = tool_request();
    const char *b = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],"
                    "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":"
                    "5,\"cache_read_input_tokens\":2,\"output_tokens\":9,"
                    "\"output_tokens_details\":{\"thinking_tokens\":4}}}";
    up_error err;

    parse_body(&g, UP_WIRE_ANTHROPIC, b);
    up_reply_reset(&g.r);
    cr_assert_eq(up_reply_parse(&g.r, b, strlen(b), &err), 0);
    up_reply_finish(&g.r, &rq, &g.res);
    cr_assert_eq(g.res.usage.input, 14);
    cr_assert_eq(g.res.usage.cached, 4);
    cr_assert_eq(g.res.usage.output, 18);
    cr_assert_eq(g.res.usage.reasoning, 8);
    cr_assert_eq(g.res.usage.estimated, 0);
    cr_assert_eq(g.res.stop, UP_STOP_END);
    cr_assert_eq(g.res.ncalls, 0);
    got_release(&g);
}

Test(tools_wire, schema_tool_stays_the_answer_without_tools)
{
    got g;
    up_request rq;
    const char *b = "{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\","
                    "\"name\":\"result\",\"input\":{\"a\":1}}],"
                    "\"stop_reason\":\"tool_use\"}";
    up_error err;

    up_request_init(&rq);
    rq.messages = hello;
    rq.n_messages = 1;
    start(&g, UP_WIRE_ANTHROPIC);
    cr_assert_eq(up_reply_parse(&g.r, b, strlen(b), &err), 0);
    up_reply_finish(&g.r, &rq, &g.res);
    cr_assert_str_eq(g.res.text, "{\"a\":1}");
    cr_assert_eq(g.res.ncalls, 0);
    got_release(&g);
}

Test(tools_wire, cache_key_covers_the_conversation_and_tools)
{
    up_endpoint ep;
    up_request rq;
    up_buf a = UP_BUF_INIT, b = UP_BUF_INIT, c = UP_BUF_INIT;

    up_endpoint_init(&ep, UP_WIRE_OPENAI);
    up_request_init(&rq);
    rq.messages = hello;
    rq.n_messages = 1;
    up_cache_canonical(&a, &ep, &rq, 0);
    cr_assert_null(strstr(a.data, "msgs"));
    cr_assert_null(strstr(a.data, "tools"));
    rq.msgs = convo;
    rq.nmsgs = 3;
    up_cache_canonical(&b, &ep, &rq, 0);
    rq.nmsgs = 4;
    rq.tools = tools;
    rq.ntools = 1;
    up_cache_canonical(&c, &ep, &rq, 0);
    cr_assert_str_neq(a.data, b.data);
    cr_assert_str_neq(b.data, c.data);
    cr_assert_not_null(strstr(c.data, "read_file"));
    up_buf_release(&a);
    up_buf_release(&b);
    up_buf_release(&c);
}

/* Tool schemas are parsed once and shared: the same text gives the same
 * schema, and another text at the very same address (a freed and reused
 * buffer) is parsed anew, never served the first one's tree. */
Test(tools_wire, tool_schemas_are_cached_by_their_text)
{
    char *text = strdup("{\"type\": \"object\", \"required\": [\"a\"]}");
    up_tool_spec t = {"x", "d", text};
    json_t *a = up_tool_params(&t), *b = up_tool_params(&t), *c;

    cr_assert(json_equal(a, b));
    cr_assert_str_eq(
        json_string_value(json_array_get(json_object_get(a, "required"), 0)),
        "a");
    memcpy(text, "{\"type\": \"object\", \"required\": [\"b\"]}",
           strlen(text) + 1);
    c = up_tool_params(&t);
    cr_assert_str_eq(
        json_string_value(json_array_get(json_object_get(c, "required"), 0)),
        "b");
    t.parameters = "not json";
    json_decref(c);
    c = up_tool_params(&t);
    cr_assert_str_eq(json_string_value(json_object_get(c, "type")), "object");
    cr_assert_null(json_object_get(c, "required"));
    json_decref(a);
    json_decref(b);
    json_decref(c);
    free(text);
}

/* The tool list's text is cached by wire and content: a request offering
 * the same tools gets the same bytes; a description changed in place (the
 * same address) is offered anew; the other wires get their own shape. */
Test(tools_wire, tool_lists_are_cached_by_their_content)
{
    char desc[] = "Read a file.";
    up_tool_spec t[] = {{"read_file", desc, NULL}};
    up_request rq = tool_request();
    up_buf r1 = UP_BUF_INIT, r2 = UP_BUF_INIT, r3 = UP_BUF_INIT;
    up_buf r4 = UP_BUF_INIT;
    json_t *a, *b, *c, *d;

    rq.tools = t;
    rq.ntools = 1;
    a = build(UP_WIRE_OPENAI, &rq, &r1);
    b = build(UP_WIRE_OPENAI, &rq, &r2);
    cr_assert_str_eq(r1.data, r2.data);
    cr_assert_str_eq(str_at(a, "tools.0.function.description"), "Read a file.");
    memcpy(desc, "Read a dir!!", sizeof(desc));
    c = build(UP_WIRE_OPENAI, &rq, &r3);
    cr_assert_str_eq(str_at(c, "tools.0.function.description"), "Read a dir!!");
    cr_assert_eq(json_array_size(at(c, "tools")), 1);
    d = build(UP_WIRE_ANTHROPIC, &rq, &r4);
    cr_assert_str_eq(str_at(d, "tools.0.description"), "Read a dir!!");
    cr_assert_str_eq(str_at(d, "tools.0.input_schema.type"), "object");
    cr_assert_null(at(d, "tools.0.function"));
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
    up_buf_release(&r1);
    up_buf_release(&r2);
    up_buf_release(&r3);
    up_buf_release(&r4);
}

/* Anthropic's structured output offers its answer tool: the request's
 * own tools join that list, one "tools" key in the body. */
Test(tools_wire, anthropic_schema_tool_and_offered_tools_share_one_list)
{
    up_request rq = tool_request();
    up_buf raw = UP_BUF_INIT;
    json_t *b;

    rq.schema = "{\"type\":\"object\"}";
    b = build(UP_WIRE_ANTHROPIC, &rq, &raw);
    cr_assert_eq(json_array_size(at(b, "tools")), 3);
    cr_assert_str_eq(str_at(b, "tools.0.name"), "result");
    cr_assert_str_eq(str_at(b, "tools.1.name"), "read_file");
    cr_assert_str_eq(str_at(b, "tools.2.name"), "list_files");
    cr_assert_not_null(strstr(raw.data, "\"tools\""));
    cr_assert_null(strstr(strstr(raw.data, "\"tools\"") + 1, "\"tools\""));
    json_decref(b);
    up_buf_release(&raw);
}
