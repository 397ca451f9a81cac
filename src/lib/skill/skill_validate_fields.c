/*
 * Frontmatter field rules.  The first four groups are skills-ref's
 * validate_metadata, in its order and with its exact messages: unexpected
 * fields, name, description, compatibility.  Then the rules skills-ref
 * leaves out but the spec states: empty compatibility, the types of
 * license, allowed-tools and metadata, and (claude-code profile) the
 * types of Claude Code's extension keys.
 *
 * Names follow skills-ref exactly: strip (Python's notion of Unicode
 * whitespace), NFKC, then length, lowercase, hyphen and character rules,
 * and NFKC(directory name) == name, all on code points via utf8proc.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <utf8proc.h>

#include "lib/skill/skill_lib.h"
#include "skill_validate_int.h"
#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/skill.h"

enum ftype { F_NAME, F_DESC, F_COMPAT, F_STR, F_TOOLS, F_LIST, F_BOOL, F_MAP };

/* Every known key, sorted (the order skills-ref prints them in). */
static const struct field {
    const char *key;
    int cc_only;      /* a Claude Code extension key */
    enum ftype type;  /* which rule checks its value */
    const char *code; /* the finding code for a value of the wrong type */
} fields[] = {
    {"agent", 1, F_STR, "agent-type"},
    {"allowed-tools", 0, F_TOOLS, "allowed-tools-type"},
    {"argument-hint", 1, F_STR, "argument-hint-type"},
    {"arguments", 1, F_LIST, "arguments-type"},
    {"background", 1, F_BOOL, "background-type"},
    {"compatibility", 0, F_COMPAT, "compatibility-type"},
    {"context", 1, F_STR, "context-type"},
    {"description", 0, F_DESC, "description-empty"},
    {"disable-model-invocation", 1, F_BOOL, "disable-model-invocation-type"},
    {"disallowed-tools", 1, F_LIST, "disallowed-tools-type"},
    {"effort", 1, F_STR, "effort-type"},
    {"hooks", 1, F_MAP, "hooks-type"},
    {"license", 0, F_STR, "license-type"},
    {"metadata", 0, F_MAP, "metadata-type"},
    {"model", 1, F_STR, "model-type"},
    {"name", 0, F_NAME, "name-empty"},
    {"paths", 1, F_LIST, "paths-type"},
    {"shell", 1, F_STR, "shell-type"},
    {"user-invocable", 1, F_BOOL, "user-invocable-type"},
    {"when_to_use", 1, F_STR, "when-to-use-type"},
};

#define NFIELDS        (sizeof(fields) / sizeof(*fields))
#define UNEXPECTED_MAX 50 /* names listed before " and N more" */

static int allowed(const struct vctx *c, const struct field *f)
{
    return !f->cc_only || c->profile == UP_VP_CLAUDE_CODE;
}

static const struct field *field_for(const struct vctx *c, const char *key)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (!strcmp(fields[i].key, key) && allowed(c, &fields[i]))
            return &fields[i];
    return NULL;
}

/* Index of key in map (first occurrence), or -1. */
static int key_index(const up_ynode *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i]->kind == UP_Y_SCALAR &&
            !strcmp(map->keys[i]->value, key))
            return (int)i;
    return -1;
}

/* ---- unexpected fields ---------------------------------------------------
 */

/* skills-ref #8: names sorted and unique, then the allowed list. */
static void unexpected_msg(const struct vctx *c, up_buf *msg, const char **bad,
                           size_t n)
{
    const char *sep = "";
    size_t shown = 0, more = 0;

    qsort(bad, n, sizeof(*bad), up_strptr_cmp);
    up_buf_adds(msg, "Unexpected fields in frontmatter: ");
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(bad[i], bad[i - 1]))
            continue;
        if (shown == UNEXPECTED_MAX) {
            more++;
            continue;
        }
        up_buf_addf(msg, "%s%s", shown++ ? ", " : "", bad[i]);
    }
    if (more)
        up_buf_addf(msg, " and %zu more", more);
    up_buf_adds(msg, ". Only [");
    for (size_t i = 0; i < NFIELDS; i++) {
        if (!allowed(c, &fields[i]))
            continue;
        up_buf_addf(msg, "%s'%s'", sep, fields[i].key);
        sep = ", ";
    }
    up_buf_adds(msg, "] are allowed.");
}

static void check_unexpected(struct vctx *c, const up_ynode *root)
{
    const char **bad = NULL;
    size_t n = 0, cap = 0;
    up_buf msg = UP_BUF_INIT;
    int line = 0;

    for (size_t i = 0; i < root->n; i++) {
        const up_ynode *k = root->keys[i];

        /* non-scalar keys are already a YAML issue */
        if (k->kind != UP_Y_SCALAR || field_for(c, k->value))
            continue;
        UP_GROW(bad, cap, n + 1);
        bad[n++] = k->value;
        if (!line)
            line = k->line;
    }
    if (n) {
        unexpected_msg(c, &msg, bad, n);
        up_vfind(c, NULL, line, UP_V_ERROR, "unexpected-fields", "%s",
                 msg.data);
    }
    free(bad);
    up_buf_release(&msg);
}

/* ---- Unicode helpers -----------------------------------------------------
 */

/* Python's str.isspace(): bidi class WS, B or S, or category Zs. */
static int is_uspace(int32_t cp)
{
    const utf8proc_property_t *p = utf8proc_get_property(cp);

    return p->category == UTF8PROC_CATEGORY_ZS ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_B ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

/* Decode the code point at s (NUL-terminated); bad bytes count as one. */
static size_t decode(const char *s, int32_t *cp)
{
    utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s, -1, cp);

    if (n <= 0) {
        *cp = (unsigned char)*s;
        return 1;
    }
    return (size_t)n;
}

static size_t cp_count(const char *s)
{
    size_t n = 0;
    int32_t cp;

    while (*s) {
        s += decode(s, &cp);
        n++;
    }
    return n;
}

/* A heap copy of s without leading and trailing Unicode whitespace. */
static char *ustrip(const char *s)
{
    const char *start = NULL, *end = s;
    int32_t cp;

    for (const char *p = s; *p;) {
        size_t n = decode(p, &cp);

        if (!is_uspace(cp)) {
            if (!start)
                start = p;
            end = p + n;
        }
        p += n;
    }
    return start ? up_xstrndup(start, (size_t)(end - start)) : up_xstrdup("");
}

/* NFKC of s as a heap string (a copy of s when utf8proc refuses it). */
static char *nfkc(const char *s)
{
    char *out = (char *)utf8proc_NFKC((const utf8proc_uint8_t *)s);

    return out ? out : up_xstrdup(s);
}

/* Python's s == s.lower(): no code point changes under lower-casing. */
static int is_lower(const char *s)
{
    int32_t cp;

    while (*s) {
        s += decode(s, &cp);
        if (utf8proc_tolower(cp) != cp)
            return 0;
    }
    return 1;
}

/* Python's isalnum() for each code point (categories L* and N*) or '-'. */
static int alnum_or_hyphen(const char *s)
{
    int32_t cp;

    while (*s) {
        utf8proc_category_t cat;

        s += decode(s, &cp);
        cat = utf8proc_category(cp);
        if (cp != '-' &&
            !(cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) &&
            !(cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO))
            return 0;
    }
    return 1;
}

static int is_scalar(const up_ynode *v)
{
    return v->kind == UP_Y_SCALAR;
}

/* A scalar with something other than whitespace in it. */
static int nonempty_string(const up_ynode *v)
{
    char *s;
    int ok;

    if (!is_scalar(v))
        return 0;
    s = ustrip(v->value);
    ok = *s != '\0';
    free(s);
    return ok;
}

/* ---- name, description, compatibility -------------------------------
 */

/* The folder's own name; "." and the like become the real folder name. */
static void dir_name(up_buf *out, const char *dir)
{
    char *real;

    up_fs_basename(out, dir);
    if (strcmp(out->data, ".") && strcmp(out->data, "..") &&
        strcmp(out->data, "/") && *out->data)
        return;
    real = realpath(dir, NULL);
    if (real) {
        up_buf_reset(out);
        up_fs_basename(out, real);
        free(real);
    }
}

/* Ours, not skills-ref's (StrictYAML reads every value as text). */
static void yaml_typed_name(struct vctx *c, const char *name, int line)
{
    const char *what = up_skill_name_yaml_type(name);

    if (what)
        up_vfind(c, NULL, line, UP_V_ERROR, "name-yaml-typed",
                 "Skill name '%s' reads as %s in YAML: written plain, YAML "
                 "readers get %s; quoted, upstream upskill keeps the quotes "
                 "and refuses the name. Choose a name with a letter, such as "
                 "'skill-%s'",
                 name, what, what, name);
}

/* skills-ref #11-#15 on the stripped, NFKC-normalised name. */
static void name_rules(struct vctx *c, const char *name, int line)
{
    size_t n = cp_count(name), len = strlen(name);

    if (n > 64)
        up_vfind(c, NULL, line, UP_V_ERROR, "name-too-long",
                 "Skill name '%s' exceeds 64 character limit (%zu chars)", name,
                 n);
    if (!is_lower(name))
        up_vfind(c, NULL, line, UP_V_ERROR, "name-not-lowercase",
                 "Skill name '%s' must be lowercase", name);
    if (name[0] == '-' || (len && name[len - 1] == '-'))
        up_vfind(c, NULL, line, UP_V_ERROR, "name-hyphen-edge",
                 "Skill name cannot start or end with a hyphen");
    if (strstr(name, "--"))
        up_vfind(c, NULL, line, UP_V_ERROR, "name-consecutive-hyphens",
                 "Skill name cannot contain consecutive hyphens");
    if (!alnum_or_hyphen(name))
        up_vfind(c, NULL, line, UP_V_ERROR, "name-invalid-chars",
                 "Skill name '%s' contains invalid characters. Only letters, "
                 "digits, and hyphens are allowed.",
                 name);
    yaml_typed_name(c, name, line);
}

static void check_name(struct vctx *c, const up_ynode *root)
{
    int i = key_index(root, "name"), line;
    char *stripped = NULL, *name = NULL, *dn = NULL;
    up_buf dir = UP_BUF_INIT;

    if (i < 0) {
        up_vfind(c, NULL, 0, UP_V_ERROR, "name-missing",
                 "Missing required field in frontmatter: name");
        goto out;
    }
    line = root->keys[i]->line;
    if (!nonempty_string(root->items[i])) {
        up_vfind(c, NULL, line, UP_V_ERROR, "name-empty",
                 "Field 'name' must be a non-empty string");
        goto out;
    }
    stripped = ustrip(root->items[i]->value);
    name = nfkc(stripped);
    name_rules(c, name, line);
    dir_name(&dir, c->dir);
    dn = nfkc(dir.data);
    if (strcmp(dn, name))
        up_vfind(c, NULL, line, UP_V_ERROR, "name-dir-mismatch",
                 "Directory name '%s' must match skill name '%s'", dir.data,
                 name);
out:
    free(stripped);
    free(name);
    free(dn);
    up_buf_release(&dir);
}

static void check_description(struct vctx *c, const up_ynode *root)
{
    int i = key_index(root, "description"), line;
    size_t n;

    if (i < 0) {
        up_vfind(c, NULL, 0, UP_V_ERROR, "description-missing",
                 "Missing required field in frontmatter: description");
        return;
    }
    line = root->keys[i]->line;
    if (!nonempty_string(root->items[i])) {
        up_vfind(c, NULL, line, UP_V_ERROR, "description-empty",
                 "Field 'description' must be a non-empty string");
        return;
    }
    n = cp_count(root->items[i]->value);
    if (n > 1024)
        up_vfind(c, NULL, line, UP_V_ERROR, "description-too-long",
                 "Description exceeds 1024 character limit (%zu chars)", n);
}

static void check_compatibility(struct vctx *c, const up_ynode *root)
{
    int i = key_index(root, "compatibility"), line;
    size_t n;

    if (i < 0)
        return;
    line = root->keys[i]->line;
    if (!is_scalar(root->items[i])) {
        up_vfind(c, NULL, line, UP_V_ERROR, "compatibility-type",
                 "Field 'compatibility' must be a string");
        return;
    }
    n = cp_count(root->items[i]->value);
    if (n > 500)
        up_vfind(c, NULL, line, UP_V_ERROR, "compatibility-too-long",
                 "Compatibility exceeds 500 character limit (%zu chars)", n);
    if (n == 0)
        up_vfind(c, NULL, line, UP_V_ERROR, "compatibility-empty",
                 "Field 'compatibility' must be 1-500 characters when present "
                 "(it is empty)");
}

/* ---- value types ---------------------------------------------------------
 */

static int is_list_of_strings(const up_ynode *v)
{
    if (v->kind != UP_Y_SEQ)
        return 0;
    for (size_t i = 0; i < v->n; i++)
        if (!is_scalar(v->items[i]))
            return 0;
    return 1;
}

static int is_str_or_list(const up_ynode *v)
{
    return is_scalar(v) || is_list_of_strings(v);
}

/* Claude Code's booleans, case-insensitive. */
static int is_bool(const up_ynode *v)
{
    static const char *const words[] = {"true", "false", "yes", "no",
                                        "on",   "off",   "1",   "0"};

    if (!is_scalar(v))
        return 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
        if (!strcasecmp(v->value, words[i]))
            return 1;
    return 0;
}

static int is_map(const up_ynode *v)
{
    return v->kind == UP_Y_MAP;
}

static const struct {
    int (*ok)(const up_ynode *v);
    const char *what;
} rules[] = {
    [F_STR] = {is_scalar, "must be a string"},
    [F_TOOLS] = {is_scalar, "must be a string (space-separated tool names)"},
    [F_LIST] = {is_str_or_list, "must be a string or a list of strings"},
    [F_BOOL] = {is_bool, "must be a boolean (true/false/yes/no/on/off/1/0)"},
    [F_MAP] = {is_map, "must be a mapping"},
};

/* metadata: a mapping of strings to strings. */
static void check_metadata_values(struct vctx *c, const up_ynode *map)
{
    for (size_t j = 0; j < map->n; j++) {
        const up_ynode *k = map->keys[j], *v = map->items[j];

        if (is_scalar(k) && is_scalar(v))
            continue;
        up_vfind(c, NULL, v->line, UP_V_ERROR, "metadata-value",
                 "Field 'metadata' value for key '%s' must be a string",
                 is_scalar(k) ? k->value : "?");
    }
}

static void check_type(struct vctx *c, const struct field *f,
                       const up_ynode *key, const up_ynode *v)
{
    enum ftype t = f->type;

    if (t == F_TOOLS && c->profile == UP_VP_CLAUDE_CODE)
        t = F_LIST;
    if (!rules[t].ok(v))
        up_vfind(c, NULL, key->line, UP_V_ERROR, f->code, "Field '%s' %s%s",
                 f->key, rules[t].what,
                 strcmp(f->key, "metadata") ? "" : " of strings to strings");
    else if (!strcmp(f->key, "metadata"))
        check_metadata_values(c, v);
}

void up_vcheck_fields(struct vctx *c, const up_ynode *root)
{
    check_unexpected(c, root);
    check_name(c, root);
    check_description(c, root);
    check_compatibility(c, root);
    for (size_t i = 0; i < NFIELDS; i++) {
        int k;

        if (fields[i].type <= F_COMPAT || !allowed(c, &fields[i]))
            continue;
        k = key_index(root, fields[i].key);
        if (k >= 0)
            check_type(c, &fields[i], root->keys[k], root->items[k]);
    }
}
