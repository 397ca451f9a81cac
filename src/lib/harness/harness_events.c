/*
 * The event readers of each CLI's stream (docs/agent-clis.md, "What the
 * parsers read").  Each takes one JSON object and returns 0, or 1 when
 * its type is not one the format has; a field of the wrong type reads
 * as absent.  Each reader is a table from event type to handler.
 */
#include <string.h>

#include "upskill/alloc.h"

#include "harness_int.h"

typedef int (*handler_fn)(cli_state *st, const json_t *ev);

struct handler {
    const char *type;
    handler_fn fn; /* NULL: known, nothing to read */
};

static int dispatch(cli_state *st, const json_t *ev, const char *type,
                    const struct handler *h, size_t n)
{
    for (size_t i = 0; type && i < n; i++)
        if (!strcmp(type, h[i].type))
            return h[i].fn ? h[i].fn(st, ev) : 0;
    return 1;
}

static void set_model(cli_state *st, const char *model)
{
    if (model && !st->r->model)
        st->r->model = up_xstrdup(model);
}

/* ---- Claude Code: claude -p --output-format stream-json --verbose ---- */

static int claude_system(cli_state *st, const json_t *ev)
{
    set_model(st, up_harness__str(ev, "model"));
    return 0;
}

/*
 * Anthropic usage u into r: added (each message's, so a stream cut
 * before its result event still has the input tokens; output is then
 * undercounted: it is the count at the message's start), or set from
 * the result event's totals.
 */
static void claude_usage(up_harness_result *r, const json_t *u, int add)
{
    long cached = up_harness__count(u, "cache_read_input_tokens");
    long input = up_harness__count(u, "input_tokens") + cached +
                 up_harness__count(u, "cache_creation_input_tokens");
    long output = up_harness__count(u, "output_tokens");

    if (!add)
        r->input_tokens = r->cached_tokens = r->output_tokens = 0;
    r->input_tokens += input;
    r->cached_tokens += cached;
    r->output_tokens += output;
}

/* An assistant event holds one content block of a message; a new
   message id is a new model turn. */
static int claude_assistant(cli_state *st, const json_t *ev)
{
    const json_t *msg = json_object_get(ev, "message");
    const char *id = up_harness__str(msg, "id");
    size_t i;
    const json_t *b;

    if (!json_is_object(msg))
        return 1;
    if (!id || strcmp(id, st->last_msg.data ? st->last_msg.data : "")) {
        st->r->turns = st->r->turns < 0 ? 1 : st->r->turns + 1;
        up_buf_reset(&st->last_msg);
        up_buf_adds(&st->last_msg, id ? id : "");
        claude_usage(st->r, json_object_get(msg, "usage"), 1);
    }
    json_array_foreach(json_object_get(msg, "content"), i, b)
    {
        const char *type = up_harness__str(b, "type");

        if (type && !strcmp(type, "tool_use"))
            up_harness__call(st, up_harness__str(b, "name"),
                             up_harness__str(b, "id"),
                             json_object_get(b, "input"));
        else if (type && !strcmp(type, "text"))
            up_harness__set_answer(st, up_harness__str(b, "text"));
    }
    return 0;
}

static int claude_user(cli_state *st, const json_t *ev)
{
    size_t i;
    const json_t *b;

    json_array_foreach(
        json_object_get(json_object_get(ev, "message"), "content"), i, b)
    {
        if (json_is_true(json_object_get(b, "is_error")))
            up_harness__call_failed(st, up_harness__str(b, "tool_use_id"));
    }
    return 0;
}

static int claude_result(cli_state *st, const json_t *ev)
{
    up_harness_result *r = st->r;
    const json_t *u = json_object_get(ev, "usage");
    const json_t *cost = json_object_get(ev, "total_cost_usd");
    const char *sub = up_harness__str(ev, "subtype");

    r->complete = 1;
    r->is_error = json_is_true(json_object_get(ev, "is_error")) ||
                  (sub && strcmp(sub, "success"));
    up_harness__set_answer(st, up_harness__str(ev, "result"));
    claude_usage(r, u, 0);
    if (json_is_number(cost) && json_number_value(cost) >= 0) {
        r->has_cost = 1;
        r->cost_usd = json_number_value(cost);
    }
    if (json_is_number(json_object_get(ev, "duration_ms")))
        r->duration_ms = up_harness__count(ev, "duration_ms");
    return 0;
}

static const struct handler claude[] = {
    {"system", claude_system}, {"assistant", claude_assistant},
    {"user", claude_user},     {"result", claude_result},
    {"stream_event", NULL},    {"rate_limit_event", NULL},
};

int up_harness__claude_event(cli_state *st, const json_t *ev)
{
    return dispatch(st, ev, up_harness__str(ev, "type"), claude,
                    sizeof(claude) / sizeof(claude[0]));
}

/* ---- Codex: codex exec --json ---- */

static int codex_command(cli_state *st, const json_t *item)
{
    const json_t *code = json_object_get(item, "exit_code");
    const char *status = up_harness__str(item, "status");
    size_t t = up_harness__call(st, "shell", up_harness__str(item, "id"), NULL);

    up_harness__scan_text(st, up_harness__str(item, "command"));
    if ((json_is_integer(code) && json_integer_value(code) != 0) ||
        (status && (!strcmp(status, "failed") || !strcmp(status, "declined"))))
        up_harness__tool_failed(st, t);
    return 0;
}

static int codex_named_tool(cli_state *st, const json_t *item, const char *name)
{
    const char *status = up_harness__str(item, "status");
    size_t t = up_harness__call(st, name, up_harness__str(item, "id"),
                                json_object_get(item, "arguments"));

    if (status && !strcmp(status, "failed"))
        up_harness__tool_failed(st, t);
    return 0;
}

static int codex_item(cli_state *st, const json_t *ev)
{
    const json_t *item = json_object_get(ev, "item");
    const char *type = up_harness__str(item, "type");

    if (!type)
        return 1;
    if (!strcmp(type, "command_execution"))
        return codex_command(st, item);
    if (!strcmp(type, "agent_message"))
        up_harness__set_answer(st, up_harness__str(item, "text"));
    else if (!strcmp(type, "mcp_tool_call"))
        return codex_named_tool(st, item, up_harness__str(item, "tool"));
    else if (!strcmp(type, "file_change"))
        return codex_named_tool(st, item, "apply_patch");
    else if (!strcmp(type, "web_search"))
        return codex_named_tool(st, item, "web_search");
    return 0;
}

static long first_count(const json_t *u, const char *a, const char *b)
{
    long n = up_harness__count(u, a);

    return n ? n : up_harness__count(u, b);
}

static int codex_turn_done(cli_state *st, const json_t *ev)
{
    up_harness_result *r = st->r;
    const json_t *u = json_object_get(ev, "usage");

    r->complete = 1;
    r->input_tokens += up_harness__count(u, "input_tokens");
    r->cached_tokens += first_count(u, "cached_input_tokens", "cached_tokens");
    r->output_tokens += up_harness__count(u, "output_tokens");
    r->reasoning_tokens +=
        first_count(u, "reasoning_output_tokens", "reasoning_tokens");
    return 0;
}

static int codex_turn_failed(cli_state *st, const json_t *ev)
{
    (void)ev;
    st->r->complete = 1;
    st->r->is_error = 1;
    return 0;
}

static const struct handler codex[] = {
    {"thread.started", NULL},
    {"turn.started", NULL},
    {"item.started", NULL},
    {"item.updated", NULL},
    {"item.completed", codex_item},
    {"turn.completed", codex_turn_done},
    {"turn.failed", codex_turn_failed},
    {"error", NULL},
};

int up_harness__codex_event(cli_state *st, const json_t *ev)
{
    return dispatch(st, ev, up_harness__str(ev, "type"), codex,
                    sizeof(codex) / sizeof(codex[0]));
}

/* ---- opencode: opencode run --format json ---- */

static int oc_step_start(cli_state *st, const json_t *ev)
{
    (void)ev;
    st->r->turns = st->r->turns < 0 ? 1 : st->r->turns + 1;
    return 0;
}

static int oc_text(cli_state *st, const json_t *ev)
{
    up_harness__set_answer(
        st, up_harness__str(json_object_get(ev, "part"), "text"));
    return 0;
}

static int oc_tool(cli_state *st, const json_t *ev)
{
    const json_t *part = json_object_get(ev, "part");
    const json_t *state = json_object_get(part, "state");
    const char *status = up_harness__str(state, "status");
    size_t t = up_harness__call(st, up_harness__str(part, "tool"),
                                up_harness__str(part, "callID"),
                                json_object_get(state, "input"));

    if (status && !strcmp(status, "error"))
        up_harness__tool_failed(st, t);
    return 0;
}

static int oc_step_finish(cli_state *st, const json_t *ev)
{
    up_harness_result *r = st->r;
    const json_t *part = json_object_get(ev, "part");
    const json_t *tok = json_object_get(part, "tokens");
    const json_t *cache = json_object_get(tok, "cache");
    const json_t *cost = json_object_get(part, "cost");
    const char *reason = up_harness__str(part, "reason");
    long cached = up_harness__count(cache, "read");

    r->input_tokens += up_harness__count(tok, "input") + cached +
                       up_harness__count(cache, "write");
    r->cached_tokens += cached;
    r->output_tokens += up_harness__count(tok, "output");
    r->reasoning_tokens += up_harness__count(tok, "reasoning");
    if (json_is_number(cost) && json_number_value(cost) >= 0) {
        r->has_cost = 1;
        r->cost_usd += json_number_value(cost);
    }
    r->complete = reason && strcmp(reason, "tool-calls");
    return 0;
}

static int oc_error(cli_state *st, const json_t *ev)
{
    (void)ev;
    st->r->is_error = 1;
    return 0;
}

static const struct handler opencode[] = {
    {"step_start", oc_step_start},   {"text", oc_text},   {"tool_use", oc_tool},
    {"step_finish", oc_step_finish}, {"error", oc_error}, {"reasoning", NULL},
};

int up_harness__opencode_event(cli_state *st, const json_t *ev)
{
    const json_t *ts = json_object_get(ev, "timestamp");
    int rc = dispatch(st, ev, up_harness__str(ev, "type"), opencode,
                      sizeof(opencode) / sizeof(opencode[0]));

    if (!rc && json_is_integer(ts) && json_integer_value(ts) > 0) {
        long t = (long)json_integer_value(ts);

        if (!st->first_ts)
            st->first_ts = t;
        st->last_ts = t;
        st->r->duration_ms = st->last_ts - st->first_ts;
    }
    return rc;
}

/* ---- Gemini CLI: gemini -p --output-format stream-json ---- */

/* A model response is a run of assistant messages and tool uses. */
static void gm_model_event(cli_state *st)
{
    if (st->in_model)
        return;
    st->in_model = 1;
    st->r->turns = st->r->turns < 0 ? 1 : st->r->turns + 1;
}

static int gm_init(cli_state *st, const json_t *ev)
{
    set_model(st, up_harness__str(ev, "model"));
    return 0;
}

static int gm_message(cli_state *st, const json_t *ev)
{
    const char *role = up_harness__str(ev, "role");
    const char *text = up_harness__str(ev, "content");

    if (!role || strcmp(role, "assistant")) {
        st->in_model = 0;
        return 0;
    }
    gm_model_event(st);
    if (!json_is_true(json_object_get(ev, "delta")))
        up_buf_reset(&st->answer);
    if (text)
        up_buf_adds(&st->answer, text);
    return 0;
}

static int gm_tool_use(cli_state *st, const json_t *ev)
{
    gm_model_event(st);
    up_buf_reset(&st->answer);
    up_harness__call(st, up_harness__str(ev, "tool_name"),
                     up_harness__str(ev, "tool_id"),
                     json_object_get(ev, "parameters"));
    return 0;
}

static int gm_tool_result(cli_state *st, const json_t *ev)
{
    const char *status = up_harness__str(ev, "status");

    st->in_model = 0;
    if (status && strcmp(status, "success"))
        up_harness__call_failed(st, up_harness__str(ev, "tool_id"));
    return 0;
}

static int gm_result(cli_state *st, const json_t *ev)
{
    up_harness_result *r = st->r;
    const json_t *s = json_object_get(ev, "stats");
    const char *status = up_harness__str(ev, "status");

    r->complete = 1;
    r->is_error = status && strcmp(status, "success");
    r->input_tokens = up_harness__count(s, "input_tokens");
    r->output_tokens = up_harness__count(s, "output_tokens");
    r->cached_tokens = up_harness__count(s, "cached");
    if (json_is_number(json_object_get(s, "duration_ms")))
        r->duration_ms = up_harness__count(s, "duration_ms");
    return 0;
}

static const struct handler gemini[] = {
    {"init", gm_init},         {"message", gm_message},
    {"tool_use", gm_tool_use}, {"tool_result", gm_tool_result},
    {"result", gm_result},     {"error", NULL},
};

int up_harness__gemini_event(cli_state *st, const json_t *ev)
{
    return dispatch(st, ev, up_harness__str(ev, "type"), gemini,
                    sizeof(gemini) / sizeof(gemini[0]));
}
