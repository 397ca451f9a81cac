/*
 * Reading a coding-agent CLI's event stream (src/lib/harness/harness_events.h):
 * the driver that splits lines and hands each event to the reader its
 * CLI's row names, and the bookkeeping they share: tool calls per name,
 * errors by call id, and activation of the skill under test (its skill
 * tool called, or files in its folder read by a read or shell tool).
 */
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "util/utf8.h"

#include "harness_int.h"

const char *up_harness_format_name(up_harness_format fmt)
{
    return fmt < UP_HARNESS_FORMAT_COUNT ? up_harness__rows[fmt].format_name
                                         : "unknown";
}

/* The formats' names: "claude-code, codex, ... or plain". */
static void format_names(up_buf *out)
{
    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++)
        up_buf_addf(out, "%s%s",
                    i == 0                            ? ""
                    : i + 1 < UP_HARNESS_FORMAT_COUNT ? ", "
                                                      : " or ",
                    up_harness__rows[i].format_name);
}

int up_harness_format_parse(const char *name, up_harness_format *out,
                            up_error *err)
{
    up_buf names = UP_BUF_INIT;
    int rc;

    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++)
        if (name && !strcmp(name, up_harness__rows[i].format_name)) {
            *out = (up_harness_format)i;
            return 0;
        }
    format_names(&names);
    rc = up_error_set(err, UP_EUSAGE,
                      "unknown CLI output format '%s' (expected %s)",
                      name ? name : "", names.data);
    up_buf_release(&names);
    return rc;
}

void up_harness_result_release(up_harness_result *r)
{
    for (size_t i = 0; i < r->ntools; i++)
        free(r->tools[i].name);
    free(r->tools);
    for (size_t i = 0; i < r->nskill_files; i++)
        free(r->skill_files[i]);
    free(r->skill_files);
    free(r->answer);
    free(r->model);
    free(r->first_skip);
    memset(r, 0, sizeof(*r));
}

/* ---- shared helpers ---- */

const char *up_harness__str(const json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

long up_harness__count(const json_t *j, const char *key)
{
    const json_t *v = json_object_get(j, key);
    double d = json_is_number(v) ? json_number_value(v) : 0;

    return d > 0 && d < 1e15 ? (long)d : 0;
}

void up_harness__set_answer(cli_state *st, const char *text)
{
    if (!text)
        return;
    up_buf_reset(&st->answer);
    up_buf_adds(&st->answer, text);
}

static size_t tool_index(cli_state *st, const char *name)
{
    up_harness_result *r = st->r;
    size_t i;

    for (i = 0; i < r->ntools; i++)
        if (!strcmp(r->tools[i].name, name))
            return i;
    if (r->ntools >= UP_HARNESS_MAX_TOOLS) {
        for (i = 0; i < r->ntools; i++)
            if (!strcmp(r->tools[i].name, "other"))
                return i;
        return r->ntools - 1; /* the cap is full: count under the last */
    }
    r->tools = up_xrealloc(r->tools, (r->ntools + 1) * sizeof(*r->tools));
    r->tools[r->ntools] = (up_harness_tool){up_xstrdup(name), 0, 0};
    return r->ntools++;
}

/* ---- activation ---- */

static int has_file(const up_harness_result *r, const char *rel)
{
    for (size_t i = 0; i < r->nskill_files; i++)
        if (!strcmp(r->skill_files[i], rel))
            return 1;
    return 0;
}

static void add_file(cli_state *st, const char *rel, size_t n)
{
    up_harness_result *r = st->r;
    char *s;

    while (n >= 2 && rel[0] == '.' && rel[1] == '/')
        rel += 2, n -= 2;
    if (!n || n > 512)
        return;
    s = up_xstrndup(rel, n);
    if (strstr(s, "..") || has_file(r, s) ||
        r->nskill_files >= UP_HARNESS_MAX_FILES) {
        free(s);
        return;
    }
    UP_GROW(r->skill_files, st->filecap, r->nskill_files + 1);
    r->skill_files[r->nskill_files++] = s;
    if (!strcmp(s, "SKILL.md"))
        r->skill_loaded = 1;
}

/* Length of the path that starts at p: up to a space, quote or shell
   operator. */
static size_t path_len(const char *p)
{
    return strcspn(p, " \t\r\n\"'`;|&<>(){}$,");
}

/* p points just after "skills/" or "skill/": the skill's folder name,
   then the file inside it.  Returns where to go on searching. */
static const char *skill_path(cli_state *st, const char *p)
{
    size_t name = strcspn(p, "/ \t\r\n\"'`;|&<>");

    if (p[name] != '/' || !name)
        return p;
    if (st->skill && (strlen(st->skill) != name || strncmp(p, st->skill, name)))
        return p + name;
    p += name + 1;
    add_file(st, p, path_len(p));
    return p;
}

void up_harness__scan_text(cli_state *st, const char *text)
{
    static const char *const folders[] = {"skills/", "skill/"};

    for (size_t f = 0; text && f < 2; f++)
        for (const char *p = strstr(text, folders[f]); p;
             p = strstr(p, folders[f]))
            p = skill_path(st, p + strlen(folders[f]));
}

/* Every string in j (depth-limited), checked for skill files. */
static void scan_json(cli_state *st, const json_t *j, int depth)
{
    const char *key;
    const json_t *v;
    size_t i;

    if (depth > 8)
        return;
    if (json_is_string(j))
        up_harness__scan_text(st, json_string_value(j));
    if (json_is_object(j))
        json_object_foreach((json_t *)j, key, v)
        {
            scan_json(st, v, depth + 1);
        }
    if (json_is_array(j))
        json_array_foreach(j, i, v)
        {
            scan_json(st, v, depth + 1);
        }
}

/*
 * The tool names of every row count in every stream, not only the
 * stream's own: an agent may run another's tools (cli.command with
 * UPSKILL_CLI_FORMAT, an MCP server's read_file).
 */
static int is_reader(const char *name)
{
    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++)
        for (const char *const *t = up_harness__rows[i].readers; t && *t; t++)
            if (!strcmp(name, *t))
                return 1;
    return 0;
}

static void check_activation(cli_state *st, const char *name,
                             const json_t *input)
{
    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++) {
        const up_harness_spec *c = &up_harness__rows[i];
        const char *which;

        if (!c->skill_tool || strcmp(name, c->skill_tool))
            continue;
        which = up_harness__str(input, c->skill_arg);
        if (!which)
            continue;
        if (!st->skill || !strcmp(which, st->skill))
            add_file(st, "SKILL.md", 8);
        return;
    }
    if (is_reader(name))
        scan_json(st, input, 0);
}

/* ---- calls ---- */

size_t up_harness__call(cli_state *st, const char *name, const char *id,
                        const json_t *input)
{
    size_t t;

    name = name && *name ? name : "unknown";
    t = tool_index(st, name);
    st->r->tools[t].calls++;
    st->r->tool_calls++;
    check_activation(st, name, input);
    if (id && st->nids < CLI_MAX_IDS) {
        UP_GROW(st->ids, st->idcap, st->nids + 1);
        st->id_tool = up_xrealloc(st->id_tool, st->idcap * sizeof(size_t));
        st->ids[st->nids] = up_xstrdup(id);
        st->id_tool[st->nids++] = t;
    }
    return t;
}

void up_harness__tool_failed(cli_state *st, size_t tool)
{
    if (tool >= st->r->ntools)
        return;
    st->r->tools[tool].errors++;
    st->r->tool_errors++;
}

void up_harness__call_failed(cli_state *st, const char *id)
{
    for (size_t i = 0; id && i < st->nids; i++)
        if (!strcmp(st->ids[i], id)) {
            /* forget the id: a second result for it is not a second
               error */
            up_harness__tool_failed(st, st->id_tool[i]);
            free(st->ids[i]);
            st->nids--;
            st->ids[i] = st->ids[st->nids];
            st->id_tool[i] = st->id_tool[st->nids];
            return;
        }
}

/* ---- the driver ---- */

static void skip(cli_state *st, const char *why, json_error_t *je)
{
    up_harness_result *r = st->r;
    up_buf b = UP_BUF_INIT;

    r->skipped++;
    if (r->first_skip)
        return;
    up_buf_addf(&b, "line %ld: %s", r->lines, why);
    if (je)
        up_buf_addf(&b, " (%s)", je->text);
    r->first_skip = up_buf_detach(&b);
}

static void one_line(cli_state *st, cli_event_fn event, const char *line,
                     size_t n)
{
    json_error_t je;
    json_t *ev;
    up_buf fixed = UP_BUF_INIT;
    size_t bad;

    while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
        n--;
    if (!n)
        return;
    st->r->lines++;
    if (n > UP_HARNESS_MAX_LINE) {
        skip(st, "line too long", NULL);
        return;
    }
    if ((bad = up_utf8_bad(line, n))) { /* read as U+FFFD, not lost */
        up_utf8_add(&fixed, line, n);
        line = fixed.data;
        n = fixed.len;
    }
    ev = json_loadb(line, n, 0, &je);
    up_buf_release(&fixed);
    if (ev)
        st->r->not_utf8 += bad;
    if (!ev)
        skip(st, "not JSON", &je);
    else if (!json_is_object(ev))
        skip(st, "not a JSON object", NULL);
    else if (event(st, ev))
        skip(st, "not an event this format has", NULL);
    json_decref(ev);
}

static void parse_plain(cli_state *st, const char *data, size_t len)
{
    up_buf_add(&st->answer, data, len);
    up_buf_rtrim(&st->answer);
    st->r->complete = 1;
}

static void finish(cli_state *st)
{
    up_harness_result *r = st->r;

    r->answer = up_buf_detach(&st->answer);
    if (!r->answer)
        r->answer = up_xstrdup("");
    if (r->nskill_files)
        qsort(r->skill_files, r->nskill_files, sizeof(char *), up_strptr_cmp);
    for (size_t i = 0; i < st->nids; i++)
        free(st->ids[i]);
    free(st->ids);
    free(st->id_tool);
    up_buf_release(&st->last_msg);
}

/* Each line of data[0..len) to event. */
static void read_lines(cli_state *st, cli_event_fn event, const char *data,
                       size_t len)
{
    const char *p = data, *end = data + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

        one_line(st, event, p, n);
        p += n + 1;
    }
}

int up_harness_parse(up_harness_result *r, up_harness_format fmt,
                     const char *skill, const char *data, size_t len,
                     up_error *err)
{
    const up_harness_spec *c =
        fmt < UP_HARNESS_FORMAT_COUNT ? &up_harness__rows[fmt] : NULL;
    cli_state st = {0};

    memset(r, 0, sizeof(*r));
    r->format = fmt;
    r->turns = -1;
    r->duration_ms = -1;
    st.r = r;
    st.skill = skill && *skill ? skill : NULL;
    up_buf_init(&st.answer);
    up_buf_init(&st.last_msg);
    if (!c || len > UP_HARNESS_MAX_STREAM) {
        finish(&st);
        if (!c)
            return up_error_set(err, UP_EUSAGE, "unknown CLI output format");
        return up_error_set(err, UP_ETOOBIG,
                            "CLI output of %zu bytes is over the %u byte cap",
                            len, UP_HARNESS_MAX_STREAM);
    }
    if (c->event)
        read_lines(&st, c->event, data, len);
    else
        parse_plain(&st, data, len);
    finish(&st);
    if (r->lines && r->skipped == r->lines)
        return up_error_set(err, UP_EPARSE,
                            "%s output has no readable event (%ld lines; "
                            "%s)",
                            c->format_name, r->lines, r->first_skip);
    return 0;
}
