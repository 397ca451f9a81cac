/*
 * Trace messages in JSON: one tolerant reader for the chat message shapes
 * of OpenAI (role, content, tool_calls, role "tool"), Anthropic (content
 * blocks: text, thinking, tool_use, tool_result), fast-agent (MCP content
 * blocks, tool_calls and tool_results keyed by id, a reasoning channel)
 * and Codex (response items: message, reasoning, function_call and its
 * output).
 *
 * Nothing here fails: a field of the wrong type is simply not there.
 * Content blocks and Codex items are dispatched through tables by their
 * "type".  Tool arguments become "key: value" lines, which read better
 * than JSON and keep commands and file contents verbatim.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"
#include "upskill/alloc.h"
#include "util/json.h"

#define TEXT_DEPTH 16 /* nesting followed when collecting text */

/* ---- text and arguments ---------------------------------------------- */

static void json_text(up_buf *b, const json_t *v, int depth)
{
    static const char *const keys[] = {"text", "content", "output", "resource"};

    if (depth > TEXT_DEPTH)
        return;
    if (json_is_string(v)) {
        up_buf_add(b, json_string_value(v), json_string_length(v));
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *e;

        json_array_foreach(v, i, e)
        {
            if (b->len && b->data[b->len - 1] != '\n')
                up_buf_addc(b, '\n');
            json_text(b, e, depth + 1);
        }
    } else if (json_is_object(v)) {
        for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
            if (json_object_get(v, keys[i])) {
                json_text(b, json_object_get(v, keys[i]), depth + 1);
                return;
            }
    }
}

void trace_json_text(up_buf *b, const json_t *v)
{
    json_text(b, v, 0);
}

/* Append a compact JSON encoding of v. */
static void add_dump(up_buf *b, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

    if (s)
        up_buf_adds(b, s);
    free(s);
}

/* 1 when v is an array of strings only. */
static int string_list(const json_t *v)
{
    size_t i;
    const json_t *e;

    if (!json_is_array(v) || !json_array_size(v))
        return 0;
    json_array_foreach(v, i, e) if (!json_is_string(e)) return 0;
    return 1;
}

/* "key: value" per field; multi-line strings go below their key. */
static void args_object(up_buf *b, const json_t *o)
{
    const char *key;
    const json_t *v;

    json_object_foreach((json_t *)o, key, v)
    {
        const char *s = json_string_value(v);

        up_buf_addf(b, "%s:", key);
        if (s && memchr(s, '\n', json_string_length(v))) {
            up_buf_addc(b, '\n');
            up_buf_add(b, s, json_string_length(v));
        } else if (s) {
            up_buf_addc(b, ' ');
            up_buf_add(b, s, json_string_length(v));
        } else if (string_list(v)) {
            for (size_t i = 0; i < json_array_size(v); i++) {
                const json_t *e = json_array_get(v, i);

                up_buf_addc(b, ' ');
                up_buf_add(b, json_string_value(e), json_string_length(e));
            }
        } else {
            up_buf_addc(b, ' ');
            add_dump(b, v);
        }
        up_buf_addc(b, '\n');
    }
}

/* Arguments: an object, or a string holding JSON (OpenAI), or text. */
static void args_text(up_buf *b, const json_t *args)
{
    json_t *parsed = NULL;

    if (json_is_string(args)) {
        parsed = json_loadb(json_string_value(args), json_string_length(args),
                            JSON_ALLOW_NUL, NULL);
        if (!json_is_object(parsed))
            up_buf_add(b, json_string_value(args), json_string_length(args));
        else
            args_object(b, parsed);
    } else if (json_is_object(args)) {
        args_object(b, args);
    } else if (args && !json_is_null(args)) {
        add_dump(b, args);
    }
    json_decref(parsed);
}

/* ---- events ----------------------------------------------------------- */

static void add_call(up_trace *t, const char *name, const char *id,
                     const json_t *args, long line)
{
    up_buf b = UP_BUF_INIT;

    args_text(&b, args);
    trace_add(t, UP_TEV_TOOL_CALL, name ? name : "tool", id, b.data, b.len,
              line);
    up_buf_release(&b);
}

/* A tool output: flag is the error flag's JSON value (NULL when the
 * format has none: then the text decides). */
static void add_output(up_trace *t, const json_t *content, const json_t *flag,
                       const char *name, const char *id, long line)
{
    up_buf b = UP_BUF_INIT;
    int error;

    trace_json_text(&b, content);
    error = flag ? json_is_true(flag) : trace_looks_error(b.data, b.len);
    trace_add(t, error ? UP_TEV_TOOL_ERROR : UP_TEV_TOOL_RESULT,
              name ? name : trace_call_name(t, id), id, b.data, b.len, line);
    up_buf_release(&b);
}

static const json_t *first_of(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);

    return v ? v : json_object_get(o, b);
}

static const char *str_of(const json_t *o, const char *a, const char *b)
{
    const char *s = up_json_str(o, a);

    return s ? s : up_json_str(o, b);
}

/* A call in OpenAI ({id, function: {name, arguments}}), fast-agent
 * ({method, params: {name, arguments}}) or flat shape. */
static void add_call_json(up_trace *t, const json_t *call, const char *key,
                          long line)
{
    const json_t *fn = json_object_get(call, "function");
    const char *id = str_of(call, "id", "call_id");

    if (!json_is_object(fn))
        fn = json_object_get(call, "params");
    if (!json_is_object(fn))
        fn = call;
    add_call(t, up_json_str(fn, "name"), id ? id : key,
             first_of(fn, "arguments", "input"), line);
}

/* A result in fast-agent ({content, isError}) or flat shape. */
static void add_result_json(up_trace *t, const json_t *res, const char *key,
                            long line)
{
    const json_t *content = first_of(res, "content", "output");
    const char *id = str_of(res, "tool_use_id", "tool_call_id");

    add_output(t, content ? content : res, first_of(res, "isError", "is_error"),
               up_json_str(res, "name"), id ? id : key, line);
}

typedef void (*item_fn)(up_trace *t, const json_t *v, const char *key,
                        long line);

/* Call fn on each element of an array, or each member of an object keyed
 * by id (fast-agent). */
static void each(up_trace *t, const json_t *v, item_fn fn, long line)
{
    const char *key;
    const json_t *e;
    size_t i;

    if (json_is_array(v))
        json_array_foreach(v, i, e) if (json_is_object(e)) fn(t, e, NULL, line);
    if (json_is_object(v))
        json_object_foreach((json_t *)v, key, e) if (json_is_object(e))
            fn(t, e, key, line);
}

/* ---- roles and content blocks ----------------------------------------- */

struct role {
    const char *name;
    enum up_trace_kind kind;
    const char *label; /* TEXT events' name */
};

static const struct role roles[] = {
    {"user", UP_TEV_USER, NULL},
    {"human", UP_TEV_USER, NULL},
    {"assistant", UP_TEV_ASSISTANT, NULL},
    {"model", UP_TEV_ASSISTANT, NULL},
    {"ai", UP_TEV_ASSISTANT, NULL},
    {"system", UP_TEV_TEXT, "System"},
    {"developer", UP_TEV_TEXT, "Developer"},
    {"tool", UP_TEV_TOOL_RESULT, NULL},
    {"function", UP_TEV_TOOL_RESULT, NULL},
    {"ipython", UP_TEV_TOOL_RESULT, NULL},
};
static const struct role other_role = {"", UP_TEV_TEXT, "Context"};

static const struct role *role_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof(roles) / sizeof(*roles); i++)
        if (!strcmp(roles[i].name, name))
            return &roles[i];
    return &other_role;
}

/* User messages that are really set-up written by the agent: context. */
static const char *const context_openings[] = {
    "<environment_context>", "<user_instructions>", "<command-",
    "<local-command-",       "<system-reminder>",   "Caveat: The messages",
    "# AGENTS.md",
};

static void add_role_text(up_trace *t, const struct role *r, const char *s,
                          size_t n, long line)
{
    if (r->kind == UP_TEV_USER)
        for (size_t i = 0;
             i < sizeof(context_openings) / sizeof(*context_openings); i++) {
            size_t k = strlen(context_openings[i]);

            if (n >= k && !memcmp(s, context_openings[i], k)) {
                r = &other_role;
                break;
            }
        }
    trace_add(t, r->kind, r->label, NULL, s, n, line);
}

typedef void (*block_fn)(up_trace *t, const json_t *blk, const struct role *r,
                         long line);

static void blk_text(up_trace *t, const json_t *blk, const struct role *r,
                     long line)
{
    up_buf b = UP_BUF_INIT;

    trace_json_text(&b, blk);
    add_role_text(t, r, b.data, b.len, line);
    up_buf_release(&b);
}

static void blk_thinking(up_trace *t, const json_t *blk, const struct role *r,
                         long line)
{
    up_buf b = UP_BUF_INIT;
    const json_t *v = json_object_get(blk, "thinking");

    (void)r;
    if (!v)
        v = json_object_get(blk, "summary");
    trace_json_text(&b, v ? v : blk);
    trace_add(t, UP_TEV_THINKING, NULL, NULL, b.data, b.len, line);
    up_buf_release(&b);
}

static void blk_tool_use(up_trace *t, const json_t *blk, const struct role *r,
                         long line)
{
    (void)r;
    add_call(t, up_json_str(blk, "name"), up_json_str(blk, "id"),
             first_of(blk, "input", "arguments"), line);
}

static void blk_tool_result(up_trace *t, const json_t *blk,
                            const struct role *r, long line)
{
    (void)r;
    add_output(t, json_object_get(blk, "content"),
               first_of(blk, "is_error", "isError"), NULL,
               up_json_str(blk, "tool_use_id"), line);
}

static void blk_skip(up_trace *t, const json_t *blk, const struct role *r,
                     long line)
{
    (void)t, (void)blk, (void)r, (void)line;
}

static const struct {
    const char *type;
    block_fn fn;
} block_types[] = {
    {"text", blk_text},
    {"input_text", blk_text},
    {"output_text", blk_text},
    {"summary_text", blk_text},
    {"resource", blk_text},
    {"thinking", blk_thinking},
    {"reasoning", blk_thinking},
    {"redacted_thinking", blk_skip},
    {"tool_use", blk_tool_use},
    {"server_tool_use", blk_tool_use},
    {"mcp_tool_use", blk_tool_use},
    {"tool_result", blk_tool_result},
    {"mcp_tool_result", blk_tool_result},
    {"web_search_tool_result", blk_tool_result},
    {"image", blk_skip},
    {"image_url", blk_skip},
    {"input_image", blk_skip},
};

static void add_block(up_trace *t, const json_t *blk, const struct role *r,
                      long line)
{
    const char *type = up_json_str(blk, "type");

    if (json_is_string(blk) || !type) {
        blk_text(t, blk, r, line);
        return;
    }
    for (size_t i = 0; i < sizeof(block_types) / sizeof(*block_types); i++)
        if (!strcmp(block_types[i].type, type)) {
            block_types[i].fn(t, blk, r, line);
            return;
        }
    if (json_is_string(json_object_get(blk, "text")))
        blk_text(t, blk, r, line);
}

static void add_content(up_trace *t, const json_t *content,
                        const struct role *r, long line)
{
    size_t i;
    const json_t *blk;

    if (json_is_array(content))
        json_array_foreach(content, i, blk) add_block(t, blk, r, line);
    else if (content)
        add_block(t, content, r, line);
}

/* The reasoning a message carries outside its content. */
static void add_reasoning(up_trace *t, const json_t *msg, long line)
{
    static const char *const keys[] = {"reasoning_content", "reasoning"};
    const json_t *ch = json_object_get(msg, "channels");

    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
        if (json_is_string(json_object_get(msg, keys[i])))
            blk_thinking(t, json_object_get(msg, keys[i]), NULL, line);
    if (json_is_object(ch) && json_object_get(ch, "reasoning"))
        blk_thinking(t, json_object_get(ch, "reasoning"), NULL, line);
}

void trace_json_message(up_trace *t, const json_t *msg, const char *role,
                        long line)
{
    const char *name = up_json_str(msg, "role");
    const struct role *r = role_of(name ? name : role);

    if (r->kind == UP_TEV_TOOL_RESULT) {
        add_output(t, json_object_get(msg, "content"),
                   first_of(msg, "is_error", "isError"),
                   up_json_str(msg, "name"), up_json_str(msg, "tool_call_id"),
                   line);
        return;
    }
    add_reasoning(t, msg, line);
    add_content(t, json_object_get(msg, "content"), r, line);
    each(t, json_object_get(msg, "tool_calls"), add_call_json, line);
    if (json_is_object(json_object_get(msg, "function_call")))
        add_call_json(t, json_object_get(msg, "function_call"), NULL, line);
    each(t, json_object_get(msg, "tool_results"), add_result_json, line);
}

/* ---- vendors ---------------------------------------------------------- */

/* Block types only Anthropic's messages use. */
static const char *const anthropic_blocks[] = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
};

enum up_trace_format trace_json_vendor(const json_t *msg)
{
    const json_t *content = json_object_get(msg, "content");
    const char *role = up_json_str(msg, "role");
    const json_t *blk;
    size_t i;

    if (json_object_get(msg, "tool_calls") ||
        json_object_get(msg, "function_call") ||
        json_object_get(msg, "tool_call_id") ||
        (role && (!strcmp(role, "tool") || !strcmp(role, "system"))))
        return UP_TRACE_OPENAI;
    json_array_foreach(content, i, blk)
    {
        const char *type = up_json_str(blk, "type");

        for (size_t k = 0;
             type && k < sizeof(anthropic_blocks) / sizeof(*anthropic_blocks);
             k++)
            if (!strcmp(type, anthropic_blocks[k]))
                return UP_TRACE_ANTHROPIC;
    }
    return UP_TRACE_TEXT;
}

/* ---- Codex response items --------------------------------------------- */

static void codex_message(up_trace *t, const json_t *item, long line)
{
    trace_json_message(t, item, "assistant", line);
}

static void codex_reasoning(up_trace *t, const json_t *item, long line)
{
    const json_t *v = json_object_get(item, "summary");

    if (!json_array_size(v))
        v = json_object_get(item, "content");
    if (v && !json_is_null(v))
        blk_thinking(t, v, NULL, line);
}

static void codex_call(up_trace *t, const json_t *item, long line)
{
    static const char *const keys[] = {"arguments", "input", "action"};
    const char *name = up_json_str(item, "name");
    const char *type = up_json_str(item, "type");
    const char *id = str_of(item, "call_id", "id");
    const json_t *args = NULL;

    for (size_t i = 0; !args && i < sizeof(keys) / sizeof(*keys); i++)
        args = json_object_get(item, keys[i]);
    if (!name && !strcmp(type, "local_shell_call"))
        name = "shell";
    if (!name && !strcmp(type, "web_search_call"))
        name = "web_search";
    add_call(t, name, id, args, line);
}

/* An output: plain text, or JSON text {"output", "metadata": {"exit_code"}},
 * or an object {"content", "success"}. */
static void codex_output(up_trace *t, const json_t *item, long line)
{
    const json_t *out = json_object_get(item, "output");
    const char *id = str_of(item, "call_id", "id");
    json_t *parsed = NULL, *flag = NULL;
    long code;

    if (json_is_string(out) && json_string_value(out)[0] == '{') {
        parsed = json_loadb(json_string_value(out), json_string_length(out),
                            JSON_ALLOW_NUL, NULL);
        if (json_is_object(parsed))
            out = parsed;
    }
    if (json_is_object(out)) {
        code = up_json_long(json_object_get(out, "metadata"), "exit_code", 0);
        if (json_is_false(json_object_get(out, "success")))
            code = 1;
        flag = json_boolean(code != 0);
        out = first_of(out, "output", "content");
    }
    add_output(t, out, flag, NULL, id, line);
    json_decref(flag);
    json_decref(parsed);
}

static const struct {
    const char *type;
    void (*fn)(up_trace *t, const json_t *item, long line);
} codex_items[] = {
    {"message", codex_message},
    {"reasoning", codex_reasoning},
    {"function_call", codex_call},
    {"custom_tool_call", codex_call},
    {"local_shell_call", codex_call},
    {"web_search_call", codex_call},
    {"function_call_output", codex_output},
    {"custom_tool_call_output", codex_output},
    {"local_shell_call_output", codex_output},
};

int trace_json_is_codex_item(const char *type)
{
    for (size_t i = 0; type && i < sizeof(codex_items) / sizeof(*codex_items);
         i++)
        if (!strcmp(codex_items[i].type, type))
            return 1;
    return 0;
}

void trace_json_codex_item(up_trace *t, const json_t *item, long line)
{
    const char *type = up_json_str(item, "type");

    for (size_t i = 0; type && i < sizeof(codex_items) / sizeof(*codex_items);
         i++)
        if (!strcmp(codex_items[i].type, type)) {
            codex_items[i].fn(t, item, line);
            return;
        }
}
