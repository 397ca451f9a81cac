/*
 * What every backend shares: the ops table, request assembly, the reply
 * accumulator (streaming and whole-body), think-tag splitting, usage
 * estimation and the JSON check behind structured output.
 *
 * A backend only knows its wire format: how to address, authenticate and
 * shape a request, and how to read one body or one stream event into an
 * up_reply.  Everything that is the same across servers stays here.
 *
 * Some servers and proxies ignore "stream": true and answer with the
 * whole reply as JSON.  The streaming sink therefore looks at the first
 * non-blank byte: an event stream never starts with '{' (it starts with
 * a field name or a ':' comment), so '{' means a JSON body, kept whole
 * and read by the non-stream parser when the body ends.  The content
 * type is not trusted for this; it only appears in error messages.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "providers/providers.h"
#include "upskill/alloc.h"
#include "upskill/http.h"
#include "upskill/preset.h"
#include "util/json.h"
#include "util/utf8.h"

#define RAW_HEAD       200 /* first stream bytes kept for an error message */
#define ERROR_TEXT_MAX 500 /* bytes of an in-band error's message shown */
#define ERROR_CODE_MAX 64  /* bytes of its code word ("rate_limit_exceeded") */

static const struct up_provider_ops *const ops_table[] = {
    &up_anthropic_ops,
    &up_openai_ops,
    &up_responses_ops,
};

const struct up_provider_ops *up_provider_ops_for(int kind)
{
    for (size_t i = 0; i < sizeof(ops_table) / sizeof(*ops_table); i++)
        if (ops_table[i]->kind == kind)
            return ops_table[i];
    return NULL;
}

int up_wire_kind_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof(ops_table) / sizeof(*ops_table); i++)
        if (strcmp(ops_table[i]->name, name) == 0)
            return ops_table[i]->kind;
    return -1;
}

const char *up_wire_name(int kind)
{
    const struct up_provider_ops *ops = up_provider_ops_for(kind);

    return ops ? ops->name : "?";
}

#define MAX_WORDS 32

/* Every provider's key prefixes and quota words, joined once. */
static const char *all_prefixes[MAX_WORDS + 1], *all_quota[MAX_WORDS + 1];
static pthread_once_t words_once = PTHREAD_ONCE_INIT;

static void join(const char **to, const char *const *from, size_t *n)
{
    for (size_t k = 0; from && from[k] && *n < MAX_WORDS; k++)
        to[(*n)++] = from[k];
    to[*n] = NULL;
}

static void collect_words(void)
{
    size_t np = 0, nq = 0;

    for (size_t i = 0; i < sizeof(ops_table) / sizeof(*ops_table); i++) {
        join(all_prefixes, ops_table[i]->key_prefixes, &np);
        join(all_quota, ops_table[i]->quota_words, &nq);
    }
}

const char *const *up_provider_key_prefixes(void)
{
    pthread_once(&words_once, collect_words);
    return all_prefixes;
}

const char *const *up_provider_quota_words(void)
{
    pthread_once(&words_once, collect_words);
    return all_quota;
}

const up_http_limit *up_provider_limits(int kind)
{
    const struct up_provider_ops *ops = up_provider_ops_for(kind);

    return ops ? ops->limits : NULL;
}

int up_endpoint_init_for(up_endpoint *ep, int provider)
{
    const up_preset *p = up_preset_at(provider);

    if (!p) {
        up_endpoint_init(ep, UP_WIRE_OPENAI);
        return UP_EUSAGE;
    }
    up_endpoint_init(ep, p->wire);
    ep->compat = p->compat;
    ep->key_header = p->key_header;
    ep->query = p->query;
    ep->deployment = p->deployment;
    return 0;
}

void up_endpoint_init(up_endpoint *ep, int kind)
{
    memset(ep, 0, sizeof(*ep));
    ep->kind = kind;
    ep->max_retries = -1;
}

void up_request_init(up_request *rq)
{
    memset(rq, 0, sizeof(*rq));
    rq->json_repairs = -1;
    rq->temperature = -1;
}

void up_response_init(up_response *r)
{
    memset(r, 0, sizeof(*r));
}

/* Wire stop reasons -> enum up_stop. */
static const struct {
    const char *reason;
    int stop;
} stops[] = {
    {"end_turn", UP_STOP_END},       {"stop", UP_STOP_END},
    {"stop_sequence", UP_STOP_END},  {"tool_use", UP_STOP_TOOL},
    {"tool_calls", UP_STOP_TOOL},    {"max_tokens", UP_STOP_LENGTH},
    {"length", UP_STOP_LENGTH},      {"completed", UP_STOP_END},
    {"function_call", UP_STOP_TOOL}, {"max_output_tokens", UP_STOP_LENGTH},
};

int up_stop_kind(const char *reason)
{
    for (size_t i = 0; reason && i < sizeof(stops) / sizeof(*stops); i++)
        if (strcmp(stops[i].reason, reason) == 0)
            return stops[i].stop;
    return UP_STOP_OTHER;
}

const char *up_role_name(int role)
{
    static const char *const names[] = {"user", "assistant", "tool"};

    return role >= 0 && role <= UP_ROLE_TOOL ? names[role] : "user";
}

/*
 * Parsed tool schemas, by their text: every turn of every agent-mode
 * conversation offers the same few tools, and parsing their schemas anew
 * each time was a tenth of agent mode's CPU.  The trees are shared
 * (jansson's reference counts are atomic) and never changed.
 */
#define SCHEMA_CACHE 16
static struct {
    char *text;
    json_t *v;
} schemas[SCHEMA_CACHE];
static pthread_mutex_t schemas_mu = PTHREAD_MUTEX_INITIALIZER;

/* The cached tree of text (a new reference), or NULL. */
static json_t *schema_cached(const char *text)
{
    json_t *v = NULL;

    pthread_mutex_lock(&schemas_mu);
    for (size_t i = 0; !v && i < SCHEMA_CACHE && schemas[i].text; i++)
        if (strcmp(schemas[i].text, text) == 0)
            v = json_incref(schemas[i].v);
    pthread_mutex_unlock(&schemas_mu);
    return v;
}

/* Keep v as text's tree while there is room. */
static void schema_keep(const char *text, json_t *v)
{
    pthread_mutex_lock(&schemas_mu);
    for (size_t i = 0; i < SCHEMA_CACHE; i++) {
        if (schemas[i].text && strcmp(schemas[i].text, text) == 0)
            break;
        if (!schemas[i].text) {
            schemas[i].text = up_xstrdup(text);
            schemas[i].v = json_incref(v);
            break;
        }
    }
    pthread_mutex_unlock(&schemas_mu);
}

json_t *up_tool_params(const up_tool_spec *t)
{
    json_t *p = t->parameters ? schema_cached(t->parameters) : NULL;

    if (p)
        return p;
    p = t->parameters ? json_loads(t->parameters, 0, NULL) : NULL;
    if (json_is_object(p)) {
        schema_keep(t->parameters, p);
        return p;
    }
    json_decref(p);
    return json_pack("{s:s}", "type", "object");
}

void up_tool_calls_free(up_tool_call *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].id);
        free(c[i].name);
        free(c[i].args);
    }
    free(c);
}

void up_response_release(up_response *r)
{
    up_tool_calls_free(r->calls, r->ncalls);
    free(r->carry);
    free(r->text);
    free(r->reasoning);
    free(r->stop_reason);
    free(r->raw_body);
    up_response_init(r);
}

void up_hdrs_add(up_hdrs *h, const char *name, const char *value)
{
    up_buf line = UP_BUF_INIT;

    up_buf_addf(&line, "%s: %s", name, value);
    UP_GROW(h->v, h->cap, h->n + 2);
    h->v[h->n++] = up_buf_detach(&line);
    h->v[h->n] = NULL;
}

void up_hdrs_release(up_hdrs *h)
{
    for (size_t i = 0; i < h->n; i++) {
        memset(h->v[i], 0, strlen(h->v[i]));
        free(h->v[i]);
    }
    free(h->v);
    memset(h, 0, sizeof(*h));
}

int up_provider_max_tokens(const up_endpoint *ep)
{
    return ep->max_tokens > 0 ? ep->max_tokens : UP_DEFAULT_MAX_TOKENS;
}

int up_header_value_ok(const char *s)
{
    for (; s && *s; s++)
        if (iscntrl((unsigned char)*s))
            return 0;
    return 1;
}

int up_endpoint_check(const up_endpoint *ep, up_error *err)
{
    if (!up_header_value_ok(ep->api_key))
        return up_error_set(err, UP_EPARSE,
                            "the API key for '%s' contains a control "
                            "character (a line break?); it was not sent",
                            ep->model ? ep->model : "?");
    for (size_t i = 0; ep->headers && ep->headers[i]; i++)
        if (!up_header_value_ok(ep->headers[i]))
            return up_error_set(err, UP_EPARSE,
                                "header '%.*s' contains a control character "
                                "(a line break?); it was not sent",
                                (int)strcspn(ep->headers[i], ":\r\n"),
                                ep->headers[i]);
    return 0;
}

/*
 * What the process learnt about endpoints ("kind base-url"), kept to its
 * end: those that refused "stream": true (a 400 naming "stream"), those
 * that refused it with tools only (llama.cpp before May 2025), those
 * whose prompt count was already warned about.
 */
typedef struct memo {
    char **v;
    size_t n, cap;
} memo;
static memo no_stream, no_tool_stream, warned_cut;
static pthread_mutex_t memo_mu = PTHREAD_MUTEX_INITIALIZER;

static void endpoint_key(const up_endpoint *ep, up_buf *out)
{
    const struct up_provider_ops *ops = up_provider_ops_for(ep->kind);

    up_buf_addf(out, "%d ", ep->kind);
    up_provider_base(ep, ops ? ops->default_base : "", out);
}

/* 1 when m holds ep; with add, ep is added when it was not there. */
static int memo_check(memo *m, const up_endpoint *ep, int add)
{
    up_buf k = UP_BUF_INIT;
    int has = 0;

    endpoint_key(ep, &k);
    pthread_mutex_lock(&memo_mu);
    for (size_t i = 0; !has && i < m->n; i++)
        has = strcmp(m->v[i], k.data) == 0;
    if (!has && add) {
        UP_GROW(m->v, m->cap, m->n + 1);
        m->v[m->n++] = up_buf_detach(&k);
    }
    pthread_mutex_unlock(&memo_mu);
    up_buf_release(&k);
    return has;
}

int up_provider_streams(const up_endpoint *ep, const up_request *rq)
{
    if (!ep->stream || memo_check(&no_stream, ep, 0))
        return 0;
    return !(rq && rq->ntools && memo_check(&no_tool_stream, ep, 0));
}

/* 1 when the first len bytes of body (up to a NUL) hold word in any
 * case. */
static int mentions(const char *body, size_t len, const char *word)
{
    size_t n = strlen(word);

    len = body ? strnlen(body, len) : 0;
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(body + i, word, n) == 0)
            return 1;
    return 0;
}

/*
 * Refusals no retry changes: llama-server before May 2025 cannot stream
 * with tools (a 500), and without --jinja takes no tools at all.  The
 * first is asked again without streaming (up_provider_stream_refused);
 * either, when it is the final word, gets the one fix appended.
 */
#define TOOLS_STREAM_WORDS "Cannot use tools with stream"
#define REFUSAL_FIX        "start llama-server with --jinja"
static const char *const refusal_words[] = {
    TOOLS_STREAM_WORDS, "tools param requires --jinja flag", NULL};

const char *const *up_provider_refusal_words(void)
{
    return refusal_words;
}

void up_provider_refusal_fix(const char *body, size_t len, up_error *err)
{
    size_t n = strlen(err->msg);

    for (size_t i = 0; refusal_words[i]; i++)
        if (mentions(body, len, refusal_words[i])) {
            snprintf(err->msg + n, sizeof(err->msg) - n, " (%s)", REFUSAL_FIX);
            return;
        }
}

int up_provider_stream_refused(const up_endpoint *ep, const up_request *rq,
                               long status, const char *body, size_t len)
{
    if (!ep->stream)
        return 0;
    if ((status == 400 || status == 422) && mentions(body, len, "stream")) {
        memo_check(&no_stream, ep, 1);
        return 1;
    }
    if (status >= 400 && rq && rq->ntools &&
        mentions(body, len, TOOLS_STREAM_WORDS)) {
        memo_check(&no_tool_stream, ep, 1);
        return 1;
    }
    return 0;
}

void up_reply_model(up_reply *r, json_t *obj)
{
    const char *m = up_json_str(obj, "model");

    if (m && *m)
        snprintf(r->model, sizeof(r->model), "%s", m);
}

const char *up_provider_effort(const up_endpoint *ep)
{
    if (!ep->effort || !*ep->effort || strcmp(ep->effort, "none") == 0)
        return NULL;
    return ep->effort;
}

void up_provider_base(const up_endpoint *ep, const char *def, up_buf *out)
{
    size_t start = out->len;

    up_buf_adds(out, ep->base_url && *ep->base_url ? ep->base_url : def);
    while (out->len > start && out->data[out->len - 1] == '/')
        up_buf_truncate(out, out->len - 1);
}

long up_pjson_long(json_t *obj, const char *key, int *seen)
{
    json_t *v = json_object_get(obj, key);

    if (!json_is_number(v))
        return 0;
    if (seen)
        *seen = 1;
    return (long)json_number_value(v);
}

static int add_dumped(const char *text, size_t n, void *out)
{
    up_buf_add(out, text, n);
    return 0;
}

/* j's compact text appended to out, without a copy in between. */
static void dump_json(json_t *j, up_buf *out)
{
    json_dump_callback(j, add_dumped, out, JSON_COMPACT);
}

/*
 * The offered tools' text, by wire and content: every turn of every
 * agent-mode conversation offers the same few tools, two thirds of its
 * request's bytes, and building and dumping their list anew was a tenth
 * of agent mode's CPU.  The key is each tool's name, description and
 * parameters, NUL-separated.
 */
#define TOOLS_CACHE 8
static struct {
    const struct up_provider_ops *ops;
    up_buf key;
    char *text;
} tool_texts[TOOLS_CACHE];
static pthread_mutex_t tool_texts_mu = PTHREAD_MUTEX_INITIALIZER;

static void tools_key(const up_request *rq, up_buf *key)
{
    for (size_t i = 0; i < rq->ntools; i++) {
        const up_tool_spec *t = &rq->tools[i];
        const char *f[] = {t->name, t->description, t->parameters};

        for (size_t k = 0; k < 3; k++)
            up_buf_add(key, f[k] ? f[k] : "", f[k] ? strlen(f[k]) + 1 : 1);
    }
}

/* Append the cached text of key's tools on ops' wire; 0 when not kept. */
static int tools_cached(const struct up_provider_ops *ops, const up_buf *key,
                        up_buf *out)
{
    int hit = 0;

    pthread_mutex_lock(&tool_texts_mu);
    for (size_t i = 0; !hit && i < TOOLS_CACHE && tool_texts[i].text; i++)
        if (tool_texts[i].ops == ops && tool_texts[i].key.len == key->len &&
            memcmp(tool_texts[i].key.data, key->data, key->len) == 0) {
            up_buf_adds(out, tool_texts[i].text);
            hit = 1;
        }
    pthread_mutex_unlock(&tool_texts_mu);
    return hit;
}

/* Keep text as key's tools on ops' wire while there is room. */
static void tools_keep(const struct up_provider_ops *ops, const up_buf *key,
                       const char *text, size_t len)
{
    pthread_mutex_lock(&tool_texts_mu);
    for (size_t i = 0; i < TOOLS_CACHE; i++)
        if (!tool_texts[i].text) {
            tool_texts[i].ops = ops;
            up_buf_add(&tool_texts[i].key, key->data, key->len);
            tool_texts[i].text = up_xstrndup(text, len);
            break;
        }
    pthread_mutex_unlock(&tool_texts_mu);
}

/* rq's tools on ops' wire, as JSON text appended to out. */
static void add_tools_text(const struct up_provider_ops *ops,
                           const up_request *rq, up_buf *out)
{
    up_buf key = UP_BUF_INIT;
    size_t start = out->len;

    tools_key(rq, &key);
    if (!tools_cached(ops, &key, out)) {
        json_t *a = ops->tools(rq);

        dump_json(a, out);
        json_decref(a);
        tools_keep(ops, &key, out->data + start, out->len - start);
    }
    up_buf_release(&key);
}

/*
 * Body j with rq's tools as "tools", dumped into out: spliced in as
 * cached text before the closing brace, or, when the body already offers
 * a tool (Anthropic's structured output), appended to its list.
 */
static void dump_body(const struct up_provider_ops *ops, json_t *j,
                      const up_request *rq, up_buf *out)
{
    json_t *own = json_object_get(j, "tools");

    if (rq->ntools && own) {
        json_t *a = ops->tools(rq);

        json_array_extend(own, a);
        json_decref(a);
    }
    dump_json(j, out);
    if (!rq->ntools || own)
        return;
    up_buf_truncate(out, out->len - 1); /* the body's '}' */
    up_buf_adds(out, json_object_size(j) ? ",\"tools\":" : "\"tools\":");
    add_tools_text(ops, rq, out);
    up_buf_addc(out, '}');
}

/* Copies of the "Name: value" lines of v (NULL-ended, or NULL) into h. */
static void add_lines(up_hdrs *h, const char *const *v)
{
    for (size_t i = 0; v && v[i]; i++) {
        UP_GROW(h->v, h->cap, h->n + 2);
        h->v[h->n++] = up_xstrdup(v[i]);
        h->v[h->n] = NULL;
    }
}

int up_provider_build(const up_endpoint *ep, const up_request *rq, up_buf *url,
                      up_hdrs *h, up_buf *body, up_error *err)
{
    const struct up_provider_ops *ops = up_provider_ops_for(ep->kind);
    json_t *j = NULL;
    json_error_t je;
    json_t *schema = NULL;

    if (!ops)
        return up_error_set(err, UP_EUSAGE, "unknown provider kind %d",
                            ep->kind);
    if (up_endpoint_check(ep, err))
        return UP_EPARSE;
    if (rq->schema && !(schema = json_loads(rq->schema, 0, &je)))
        return up_error_set(err, UP_EUSAGE, "schema:%d: %s", je.line, je.text);
    json_decref(schema);
    ops->url(ep, url);
    ops->headers(ep, h);
    up_hdrs_add(h, "Content-Type", "application/json");
    add_lines(h, ep->headers);
    j = ops->body(ep, rq);
    dump_body(ops, j, rq, body);
    json_decref(j);
    return 0;
}

/* The real key into h for a relayed request: its own header, or the
 * wire's rule (Anthropic's x-api-key, else as the OpenAI wire does). */
static void raw_auth(const up_endpoint *ep, const up_raw_request *raw,
                     up_hdrs *h)
{
    if (!ep->api_key || !*ep->api_key)
        return;
    if (raw->key_header)
        up_hdrs_add(h, raw->key_header, ep->api_key);
    else if (ep->kind == UP_WIRE_ANTHROPIC)
        up_hdrs_add(h, "x-api-key", ep->api_key);
    else
        up_openai_auth(ep, h);
}

int up_provider_raw_headers(const up_endpoint *ep, const up_raw_request *raw,
                            up_hdrs *h, up_error *err)
{
    if (up_endpoint_check(ep, err))
        return UP_EPARSE;
    add_lines(h, raw->headers);
    add_lines(h, ep->headers);
    raw_auth(ep, raw, h);
    return 0;
}

/* ---- the reply -------------------------------------------------------- */

/*
 * The JSON of len bytes of a reply: bytes that are not UTF-8 (a server
 * may send any) are read as U+FFFD and counted in r->not_utf8 rather
 * than losing the reply (jansson refuses them); they can only sit inside
 * strings, since JSON's own syntax is ASCII.
 */
static json_t *load_text(up_reply *r, const char *data, size_t len,
                         json_error_t *je)
{
    up_buf fixed = UP_BUF_INIT;
    size_t bad = up_utf8_bad(data, len);
    json_t *j;

    if (!bad)
        return json_loadb(data, len, 0, je);
    up_utf8_add(&fixed, data, len);
    j = json_loadb(fixed.data, fixed.len, 0, je);
    up_buf_release(&fixed);
    if (j)
        r->not_utf8 += bad;
    return j;
}

static int on_event(void *ud, const char *event, const char *data, size_t len)
{
    up_reply *r = ud;
    json_t *j;
    int rc;

    if (len >= 6 && strncmp(data, "[DONE]", 6) == 0) {
        r->events++;
        r->ended = 1;
        return 0;
    }
    j = load_text(r, data, len, NULL);
    if (!j && strcmp(event, "error") == 0)
        j = up_json_textn(data, len); /* a bare message */
    if (!j)
        return 0; /* not ours to judge: unknown events may be anything */
    r->events++;
    rc = r->ops->event(r, event, j);
    json_decref(j);
    return rc;
}

int up_reply_error(up_reply *r, json_t *e, int status)
{
    json_t *code = json_object_get(e, "code");
    const char *msg =
        json_is_string(e) ? json_string_value(e) : up_json_str(e, "message");
    json_int_t st = json_is_integer(code) ? json_integer_value(code) : 0;
    const char *word = json_is_string(code) ? json_string_value(code) : "";

    if (st < 400 || st >= 600)
        st = 0;
    if (r->msg && st)
        up_buf_addf(r->msg, "stream error %d: ", (int)st);
    else if (r->msg && *word)
        up_buf_addf(r->msg, "stream error %.*s: ", ERROR_CODE_MAX, word);
    else if (r->msg)
        up_buf_adds(r->msg, "stream error: ");
    if (r->msg)
        up_buf_addf(r->msg, "%.*s", ERROR_TEXT_MAX,
                    msg && *msg ? msg : "unknown");
    return st ? (int)st : status;
}

up_reply_call *up_reply_call_at(up_reply *r, int index)
{
    up_reply_call *c;

    for (size_t i = 0; i < r->ncalls; i++)
        if (r->calls[i].index == index)
            return &r->calls[i];
    UP_GROW(r->calls, r->ccap, r->ncalls + 1);
    c = &r->calls[r->ncalls++];
    c->index = index;
    up_buf_init(&c->id);
    up_buf_init(&c->name);
    up_buf_init(&c->args);
    return c;
}

void up_reply_carry(up_reply *r, json_t *b)
{
    if (!r->carry)
        r->carry = json_array();
    json_array_append_new(r->carry, b);
}

static void drop_calls(up_reply *r)
{
    for (size_t i = 0; i < r->ncalls; i++) {
        up_buf_release(&r->calls[i].id);
        up_buf_release(&r->calls[i].name);
        up_buf_release(&r->calls[i].args);
    }
    r->ncalls = 0;
    json_decref(r->carry);
    r->carry = NULL;
    r->blk = BLK_NONE;
    up_buf_reset(&r->sig);
}

void up_reply_init(up_reply *r, const up_endpoint *ep)
{
    memset(r, 0, sizeof(*r));
    r->ep = ep;
    r->ops = up_provider_ops_for(ep->kind);
    up_buf_init(&r->text);
    up_buf_init(&r->reasoning);
    up_buf_init(&r->tool);
    up_buf_init(&r->stop);
    up_buf_init(&r->raw);
    up_buf_init(&r->sig);
    up_sse_init(&r->sse, on_event, r);
}

void up_reply_release(up_reply *r)
{
    up_buf_release(&r->text);
    up_buf_release(&r->reasoning);
    up_buf_release(&r->tool);
    up_buf_release(&r->stop);
    up_buf_release(&r->raw);
    drop_calls(r);
    free(r->calls);
    up_buf_release(&r->sig);
    up_sse_release(&r->sse);
}

void up_reply_reset(up_reply *r)
{
    up_buf_reset(&r->text);
    up_buf_reset(&r->reasoning);
    up_buf_reset(&r->tool);
    up_buf_reset(&r->stop);
    up_buf_reset(&r->raw);
    drop_calls(r);
    up_sse_reset(&r->sse);
    memset(&r->usage, 0, sizeof(r->usage));
    r->has_usage = r->has_rtokens = r->committed = r->ended = 0;
    r->inband = 0;
    r->shape = REPLY_UNKNOWN;
    r->events = 0;
    r->not_utf8 = 0;
    r->model[0] = '\0';
}

/* The shape the first non-blank byte of p announces, or REPLY_UNKNOWN. */
static int sniff(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)p[i]))
            return p[i] == '{' ? REPLY_JSON : REPLY_SSE;
    return REPLY_UNKNOWN;
}

int up_reply_feed(up_reply *r, const char *p, size_t n, up_buf *msg)
{
    if (r->shape == REPLY_UNKNOWN && (r->shape = sniff(p, n)) == REPLY_SSE)
        up_buf_reset(&r->raw);   /* only blank lines came before */
    if (r->shape != REPLY_SSE) { /* JSON, or nothing but blanks yet */
        up_buf_add(&r->raw, p, n);
        return 0;
    }
    if (r->raw.len < RAW_HEAD)
        up_buf_add(&r->raw, p,
                   n < RAW_HEAD - r->raw.len ? n : RAW_HEAD - r->raw.len);
    r->msg = msg;
    r->inband = up_sse_feed(&r->sse, p, n);
    r->msg = NULL;
    return r->inband;
}

/* Replace every copy of the endpoint's key in b by "[redacted]". */
static void scrub_key(const up_endpoint *ep, up_buf *b)
{
    const char *key = ep->api_key;
    char *hit;

    while (key && *key && (hit = strstr(b->data, key)) != NULL) {
        up_buf tmp = UP_BUF_INIT;

        up_buf_add(&tmp, b->data, (size_t)(hit - b->data));
        up_buf_adds(&tmp, "[redacted]");
        up_buf_adds(&tmp, hit + strlen(key));
        up_buf_release(b);
        *b = tmp;
    }
}

/* 1 when the reply holds an answer: content, calls, a stop reason or the
   server's usage (a stream of nothing but an end marker holds none). */
static int answered(const up_reply *r)
{
    return r->stop.len || r->has_usage || r->text.len || r->reasoning.len ||
           r->tool.len || r->ncalls;
}

/* UP_EHTTP: "<what> (content-type 'x'): <the body's start or message>". */
static int bad_body(up_reply *r, const char *ctype, const char *what,
                    up_error *err)
{
    up_buf said = UP_BUF_INIT;

    up_http_error_message(r->raw.data, r->raw.len, up_provider_key_prefixes(),
                          &said);
    scrub_key(r->ep, &said);
    up_error_set(err, UP_EHTTP, "%s (content-type '%s'): %s", what,
                 ctype && *ctype ? ctype : "none", said.data);
    up_buf_release(&said);
    return UP_EHTTP;
}

int up_reply_end(up_reply *r, const char *ctype, up_error *err)
{
    up_error perr;
    char what[96];

    if (r->shape == REPLY_JSON) {
        if (up_reply_parse(r, r->raw.data, r->raw.len, &perr) == 0)
            return 0;
        return bad_body(r, ctype, perr.msg, err);
    }
    if (r->ended && !answered(r))
        return bad_body(r, ctype,
                        "the stream ended without an answer: no choices, no "
                        "finish reason, no usage",
                        err);
    if (r->ended || r->stop.len)
        return 0;
    if (r->events)
        return up_error_set(err, UP_ENETWORK, "stream ended early");
    snprintf(what, sizeof(what), "%s reply is neither an event stream nor JSON",
             r->ops->name);
    return bad_body(r, ctype, what, err);
}

int up_reply_parse(up_reply *r, const char *body, size_t len, up_error *err)
{
    json_error_t je;
    json_t *j = load_text(r, body, len, &je);
    int rc;

    if (!j) {
        up_json_error_words(&je);
        return up_error_set(err, UP_EPARSE,
                            "%s reply is not JSON: %s (line %d)", r->ops->name,
                            je.text, je.line);
    }
    rc = r->ops->parse(r, j);
    json_decref(j);
    if (rc)
        up_error_set(err, rc, "%s reply has no message content", r->ops->name);
    return rc;
}

/* ---- finishing -------------------------------------------------------- */

static const char *const think_tags[] = {"think", "thinking", "reasoning",
                                         "thought"};

/* Length of "<tag>" at s for a known tag, and its name in *tag. */
static size_t open_tag(const char *s, const char **tag)
{
    for (size_t i = 0; i < sizeof(think_tags) / sizeof(*think_tags); i++) {
        size_t n = strlen(think_tags[i]);

        if (s[0] == '<' && strncmp(s + 1, think_tags[i], n) == 0 &&
            s[n + 1] == '>') {
            *tag = think_tags[i];
            return n + 2;
        }
    }
    return 0;
}

/*
 * Move <think>...</think> (and kin) at the start of text into reasoning.
 * A reply that starts inside the block (the template opened it) has only
 * "</think>"; an unclosed block is all reasoning.
 */
static void split_think(up_buf *text, up_buf *reasoning)
{
    const char *s = text->data + strspn(text->data, " \t\r\n");
    const char *tag = "think";
    size_t on = open_tag(s, &tag);
    char close[16];
    const char *end;
    up_buf rest = UP_BUF_INIT;

    snprintf(close, sizeof(close), "</%s>", tag);
    end = strstr(s + on, close);
    if (!on && !end)
        return;
    if (reasoning->len)
        up_buf_addc(reasoning, '\n');
    up_buf_add(reasoning, s + on,
               end ? (size_t)(end - s) - on : strlen(s + on));
    if (end)
        up_buf_adds(&rest, end + strlen(close) +
                               strspn(end + strlen(close), " \t\r\n"));
    up_buf_release(text);
    *text = rest;
}

long up_usage_estimate(size_t chars)
{
    return (long)((chars + 3) / 4);
}

static size_t request_chars(const up_request *rq)
{
    size_t n = rq->system ? strlen(rq->system) : 0;

    for (size_t i = 0; i < rq->n_messages; i++)
        n += strlen(rq->messages[i].content);
    for (size_t i = 0; i < rq->nmsgs; i++) {
        n += rq->msgs[i].text ? strlen(rq->msgs[i].text) : 0;
        for (size_t k = 0; k < rq->msgs[i].ncalls; k++)
            n += rq->msgs[i].calls[k].args ? strlen(rq->msgs[i].calls[k].args)
                                           : 0;
    }
    for (size_t i = 0; i < rq->ntools; i++)
        n += rq->tools[i].parameters ? strlen(rq->tools[i].parameters) : 0;
    return n;
}

/*
 * A prompt count far below the estimate: llama.cpp's default context
 * shift cuts an over-long prompt from the front, where the system prompt
 * and so the skill are, and says nothing.  Prompts of under CUT_MIN
 * estimated tokens are not judged; chars/4 is rough, but not by a factor
 * of CUT_RATIO for any text (tokens run from about 2 to 5 characters).
 */
#define CUT_MIN   1000
#define CUT_RATIO 3

int up_reply_prompt_cut(const up_reply *r, const up_request *rq, up_buf *msg)
{
    long est = up_usage_estimate(request_chars(rq));
    up_buf base = UP_BUF_INIT, url = UP_BUF_INIT;

    if (!r->has_usage || r->usage.input <= 0 || est <= CUT_MIN ||
        r->usage.input * CUT_RATIO >= est || memo_check(&warned_cut, r->ep, 1))
        return 0;
    up_provider_base(r->ep, r->ops->default_base, &base);
    up_http_redact_url(base.data, &url);
    up_buf_addf(msg,
                "'%s' at %s counted %ld prompt tokens for a request of about "
                "%ld: the server may have cut the prompt (llama.cpp's context "
                "shift drops its start, where the skill is); raise its "
                "context (llama-server -c)",
                r->ep->model ? r->ep->model : "?", url.data, r->usage.input,
                est);
    up_buf_release(&base);
    up_buf_release(&url);
    return 1;
}

/* Something of a reply arrived (a rejected request has nothing). */
static int received(const up_reply *r)
{
    return r->has_usage || r->events || r->ended || r->text.len ||
           r->reasoning.len || r->tool.len || r->ncalls;
}

/* Characters of what the model wrote: text, reasoning and tool calls. */
static size_t output_chars(const up_reply *r)
{
    size_t n = r->text.len + r->tool.len + r->reasoning.len;

    for (size_t i = 0; i < r->ncalls; i++)
        n += r->calls[i].name.len + r->calls[i].args.len;
    return n;
}

/*
 * Missing counts become chars/4 estimates, flagged; a request that got
 * no reply at all (a 4xx/5xx, a refused connection) used no tokens as far
 * as anyone can tell, so it adds none.
 */
static void fill_usage(up_reply *r, const up_request *rq)
{
    if (!received(r))
        return;
    if (!r->has_usage) {
        r->usage.input = up_usage_estimate(request_chars(rq));
        r->usage.output = up_usage_estimate(output_chars(r));
        r->usage.estimated = 1;
    }
    if (!r->has_rtokens && r->reasoning.len) {
        r->usage.reasoning = up_usage_estimate(r->reasoning.len);
        r->usage.estimated = 1;
    }
}

void up_usage_add(up_usage *to, const up_usage *u)
{
    to->input += u->input;
    to->output += u->output;
    to->cached += u->cached;
    to->cache_write += u->cache_write;
    to->reasoning += u->reasoning;
    to->estimated |= u->estimated;
}

/* 1 when a stop reason says the output cap was reached. */
static int cap_reason(const char *s)
{
    return up_stop_kind(s) == UP_STOP_LENGTH;
}

int up_response_cut_at(const up_response *r, const up_endpoint *ep)
{
    if (!r->truncated && !cap_reason(r->stop_reason))
        return 0;
    return r->max_tokens ? r->max_tokens : up_provider_max_tokens(ep);
}

/* The calls received, into out (a call without arguments gets "{}"). */
static void take_calls(up_reply *r, up_response *out)
{
    up_tool_calls_free(out->calls, out->ncalls);
    out->calls = NULL;
    out->ncalls = 0;
    if (!r->ncalls)
        return;
    out->calls = up_xcalloc(r->ncalls, sizeof(*out->calls));
    for (size_t i = 0; i < r->ncalls; i++) {
        up_tool_call *c = &out->calls[out->ncalls++];

        c->id = up_buf_detach(&r->calls[i].id);
        c->name = up_buf_detach(&r->calls[i].name);
        c->args = r->calls[i].args.len ? up_buf_detach(&r->calls[i].args)
                                       : up_xstrdup("{}");
    }
}

/* Tool-conversation parts of the reply: calls, carried blocks. */
static void finish_tools(up_reply *r, up_response *out)
{
    char *carry = r->carry && json_array_size(r->carry)
                      ? json_dumps(r->carry, JSON_COMPACT)
                      : NULL;

    take_calls(r, out);
    free(out->carry);
    out->carry = carry;
}

void up_reply_finish(up_reply *r, const up_request *rq, up_response *out)
{
    int tools = rq->ntools > 0;

    split_think(&r->text, &r->reasoning);
    fill_usage(r, rq);
    up_usage_add(&out->usage, &r->usage);
    if (tools)
        finish_tools(r, out);
    free(out->text);
    free(out->reasoning);
    free(out->stop_reason);
    out->text = up_buf_detach(r->tool.len && !tools ? &r->tool : &r->text);
    out->reasoning = up_buf_detach(&r->reasoning);
    out->stop_reason = up_buf_detach(&r->stop);
    out->not_utf8 += r->not_utf8;
    r->not_utf8 = 0;
    if (r->model[0])
        memcpy(out->model, r->model, sizeof(out->model));
    out->max_tokens = up_provider_max_tokens(r->ep);
    out->stop = up_stop_kind(out->stop_reason);
    if (cap_reason(out->stop_reason))
        out->truncated = 1; /* sticky over turns: a repair may follow */
}

/* Cut [from, to] out of s as a new string if it parses as JSON. */
static char *try_slice(const char *from, const char *to)
{
    json_t *j;

    if (!from || !to || to < from)
        return NULL;
    j = json_loadb(from, (size_t)(to - from) + 1, 0, NULL);
    if (!j)
        return NULL;
    json_decref(j);
    return up_xstrndup(from, (size_t)(to - from) + 1);
}

int up_provider_check_json(char **text, up_buf *why)
{
    json_error_t je;
    json_t *j = json_loads(*text, JSON_DECODE_ANY, &je);
    char *cut;

    if (j) {
        json_decref(j);
        return 0;
    }
    cut = try_slice(strchr(*text, '{'), strrchr(*text, '}'));
    if (!cut)
        cut = try_slice(strchr(*text, '['), strrchr(*text, ']'));
    if (cut) {
        free(*text);
        *text = cut;
        return 0;
    }
    up_json_error_words(&je);
    up_buf_addf(why, "line %d column %d: %s", je.line, je.column, je.text);
    return UP_EPARSE;
}

int up_provider_body_usage(int wire, const char *body, size_t len,
                           const char *ctype, up_body_usage *w)
{
    up_endpoint ep;
    up_reply r;
    up_buf msg = UP_BUF_INIT;

    memset(w, 0, sizeof(*w));
    if (!up_provider_ops_for(wire))
        return -1;
    memset(&ep, 0, sizeof(ep));
    ep.kind = wire;
    up_reply_init(&r, &ep);
    /* the blank line ends a last event the server left unterminated */
    if (up_reply_feed(&r, body, len, &msg) == 0)
        up_reply_feed(&r, "\n\n", 2, &msg);
    up_reply_end(&r, ctype, NULL);
    w->u = r.usage;
    w->has_usage = r.has_usage;
    w->has_rtokens = r.has_rtokens;
    w->thought = r.reasoning.len;
    w->out = output_chars(&r);
    up_reply_release(&r);
    up_buf_release(&msg);
    return 0;
}
