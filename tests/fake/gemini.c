/*
 * fake-llm, Gemini: the generateContent wire that Gemini CLI speaks.
 *
 *   POST /v1beta/models/MODEL:generateContent        one JSON object
 *   POST /v1beta/models/MODEL:streamGenerateContent  (?alt=sse) SSE
 *
 * The model and whether to stream come from the path, not the body.  A
 * request is reduced to the same facts as the other wires: system text
 * from "systemInstruction", user text from "user" turns' text parts, a
 * "model" turn counts as an assistant turn, and a "user" turn made of
 * functionResponse parts is a tool turn.  A reply is one
 * GenerateContentResponse ({candidates: [{content: {role: "model",
 * parts}, finishReason, index}], usageMetadata, modelVersion,
 * responseId}); streamed, the text is cut into chunks of chunk_size
 * characters, each a whole response as `data: {...}\r\n\r\n`, function
 * calls come whole in one chunk, and the last chunk carries
 * finishReason and usageMetadata.  Gemini has no [DONE] line.  A
 * reply's reasoning is a thought part ({"text", "thought": true}) first.
 */
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"

#include "fake.h"

#define GEMINI_PREFIX "/v1beta/models/"

static const struct {
    const char *suffix;
    int stream;
} methods[] = {
    {":streamGenerateContent", 1},
    {":generateContent", 0},
};

int fake_gemini_path(const char *method, const char *path, up_buf *model,
                     int *stream)
{
    size_t plen = strlen(GEMINI_PREFIX), len = strlen(path);

    if (strcmp(method, "POST") || strncmp(path, GEMINI_PREFIX, plen))
        return 0;
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        size_t slen = strlen(methods[i].suffix);

        if (len <= plen + slen || strcmp(path + len - slen, methods[i].suffix))
            continue;
        if (model)
            up_buf_add(model, path + plen, len - plen - slen);
        if (stream)
            *stream = methods[i].stream;
        return 1;
    }
    return 0;
}

/* ---- the request ---- */

static void add_text(up_buf *out, const char *s)
{
    if (!s)
        return;
    if (out->len)
        up_buf_addc(out, '\n');
    up_buf_adds(out, s);
}

/* Text of a functionResponse's "response" (any JSON), for matching. */
static void add_response(up_buf *out, const json_t *resp)
{
    char *s;

    if (json_is_string(resp)) {
        add_text(out, json_string_value(resp));
        return;
    }
    s = json_dumps(resp, JSON_COMPACT | JSON_ENSURE_ASCII);
    add_text(out, s);
    free(s);
    /* the usual {"output": "text"}: also its plain text */
    add_text(out, json_string_value(json_object_get(resp, "output")));
}

/* One turn's parts: texts to `text`, function responses to the tool
   result; returns 1 when the turn held a function response. */
static int scan_parts(struct fake_request *rq, const json_t *parts,
                      up_buf *text)
{
    size_t i;
    const json_t *p;
    int tool = 0;

    json_array_foreach(parts, i, p)
    {
        const json_t *fr = json_object_get(p, "functionResponse");

        add_text(text, json_string_value(json_object_get(p, "text")));
        if (fr) {
            add_response(&rq->tool_result, json_object_get(fr, "response"));
            tool = 1;
        }
    }
    return tool;
}

static void scan_content(struct fake_request *rq, const json_t *c)
{
    const char *role = json_string_value(json_object_get(c, "role"));
    const json_t *parts = json_object_get(c, "parts");
    int was_tool = rq->last_role && !strcmp(rq->last_role, "tool");
    up_buf text = UP_BUF_INIT;

    if (!was_tool) {
        up_buf_reset(&rq->tool_result);
        rq->tool_error = 0;
    }
    if (scan_parts(rq, parts, &text)) {
        rq->last_role = "tool";
    } else if (role && !strcmp(role, "model")) {
        rq->assistant_turns++;
        rq->last_role = "assistant";
        up_buf_reset(&rq->tool_result);
    } else {
        rq->last_role = "user";
        up_buf_reset(&rq->tool_result);
        up_buf_reset(&rq->user);
        up_buf_add(&rq->user, text.data, text.len);
    }
    add_text(&rq->all, text.data);
    up_buf_release(&text);
}

static int has_declarations(const json_t *tools)
{
    size_t i;
    const json_t *t;

    json_array_foreach(tools, i, t)
    {
        if (json_array_size(json_object_get(t, "functionDeclarations")))
            return 1;
    }
    return 0;
}

void fake_gemini_scan(struct fake_request *rq)
{
    const json_t *j = rq->json;
    const json_t *si = json_object_get(j, "systemInstruction");
    size_t i;
    const json_t *c, *p;

    json_array_foreach(json_object_get(si, "parts"), i, p)
    {
        add_text(&rq->system, json_string_value(json_object_get(p, "text")));
    }
    up_buf_add(&rq->all, rq->system.data, rq->system.len);
    rq->has_tools = has_declarations(json_object_get(j, "tools"));
    json_array_foreach(json_object_get(j, "contents"), i, c)
    {
        scan_content(rq, c);
    }
}

/* ---- the reply ---- */

static long estimate(const char *text)
{
    size_t n = text ? strlen(text) : 0;

    return n > 4 ? (long)((n + 3) / 4) : 1;
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

/* A call's args as an object (bad or missing arguments give {}). */
static json_t *call_args(const json_t *call)
{
    const json_t *a = json_object_get(call, "arguments");
    json_t *j;

    if (json_is_object(a))
        return json_deep_copy(a);
    j = json_is_string(a) ? json_loads(json_string_value(a), 0, NULL) : NULL;
    if (json_is_object(j))
        return j;
    json_decref(j);
    return json_object();
}

static long calls_estimate(const json_t *calls)
{
    size_t i;
    const json_t *c;
    long n = 0;

    json_array_foreach(calls, i, c)
    {
        json_t *a = call_args(c);
        char *s = json_dumps(a, JSON_COMPACT);

        n += estimate(s) +
             estimate(json_string_value(json_object_get(c, "name")));
        free(s);
        json_decref(a);
    }
    return n;
}

static json_t *usage_metadata(const struct fake_request *rq,
                              const struct fake_reply *r)
{
    struct fake_usage u = r->usage;
    json_t *j;

    u.input = u.input < 0 ? estimate(rq->all.data) : u.input;
    if (u.reasoning < 0)
        u.reasoning = r->reasoning ? estimate(r->reasoning) : 0;
    if (u.output < 0)
        u.output = estimate(r->text) + calls_estimate(r->tool_calls);
    u.cached = u.cached < 0 ? 0 : u.cached;
    j = json_pack("{sI sI sI}", "promptTokenCount", (json_int_t)u.input,
                  "candidatesTokenCount", (json_int_t)u.output,
                  "totalTokenCount",
                  (json_int_t)(u.input + u.output + u.reasoning));
    if (u.cached)
        json_object_set_new(j, "cachedContentTokenCount",
                            json_integer(u.cached));
    if (u.reasoning)
        json_object_set_new(j, "thoughtsTokenCount", json_integer(u.reasoning));
    return j;
}

/* A whole GenerateContentResponse around parts (stolen). */
static json_t *response(const struct fake_request *rq,
                        const struct fake_reply *r, json_t *parts, int last)
{
    char id[64];
    json_t *cand = json_pack("{s{so ss} sI}", "content", "parts", parts, "role",
                             "model", "index", (json_int_t)0);
    json_t *j;

    if (last)
        json_object_set_new(cand, "finishReason",
                            json_string(r->finish ? r->finish : "STOP"));
    snprintf(id, sizeof(id), "fake%06ld", rq->n);
    j = json_pack("{s[o]}", "candidates", cand);
    if (last && r->fault != FAKE_FAULT_NO_USAGE)
        json_object_set_new(j, "usageMetadata", usage_metadata(rq, r));
    json_object_set_new(j, "modelVersion",
                        json_string(r->model    ? r->model
                                    : rq->model ? rq->model
                                                : "fake-model"));
    json_object_set_new(j, "responseId", json_string(id));
    return j;
}

static void add_call_parts(json_t *parts, const struct fake_reply *r)
{
    size_t i;
    const json_t *c;

    json_array_foreach(r->tool_calls, i, c)
    {
        json_array_append_new(
            parts, json_pack("{s{ss so}}", "functionCall", "name",
                             json_string_value(json_object_get(c, "name")),
                             "args", call_args(c)));
    }
}

/* The reply's reasoning as a thought part {"text", "thought": true}. */
static void add_thought(json_t *parts, const struct fake_reply *r)
{
    if (r->reasoning)
        json_array_append_new(
            parts, json_pack("{ss sb}", "text", r->reasoning, "thought", 1));
}

/* One SSE event: "data: {...}\r\n\r\n", as Google's servers frame it. */
static void gemini_event(struct fake_out *o, json_t *j)
{
    UP_GROW(o->marks, o->mcap, o->nmarks + 1);
    o->marks[o->nmarks++] = o->body.len;
    up_buf_adds(&o->body, "data: ");
    fake_out_json(o, j);
    up_buf_adds(&o->body, "\r\n\r\n");
}

static void gemini_sse(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r)
{
    const char *t = r->text ? r->text : "";
    json_t *last = json_array();

    json_t *thought = json_array();

    /* the reasoning, whole, then every text piece but the last alone;
       the last piece rides with the calls and the usage in the final
       chunk */
    add_thought(thought, r);
    if (json_array_size(thought))
        gemini_event(o, response(rq, r, thought, 0));
    else
        json_decref(thought);
    while (*t) {
        size_t n = piece_len(t, r->chunk_size);

        if (!t[n]) {
            json_array_append_new(last, json_pack("{ss}", "text", t));
            break;
        }
        gemini_event(o, response(rq, r, json_pack("[{ss%}]", "text", t, n), 0));
        t += n;
    }
    add_call_parts(last, r);
    if (!json_array_size(last))
        json_array_append_new(last, json_pack("{ss}", "text", ""));
    gemini_event(o, response(rq, r, last, 1));
}

void fake_shape_gemini(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r)
{
    json_t *parts;

    if (rq->stream) {
        gemini_sse(o, rq, r);
        return;
    }
    parts = json_array();
    add_thought(parts, r);
    if (r->text || !json_array_size(r->tool_calls))
        json_array_append_new(
            parts, json_pack("{ss}", "text", r->text ? r->text : ""));
    add_call_parts(parts, r);
    fake_out_json(o, response(rq, r, parts, 1));
}

/* Google's error statuses by HTTP status. */
static const struct {
    long status;
    const char *name;
} statuses[] = {
    {400, "INVALID_ARGUMENT"},   {401, "UNAUTHENTICATED"},
    {403, "PERMISSION_DENIED"},  {404, "NOT_FOUND"},
    {429, "RESOURCE_EXHAUSTED"}, {500, "INTERNAL"},
    {503, "UNAVAILABLE"},        {504, "DEADLINE_EXCEEDED"},
};

json_t *fake_gemini_error(long status, const char *type, const char *message)
{
    const char *name = status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";

    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
        if (statuses[i].status == status)
            name = statuses[i].name;
    return json_pack("{s{sI ss ss}}", "error", "code", (json_int_t)status,
                     "message", message, "status", type ? type : name);
}
