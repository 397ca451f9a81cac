/*
 * fake-llm requests: the facts rules match on, taken from one request.
 *
 * Both protocols are reduced to the same three texts: the system text
 * (OpenAI system/developer messages, Anthropic top-level "system"), the
 * last user message, and everything the model would read.  Message
 * content may be a string or a list of blocks; text is taken from
 * "text" fields and, for tool results, from nested "content".
 */
#include <ctype.h>
#include <string.h>

#include "fake.h"

static const struct {
    const char *method;
    const char *path;
    enum fake_api api;
} endpoints[] = {
    {"POST", "/v1/chat/completions", FAKE_API_OPENAI},
    {"POST", "/v1/messages", FAKE_API_ANTHROPIC},
    {"GET", "/v1/models", FAKE_API_MODELS},
    {"POST", "/v1/responses", FAKE_API_RESPONSES},
};

/* Azure OpenAI's shape: /openai/deployments/NAME/chat/completions. */
static int azure_chat(const char *method, const char *path)
{
    static const char pre[] = "/openai/deployments/",
                      post[] = "/chat/completions";
    size_t n = strlen(path);

    return !strcmp(method, "POST") && !strncmp(path, pre, sizeof(pre) - 1) &&
           n > sizeof(pre) - 1 + sizeof(post) - 1 &&
           !strcmp(path + n - (sizeof(post) - 1), post);
}

static enum fake_api api_of(const char *method, const char *path)
{
    for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++)
        if (!strcmp(method, endpoints[i].method) &&
            !strcmp(path, endpoints[i].path))
            return endpoints[i].api;
    if (azure_chat(method, path))
        return FAKE_API_OPENAI;
    if (!strcmp(method, "GET") && !strcmp(path, "/openai/models"))
        return FAKE_API_MODELS;
    return FAKE_API_NONE;
}

void fake_request_init(struct fake_request *rq, const char *method,
                       const char *path)
{
    memset(rq, 0, sizeof(*rq));
    rq->method = method;
    rq->path = path;
    rq->api = api_of(method, path);
    rq->headers = json_object();
    up_buf_init(&rq->path_model);
    if (fake_gemini_path(method, path, &rq->path_model, NULL))
        rq->api = FAKE_API_GEMINI;
    up_buf_init(&rq->raw);
    up_buf_init(&rq->system);
    up_buf_init(&rq->user);
    up_buf_init(&rq->all);
    up_buf_init(&rq->tool_result);
}

void fake_request_release(struct fake_request *rq)
{
    json_decref(rq->headers);
    json_decref(rq->json);
    up_buf_release(&rq->raw);
    up_buf_release(&rq->system);
    up_buf_release(&rq->user);
    up_buf_release(&rq->all);
    up_buf_release(&rq->tool_result);
    up_buf_release(&rq->path_model);
}

void fake_request_add_body(struct fake_request *rq, const char *data,
                           size_t len)
{
    if (rq->too_big || rq->raw.len + len > FAKE_MAX_BODY) {
        rq->too_big = 1;
        up_buf_release(&rq->raw);
        return;
    }
    up_buf_add(&rq->raw, data, len);
}

void fake_request_add_header(struct fake_request *rq, const char *name,
                             const char *value)
{
    up_buf key = UP_BUF_INIT, joined = UP_BUF_INIT;
    const char *old;

    for (const char *p = name; *p; p++)
        up_buf_addc(&key, (char)tolower((unsigned char)*p));
    old = json_string_value(json_object_get(rq->headers, key.data));
    if (old)
        up_buf_addf(&joined, "%s, ", old);
    up_buf_adds(&joined, value ? value : "");
    json_object_set_new(rq->headers, key.data,
                        json_stringn(joined.data, joined.len));
    up_buf_release(&key);
    up_buf_release(&joined);
}

/* Append the text of a message content (string or blocks) to out. */
static void content_text(up_buf *out, const json_t *content)
{
    size_t i;
    const json_t *block;

    if (json_is_string(content)) {
        if (out->len)
            up_buf_addc(out, '\n');
        up_buf_add(out, json_string_value(content),
                   json_string_length(content));
        return;
    }
    json_array_foreach(content, i, block)
    {
        if (json_is_string(block))
            content_text(out, block);
        content_text(out, json_object_get(block, "text"));
        content_text(out, json_object_get(block, "content"));
    }
}

static int is_system_role(const char *role)
{
    return role && (!strcmp(role, "system") || !strcmp(role, "developer"));
}

/* Tool results of one message: OpenAI role "tool", or Anthropic
   tool_result blocks in a user turn.  Returns 1 if it held any. */
static int scan_tool_results(struct fake_request *rq, const char *role,
                             const json_t *content)
{
    size_t i;
    const json_t *b;
    int any = 0;

    if (role && !strcmp(role, "tool")) {
        content_text(&rq->tool_result, content);
        return 1;
    }
    json_array_foreach(content, i, b)
    {
        const char *type = json_string_value(json_object_get(b, "type"));

        if (!type || strcmp(type, "tool_result"))
            continue;
        content_text(&rq->tool_result, json_object_get(b, "content"));
        rq->tool_error |= json_is_true(json_object_get(b, "is_error"));
        any = 1;
    }
    return any;
}

/* role as a string that outlives the request's JSON (a scan may walk a
 * temporary array, e.g. the Responses API's string input). */
static const char *lasting_role(const char *role)
{
    static const char *const known[] = {"user", "assistant", "tool",
                                        "developer", "model"};

    for (size_t i = 0; role && i < sizeof(known) / sizeof(*known); i++)
        if (!strcmp(role, known[i]))
            return known[i];
    return role ? "other" : NULL;
}

/* The conversation facts of one message (in order). */
static void scan_turn(struct fake_request *rq, const char *role,
                      const json_t *content)
{
    int was_tool = rq->last_role && !strcmp(rq->last_role, "tool");

    if (role && !strcmp(role, "assistant"))
        rq->assistant_turns++;
    if (!was_tool) {
        up_buf_reset(&rq->tool_result);
        rq->tool_error = 0;
    }
    if (!scan_tool_results(rq, role, content)) {
        up_buf_reset(&rq->tool_result);
        rq->tool_error = 0;
        rq->last_role = lasting_role(role);
        return;
    }
    rq->last_role = "tool";
}

/* Walk "messages": system roles, last user text, all text. */
static void scan_messages(struct fake_request *rq, const json_t *messages)
{
    size_t i;
    const json_t *m;

    json_array_foreach(messages, i, m)
    {
        const char *role = json_string_value(json_object_get(m, "role"));
        const json_t *content = json_object_get(m, "content");

        if (is_system_role(role))
            content_text(&rq->system, content);
        else
            scan_turn(rq, role, content);
        /* an Anthropic turn of tool results is not user text */
        if (role && !strcmp(role, "user") && rq->last_role &&
            strcmp(rq->last_role, "tool")) {
            up_buf_reset(&rq->user);
            content_text(&rq->user, content);
        }
        content_text(&rq->all, content);
    }
}

/* One Responses API input item, as the messages walk sees a message. */
static void scan_item(struct fake_request *rq, const json_t *item,
                      const char **prev)
{
    const char *type = json_string_value(json_object_get(item, "type"));
    const char *role = json_string_value(json_object_get(item, "role"));
    json_t *one = json_array();

    if (type && !strcmp(type, "function_call")) {
        /* calls after an assistant message or a call: the same turn */
        if (!*prev || (strcmp(*prev, "assistant") && strcmp(*prev, "call")))
            scan_turn(rq, "assistant", NULL);
        content_text(&rq->all, json_object_get(item, "arguments"));
        *prev = "call";
    } else if (type && !strcmp(type, "function_call_output")) {
        scan_turn(rq, "tool", json_object_get(item, "output"));
        content_text(&rq->all, json_object_get(item, "output"));
        *prev = "tool";
    } else if (role) {
        json_array_append(one, (json_t *)item);
        scan_messages(rq, one);
        *prev = role;
    }
    json_decref(one);
}

/* The Responses API's "instructions" and "input" (a string or items). */
static void scan_responses(struct fake_request *rq, const json_t *j)
{
    const json_t *input = json_object_get(j, "input");
    const char *prev = NULL;
    size_t i;
    const json_t *item;

    content_text(&rq->system, json_object_get(j, "instructions"));
    up_buf_add(&rq->all, rq->system.data, rq->system.len);
    if (json_is_string(input)) {
        json_t *m = json_pack("[{ss sO}]", "role", "user", "content", input);

        scan_messages(rq, m);
        json_decref(m);
        return;
    }
    json_array_foreach(input, i, item) scan_item(rq, item, &prev);
}

/* FNV-1a over a string and its terminating NUL. */
static uint64_t fnv(uint64_t h, const char *s)
{
    do {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    } while (*s++);
    return h;
}

static void scan_body(struct fake_request *rq)
{
    const json_t *j = rq->json;
    const json_t *opts = json_object_get(j, "stream_options");

    if (rq->api == FAKE_API_GEMINI) {
        rq->model = rq->path_model.data;
        fake_gemini_path(rq->method, rq->path, NULL, &rq->stream);
        fake_gemini_scan(rq);
        return;
    }
    rq->model = json_string_value(json_object_get(j, "model"));
    rq->stream = json_is_true(json_object_get(j, "stream"));
    rq->include_usage = json_is_true(json_object_get(opts, "include_usage"));
    rq->has_tools = json_array_size(json_object_get(j, "tools")) > 0;
    if (rq->api == FAKE_API_RESPONSES) {
        scan_responses(rq, j);
        return;
    }
    content_text(&rq->system, json_object_get(j, "system"));
    up_buf_add(&rq->all, rq->system.data, rq->system.len);
    scan_messages(rq, json_object_get(j, "messages"));
}

int fake_request_parse(struct fake_request *rq, up_error *err)
{
    json_error_t je;

    /* GET and HEAD (Claude Code's `HEAD /` probe) carry no body */
    if (rq->raw.len ||
        (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))) {
        rq->json = json_loadb(rq->raw.data, rq->raw.len, 0, &je);
        if (!rq->json)
            return up_error_set(err, UP_EPARSE, "request body is not JSON: %s",
                                je.text);
        if (!json_is_object(rq->json))
            return up_error_set(err, UP_EPARSE,
                                "request body is not a JSON object");
        scan_body(rq);
    }
    rq->hash = fnv(14695981039346656037u, rq->path);
    rq->hash = fnv(rq->hash, rq->model ? rq->model : "");
    rq->hash = fnv(rq->hash, rq->all.data);
    return 0;
}
