/*
 * The skill model: SKILL.md parsing and the up_skill lifecycle.
 *
 * SKILL.md is "---" line, YAML frontmatter, "---" line, Markdown body.
 * The text is checked first (UTF-8, no BOM, no NUL), then split into lines
 * to find the two delimiters (whole lines: "---" plus optional blanks and
 * CR), then the frontmatter goes through the YAML tree (util/yaml.h) with
 * file line numbers.  Strictness issues in the YAML are left to the
 * validator; this parser fails only when it cannot build the model:
 * a syntax error, a top level that is not a mapping, or a known field of
 * the wrong shape.  Known fields are filled from a table; any other key
 * with a scalar value goes to extra in file order (a later duplicate
 * replaces the earlier value).  Other keys with list or mapping values are
 * skipped: up_skill has no place for them, so a load/save round trip
 * drops them.  An empty frontmatter counts as an empty mapping.
 *
 * The body has the CRs before each LF dropped (so CRLF files give LF
 * bodies) and is trimmed like upstream's strip().
 * Rendering quotes a value only when a YAML reader would not give back
 * the same string (indicators, ": ", " #", typed-looking words, controls,
 * edge spaces), as a one-line double-quoted scalar.  Folders are read and
 * written in skill_io.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/skill/skill_lib.h"
#include "upskill/alloc.h"
#include "upskill/skill.h"
#include "lib/skill/skill_int.h"
#include "skill_legacy.h"
#include "util/yaml.h"

struct split {
    size_t fm_start, fm_end; /* frontmatter bytes [fm_start, fm_end) */
    size_t body_start;       /* first byte after the closing line */
    int close_line;          /* 1-based line of the closing "---" */
};

void up_skill_init(up_skill *s)
{
    memset(s, 0, sizeof(*s));
}

static void free_kvs(up_kv *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].value);
    }
    free(v);
}

static void clear_front(up_skill *s)
{
    free(s->name);
    free(s->description);
    free(s->license);
    free(s->compatibility);
    free(s->allowed_tools);
    free_kvs(s->metadata, s->nmetadata);
    free_kvs(s->extra, s->nextra);
    free(s->body);
    s->name = s->description = s->license = s->compatibility = NULL;
    s->allowed_tools = s->body = NULL;
    s->metadata = s->extra = NULL;
    s->nmetadata = s->nextra = 0;
    s->body_line = 0;
}

void up_skill_release(up_skill *s)
{
    up_skill_meta *m = &s->meta;

    clear_front(s);
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].path);
        free(s->files[i].data);
    }
    free(s->files);
    free(m->version);
    free(m->generated_by);
    free(m->generated_at);
    free(m->source_task);
    free(m->license);
    free(m->compatibility);
    free(s->tests_json);
    up_strv_free(s->warnings);
    free(s->files_dir);
    up_skill_init(s);
}

void skill_warn(up_skill *s, up_buf *msg)
{
    UP_GROW(s->warnings, s->warnings_cap, s->nwarnings + 2);
    s->warnings[s->nwarnings++] = up_buf_detach(msg);
    s->warnings[s->nwarnings] = NULL; /* for up_strv_free */
}

/* Length of the valid UTF-8 sequence at p (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
    static const struct {
        unsigned char lo, hi, n, lo2, hi2;
    } forms[] = {
        {0xC2, 0xDF, 2, 0x80, 0xBF}, {0xE0, 0xE0, 3, 0xA0, 0xBF},
        {0xE1, 0xEC, 3, 0x80, 0xBF}, {0xED, 0xED, 3, 0x80, 0x9F},
        {0xEE, 0xEF, 3, 0x80, 0xBF}, {0xF0, 0xF0, 4, 0x90, 0xBF},
        {0xF1, 0xF3, 4, 0x80, 0xBF}, {0xF4, 0xF4, 4, 0x80, 0x8F},
    };

    if (p[0] < 0x80)
        return 1;
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        if (p[0] < forms[i].lo || p[0] > forms[i].hi)
            continue;
        if (left < forms[i].n || p[1] < forms[i].lo2 || p[1] > forms[i].hi2)
            return 0;
        for (size_t k = 2; k < forms[i].n; k++)
            if ((p[k] & 0xC0) != 0x80)
                return 0;
        return forms[i].n;
    }
    return 0;
}

static int line_at(const char *text, size_t off)
{
    int line = 1;

    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

static int check_text(const char *text, size_t len, const char *file,
                      up_error *err)
{
    const unsigned char *p = (const unsigned char *)text;

    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        return up_error_set(err, UP_EPARSE,
                            "'%s':1: file starts with a byte order mark", file);
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(p + i, len - i);

        if (!n || !p[i])
            return up_error_set(err, UP_EPARSE, "'%s':%d: %s", file,
                                line_at(text, i),
                                n ? "nul byte in text" : "invalid utf-8");
        i += n;
    }
    return 0;
}

/* 1 when the line [p, p+n) (without its LF) is a "---" delimiter. */
static int is_delim(const char *p, size_t n)
{
    size_t i = 3;

    if (n < 3 || memcmp(p, "---", 3))
        return 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i < n && p[i] == '\r')
        i++;
    return i == n;
}

/* Length of the line at off, without its LF; *next is after the LF. */
static size_t line_len(const char *text, size_t len, size_t off, size_t *next)
{
    const char *nl = memchr(text + off, '\n', len - off);
    size_t n = nl ? (size_t)(nl - text) - off : len - off;

    *next = nl ? off + n + 1 : len;
    return n;
}

static int split_text(struct split *sp, const char *text, size_t len,
                      const char *file, up_error *err)
{
    size_t off, next;
    int line = 2;

    if (!is_delim(text, line_len(text, len, 0, &off)))
        return up_error_set(err, UP_EPARSE,
                            "'%s':1: no frontmatter: the file must start "
                            "with a '---' line",
                            file);
    sp->fm_start = off;
    for (; off < len; off = next, line++) {
        if (is_delim(text + off, line_len(text, len, off, &next))) {
            sp->fm_end = off;
            sp->body_start = next;
            sp->close_line = line;
            return 0;
        }
    }
    return up_error_set(err, UP_EPARSE,
                        "'%s':1: frontmatter is not closed: no '---' line "
                        "after it",
                        file);
}

/* Turn the YAML tree's "line N: what" into "'file':N: what". */
static int yaml_error(up_error *err, const char *file)
{
    char old[UP_ERROR_MAX];
    char *rest;
    long line;

    if (!err)
        return UP_EPARSE;
    memcpy(old, err->msg, sizeof(old));
    if (strncmp(old, "line ", 5))
        return up_error_set(err, err->code, "'%s': %s", file, old);
    line = strtol(old + 5, &rest, 10);
    if (*rest == ':')
        rest++;
    while (*rest == ' ')
        rest++;
    return up_error_set(err, err->code, "'%s':%ld: %s", file, line, rest);
}

enum ftype { F_STR, F_TOOLS, F_META };

static const struct field {
    const char *key;
    enum ftype type;
    size_t off; /* of the char * in up_skill (F_STR, F_TOOLS) */
} fields[] = {
    {"name", F_STR, offsetof(up_skill, name)},
    {"description", F_STR, offsetof(up_skill, description)},
    {"license", F_STR, offsetof(up_skill, license)},
    {"compatibility", F_STR, offsetof(up_skill, compatibility)},
    {"allowed-tools", F_TOOLS, offsetof(up_skill, allowed_tools)},
    {"metadata", F_META, 0},
};

static int wrong_shape(up_error *err, const char *file, const char *key,
                       const up_ynode *v, const char *want)
{
    return up_error_set(err, UP_EPARSE, "'%s':%d: '%s' must be %s, found %s",
                        file, v->line, key, want, up_yaml_kind_name(v));
}

static void add_kv(up_kv **v, size_t *n, size_t *cap, const char *key,
                   const char *value)
{
    UP_GROW(*v, *cap, *n + 1);
    (*v)[*n].key = up_xstrdup(key);
    (*v)[(*n)++].value = up_xstrdup(value);
}

static char *join_tools(const up_ynode *seq)
{
    up_buf b = UP_BUF_INIT;

    for (size_t i = 0; i < seq->n; i++) {
        if (i)
            up_buf_addc(&b, ' ');
        up_buf_adds(&b, seq->items[i]->value);
    }
    return up_buf_detach(&b);
}

static int is_space(char c);
static void add_quoted(up_buf *out, const char *s);

/* The frontmatter text, for reading a line as upstream reads it. */
struct front {
    const char *fm; /* the frontmatter, without its --- lines */
    size_t len;
    int first_line; /* the file line of fm's first line */
    const char *file;
};

/* Upstream's reading of file line `line`: the text after its first ':',
 * stripped; NULL when there is no such line. */
static char *line_reading(const struct front *fr, int line)
{
    const char *p = fr->fm, *end = fr->fm + fr->len, *nl, *colon;

    if (!memchr(p, '\n', fr->len)) /* CR-only lines: not counted here */
        return NULL;
    for (int l = fr->first_line; p < end && l < line; l++) {
        nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    nl = memchr(p, '\n', (size_t)(end - p));
    end = nl ? nl : end;
    colon = memchr(p, ':', (size_t)(end - p));
    if (p >= end || !colon)
        return NULL;
    for (p = colon + 1; p < end && is_space(*p); p++)
        ;
    while (end > p && is_space(end[-1]))
        end--;
    return up_xstrndup(p, (size_t)(end - p));
}

/* A text field but the name written as a YAML flow collection on its
 * key's line (description: {a: b}) is text to upstream's line reader:
 * take that text, with a warning.  0 when taken. */
static int flow_as_text(up_skill *s, char **slot, const char *key,
                        const up_ynode *k, const up_ynode *v,
                        const struct front *fr)
{
    up_buf w = UP_BUF_INIT;
    char *text;

    if (!v->flow || v->line != k->line || !strcmp(key, "name"))
        return -1; /* a name "[a]" is refused upstream too */
    text = line_reading(fr, v->line);
    if (!text)
        return -1;
    up_buf_addf(&w,
                "'%s':%d: YAML reads %s as %s; read as upstream upskill "
                "reads it, the text '%s'; quote the value: %s: ",
                fr->file, v->line, key, up_yaml_kind_name(v), text, key);
    add_quoted(&w, text);
    skill_warn(s, &w);
    free(*slot);
    *slot = text;
    return 0;
}

static int set_text(up_skill *s, const struct field *f, const up_ynode *k,
                    const up_ynode *v, const struct front *fr, up_error *err)
{
    char **slot = (char **)(void *)((char *)s + f->off);
    const char *file = fr->file;

    if (f->type == F_STR && v->kind != UP_Y_SCALAR &&
        !flow_as_text(s, slot, f->key, k, v, fr))
        return 0;
    if (f->type == F_STR && v->kind != UP_Y_SCALAR)
        return wrong_shape(err, file, f->key, v, "a string");
    if (v->kind == UP_Y_MAP)
        return wrong_shape(err, file, f->key, v, "a string or a list");
    for (size_t i = 0; v->kind == UP_Y_SEQ && i < v->n; i++)
        if (v->items[i]->kind != UP_Y_SCALAR)
            return wrong_shape(err, file, f->key, v->items[i],
                               "a list of strings");
    free(*slot);
    *slot = v->kind == UP_Y_SCALAR ? up_xstrdup(v->value) : join_tools(v);
    return 0;
}

static int set_meta(up_skill *s, const up_ynode *v, const char *file,
                    up_error *err)
{
    size_t cap = 0;

    if (v->kind != UP_Y_MAP)
        return wrong_shape(err, file, "metadata", v, "a mapping");
    free_kvs(s->metadata, s->nmetadata);
    s->metadata = NULL;
    s->nmetadata = 0;
    for (size_t i = 0; i < v->n; i++) {
        const up_ynode *k = v->keys[i], *val = v->items[i];

        if (k->kind != UP_Y_SCALAR)
            return wrong_shape(err, file, "metadata key", k, "a string");
        if (val->kind != UP_Y_SCALAR)
            return wrong_shape(err, file, k->value, val, "a string");
        add_kv(&s->metadata, &s->nmetadata, &cap, k->value, val->value);
    }
    return 0;
}

static const struct field *find_field(const char *key)
{
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (!strcmp(fields[i].key, key))
            return &fields[i];
    return NULL;
}

static int fill_fields(up_skill *s, const up_ynode *root,
                       const struct front *fr, up_error *err)
{
    const char *file = fr->file;
    size_t xcap = 0;
    int rc = 0;

    if (root && root->kind != UP_Y_MAP)
        return up_error_set(err, UP_EPARSE,
                            "'%s':%d: frontmatter must be a mapping, found %s",
                            file, root->line, up_yaml_kind_name(root));
    for (size_t i = 0; root && !rc && i < root->n; i++) {
        const up_ynode *k = root->keys[i], *v = root->items[i];
        const struct field *f;

        if (k->kind != UP_Y_SCALAR)
            continue;
        f = find_field(k->value);
        if (f && f->type == F_META)
            rc = set_meta(s, v, file, err);
        else if (f)
            rc = set_text(s, f, k, v, fr, err);
        else if (v->kind == UP_Y_SCALAR)
            add_kv(&s->extra, &s->nextra, &xcap, k->value, v->value);
    }
    return rc;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

/* Body: CRs before an LF dropped, trimmed; body_line: its first line. */
static void set_body(up_skill *s, const char *p, size_t n, int line)
{
    up_buf b = UP_BUF_INIT;

    while (n && is_space(*p)) {
        line += *p == '\n';
        p++;
        n--;
    }
    while (n && is_space(p[n - 1]))
        n--;
    for (size_t i = 0; i < n; i++) {
        /* "\r\r\n" too, so that the result holds no CRLF at all */
        while (p[i] == '\n' && b.len && b.data[b.len - 1] == '\r')
            up_buf_truncate(&b, b.len - 1);
        up_buf_addc(&b, p[i]);
    }
    s->body = up_buf_detach(&b);
    s->body_line = line;
}

int up_skill_parse(up_skill *s, const char *text, size_t len, const char *file,
                   up_error *err)
{
    struct split sp = {0, 0, 0, 0};
    up_ydoc doc;
    int rc;

    memset(&doc, 0, sizeof(doc));
    clear_front(s);
    rc = check_text(text, len, file, err);
    if (!rc)
        rc = split_text(&sp, text, len, file, err);
    if (rc)
        goto out;
    rc = up_yaml_parse(&doc, text + sp.fm_start, sp.fm_end - sp.fm_start, 2,
                       err);
    if (rc) {
        rc = yaml_error(err, file);
        goto out;
    }
    if (!rc) {
        struct front fr = {text + sp.fm_start, sp.fm_end - sp.fm_start, 2,
                           file};

        rc = fill_fields(s, doc.root, &fr, err);
    }
    if (!rc)
        set_body(s, text + sp.body_start, len - sp.body_start,
                 sp.close_line + 1);
    if (!rc)
        up_skill_legacy_check(s, doc.root, text + sp.fm_start,
                              sp.fm_end - sp.fm_start, 2, file);
out:
    up_ydoc_release(&doc);
    if (rc)
        clear_front(s);
    return rc;
}

/* ---- rendering ---- */

/* Code point of the valid UTF-8 sequence at p of n bytes. */
static unsigned decode(const unsigned char *p, size_t n)
{
    static const unsigned char lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    unsigned cp = p[0] & lead_mask[n];

    for (size_t i = 1; i < n; i++)
        cp = (cp << 6) | (p[i] & 0x3F);
    return cp;
}

/* Code points YAML cannot hold unescaped (non-printable or line breaks). */
static int must_escape(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF;
}

/* Plain words a YAML 1.1 reader would turn into null or a boolean. */
static const char *const typed_words[] = {
    "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", "=", "<<",
};

static int looks_typed(const char *s)
{
    for (size_t i = 0; i < sizeof(typed_words) / sizeof(typed_words[0]); i++)
        if (!strcasecmp(s, typed_words[i]))
            return 1;
    /* numbers, dates, times, .inf, .nan: be generous */
    if (!strchr("0123456789+.", s[0]))
        return 0;
    return strspn(s, "0123456789abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.+-:") == strlen(s);
}

static int needs_quote(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);

    if (!len || strchr("-?:,[]{}#&*!|>'\"%@` ", s[0]) || s[len - 1] == ' ' ||
        looks_typed(s))
        return 1;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(p + i, len - i);

        if (!n || must_escape(decode(p + i, n)))
            return 1;
        if (p[i] == ':' && (p[i + 1] == ' ' || !p[i + 1]))
            return 1;
        if (p[i] == '#' && p[i - 1] == ' ')
            return 1;
        i += n;
    }
    return 0;
}

static const struct {
    unsigned cp;
    const char *esc;
} short_escapes[] = {
    {'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\t', "\\t"}, {'\r', "\\r"},
};

static void add_escaped(up_buf *out, unsigned cp)
{
    for (size_t i = 0; i < sizeof(short_escapes) / sizeof(short_escapes[0]);
         i++)
        if (short_escapes[i].cp == cp) {
            up_buf_adds(out, short_escapes[i].esc);
            return;
        }
    up_buf_addf(out, "\\u%04X", cp);
}

/* A double-quoted scalar; invalid UTF-8 bytes become U+FFFD. */
static void add_quoted(up_buf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);

    up_buf_addc(out, '"');
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len(p + i, len - i);
        unsigned cp = n ? decode(p + i, n) : 0xFFFD;

        if (!n || must_escape(cp) || cp == '"' || cp == '\\')
            add_escaped(out, cp);
        else
            up_buf_add(out, p + i, n);
        i += n ? n : 1;
    }
    up_buf_addc(out, '"');
}

static void add_scalar(up_buf *out, const char *s)
{
    if (!s)
        s = "";
    if (needs_quote(s))
        add_quoted(out, s);
    else
        up_buf_adds(out, s);
}

/* YAML limits implicit keys to 1024 characters as written, escapes
 * included (a 300-byte key of control characters is 1,800 written):
 * longer ones use "? ". */
static void add_pair(up_buf *out, const char *indent, const char *key,
                     const char *value)
{
    up_buf k = UP_BUF_INIT;

    add_scalar(&k, key);
    up_buf_adds(out, indent);
    if (k.len > 1000) {
        up_buf_adds(out, "? ");
        add_quoted(out, key);
        up_buf_addf(out, "\n%s: ", indent);
    } else {
        up_buf_add(out, k.data, k.len);
        up_buf_adds(out, ": ");
    }
    up_buf_release(&k);
    add_scalar(out, value);
    up_buf_addc(out, '\n');
}

static void add_optional(up_buf *out, const char *key, const char *value)
{
    if (value)
        add_pair(out, "", key, value);
}

void up_skill_render(const up_skill *s, up_buf *out)
{
    up_buf_adds(out, "---\n");
    if (s->name && up_skill_name_plain(s->name))
        up_buf_addf(out, "name: %s\n", s->name);
    else
        add_pair(out, "", "name", s->name);
    add_pair(out, "", "description", s->description);
    add_optional(out, "license", s->license);
    add_optional(out, "compatibility", s->compatibility);
    add_optional(out, "allowed-tools", s->allowed_tools);
    if (s->nmetadata)
        up_buf_adds(out, "metadata:\n");
    for (size_t i = 0; i < s->nmetadata; i++)
        add_pair(out, "  ", s->metadata[i].key, s->metadata[i].value);
    for (size_t i = 0; i < s->nextra; i++)
        add_pair(out, "", s->extra[i].key, s->extra[i].value);
    up_buf_adds(out, "---\n");
    if (s->body && *s->body) {
        up_buf_addc(out, '\n');
        up_buf_adds(out, s->body);
        if (out->data[out->len - 1] != '\n')
            up_buf_addc(out, '\n');
    }
}

size_t up_tokens_estimate(const char *text, size_t len)
{
    size_t words = 0;

    for (size_t i = 0; i < len; i++)
        if (!is_space(text[i]) && (i == 0 || is_space(text[i - 1])))
            words++;
    return (size_t)((double)words * 1.3);
}
