/*
 * Session logs, one JSON object per line (Claude Code, Codex, or chat
 * messages), and whole JSON documents holding a list of such objects.
 *
 * Each object is classified by its shape: a Claude Code entry has "type"
 * "user"/"assistant" and a "message" object (or a sessionId); a Codex
 * entry is an envelope ("response_item" with a "payload", "event_msg",
 * "session_meta", ...) or a bare response item; a chat message has a
 * "role".  One dispatch serves JSONL lines and array elements and counts
 * votes per format; the format with most votes names the trace.
 *
 * A text is JSONL when, among its first DETECT_LINES non-blank lines, the
 * JSON objects of a known shape are at least as many as the lines that do
 * not parse.  Then every line is read; a line that does not parse, or is
 * not an object, becomes a warning with its number and is skipped.
 * Codex's event_msg entries repeat the response items in another form, so
 * they are ignored.
 */
#include <string.h>

#include "trace_int.h"
#include "util/json.h"

#define DETECT_LINES 200

enum shape { S_NONE, S_CLAUDE, S_CODEX, S_MESSAGE, S_COUNT };

/* Codex envelope types whose content is not (or repeats) a response
 * item. */
static const char *const codex_envelopes[] = {
    "session_meta", "event_msg", "turn_context", "compacted", "state",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

static enum shape classify(const json_t *o)
{
    const char *type = up_json_str(o, "type");
    int user = type && (!strcmp(type, "user") || !strcmp(type, "assistant"));

    if (user && json_object_get(o, "message"))
        return S_CLAUDE;
    if ((type && !strcmp(type, "response_item")) ||
        in_list(type, codex_envelopes,
                sizeof(codex_envelopes) / sizeof(*codex_envelopes)) ||
        trace_json_is_codex_item(type) || json_object_get(o, "record_type") ||
        (json_object_get(o, "instructions") && json_object_get(o, "id")))
        return S_CODEX;
    if (json_is_string(json_object_get(o, "role")))
        return S_MESSAGE;
    if (user || json_object_get(o, "sessionId") ||
        json_object_get(o, "leafUuid"))
        return S_CLAUDE;
    return S_NONE;
}

/* A warning for an object at line (0: inside a whole document). */
static void skip(up_trace *t, long line, const char *why)
{
    if (line > 0)
        trace_warn(t, "'%s':%ld: skipped: %s", t->name, line, why);
}

static void claude_line(up_trace *t, const json_t *o, long line)
{
    const char *type = up_json_str(o, "type");
    const json_t *msg = json_object_get(o, "message");

    if (!type || (strcmp(type, "user") && strcmp(type, "assistant")) ||
        json_is_true(json_object_get(o, "isMeta")))
        return;
    if (!json_is_object(msg))
        skip(t, line, "\"message\" is not an object");
    else
        trace_json_message(t, msg, type, line);
}

static void codex_line(up_trace *t, const json_t *o, long line)
{
    const char *type = up_json_str(o, "type");
    const json_t *payload = json_object_get(o, "payload");

    if (type && !strcmp(type, "response_item")) {
        if (json_is_object(payload))
            trace_json_codex_item(t, payload, line);
        else
            skip(t, line, "\"payload\" is not an object");
    } else {
        trace_json_codex_item(t, o, line);
    }
}

/* Read one object by its shape; votes[format] counts it. */
static void dispatch(up_trace *t, const json_t *o, long line, size_t *votes)
{
    switch (classify(o)) {
    case S_CLAUDE:
        claude_line(t, o, line);
        votes[UP_TRACE_CLAUDE_CODE]++;
        break;
    case S_CODEX:
        codex_line(t, o, line);
        votes[UP_TRACE_CODEX]++;
        break;
    case S_MESSAGE:
        trace_json_message(t, o, NULL, line);
        votes[trace_json_vendor(o)]++;
        break;
    default:
        break;
    }
}

/* The format with most votes; plain messages count as OpenAI's.  Returns
 * 0 (UP_TRACE_TEXT) when nothing was recognised. */
static enum up_trace_format pick(const size_t *votes)
{
    static const enum up_trace_format order[] = {
        UP_TRACE_CLAUDE_CODE, UP_TRACE_CODEX, UP_TRACE_ANTHROPIC,
        UP_TRACE_OPENAI};
    enum up_trace_format best = UP_TRACE_TEXT;

    for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
        if (votes[order[i]] > (best ? votes[best] : 0))
            best = order[i];
    if (best == UP_TRACE_TEXT && votes[UP_TRACE_TEXT])
        best = UP_TRACE_OPENAI;
    return best;
}

static int read_items(up_trace *t, const json_t *arr)
{
    size_t votes[UP_TRACE_FORMAT_COUNT] = {0}, i;
    const json_t *e;

    json_array_foreach(arr, i, e) if (json_is_object(e))
        dispatch(t, e, 0, votes);
    t->format = pick(votes);
    return t->format != UP_TRACE_TEXT;
}

/* Put a request body's system prompt before the messages. */
static void add_first(up_trace *t, const char *system)
{
    size_t n = t->nevents;
    up_trace_event e;

    trace_add(t, UP_TEV_TEXT, "System", NULL, system, strlen(system), 0);
    if (t->nevents == n)
        return;
    e = t->events[n];
    memmove(t->events + 1, t->events, n * sizeof(*t->events));
    t->events[0] = e;
}

int trace_json_doc(up_trace *t, const json_t *doc)
{
    const json_t *msgs = json_object_get(doc, "messages");
    const char *system = up_json_str(doc, "system");

    if (json_is_array(doc))
        return read_items(t, doc);
    if (!json_is_array(msgs) || !read_items(t, msgs))
        return 0;
    if (system)
        add_first(t, system);
    /* a request body names its model; fast-agent's history does not */
    if (!json_object_get(doc, "model"))
        t->format = UP_TRACE_FAST_AGENT;
    return 1;
}

/* ---- lines ------------------------------------------------------------ */

struct lines {
    const char *text;
    size_t len, pos;
    long no; /* number of the line last returned */
};

/* The next non-blank line, without its line end; 0 at the end. */
static int next_line(struct lines *l, const char **s, size_t *n)
{
    while (l->pos < l->len) {
        const char *p = l->text + l->pos;
        const char *nl = memchr(p, '\n', l->len - l->pos);
        size_t k = nl ? (size_t)(nl - p) : l->len - l->pos, b = 0;

        l->pos += k + 1;
        l->no++;
        while (k && (p[k - 1] == '\r' || p[k - 1] == ' ' || p[k - 1] == '\t'))
            k--;
        while (b < k && (p[b] == ' ' || p[b] == '\t'))
            b++;
        if (b < k) {
            *s = p + b;
            *n = k - b;
            return 1;
        }
    }
    return 0;
}

/* 1 when the first lines are mostly JSON objects of a known shape. */
static int is_jsonl(const char *text, size_t len)
{
    struct lines l = {text, len, 0, 0};
    size_t known = 0, bad = 0, seen = 0, n;
    const char *s;

    while (seen++ < DETECT_LINES && next_line(&l, &s, &n)) {
        json_t *o = s[0] == '{' ? json_loadb(s, n, JSON_ALLOW_NUL, NULL) : NULL;

        if (!json_is_object(o))
            bad++;
        else if (classify(o) != S_NONE)
            known++;
        json_decref(o);
    }
    return known && known >= bad;
}

int trace_jsonl(up_trace *t, const char *text, size_t len)
{
    struct lines l = {text, len, 0, 0};
    size_t votes[UP_TRACE_FORMAT_COUNT] = {0}, n;
    size_t w0 = t->nwarnings, s0 = t->nskipped, stored, skipped;
    const char *s;
    json_error_t jerr;

    if (!is_jsonl(text, len))
        return 0;
    while (next_line(&l, &s, &n)) {
        json_t *o = json_loadb(s, n, JSON_ALLOW_NUL, &jerr);

        if (!o)
            up_json_error_words(&jerr);
        if (!o)
            trace_warn(t, "'%s':%ld: skipped: invalid JSON: %s", t->name, l.no,
                       jerr.text);
        else if (!json_is_object(o))
            skip(t, l.no, "not a JSON object");
        else
            dispatch(t, o, l.no, votes);
        json_decref(o);
    }
    t->format = pick(votes);
    stored = t->nwarnings - w0;
    skipped = t->nskipped - s0;
    if (skipped > stored)
        trace_note(t, "'%s': %zu more malformed lines skipped", t->name,
                   skipped - stored);
    return 1;
}
