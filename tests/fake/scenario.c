/*
 * fake-llm scenarios: load the JSON file into rules.
 *
 * Every JSON object is read through a field table (key, parser, offset
 * into the C struct), so an unknown key or a wrong type is an error that
 * names the file and the JSON place ("rules[2].reply.status").  Strings
 * are borrowed from the parsed JSON, which the scenario keeps alive.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"

#include "fake.h"

struct ctx {
    const char *file; /* the scenario path, for messages */
    up_buf where;     /* the JSON place being read */
    up_error *err;
};

typedef int (*parse_fn)(void *dst, json_t *v, struct ctx *cx);

struct field {
    const char *key;
    parse_fn parse;
    size_t off; /* where the value goes, from the struct's start */
};

/* Indexed by enum fake_fault; the static assert keeps them in step. */
static const char *const fault_names[] = {
    "none",           "early_close",  "invalid_json", "oversized",
    "reset",          "retry_after",  "no_usage",     "error_500",
    "overloaded",     "stream_error", "hold",         "sse_error_line",
    "sse_error_data", "empty_stream", "stall",
};
_Static_assert(sizeof(fault_names) / sizeof(fault_names[0]) == FAKE_FAULT_COUNT,
               "one name per fault");

enum fake_fault fake_fault_parse(const char *name)
{
    for (int f = 0; f < FAKE_FAULT_COUNT; f++)
        if (!strcmp(name, fault_names[f]))
            return (enum fake_fault)f;
    return FAKE_FAULT_COUNT;
}

const char *fake_fault_name(enum fake_fault f)
{
    return f < FAKE_FAULT_COUNT ? fault_names[f] : "?";
}

static int bad(struct ctx *cx, const char *what)
{
    return up_error_set(cx->err, UP_EPARSE, "'%s': %s: %s", cx->file,
                        cx->where.len ? cx->where.data : "top level", what);
}

static const struct field *find_field(const struct field *tab, const char *k)
{
    for (; tab->key; tab++)
        if (!strcmp(tab->key, k))
            return tab;
    return NULL;
}

/* Read obj's keys through tab into base; "comment" keys are ignored. */
static int parse_object(json_t *obj, const struct field *tab, void *base,
                        struct ctx *cx)
{
    const char *key;
    json_t *v;

    if (!json_is_object(obj))
        return bad(cx, "expected an object");
    json_object_foreach(obj, key, v)
    {
        const struct field *f = find_field(tab, key);
        size_t mark = cx->where.len;
        int rc;

        if (!strcmp(key, "comment"))
            continue;
        if (!f)
            return up_error_set(
                cx->err, UP_EPARSE, "'%s': %s: unknown key '%s'", cx->file,
                cx->where.len ? cx->where.data : "top level", key);
        up_buf_addf(&cx->where, "%s%s", mark ? "." : "", key);
        rc = f->parse((char *)base + f->off, v, cx);
        up_buf_truncate(&cx->where, mark);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- scalar parsers ---- */

static int p_str(void *dst, json_t *v, struct ctx *cx)
{
    if (!json_is_string(v))
        return bad(cx, "expected a string");
    *(const char **)dst = json_string_value(v);
    return 0;
}

static int p_long(void *dst, json_t *v, struct ctx *cx)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return bad(cx, "expected a non-negative integer");
    *(long *)dst = (long)json_integer_value(v);
    return 0;
}

static int p_prob(void *dst, json_t *v, struct ctx *cx)
{
    double p = json_number_value(v);

    if (!json_is_number(v) || p < 0 || p > 1)
        return bad(cx, "expected a number from 0 to 1");
    *(double *)dst = p;
    return 0;
}

static int p_bool(void *dst, json_t *v, struct ctx *cx)
{
    if (!json_is_boolean(v))
        return bad(cx, "expected true or false");
    *(int *)dst = json_is_true(v);
    return 0;
}

static int p_strnum(void *dst, json_t *v, struct ctx *cx)
{
    char *out = dst;

    if (json_is_integer(v))
        snprintf(out, 32, "%lld", (long long)json_integer_value(v));
    else if (json_is_string(v) && json_string_length(v) < 32)
        snprintf(out, 32, "%s", json_string_value(v));
    else
        return bad(cx, "expected an integer or a short string");
    return 0;
}

static int p_fault(void *dst, json_t *v, struct ctx *cx)
{
    enum fake_fault f = FAKE_FAULT_COUNT;

    if (json_is_string(v))
        f = fake_fault_parse(json_string_value(v));
    if (f == FAKE_FAULT_COUNT)
        return bad(cx, "expected a fault: early_close, invalid_json, "
                       "oversized, reset, retry_after, no_usage, error_500, "
                       "overloaded, stream_error, hold, sse_error_line, "
                       "sse_error_data, empty_stream or stall");
    *(enum fake_fault *)dst = f;
    return 0;
}

static int p_faults(void *dst, json_t *v, struct ctx *cx)
{
    struct fake_faults *fs = dst;
    size_t i;
    json_t *item;

    if (!json_is_array(v) || json_array_size(v) > FAKE_FAULT_COUNT)
        return bad(cx, "expected a list of fault names");
    json_array_foreach(v, i, item)
    {
        int rc = p_fault(&fs->v[i], item, cx);

        if (rc)
            return rc;
    }
    fs->n = json_array_size(v);
    return 0;
}

/* Header matches: name -> string (equal), true (present), false. */
static int p_header_match(void *dst, json_t *v, struct ctx *cx)
{
    const char *key;
    json_t *want;

    if (!json_is_object(v))
        return bad(cx, "expected an object");
    json_object_foreach(v, key, want)
    {
        if (!json_is_string(want) && !json_is_boolean(want))
            return bad(cx, "header values must be strings, true or false");
    }
    *(json_t **)dst = v;
    return 0;
}

static int p_headers(void *dst, json_t *v, struct ctx *cx)
{
    const char *key;
    json_t *val;

    if (!json_is_object(v))
        return bad(cx, "expected an object");
    json_object_foreach(v, key, val)
    {
        if (!json_is_string(val))
            return bad(cx, "header values must be strings");
    }
    *(json_t **)dst = v;
    return 0;
}

/* ---- nested objects ---- */

static const struct field usage_fields[] = {
    {"input_tokens", p_long, offsetof(struct fake_usage, input)},
    {"output_tokens", p_long, offsetof(struct fake_usage, output)},
    {"cached_tokens", p_long, offsetof(struct fake_usage, cached)},
    {"cache_creation_tokens", p_long,
     offsetof(struct fake_usage, cache_creation)},
    {"reasoning_tokens", p_long, offsetof(struct fake_usage, reasoning)},
    {NULL, NULL, 0},
};

static int p_usage(void *dst, json_t *v, struct ctx *cx)
{
    return parse_object(v, usage_fields, dst, cx);
}

/* [{"name": s, "arguments": object or string, "id": s}] */
static int p_tool_calls(void *dst, json_t *v, struct ctx *cx)
{
    size_t i;
    json_t *c;

    if (!json_is_array(v))
        return bad(cx, "expected a list of tool calls");
    json_array_foreach(v, i, c)
    {
        json_t *args = json_object_get(c, "arguments");
        const char *key;
        json_t *val;

        if (!json_is_string(json_object_get(c, "name")))
            return bad(cx, "each tool call needs a string \"name\"");
        if (args && !json_is_object(args) && !json_is_string(args))
            return bad(cx, "a tool call's \"arguments\" must be an object "
                           "or a string");
        json_object_foreach(c, key, val)
        {
            if (strcmp(key, "name") && strcmp(key, "arguments") &&
                strcmp(key, "id"))
                return bad(cx, "a tool call takes only name, arguments, id");
        }
    }
    *(json_t **)dst = v;
    return 0;
}

#define R(m) offsetof(struct fake_reply, m)
static const struct field reply_fields[] = {
    {"status", p_long, R(status)},
    {"headers", p_headers, R(headers)},
    {"body", p_str, R(body)},
    {"text", p_str, R(text)},
    {"reasoning", p_str, R(reasoning)},
    {"model", p_str, R(model)},
    {"finish_reason", p_str, R(finish)},
    {"error_type", p_str, R(error_type)},
    {"error_message", p_str, R(error_msg)},
    {"usage", p_usage, R(usage)},
    {"stream", p_bool, R(stream)},
    {"chunk_size", p_long, R(chunk_size)},
    {"delay_ms", p_long, R(delay_ms)},
    {"chunk_delay_ms", p_long, R(chunk_delay_ms)},
    {"fault", p_fault, R(fault)},
    {"bytes", p_long, R(bytes)},
    {"retry_after", p_strnum, R(retry_after)},
    {"tool_calls", p_tool_calls, R(tool_calls)},
    {"latin1", p_bool, R(latin1)},
    {NULL, NULL, 0},
};
#undef R

static int p_reply(void *dst, json_t *v, struct ctx *cx)
{
    return parse_object(v, reply_fields, dst, cx);
}

#define M(m) offsetof(struct fake_match, m)
static const struct field match_fields[] = {
    {"path", p_str, M(path)},
    {"method", p_str, M(method)},
    {"model", p_str, M(model)},
    {"system", p_str, M(system)},
    {"user", p_str, M(user)},
    {"body", p_str, M(body)},
    {"headers", p_header_match, M(headers)},
    {"nth", p_long, M(nth)},
    {"stream", p_bool, M(stream)},
    {"tools", p_bool, M(tools)},
    {"last_role", p_str, M(last_role)},
    {"tool_result", p_str, M(tool_result)},
    {"tool_error", p_bool, M(tool_error)},
    {"assistant_turns", p_long, M(assistant_turns)},
    {NULL, NULL, 0},
};
#undef M

static int p_match(void *dst, json_t *v, struct ctx *cx)
{
    return parse_object(v, match_fields, dst, cx);
}

static const struct field pair_fields[] = {
    {"good", p_str, offsetof(struct fake_pair, good)},
    {"bad", p_str, offsetof(struct fake_pair, bad)},
    {NULL, NULL, 0},
};

static int p_pair(void *dst, json_t *v, struct ctx *cx)
{
    struct fake_pair *pair = dst;
    int rc = parse_object(v, pair_fields, pair, cx);

    if (!rc && (!pair->good || !pair->bad))
        return bad(cx, "needs both \"good\" and \"bad\"");
    return rc;
}

static int p_answers(void *dst, json_t *v, struct ctx *cx)
{
    const char *key;
    json_t *val;

    if (!json_is_object(v))
        return bad(cx, "expected an object");
    json_object_foreach(v, key, val)
    {
        struct fake_pair pair = {NULL, NULL};
        size_t mark = cx->where.len;
        int rc;

        up_buf_addf(&cx->where, "[\"%s\"]", key);
        rc = p_pair(&pair, val, cx);
        up_buf_truncate(&cx->where, mark);
        if (rc)
            return rc;
    }
    *(json_t **)dst = v;
    return 0;
}

#define S(m) offsetof(struct fake_student, m)
static const struct field student_fields[] = {
    {"marker", p_str, S(marker)},        {"p_with", p_prob, S(p_with)},
    {"p_without", p_prob, S(p_without)}, {"answers", p_answers, S(answers)},
    {"default", p_pair, S(dflt)},        {NULL, NULL, 0},
};
#undef S

static int p_student(void *dst, json_t *v, struct ctx *cx)
{
    struct fake_student *st = dst;
    int rc = parse_object(v, student_fields, st, cx);

    if (!rc && !st->dflt.good)
        return bad(cx, "needs a \"default\" {\"good\", \"bad\"} pair");
    st->on = 1;
    return rc;
}

#define A(m) offsetof(struct fake_agent_p, m)
static const struct field agent_p_fields[] = {
    {"none", p_prob, A(none)},
    {"skill", p_prob, A(skill)},
    {"reference", p_prob, A(reference)},
    {NULL, NULL, 0},
};
#undef A

static int p_agent_p(void *dst, json_t *v, struct ctx *cx)
{
    return parse_object(v, agent_p_fields, dst, cx);
}

#define G(m) offsetof(struct fake_agent, m)
static const struct field agent_fields[] = {
    {"skill", p_str, G(skill)},
    {"reference", p_str, G(reference)},
    {"file", p_str, G(file)},
    {"content", p_pair, G(content)},
    {"p_activate", p_prob, G(p_activate)},
    {"p_reference", p_prob, G(p_reference)},
    {"p_good", p_agent_p, G(p_good)},
    {"answer", p_str, G(answer)},
    {NULL, NULL, 0},
};
#undef G

static int p_agent(void *dst, json_t *v, struct ctx *cx)
{
    struct fake_agent *ag = dst;
    int rc = parse_object(v, agent_fields, ag, cx);

    if (!rc && (!ag->skill || !ag->file || !ag->content.good))
        return bad(cx, "needs \"skill\", \"file\" and a \"content\" "
                       "{\"good\", \"bad\"} pair");
    ag->on = 1;
    return rc;
}

#define U(m) offsetof(struct fake_rule, m)
static const struct field rule_fields[] = {
    {"name", p_str, U(name)},
    {"match", p_match, U(match)},
    {"times", p_long, U(times)},
    {"reply", p_reply, U(reply)},
    {"student", p_student, U(student)},
    {"agent", p_agent, U(agent)},
    {"fail_rate", p_prob, U(fail_rate)},
    {"fail_with", p_faults, U(fail_with)},
    {"barrier", p_long, U(reply.barrier)},
    {"barrier_timeout_ms", p_long, U(barrier_timeout_ms)},
    {NULL, NULL, 0},
};
#undef U

static void rule_defaults(struct fake_rule *r, size_t i)
{
    memset(r, 0, sizeof(*r));
    r->match.stream = -1;
    r->match.tools = -1;
    r->match.tool_error = -1;
    r->match.assistant_turns = -1;
    r->reply.status = 200;
    r->reply.usage = (struct fake_usage){-1, -1, -1, -1, -1};
    r->reply.stream = -1;
    r->reply.chunk_size = 8;
    r->reply.bytes = -1;
    snprintf(r->reply.retry_after, sizeof(r->reply.retry_after), "1");
    r->reply.rule_index = i;
    r->student.marker = "## Skill:";
    r->student.p_with = 1.0;
    r->agent.p_activate = 1.0;
    r->agent.p_reference = 1.0;
    r->agent.p_good = (struct fake_agent_p){0, 1, 1};
    r->barrier_timeout_ms = 10000;
}

static int rule_load(struct fake_rule *r, size_t i, json_t *v, struct ctx *cx)
{
    int rc;

    rule_defaults(r, i);
    rc = parse_object(v, rule_fields, r, cx);
    if (rc)
        return rc;
    if (r->fail_rate > 0 && !r->fail_with.n)
        r->fail_with = (struct fake_faults){{FAKE_FAULT_ERROR_500}, 1};
    if (!r->reply.chunk_size)
        return bad(cx, "reply.chunk_size must be at least 1");
    r->reply.rule = r->name;
    return 0;
}

static int p_rules(void *dst, json_t *v, struct ctx *cx)
{
    struct fake_scenario *sc = dst;
    size_t i, mark = cx->where.len;
    json_t *item;

    if (!json_is_array(v))
        return bad(cx, "expected a list of rules");
    sc->rules = up_xcalloc(json_array_size(v), sizeof(*sc->rules));
    json_array_foreach(v, i, item)
    {
        int rc;

        up_buf_addf(&cx->where, "[%zu]", i);
        rc = rule_load(&sc->rules[i], i, item, cx);
        up_buf_truncate(&cx->where, mark);
        if (rc)
            return rc;
        sc->nrules = i + 1;
    }
    return 0;
}

static int p_models(void *dst, json_t *v, struct ctx *cx)
{
    size_t i;
    json_t *item;

    if (!json_is_array(v))
        return bad(cx, "expected a list of model ids");
    json_array_foreach(v, i, item)
    {
        if (!json_is_string(item))
            return bad(cx, "expected a list of model ids");
    }
    *(json_t **)dst = v;
    return 0;
}

static int p_seed(void *dst, json_t *v, struct ctx *cx)
{
    long seed = 0;
    int rc = p_long(&seed, v, cx);

    *(uint64_t *)dst = (uint64_t)seed;
    return rc;
}

static const struct field top_fields[] = {
    {"rules", p_rules, 0},
    {"models", p_models, offsetof(struct fake_scenario, models)},
    {"seed", p_seed, offsetof(struct fake_scenario, seed)},
    {NULL, NULL, 0},
};

int fake_scenario_load(struct fake_scenario *sc, const char *path,
                       up_error *err)
{
    struct ctx cx = {path, UP_BUF_INIT, err};
    up_buf text = UP_BUF_INIT;
    json_error_t je;
    int rc;

    memset(sc, 0, sizeof(*sc));
    pthread_mutex_init(&sc->lock, NULL);
    rc = up_fs_read(&text, path, FAKE_MAX_SCENARIO, err);
    if (rc)
        goto out;
    sc->root = json_loadb(text.data, text.len, 0, &je);
    if (!sc->root) {
        rc = up_error_set(err, UP_EPARSE, "'%s':%d:%d: %s", path, je.line,
                          je.column, je.text);
        goto out;
    }
    if (json_is_array(sc->root)) {
        up_buf_adds(&cx.where, "rules");
        rc = p_rules(sc, sc->root, &cx);
    } else {
        rc = parse_object(sc->root, top_fields, sc, &cx);
    }
out:
    up_buf_release(&cx.where);
    up_buf_release(&text);
    return rc;
}

void fake_scenario_release(struct fake_scenario *sc)
{
    free(sc->rules);
    free(sc->seen_keys);
    free(sc->seen_counts);
    json_decref(sc->root);
    pthread_mutex_destroy(&sc->lock);
    memset(sc, 0, sizeof(*sc));
}
