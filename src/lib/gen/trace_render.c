/*
 * Rendering a trace for the teacher, within a token budget.
 *
 * Tokens are estimated as bytes / 4: close enough for English and code
 * with the common tokenizers, and it needs no tokenizer.  The budget is
 * then a byte limit, limit = budget * 4.
 *
 * Each event becomes a piece: a header ("## User", "### Tool call Bash")
 * and its text, already cut to its kind's size (a table: tool output keeps
 * 15 first and 10 last lines, reasoning 600 bytes, ...).  Pieces carry a
 * protection level:
 *   KEEP_ALWAYS  the first user request and the end of the trace (the
 *                last pieces up to a third of the limit, and the last
 *                assistant message): never dropped;
 *   KEEP_ERROR   tool errors, the call that failed, and the assistant
 *                message and tool call that follow each (the correction):
 *                dropped only when shrinking everything was not enough;
 *   KEEP_NONE    the rest.
 * To fit, (1) unprotected pieces are dropped, least useful kind first and,
 * within a kind, nearest the middle of the trace first; (2) every kept
 * piece is cut to a falling size cap; (3) error pieces are dropped in the
 * same order; (4) as a last resort the text itself is cut in the middle.
 * A run of dropped pieces shows as one "[... N events omitted ...]" line,
 * counted in the total at its largest size so the estimate never falls
 * short.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"
#include "upskill/alloc.h"

#define MARKER_MAX      64   /* bytes of the longest omission marker */
#define MIN_CAP         240  /* smallest size cap of a piece's text */
#define FIRST_CAP       4000 /* first size cap of phase 2 */
#define CORRECTION_SPAN 8    /* events after an error searched for the fix */

enum keep { KEEP_NONE, KEEP_ERROR, KEEP_ALWAYS };

/* How each kind is shown and cut; weight orders dropping (low first). */
static const struct kind_rule {
    const char *header; /* NULL: no header (TEXT without a name) */
    const char *hashes;
    size_t head, tail; /* lines kept at each end */
    size_t max;        /* bytes kept at most */
    int weight;
} rules[UP_TEV_KIND_COUNT] = {
    [UP_TEV_USER] = {"User", "##", 60, 40, 8000, 5},
    [UP_TEV_ASSISTANT] = {"Assistant", "##", 60, 40, 6000, 4},
    [UP_TEV_THINKING] = {"Thinking", "###", 6, 4, 600, 0},
    [UP_TEV_TOOL_CALL] = {"Tool call", "###", 40, 20, 4000, 2},
    [UP_TEV_TOOL_RESULT] = {"Tool result", "###", 15, 10, 2000, 1},
    [UP_TEV_TOOL_ERROR] = {"Tool error", "###", 30, 20, 4000, 6},
    [UP_TEV_TEXT] = {NULL, "##", 60, 40, 8000, 3},
};

struct piece {
    up_buf text;
    enum keep keep;
    int dropped;
    int shrunk;
};

struct fit {
    const up_trace *t;
    struct piece *p;
    size_t n;
    size_t limit; /* bytes */
    size_t total; /* bytes of kept pieces plus markers, an upper bound */
};

/* ---- cutting ---------------------------------------------------------- */

/* Keep the first head and last tail lines of s; 1 when something went. */
static int cut_lines(up_buf *out, const char *s, size_t len, size_t head,
                     size_t tail)
{
    size_t lines = 1, h = 0, t = len, seen = 0;

    for (size_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    if (lines <= head + tail + 1) {
        up_buf_add(out, s, len);
        return 0;
    }
    for (; h < len && seen < head; h++)
        seen += s[h] == '\n';
    for (seen = 0; tail && t > 0; t--)
        if (s[t - 1] == '\n' && ++seen == tail)
            break;
    up_buf_add(out, s, h);
    up_buf_addf(out, "[... %zu lines omitted ...]\n", lines - head - tail);
    up_buf_add(out, s + t, len - t);
    return 1;
}

/* Keep at most max bytes of s: two thirds from the start, the rest from
 * the end, cut on UTF-8 boundaries; 1 when something went. */
static int cut_bytes(up_buf *out, const char *s, size_t len, size_t max)
{
    size_t keep = max > MARKER_MAX ? max - MARKER_MAX : max;
    size_t hk = max > MARKER_MAX ? keep * 2 / 3 : max, ts;

    if (len <= max) {
        up_buf_add(out, s, len);
        return 0;
    }
    ts = max > MARKER_MAX ? len - (keep - hk) : len;
    while (hk > 0 && ((unsigned char)s[hk] & 0xc0) == 0x80)
        hk--;
    while (ts < len && ((unsigned char)s[ts] & 0xc0) == 0x80)
        ts++;
    up_buf_add(out, s, hk);
    if (ts < len)
        up_buf_addf(out, "\n[... %zu bytes omitted ...]\n", ts - hk);
    up_buf_add(out, s + ts, len - ts);
    return 1;
}

/* Append at most 80 bytes of a name, on a UTF-8 boundary; control
 * characters become spaces. */
static void add_name(up_buf *b, const char *s)
{
    size_t n = strlen(s);

    if (n > 80)
        for (n = 80; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80;)
            n--;
    for (size_t i = 0; i < n; i++)
        up_buf_addc(b, (unsigned char)s[i] < 0x20 ? ' ' : s[i]);
}

/* "### Tool call NAME\n\n", "## User\n\n", "## System\n\n" or nothing. */
static void add_header(up_buf *b, const up_trace_event *e)
{
    const struct kind_rule *r = &rules[e->kind];
    const char *label = r->header ? r->header : e->name;

    if (!label)
        return;
    up_buf_addf(b, "%s ", r->hashes);
    add_name(b, label);
    if (r->header && e->name) {
        up_buf_addc(b, ' ');
        add_name(b, e->name);
    }
    up_buf_adds(b, "\n\n");
}

/* Render event e into p, its text cut to the kind's size or cap. */
static void render_piece(struct piece *p, const up_trace_event *e, size_t cap)
{
    const struct kind_rule *r = &rules[e->kind];
    size_t max = cap < r->max ? cap : r->max;
    size_t head = r->head * max / r->max, tail = r->tail * max / r->max;
    up_buf lines = UP_BUF_INIT;

    up_buf_reset(&p->text);
    add_header(&p->text, e);
    p->shrunk = cut_lines(&lines, e->text, strlen(e->text), head ? head : 2,
                          tail ? tail : 1);
    p->shrunk |= cut_bytes(&p->text, lines.data, lines.len, max);
    up_buf_adds(&p->text, "\n\n");
    up_buf_release(&lines);
}

/* ---- protection ------------------------------------------------------- */

static void protect(struct fit *f, size_t i, enum keep k)
{
    if (f->p[i].keep < k)
        f->p[i].keep = k;
}

/* The call that failed with error i: the one with its id, else the
 * nearest call before it. */
static void protect_failed_call(struct fit *f, size_t i)
{
    const up_trace_event *ev = f->t->events;

    for (size_t j = i; j-- > 0 && j + CORRECTION_SPAN >= i;) {
        if (ev[j].kind != UP_TEV_TOOL_CALL)
            continue;
        if (!ev[i].id || !ev[j].id || !strcmp(ev[i].id, ev[j].id)) {
            protect(f, j, KEEP_ERROR);
            return;
        }
    }
}

/* Each error, the call that failed, and the first assistant message and
 * tool call after it. */
static void protect_errors(struct fit *f)
{
    const up_trace_event *ev = f->t->events;

    for (size_t i = 0; i < f->n; i++) {
        int said = 0, did = 0;

        if (ev[i].kind != UP_TEV_TOOL_ERROR)
            continue;
        protect(f, i, KEEP_ERROR);
        protect_failed_call(f, i);
        for (size_t j = i + 1; j < f->n && j <= i + CORRECTION_SPAN; j++) {
            if (ev[j].kind == UP_TEV_USER)
                break;
            if (ev[j].kind == UP_TEV_ASSISTANT && !said++)
                protect(f, j, KEEP_ERROR);
            if (ev[j].kind == UP_TEV_TOOL_CALL && !did++)
                protect(f, j, KEEP_ERROR);
        }
    }
}

/* The first user request, the last assistant message, and the last
 * pieces up to a third of the limit (at least one). */
static void protect_ends(struct fit *f)
{
    const up_trace_event *ev = f->t->events;
    size_t first = 0, tail = 0, i;

    while (first < f->n && ev[first].kind != UP_TEV_USER)
        first++;
    protect(f, first < f->n ? first : 0, KEEP_ALWAYS);
    for (i = f->n; i-- > 0;)
        if (ev[i].kind == UP_TEV_ASSISTANT) {
            protect(f, i, KEEP_ALWAYS);
            break;
        }
    for (i = f->n; i-- > 0;) {
        tail += f->p[i].text.len;
        if (tail > f->limit / 3 && i + 1 < f->n)
            break;
        protect(f, i, KEEP_ALWAYS);
    }
}

/* ---- fitting ---------------------------------------------------------- */

/* Drop piece i, keeping f->total an upper bound: a new run of dropped
 * pieces adds a marker, joining two runs removes one. */
static void drop(struct fit *f, size_t i)
{
    int before = i > 0 && f->p[i - 1].dropped;
    int after = i + 1 < f->n && f->p[i + 1].dropped;

    f->p[i].dropped = 1;
    f->total -= f->p[i].text.len;
    if (!before && !after)
        f->total += MARKER_MAX;
    else if (before && after)
        f->total -= MARKER_MAX;
}

struct cand {
    size_t key;
    size_t i;
};

static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key ? 1 : x->i < y->i ? -1 : 1;
}

/* Drop pieces with protection level k until the total fits: low weight
 * first, then nearest the middle. */
static void drop_level(struct fit *f, enum keep k)
{
    struct cand *c = up_xcalloc(f->n ? f->n : 1, sizeof(*c));
    size_t nc = 0;

    for (size_t i = 0; i < f->n; i++) {
        size_t mid = 2 * i > f->n ? 2 * i - f->n : f->n - 2 * i;

        if (f->p[i].keep == k && !f->p[i].dropped)
            c[nc++] = (struct cand){
                rules[f->t->events[i].kind].weight * (2 * f->n + 1) + mid, i};
    }
    qsort(c, nc, sizeof(*c), cand_cmp);
    for (size_t j = 0; j < nc && f->total > f->limit; j++)
        drop(f, c[j].i);
    free(c);
}

/* Cut every kept piece to falling caps until the total fits. */
static void shrink_kept(struct fit *f)
{
    for (size_t cap = FIRST_CAP; cap >= MIN_CAP && f->total > f->limit;
         cap /= 2)
        for (size_t i = 0; i < f->n; i++) {
            struct piece *p = &f->p[i];

            if (p->dropped || p->text.len <= cap + 100)
                continue;
            f->total -= p->text.len;
            render_piece(p, &f->t->events[i], cap);
            f->total += p->text.len;
        }
}

/* Join the kept pieces, one marker per run of dropped ones. */
static void join(const struct fit *f, up_buf *b)
{
    for (size_t i = 0, run = 0; i < f->n; i++) {
        if (f->p[i].dropped) {
            run++;
            if (i + 1 < f->n && f->p[i + 1].dropped)
                continue;
            up_buf_addf(b, "[... %zu event%s omitted ...]\n\n", run,
                        run == 1 ? "" : "s");
            run = 0;
            continue;
        }
        up_buf_add(b, f->p[i].text.data, f->p[i].text.len);
    }
    up_buf_rtrim(b);
    if (b->len)
        up_buf_addc(b, '\n');
}

static void fill_stats(const struct fit *f, size_t before, size_t after,
                       size_t budget, up_trace_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->events_total = f->n;
    for (size_t i = 0; i < f->n; i++) {
        st->events_dropped += f->p[i].dropped;
        st->events_shrunk += !f->p[i].dropped && f->p[i].shrunk;
    }
    st->events_kept = f->n - st->events_dropped;
    st->chars_before = before;
    st->chars_after = after;
    st->tokens_before = (before + 3) / 4;
    st->tokens_after = (after + 3) / 4;
    st->budget_tokens = budget;
}

/* Bytes of the render with nothing cut or dropped. */
static size_t full_size(const up_trace *t)
{
    size_t n = 0;
    up_buf h = UP_BUF_INIT;

    for (size_t i = 0; i < t->nevents; i++) {
        up_buf_reset(&h);
        add_header(&h, &t->events[i]);
        n += h.len + strlen(t->events[i].text) + 2;
    }
    up_buf_release(&h);
    return n;
}

void up_trace_render(const up_trace *t, size_t budget_tokens, up_buf *out,
                     up_trace_stats *st)
{
    struct fit f = {t, NULL, t->nevents, 0, 0};
    up_buf b = UP_BUF_INIT;
    size_t budget = budget_tokens ? budget_tokens : UP_TRACE_DEFAULT_BUDGET;

    f.limit = budget > (size_t)-1 / 4 ? (size_t)-1 : budget * 4;
    f.p = up_xcalloc(f.n ? f.n : 1, sizeof(*f.p));
    for (size_t i = 0; i < f.n; i++) {
        up_buf_init(&f.p[i].text);
        render_piece(&f.p[i], &t->events[i], (size_t)-1);
        f.total += f.p[i].text.len;
    }
    protect_ends(&f);
    protect_errors(&f);
    drop_level(&f, KEEP_NONE);
    shrink_kept(&f);
    drop_level(&f, KEEP_ERROR);
    join(&f, &b);
    if (b.len > f.limit) {
        up_buf cut = UP_BUF_INIT;

        cut_bytes(&cut, b.data, b.len, f.limit);
        up_buf_release(&b);
        b = cut;
    }
    if (st)
        fill_stats(&f, full_size(t), b.len, budget, st);
    up_buf_add(out, b.data, b.len);
    up_buf_release(&b);
    for (size_t i = 0; i < f.n; i++)
        up_buf_release(&f.p[i].text);
    free(f.p);
}
