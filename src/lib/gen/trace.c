/*
 * Agent traces: the event list, format detection, and plain text traces.
 *
 * Detection looks at the content.  Text that starts with '[' or '{' and
 * parses as one JSON document is offered to trace_json_doc (messages
 * arrays, fast-agent history); otherwise text whose first lines are JSON
 * objects is offered to trace_jsonl (Claude Code, Codex, messages per
 * line).  What neither recognises is read as Markdown or text; when it
 * looked like JSON (first character, .json/.jsonl name, NUL bytes) a
 * warning says the format was unknown.
 *
 * Every event's text is made valid UTF-8 on the way in, so the rendered
 * trace can always go into a JSON request body.
 *
 * Text traces are split at role markers ("## User", "Assistant:",
 * fast-agent's "---USER"); text outside any role is cut into chunks at
 * headings and, past TEXT_CHUNK bytes, at blank lines, so the budget can
 * drop pieces from the middle.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "util/utf8.h"

#define TEXT_CHUNK    2000 /* bytes after which a blank line ends a chunk */
#define CALL_LOOKBACK 512  /* events searched for a tool call's name */

static const char *const format_names[UP_TRACE_FORMAT_COUNT] = {
    [UP_TRACE_TEXT] = "text",
    [UP_TRACE_CLAUDE_CODE] = "claude-code",
    [UP_TRACE_CODEX] = "codex",
    [UP_TRACE_OPENAI] = "openai",
    [UP_TRACE_ANTHROPIC] = "anthropic",
    [UP_TRACE_FAST_AGENT] = "fast-agent",
    [UP_TRACE_UNKNOWN_TEXT] = "unknown",
};

static const char *const kind_names[UP_TEV_KIND_COUNT] = {
    [UP_TEV_USER] = "user",
    [UP_TEV_ASSISTANT] = "assistant",
    [UP_TEV_THINKING] = "thinking",
    [UP_TEV_TOOL_CALL] = "tool_call",
    [UP_TEV_TOOL_RESULT] = "tool_result",
    [UP_TEV_TOOL_ERROR] = "tool_error",
    [UP_TEV_TEXT] = "text",
};

const char *up_trace_format_name(enum up_trace_format f)
{
    return f < UP_TRACE_FORMAT_COUNT ? format_names[f] : "unknown";
}

const char *up_trace_kind_name(enum up_trace_kind k)
{
    return k < UP_TEV_KIND_COUNT ? kind_names[k] : "text";
}

void up_trace_init(up_trace *t)
{
    memset(t, 0, sizeof(*t));
    t->format = UP_TRACE_TEXT;
}

void up_trace_release(up_trace *t)
{
    for (size_t i = 0; i < t->nevents; i++) {
        free(t->events[i].name);
        free(t->events[i].id);
        free(t->events[i].text);
    }
    for (size_t i = 0; i < t->nwarnings; i++)
        free(t->warnings[i]);
    free(t->events);
    free(t->warnings);
    free(t->name);
    up_trace_init(t);
}

/* ---- events ---------------------------------------------------------- */

/* A heap copy of s in valid UTF-8. */
static char *clean_copy(const char *s)
{
    up_buf b = UP_BUF_INIT;

    up_utf8_add(&b, s, strlen(s));
    return up_buf_detach(&b);
}

void trace_add(up_trace *t, enum up_trace_kind kind, const char *name,
               const char *id, const char *text, size_t len, long line)
{
    up_buf b = UP_BUF_INIT;
    up_trace_event *e;
    size_t skip = 0;

    /* drop leading blank lines, keep the first line's indent */
    for (size_t i = 0; i < len && isspace((unsigned char)text[i]); i++)
        if (text[i] == '\n')
            skip = i + 1;
    text += skip;
    len -= skip;
    up_utf8_add(&b, text, len);
    up_buf_rtrim(&b);
    if (!b.len && kind != UP_TEV_TOOL_CALL) {
        up_buf_release(&b);
        return;
    }
    UP_GROW(t->events, t->events_cap, t->nevents + 1);
    e = &t->events[t->nevents++];
    e->kind = kind;
    e->name = name && *name ? clean_copy(name) : NULL;
    e->id = id && *id ? up_xstrdup(id) : NULL;
    e->text = up_buf_detach(&b);
    e->line = line;
}

/* Store the message in b (released) as a warning, in valid UTF-8. */
static void keep_warning(up_trace *t, up_buf *b)
{
    up_buf clean = UP_BUF_INIT;

    up_utf8_add(&clean, b->data, b->len);
    up_buf_release(b);
    UP_GROW(t->warnings, t->warnings_cap, t->nwarnings + 1);
    t->warnings[t->nwarnings++] = up_buf_detach(&clean);
}

void trace_warn(up_trace *t, const char *fmt, ...)
{
    up_buf b = UP_BUF_INIT;
    va_list ap;

    t->nskipped++;
    if (t->nwarnings >= UP_TRACE_MAX_WARNINGS)
        return;
    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    keep_warning(t, &b);
}

void trace_note(up_trace *t, const char *fmt, ...)
{
    up_buf b = UP_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    keep_warning(t, &b);
}

const char *trace_call_name(const up_trace *t, const char *id)
{
    size_t stop = t->nevents > CALL_LOOKBACK ? t->nevents - CALL_LOOKBACK : 0;

    if (!id || !*id)
        return NULL;
    for (size_t i = t->nevents; i-- > stop;) {
        const up_trace_event *e = &t->events[i];

        if (e->kind == UP_TEV_TOOL_CALL && e->id && !strcmp(e->id, id))
            return e->name;
    }
    return NULL;
}

/* Openings of tool output that report a failure; exit codes are checked
 * for a nonzero number after the prefix. */
static const struct {
    const char *prefix;
    int code; /* 1: a number follows; nonzero means failure */
} error_openings[] = {
    {"Error", 0},     {"error:", 0},
    {"ERROR", 0},     {"Traceback (most recent call last)", 0},
    {"fatal:", 0},    {"Exit code", 1},
    {"exit code", 1}, {"Process exited with code", 1},
};

int trace_looks_error(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    for (size_t i = 0; i < sizeof(error_openings) / sizeof(*error_openings);
         i++) {
        size_t n = strlen(error_openings[i].prefix);

        if (n > len || memcmp(s, error_openings[i].prefix, n))
            continue;
        if (!error_openings[i].code)
            return 1;
        while (n < len && (s[n] == ':' || s[n] == ' '))
            n++;
        return n < len && isdigit((unsigned char)s[n]) && s[n] != '0';
    }
    return 0;
}

/* ---- text traces ------------------------------------------------------ */

/* Role markers of text traces: "## User", "User:", "---USER", and our own
 * rendering's headers, so a rendered trace reads back the same. */
static const struct marker {
    const char *word;
    enum up_trace_kind kind;
    const char *label; /* TEXT events' name */
    int colon;         /* may open a line as "Word: text" */
    int named;         /* a tool name may follow the word */
} markers[] = {
    {"user", UP_TEV_USER, NULL, 1, 0},
    {"human", UP_TEV_USER, NULL, 1, 0},
    {"assistant", UP_TEV_ASSISTANT, NULL, 1, 0},
    {"ai", UP_TEV_ASSISTANT, NULL, 1, 0},
    {"thinking", UP_TEV_THINKING, NULL, 0, 0},
    {"reasoning", UP_TEV_THINKING, NULL, 0, 0},
    {"tool call", UP_TEV_TOOL_CALL, NULL, 0, 1},
    {"tool use", UP_TEV_TOOL_CALL, NULL, 0, 1},
    {"tool result", UP_TEV_TOOL_RESULT, NULL, 0, 1},
    {"tool output", UP_TEV_TOOL_RESULT, NULL, 0, 1},
    {"tool error", UP_TEV_TOOL_ERROR, NULL, 0, 1},
    {"system", UP_TEV_TEXT, "System", 0, 0},
};

struct text_state {
    up_trace *t;
    enum up_trace_kind kind;
    char *name;  /* owned */
    int in_role; /* a marker was seen: sections are not chunked */
    int marked;  /* start is the marker line: keep it */
    up_buf cur;  /* the event being collected */
    long start;  /* its first line */
};

/* Match a marker word at s (n bytes, no newline); *rest gets the offset of
 * what follows it on the line. */
static const struct marker *match_word(const char *s, size_t n, int colon,
                                       size_t *rest)
{
    for (size_t i = 0; i < sizeof(markers) / sizeof(*markers); i++) {
        const struct marker *m = &markers[i];
        size_t w = strlen(m->word);

        if (w > n || strncasecmp(s, m->word, w) || (colon && !m->colon))
            continue;
        if (colon && (w == n || s[w] != ':'))
            continue;
        if (!colon && w < n && s[w] != ':' && !(m->named && s[w] == ' '))
            continue;
        *rest = w + (w < n && (s[w] == ':' || s[w] == ' '));
        return m;
    }
    return NULL;
}

/* A marker line: "#... Word[ NAME]", "---WORD" or "Word: text"; s has
 * no trailing white space.  *heading tells whether s is a heading. */
static const struct marker *match_marker(const char *s, size_t n, size_t *rest,
                                         int *heading)
{
    size_t h = 0;

    while (h < n && h < 6 && s[h] == '#')
        h++;
    *heading = h > 0 && h < n && s[h] == ' ';
    if (*heading) {
        const struct marker *m = match_word(s + h + 1, n - h - 1, 0, rest);

        *rest += h + 1;
        return m;
    }
    if (n > 3 && !memcmp(s, "---", 3) && isupper((unsigned char)s[3])) {
        const struct marker *m = match_word(s + 3, n - 3, 0, rest);

        *rest = n;
        return m && m->kind <= UP_TEV_ASSISTANT ? m : NULL;
    }
    return match_word(s, n, 1, rest);
}

static void text_flush(struct text_state *st)
{
    trace_add(st->t, st->kind, st->name, NULL, st->cur.data, st->cur.len,
              st->start);
    up_buf_reset(&st->cur);
}

/* Start a section for marker m; name is the rest of a heading (tools). */
static void text_section(struct text_state *st, const struct marker *m,
                         const char *rest, size_t n)
{
    text_flush(st);
    free(st->name);
    st->name = m->named && n ? up_xstrndup(rest, n)
               : m->label    ? up_xstrdup(m->label)
                             : NULL;
    st->kind = m->kind;
    st->in_role = 1;
}

static void text_line(struct text_state *st, const char *s, size_t n, long line)
{
    size_t rest = 0, blank = 1;
    int heading;
    const struct marker *m;

    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    m = match_marker(s, n, &rest, &heading);
    for (size_t i = 0; i < n; i++)
        blank = blank && isspace((unsigned char)s[i]);
    if (m) {
        while (rest < n && s[rest] == ' ')
            rest++;
        text_section(st, m, s + rest, heading || m->named ? n - rest : 0);
        st->start = line;
        st->marked = 1;
        if (heading || rest >= n)
            return;
        s += rest;
        n -= rest;
    } else if (!st->in_role && st->cur.len &&
               (heading || (blank && st->cur.len >= TEXT_CHUNK))) {
        text_flush(st);
    }
    if (!st->cur.len && !st->marked)
        st->start = line;
    st->marked = 0;
    up_buf_add(&st->cur, s, n);
    up_buf_addc(&st->cur, '\n');
}

static void trace_text(up_trace *t, const char *text, size_t len)
{
    struct text_state st = {t, UP_TEV_TEXT, NULL, 0, 0, UP_BUF_INIT, 1};
    size_t pos = 0;
    long line = 1;

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;

        text_line(&st, text + pos, end - pos, line++);
        pos = end + 1;
    }
    text_flush(&st);
    free(st.name);
    up_buf_release(&st.cur);
}

/* ---- detection -------------------------------------------------------- */

static int json_name(const char *name)
{
    static const char *const exts[] = {".json", ".jsonl", ".ndjson"};
    size_t n = strlen(name);

    for (size_t i = 0; i < sizeof(exts) / sizeof(*exts); i++) {
        size_t e = strlen(exts[i]);

        if (n > e && !strcasecmp(name + n - e, exts[i]))
            return 1;
    }
    return 0;
}

/* Read as text; warn when it looked like something else.  jerr is the
 * whole-document JSON error, or NULL. */
static void read_as_text(up_trace *t, const char *text, size_t len,
                         int looked_json, const json_error_t *jerr)
{
    char where[64];

    if (looked_json || json_name(t->name) || memchr(text, '\0', len)) {
        t->format = UP_TRACE_UNKNOWN_TEXT;
        where[0] = '\0';
        if (jerr && jerr->line > 0)
            snprintf(where, sizeof(where), " (not JSON at line %d)",
                     jerr->line);
        trace_note(t, "'%s': unknown trace format, read as text%s", t->name,
                   where);
    }
    trace_text(t, text, len);
}

int up_trace_parse(up_trace *t, const char *text, size_t len, const char *name,
                   up_error *err)
{
    json_t *doc = NULL;
    json_error_t jerr;
    size_t i = 0;
    int looked_json;

    up_trace_init(t);
    t->name = up_xstrdup(name ? name : "trace");
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        len -= 3;
    }
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (i == len)
        return up_error_set(err, UP_EPARSE, "'%s': trace is empty", t->name);
    memset(&jerr, 0, sizeof(jerr));
    looked_json = text[i] == '{' || text[i] == '[';
    if (looked_json)
        doc = json_loadb(text, len, JSON_ALLOW_NUL, &jerr);
    if (!(doc && trace_json_doc(t, doc)) && !trace_jsonl(t, text, len))
        read_as_text(t, text, len, looked_json, doc ? NULL : &jerr);
    json_decref(doc);
    if (!t->nevents)
        return up_error_set(err, UP_EPARSE,
                            "'%s': no conversation found in the trace",
                            t->name);
    return 0;
}

int up_trace_load(up_trace *t, const char *path, up_error *err)
{
    up_buf b = UP_BUF_INIT;
    int rc;

    up_trace_init(t);
    rc = up_fs_read(&b, path, UP_TRACE_MAX_READ, err);
    if (!rc)
        rc = up_trace_parse(t, b.data, b.len, path, err);
    up_buf_release(&b);
    return rc;
}
