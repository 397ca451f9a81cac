/*
 * What a coding-agent CLI sent to and got from its model, read off the
 * wire (harness_wire.h; docs/agent-clis.md, "Activation and tokens from
 * the wire").
 *
 * Tokens: each 2xx response's usage, read by the providers' own reply
 * reader (up_provider_body_usage, upskill/provider.h) for the Anthropic, OpenAI
 * and Responses wires, so a count means here what it means for upskill's own
 * requests; Gemini's usageMetadata is read here (the last one of a stream
 * wins).  A 2xx response without usage is a chars/4 estimate, flagged; a
 * non-2xx one counts as a request with no tokens.
 *
 * Activation: each file of the skill has a fingerprint, its distinctive
 * lines (trimmed, WIRE_MIN_LINE characters or more, cut to
 * WIRE_MAX_NEEDLE, de-duplicated, the first WIRE_MAX_LINES of them;
 * SKILL.md's body without the lines its description or name hold).  A
 * file reached the model when at least half of them (at least one)
 * occur as substrings of a request's JSON strings, decoded once per
 * request into one buffer and searched with memmem.  Only requests the
 * server answered with 2xx are read: a rejected request reached no
 * model.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/skill.h"

#include "lib/harness/harness_wire.h"
#include "util/json.h"
#include "util/sse.h"

#define WIRE_MAX_BODY   (32u << 20) /* bytes of a body read; the rest skipped */
#define WIRE_MAX_FILES  256         /* files of a skill fingerprinted */
#define WIRE_MAX_LINES  64          /* fingerprint lines per file */
#define WIRE_MIN_LINE   16          /* characters of a distinctive line */
#define WIRE_MAX_NEEDLE 256 /* ... of it sought (tools cut long lines) */
#define WIRE_MAX_NEST   4   /* JSON inside JSON strings, decoded again */
#define WIRE_MAX_TEXT   (2 * WIRE_MAX_BODY) /* decoded text of a request */
#define WIRE_MAX_LOG    4096 /* exchanges listed one by one in the JSON */
#define WIRE_MAX_PATH   512  /* bytes of a request path kept */

/* One file of the skill and its fingerprint. */
typedef struct wire_file {
    char *name;   /* "SKILL.md" or the path in the folder */
    char **lines; /* the distinctive lines, or the whole trimmed text */
    size_t nlines;
    size_t need; /* lines that must occur: half, at least 1 */
    int read;    /* it reached the model in some request */
} wire_file;

/* One exchange as the JSON lists it. */
typedef struct wire_rec {
    char *path;   /* the request path without its query */
    long status;  /* the response's HTTP status */
    up_usage u;   /* its tokens */
    int skill;    /* SKILL.md's body was in this request */
    size_t *refs; /* indexes in files of the references in it */
    size_t nrefs;
} wire_rec;

struct up_harness_obs {
    int wire;         /* enum up_wire_kind or UP_WIRE_GEMINI */
    wire_file *files; /* SKILL.md first (when a skill), then resources */
    size_t nfiles;
    int has_skill;     /* files[0] is SKILL.md */
    const char **read; /* names of the references read, first read first */
    size_t nread;
    wire_rec *recs; /* the first WIRE_MAX_LOG exchanges */
    size_t nrecs, rcap;
    size_t requests; /* every exchange added */
    up_usage total;
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
           c == '\v';
}

/* [*s, *e) without surrounding white space. */
static void trim(const char **s, const char **e)
{
    while (*s < *e && is_space(**s))
        (*s)++;
    while (*e > *s && is_space((*e)[-1]))
        (*e)--;
}

/* 1 when f already has the line [s, s+n). */
static int has_line(const wire_file *f, const char *s, size_t n)
{
    for (size_t i = 0; i < f->nlines; i++)
        if (strlen(f->lines[i]) == n && memcmp(f->lines[i], s, n) == 0)
            return 1;
    return 0;
}

/* A line every CLI's system prompt may show (the name, the description). */
static int excluded(const char *s, size_t n, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (memmem(*skip, strlen(*skip), s, n))
            return 1;
    return 0;
}

/* Fill f's fingerprint from text (see the top of the file). */
static void fingerprint(wire_file *f, const char *text, size_t len,
                        const char *const *skip)
{
    const char *p = text, *end = text + len;

    f->lines = up_xcalloc(WIRE_MAX_LINES, sizeof(*f->lines));
    while (p < end && f->nlines < WIRE_MAX_LINES) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *e = nl ? nl : end;

        p = nl ? nl + 1 : end;
        trim(&s, &e);
        if (e - s > WIRE_MAX_NEEDLE)
            e = s + WIRE_MAX_NEEDLE;
        if ((size_t)(e - s) < WIRE_MIN_LINE || has_line(f, s, e - s) ||
            excluded(s, e - s, skip))
            continue;
        f->lines[f->nlines++] = up_xstrndup(s, e - s);
    }
    if (f->nlines == 0) { /* too short: the whole trimmed text */
        const char *s = text, *e = end;

        trim(&s, &e);
        if (e > s && !excluded(s, e - s, skip))
            f->lines[f->nlines++] = up_xstrndup(s, e - s);
    }
    f->need = f->nlines > 1 ? (f->nlines + 1) / 2 : f->nlines;
}

static wire_file *add_file(up_harness_obs *o, const char *name)
{
    wire_file *f = &o->files[o->nfiles++];

    f->name = up_xstrdup(name);
    return f;
}

/* Fingerprint the skill in dir: SKILL.md's body and its text files. */
static int load_skill(up_harness_obs *o, const char *dir, up_error *err)
{
    up_skill s;
    int rc;

    up_skill_init(&s);
    rc = up_skill_load(&s, dir, err);
    if (rc == 0) {
        const char *skip[] = {s.description, s.name, NULL};

        o->files = up_xcalloc(WIRE_MAX_FILES + 1, sizeof(*o->files));
        fingerprint(add_file(o, "SKILL.md"), s.body, strlen(s.body), skip);
        o->has_skill = 1;
        for (size_t i = 0; i < s.nfiles && o->nfiles <= WIRE_MAX_FILES; i++)
            if (!memchr(s.files[i].data, '\0', s.files[i].len)) /* binary */
                fingerprint(add_file(o, s.files[i].path), s.files[i].data,
                            s.files[i].len, NULL);
    }
    up_skill_release(&s);
    return rc;
}

up_harness_obs *up_harness_obs_new(const char *skill_dir, int wire,
                                   up_error *err)
{
    up_harness_obs *o = up_xcalloc(1, sizeof(*o));

    o->wire = wire;
    if (skill_dir && load_skill(o, skill_dir, err) != 0) {
        up_harness_obs_free(o);
        return NULL;
    }
    o->read = up_xcalloc(o->nfiles + 1, sizeof(*o->read));
    return o;
}

/* ---- what the request said ------------------------------------------- */

/* 1 when the string s may hold JSON (a tool's output, call arguments). */
static int looks_json(const char *s, size_t n)
{
    const char *e = s + n;

    trim(&s, &e);
    return e > s &&
           ((*s == '{' && e[-1] == '}') || (*s == '[' && e[-1] == ']'));
}

/* Append every string value of v to out, one a line, up to about
 * WIRE_MAX_TEXT; strings that hold JSON are decoded too, WIRE_MAX_NEST
 * deep. */
static void collect(const json_t *v, up_buf *out, int nest)
{
    const char *key;
    json_t *x;
    size_t i;

    if (out->len >= WIRE_MAX_TEXT)
        return;
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);

        up_buf_add(out, s, n);
        up_buf_addc(out, '\n');
        if (nest < WIRE_MAX_NEST && looks_json(s, n)) {
            json_t *in = json_loadb(s, n, JSON_ALLOW_NUL, NULL);

            collect(in, out, nest + 1);
            json_decref(in);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x) collect(x, out, nest);
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, x) collect(x, out, nest);
    }
}

/* The text a request showed the model: its JSON strings, or its bytes
 * when it is not JSON. */
static void request_text(const char *req, size_t len, up_buf *out)
{
    json_t *j = json_loadb(req, len, JSON_ALLOW_NUL, NULL);

    if (j)
        collect(j, out, 0);
    else
        up_buf_add(out, req, len);
    json_decref(j);
}

/* 1 when f's fingerprint occurs in [hay, hay+n). */
static int file_in(const wire_file *f, const char *hay, size_t n)
{
    size_t found = 0;

    for (size_t i = 0; i < f->nlines && found < f->need; i++) {
        if (f->nlines - i < f->need - found)
            break; /* too few left */
        found += memmem(hay, n, f->lines[i], strlen(f->lines[i])) != NULL;
    }
    return f->need > 0 && found >= f->need;
}

/* Mark the files in the request text in o and in rec (may be NULL). */
static void scan(up_harness_obs *o, const up_buf *t, wire_rec *rec)
{
    for (size_t i = 0; i < o->nfiles; i++) {
        wire_file *f = &o->files[i];
        int ref = !(o->has_skill && i == 0);

        if (!file_in(f, t->data, t->len))
            continue;
        if (ref && !f->read)
            o->read[o->nread++] = f->name;
        f->read = 1;
        if (rec && !ref)
            rec->skill = 1;
        else if (rec) {
            if (!rec->refs)
                rec->refs = up_xcalloc(o->nfiles, sizeof(*rec->refs));
            rec->refs[rec->nrefs++] = i;
        }
    }
}

/* ---- what the response said ------------------------------------------ */

/* One GenerateContentResponse, or an array of them (a JSON stream):
 * the last usageMetadata wins, as each carries the running total. */
static void gemini_chunk(up_body_usage *w, const json_t *j)
{
    const json_t *um = json_object_get(j, "usageMetadata"), *p, *x;
    size_t i;

    json_array_foreach(j, i, x) gemini_chunk(w, x);
    p = json_object_get(
        json_object_get(json_array_get(json_object_get(j, "candidates"), 0),
                        "content"),
        "parts");
    json_array_foreach(p, i, x)
    {
        size_t n = json_string_length(json_object_get(x, "text"));
        char *call = json_dumps(json_object_get(x, "functionCall"), 0);

        w->out += n + (call ? strlen(call) : 0);
        w->thought += json_is_true(json_object_get(x, "thought")) ? n : 0;
        free(call);
    }
    if (!json_is_object(um))
        return;
    long thoughts = up_json_long(um, "thoughtsTokenCount", 0);

    w->u.input = up_json_long(um, "promptTokenCount", 0) +
                 up_json_long(um, "toolUsePromptTokenCount", 0);
    w->u.output = up_json_long(um, "candidatesTokenCount", 0) + thoughts;
    w->u.reasoning = thoughts;
    w->u.cached = up_json_long(um, "cachedContentTokenCount", 0);
    w->has_usage = json_object_get(um, "promptTokenCount") ||
                   json_object_get(um, "candidatesTokenCount");
    w->has_rtokens = json_object_get(um, "thoughtsTokenCount") != NULL;
}

static int gemini_event(void *ud, const char *event, const char *data,
                        size_t len)
{
    json_t *j = json_loadb(data, len, 0, NULL);

    (void)event;
    gemini_chunk(ud, j);
    json_decref(j);
    return 0;
}

/* Gemini: one JSON response, a JSON array of them, or SSE chunks. */
static void read_gemini(const char *body, size_t len, up_body_usage *w)
{
    const char *s = body, *e = body + len;

    trim(&s, &e);
    if (s < e && (*s == '{' || *s == '[')) {
        json_t *j = json_loadb(s, e - s, 0, NULL);

        gemini_chunk(w, j);
        json_decref(j);
    } else {
        up_sse p;

        up_sse_init(&p, gemini_event, w);
        up_sse_feed(&p, body, len);
        up_sse_feed(&p, "\n\n", 2);
        up_sse_release(&p);
    }
}

/* The tokens of one 2xx exchange; req_chars: what the request showed. */
static void read_usage(const up_harness_obs *o, const char *resp, size_t len,
                       const char *ctype, size_t req_chars, up_usage *u)
{
    up_body_usage w;

    memset(&w, 0, sizeof(w));
    if (o->wire == UP_WIRE_GEMINI)
        read_gemini(resp, len, &w);
    else
        up_provider_body_usage(o->wire, resp, len, ctype, &w);
    *u = w.u;
    if (!w.has_usage) {
        memset(u, 0, sizeof(*u));
        u->input = up_usage_estimate(req_chars);
        u->output = up_usage_estimate(w.out);
        u->estimated = 1;
    }
    if (!w.has_rtokens && w.thought) {
        u->reasoning = up_usage_estimate(w.thought);
        u->estimated = 1;
    }
}

/* ---- one exchange ----------------------------------------------------- */

/* The record of the next exchange, or NULL past WIRE_MAX_LOG. */
static wire_rec *new_rec(up_harness_obs *o, const char *path, long status)
{
    wire_rec *rec;
    size_t n = path ? strcspn(path, "?#") : 0; /* a query may hold a key */

    if (o->nrecs >= WIRE_MAX_LOG)
        return NULL;
    UP_GROW(o->recs, o->rcap, o->nrecs + 1);
    rec = &o->recs[o->nrecs++];
    memset(rec, 0, sizeof(*rec));
    rec->path =
        up_xstrndup(path ? path : "", n < WIRE_MAX_PATH ? n : WIRE_MAX_PATH);
    rec->status = status;
    return rec;
}

/* The bytes of a body read: its first WIRE_MAX_BODY (cut, a JSON body
 * is searched as bytes and its usage most likely estimated). */
static size_t capped(const char *body, size_t len)
{
    return !body ? 0 : len < WIRE_MAX_BODY ? len : WIRE_MAX_BODY;
}

void up_harness_obs_add(up_harness_obs *o, const char *path, const char *req,
                        size_t req_len, long status, const char *ctype,
                        const char *resp, size_t resp_len)
{
    wire_rec *rec = new_rec(o, path, status);
    up_buf text = UP_BUF_INIT;
    up_usage u;

    o->requests++;
    if (status < 200 || status > 299)
        return; /* no model saw it; it used no tokens */
    request_text(req ? req : "", capped(req, req_len), &text);
    scan(o, &text, rec);
    read_usage(o, resp ? resp : "", capped(resp, resp_len), ctype, text.len,
               &u);
    up_usage_add(&o->total, &u);
    if (rec)
        rec->u = u;
    up_buf_release(&text);
}

/* ---- what it adds up to ---------------------------------------------- */

size_t up_harness_obs_requests(const up_harness_obs *o)
{
    return o->requests;
}

void up_harness_obs_usage(const up_harness_obs *o, up_usage *u)
{
    *u = o->total;
}

int up_harness_obs_skill_read(const up_harness_obs *o)
{
    return o->has_skill && o->files[0].read;
}

size_t up_harness_obs_refs(const up_harness_obs *o, const char *const **names)
{
    *names = o->read;
    return o->nread;
}

static json_t *tokens_json(const up_usage *u)
{
    return json_pack("{sI sI sI sI sI sb}", "input", (json_int_t)u->input,
                     "output", (json_int_t)u->output, "reasoning",
                     (json_int_t)u->reasoning, "cached", (json_int_t)u->cached,
                     "cache_write", (json_int_t)u->cache_write, "estimated",
                     u->estimated);
}

static json_t *rec_json(const up_harness_obs *o, const wire_rec *rec)
{
    json_t *refs = json_array();

    for (size_t i = 0; i < rec->nrefs; i++)
        json_array_append_new(refs, json_string(o->files[rec->refs[i]].name));
    /* the path is the CLI's (any bytes) */
    return json_pack("{so sI so sb so}", "path", up_json_text(rec->path),
                     "status", (json_int_t)rec->status, "tokens",
                     tokens_json(&rec->u), "skill_read", rec->skill, "refs",
                     refs);
}

json_t *up_harness_obs_json(const up_harness_obs *o)
{
    json_t *recs = json_array(), *refs = json_array();

    for (size_t i = 0; i < o->nrecs; i++)
        json_array_append_new(recs, rec_json(o, &o->recs[i]));
    for (size_t i = 0; i < o->nread; i++)
        json_array_append_new(refs, json_string(o->read[i]));
    return json_pack("{so s{sI so sb so}}", "requests", recs, "totals",
                     "requests", (json_int_t)o->requests, "tokens",
                     tokens_json(&o->total), "skill_read",
                     up_harness_obs_skill_read(o), "refs", refs);
}

void up_harness_obs_free(up_harness_obs *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->nfiles; i++) {
        for (size_t k = 0; k < o->files[i].nlines; k++)
            free(o->files[i].lines[k]);
        free(o->files[i].lines);
        free(o->files[i].name);
    }
    for (size_t i = 0; i < o->nrecs; i++) {
        free(o->recs[i].path);
        free(o->recs[i].refs);
    }
    free(o->files);
    free(o->read);
    free(o->recs);
    free(o);
}
