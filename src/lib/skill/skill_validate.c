/*
 * The validator's pipeline: find the skills a path names, read each
 * SKILL.md as raw bytes, check the bytes (UTF-8, NUL, BOM), normalise line
 * endings, split the frontmatter by whole "---" lines, parse it with the
 * strict YAML tree, then hand over to the field rules and body checks.
 *
 * Every problem is a finding in the report; nothing here fails.  Checks
 * stop early only when later ones could not mean anything (bytes that are
 * not text, no frontmatter).  Line numbers always refer to the file as the
 * user sees it: the BOM is dropped and CRLF/CR become LF without changing
 * how lines are counted.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/skill/skill_lib.h"
#include "skill_legacy.h"
#include "skill_validate_int.h"
#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/skill.h"

static const char *const no_fm =
    "SKILL.md must start with YAML frontmatter (---)";

void up_validate_init(up_vreport *r, enum up_vprofile profile)
{
    memset(r, 0, sizeof(*r));
    r->profile = profile;
}

void up_validate_release(up_vreport *r)
{
    for (size_t i = 0; i < r->nskills; i++) {
        up_vskill *s = &r->skills[i];

        for (size_t j = 0; j < s->nfindings; j++) {
            free(s->findings[j].file);
            free(s->findings[j].msg);
        }
        free(s->findings);
        free(s->path);
    }
    free(r->skills);
    up_validate_init(r, r->profile);
}

static const char *const profile_names[] = {
    [UP_VP_SPEC] = "spec",
    [UP_VP_CLAUDE_CODE] = "claude-code",
};

int up_validate_profile_parse(enum up_vprofile *out, const char *name,
                              up_error *err)
{
    for (size_t i = 0; i < sizeof(profile_names) / sizeof(*profile_names); i++)
        if (!strcmp(name, profile_names[i])) {
            *out = (enum up_vprofile)i;
            return 0;
        }
    return up_error_set(err, UP_EUSAGE,
                        "unknown profile '%s' (expected spec or claude-code)",
                        name);
}

const char *up_validate_profile_name(enum up_vprofile p)
{
    return profile_names[p];
}

const char *up_validate_sev_name(enum up_vsev sev)
{
    return sev == UP_V_ERROR ? "error" : "warning";
}

void up_vfind(struct vctx *c, const char *file, int line, enum up_vsev sev,
              const char *code, const char *fmt, ...)
{
    up_buf msg = UP_BUF_INIT;
    up_vfinding *f;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&msg, fmt, ap);
    va_end(ap);
    UP_GROW(c->s->findings, c->s->cap, c->s->nfindings + 1);
    f = &c->s->findings[c->s->nfindings++];
    f->file = up_xstrdup(file ? file : c->file);
    f->line = line;
    f->sev = sev;
    f->code = code;
    f->msg = up_buf_detach(&msg);
    if (sev == UP_V_ERROR)
        c->s->nerrors++;
    else
        c->s->nwarnings++;
}

/* ---- skills in the report ---------------------------------------------- */

static void ctx_open(struct vctx *c, up_vreport *r, const char *dir,
                     const char *file)
{
    up_vskill *s;

    UP_GROW(r->skills, r->cap, r->nskills + 1);
    s = &r->skills[r->nskills++];
    memset(s, 0, sizeof(*s));
    s->path = up_xstrdup(dir);
    c->s = s;
    c->profile = r->profile;
    c->file = file;
    c->dir = dir;
}

static void ctx_close(struct vctx *c, up_vreport *r)
{
    r->nerrors += c->s->nerrors;
    r->nwarnings += c->s->nwarnings;
    if (c->s->nerrors)
        r->ninvalid++;
    else
        r->nvalid++;
}

/* A finding about a path that is not a readable skill at all: the
 * message is text followed by arg. */
static void report_path(up_vreport *r, const char *path, const char *code,
                        const char *text, const char *arg)
{
    struct vctx c;

    ctx_open(&c, r, path, path);
    up_vfind(&c, NULL, 0, UP_V_ERROR, code, "%s%s", text, arg);
    ctx_close(&c, r);
}

/* ---- bytes ---------------------------------------------------------------
 */

/* Offset of the first byte that is not valid UTF-8 (or a NUL), else len. */
static size_t first_bad_byte(const unsigned char *s, size_t len)
{
    static const struct {
        unsigned char mask, value;
        size_t extra;
        unsigned long min;
    } lead[] = {{0xe0, 0xc0, 1, 0x80},
                {0xf0, 0xe0, 2, 0x800},
                {0xf8, 0xf0, 3, 0x10000}};
    size_t i = 0;

    while (i < len) {
        size_t k = 0, n;
        unsigned long cp;

        if (s[i] && s[i] < 0x80) {
            i++;
            continue;
        }
        while (k < 3 && (s[i] & lead[k].mask) != lead[k].value)
            k++;
        if (!s[i] || k == 3 || len - i <= lead[k].extra)
            return i;
        cp = s[i] & (0x3fu >> lead[k].extra);
        for (n = 1; n <= lead[k].extra; n++) {
            if ((s[i + n] & 0xc0) != 0x80)
                return i;
            cp = cp << 6 | (s[i + n] & 0x3fu);
        }
        if (cp < lead[k].min || cp > 0x10ffff || (cp >> 11) == 0x1b)
            return i;
        i += n;
    }
    return len;
}

/* 1-based line of byte offset off, counting LF, CRLF and lone CR. */
static int line_at(const char *s, size_t off)
{
    int line = 1;

    for (size_t i = 0; i < off; i++)
        if (s[i] == '\n' || (s[i] == '\r' && s[i + 1] != '\n'))
            line++;
    return line;
}

/* Copy text to out with CRLF and lone CR turned into LF. */
static void normalise_newlines(up_buf *out, const char *text, size_t len)
{
    up_buf_grow(out, len);
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
            continue;
        up_buf_addc(out, text[i] == '\r' ? '\n' : text[i]);
    }
}

/* Returns 0 when the bytes are text worth parsing; strips a BOM. */
static int check_bytes(struct vctx *c, const char **text, size_t *len)
{
    size_t bad = first_bad_byte((const unsigned char *)*text, *len);

    if (bad < *len) {
        up_vfind(c, NULL, line_at(*text, bad), UP_V_ERROR, "not-utf8",
                 (*text)[bad]
                     ? "file is not valid UTF-8 (first bad byte at "
                       "offset %zu)"
                     : "file contains a NUL byte at offset %zu (binary "
                       "data?)",
                 bad);
        return -1;
    }
    if (*len >= 3 && !memcmp(*text, "\xef\xbb\xbf", 3)) {
        up_vfind(c, NULL, 1, UP_V_ERROR, "bom",
                 "file starts with a UTF-8 byte order mark (BOM); remove it: "
                 "skills-ref and several clients then see no frontmatter");
        *text += 3;
        *len -= 3;
    }
    return 0;
}

/* ---- frontmatter ---------------------------------------------------------
 */

/* Is the line at p (up to a newline) "---" plus optional spaces? */
static int is_delim(const char *p)
{
    if (strncmp(p, "---", 3))
        return 0;
    for (p += 3; *p == ' ' || *p == '\t'; p++)
        ;
    return *p == '\n' || *p == '\0';
}

static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');

    return nl ? nl + 1 : p + strlen(p);
}

static int has_dashes(const char *p, const char *end)
{
    for (; p + 3 <= end; p++)
        if (p[0] == '-' && p[1] == '-' && p[2] == '-')
            return 1;
    return 0;
}

/* skills-ref splits on every "---" substring: say where it would go wrong
 * (the first such line, and how many there are). */
static void check_dashes(struct vctx *c, const char *fm, const char *end)
{
    int line = 2, first = 0, n = 0;

    for (const char *p = fm; p < end; p = next_line(p), line++) {
        if (!has_dashes(p, next_line(p)))
            continue;
        first = first ? first : line;
        n++;
    }
    if (n)
        up_vfind(c, NULL, first, UP_V_WARNING, "dashes-in-frontmatter",
                 "'---' inside the frontmatter (%d line%s): skills-ref splits "
                 "the file there and would misread this value",
                 n, n == 1 ? "" : "s");
}

/* Turn the YAML parser's "line N: what" into a finding, with the fix when
 * the frontmatter [fm, fm+len) is upstream's unquoted "key: value" shape. */
static void yaml_error(struct vctx *c, const char *msg, const char *fm,
                       size_t len)
{
    up_buf hint = UP_BUF_INIT;
    char *end = NULL;
    long line = 0;

    if (!strncmp(msg, "line ", 5)) {
        line = strtol(msg + 5, &end, 10);
        if (end && !strncmp(end, ": ", 2))
            msg = end + 2;
        else
            line = 0;
    }
    up_skill_legacy_hint(&hint, fm, len, 2);
    up_vfind(c, NULL, line > 0 && line < 1000000000 ? (int)line : 0, UP_V_ERROR,
             "yaml-syntax", "Invalid YAML in frontmatter: %s%s%s", msg,
             hint.len ? "; " : "", hint.len ? hint.data : "");
    up_buf_release(&hint);
}

/* Codes for the YAML tree's issues, by a phrase of their message; the
 * duplicate-key phrase comes first because it quotes a user's key. */
static const struct {
    const char *phrase, *code;
} issue_codes[] = {
    {"duplicate key '", "yaml-duplicate-key"},
    {"as a mapping key", "yaml-key"},
    {"flow style", "yaml-flow"},
    {"anchor '", "yaml-anchor"},
    {"alias '", "yaml-alias"},
    {"tag '", "yaml-tag"},
    {"tab character", "yaml-tab"},
    {"more than one document", "yaml-multi-doc"},
};

static const char *issue_code(const char *msg)
{
    for (size_t i = 0; i < sizeof(issue_codes) / sizeof(*issue_codes); i++)
        if (strstr(msg, issue_codes[i].phrase))
            return issue_codes[i].code;
    return "yaml-strict";
}

/* A value upstream's line reader reads differently (skill_legacy.c). */
static void vreading(void *ud, int line, const char *msg)
{
    up_vfind(ud, NULL, line, UP_V_WARNING, "upstream-reading", "%s", msg);
}

/* Parse the frontmatter block and run the field rules on it. */
static void check_frontmatter(struct vctx *c, const char *fm, size_t len)
{
    up_ydoc doc = {0};
    up_error err = {0};

    int rc = up_yaml_parse(&doc, fm, len, 2, &err);

    for (size_t i = 0; i < doc.nissues; i++)
        up_vfind(c, NULL, doc.issues[i].line, UP_V_ERROR,
                 issue_code(doc.issues[i].msg),
                 "Invalid YAML in frontmatter: %s", doc.issues[i].msg);
    if (rc) {
        yaml_error(c, err.msg, fm, len);
        goto out;
    }
    if (!doc.root || doc.root->kind != UP_Y_MAP) {
        up_vfind(c, NULL, doc.root ? doc.root->line : 1, UP_V_ERROR,
                 "not-mapping", "SKILL.md frontmatter must be a YAML mapping");
        goto out;
    }
    up_vcheck_fields(c, doc.root);
    up_skill_legacy_readings(doc.root, fm, len, 2, vreading, c);
out:
    up_ydoc_release(&doc);
}

/* Split normalised text into frontmatter and body and check both. */
static void check_document(struct vctx *c, const char *text)
{
    const char *fm, *p;
    int line = 2;

    if (!is_delim(text)) {
        up_vfind(c, NULL, 1, UP_V_ERROR, "no-frontmatter", "%s", no_fm);
        return;
    }
    fm = next_line(text);
    for (p = fm; *p && !is_delim(p); p = next_line(p))
        line++;
    if (!*p) {
        up_vfind(c, NULL, 1, UP_V_ERROR, "unclosed-frontmatter",
                 "SKILL.md frontmatter not properly closed with ---");
        return;
    }
    check_dashes(c, fm, p);
    check_frontmatter(c, fm, (size_t)(p - fm));
    fm = next_line(p);
    up_vcheck_body(c, fm, strlen(fm), line + 1);
}

static void check_text(struct vctx *c, const char *text, size_t len)
{
    up_buf norm = UP_BUF_INIT;

    if (check_bytes(c, &text, &len))
        return;
    normalise_newlines(&norm, text, len);
    check_document(c, norm.data);
    up_buf_release(&norm);
}

void up_validate_text(up_vreport *r, const char *text, size_t len,
                      const char *file, const char *dir)
{
    struct vctx c;

    ctx_open(&c, r, dir, file);
    check_text(&c, text, len);
    ctx_close(&c, r);
}

/* ---- files and folders ---------------------------------------------------
 */

static void read_failed(struct vctx *c, int rc, const up_error *err)
{
    if (rc == UP_ETOOBIG)
        up_vfind(c, NULL, 0, UP_V_ERROR, "file-too-big",
                 "file is larger than %u bytes; not read", UP_FS_MAX_READ);
    else if (rc == UP_ENOTFOUND)
        up_vfind(c, NULL, 0, UP_V_ERROR, "missing-skill-md",
                 "Missing required file: SKILL.md");
    else if (rc == UP_EPARSE)
        up_vfind(c, NULL, 0, UP_V_ERROR, "not-a-file", "%s",
                 up_fs_is_dir(c->file) ? "SKILL.md is a directory, expected a "
                                         "file"
                                       : "SKILL.md is not a regular file");
    else
        up_vfind(c, NULL, 0, UP_V_ERROR, "read-failed", "%s", err->msg);
}

/*
 * What eval and generate --from would refuse beyond SKILL.md: the
 * loader's own rules (up_skill_check_folder), not a second copy of them.
 */
static void check_loadable(struct vctx *c)
{
    up_error err = {0};

    if (up_skill_check_folder(c->dir, &err))
        up_vfind(c, c->dir, 0, UP_V_ERROR, "unloadable",
                 "upskill cannot load this skill: %s", err.msg);
}

/* Validate the file at path as the SKILL.md of folder dir. */
static void validate_file(up_vreport *r, const char *dir, const char *path)
{
    up_buf text = UP_BUF_INIT, base = UP_BUF_INIT;
    up_error err = {0};
    struct vctx c;
    int rc;

    ctx_open(&c, r, dir, path);
    up_fs_basename(&base, path);
    if (strcmp(base.data, "SKILL.md"))
        up_vfind(&c, NULL, 0, UP_V_WARNING, "lowercase-skill-md",
                 "file is named '%s'; the spec requires exactly 'SKILL.md'",
                 base.data);
    rc = up_fs_read(&text, path, UP_FS_MAX_READ, &err);
    if (rc)
        read_failed(&c, rc, &err);
    else
        check_text(&c, text.data, text.len);
    if (!rc)
        check_loadable(&c);
    ctx_close(&c, r);
    up_buf_release(&text);
    up_buf_release(&base);
}

/* Join dir and SKILL.md (else skill.md) into out; 0 when one exists. */
static int find_skill_md(up_buf *out, const char *dir)
{
    static const char *const names[] = {"SKILL.md", "skill.md"};
    struct stat st;

    for (size_t i = 0; i < 2; i++) {
        up_buf_reset(out);
        up_fs_join(out, dir, names[i]);
        if (lstat(out->data, &st) == 0)
            return 0;
    }
    return -1;
}

static void validate_dir(up_vreport *r, const char *dir)
{
    up_buf md = UP_BUF_INIT;

    if (find_skill_md(&md, dir))
        report_path(r, dir, "missing-skill-md",
                    "Missing required file: SKILL.md", "");
    else
        validate_file(r, dir, md.data);
    up_buf_release(&md);
}

/* Validate each subfolder of dir holding a SKILL.md; returns how many. */
static size_t validate_children(up_vreport *r, const char *dir)
{
    up_buf sub = UP_BUF_INIT, md = UP_BUF_INIT;
    char **names = NULL;
    size_t n = 0;

    if (up_fs_list(&names, NULL, dir, NULL))
        goto out;
    for (char **p = names; *p; p++) {
        if (**p == '.')
            continue;
        up_buf_reset(&sub);
        up_fs_join(&sub, dir, *p);
        if (!up_fs_is_dir(sub.data) || find_skill_md(&md, sub.data))
            continue;
        validate_dir(r, sub.data);
        n++;
    }
out:
    up_strv_free(names);
    up_buf_release(&sub);
    up_buf_release(&md);
    return n;
}

void up_validate_path(up_vreport *r, const char *path)
{
    up_buf base = UP_BUF_INIT, md = UP_BUF_INIT;
    struct stat st;

    up_fs_basename(&base, path);
    if (stat(path, &st) != 0) {
        report_path(r, path, "path-missing", "Path does not exist: ", path);
    } else if (!strcasecmp(base.data, "skill.md")) {
        up_fs_dirname(&md, path);
        validate_file(r, md.data, path);
    } else if (!S_ISDIR(st.st_mode)) {
        report_path(r, path, "not-a-directory", "Not a directory: ", path);
    } else if (!find_skill_md(&md, path) || !validate_children(r, path)) {
        validate_dir(r, path);
    }
    up_buf_release(&base);
    up_buf_release(&md);
}
