/*
 * upskill.config.yaml: defaults, file, environment, flags.
 *
 * Each layer overwrites a setting's value and its source, lowest first,
 * so after all four the struct holds the winner and where it came from.
 * Keys are described by tables (name, type, offset of the setting in the
 * struct it lives in); one routine walks a YAML mapping against a table,
 * warns on unknown keys and fails on wrong types with file and line.
 * Nested sections (providers, aliases, prices, cache, headers) are table
 * rows with a handler.  The same rows apply command-line flags.
 *
 * Secrets are never read here: a provider holds the NAME of the variable
 * with its key (config_secrets.c reads the fallback files below the
 * environment).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/config/config_lib.h"
#include "upskill/alloc.h"
#include "upskill/config.h"
#include "upskill/fs.h"
#include "upskill/near.h"
#include "upskill/provider.h"
#include "util/yaml.h"

#define CONFIG_MAX_READ (1024u * 1024u)

/* Provider names, default endpoints, key variables and the variables
   that set base URLs: the preset table (upskill/preset.h). */

enum vtype {
    V_STR,    /* a string or null */
    V_PATH,   /* a string or null, leading ~ expanded */
    V_LEGACY, /* like V_STR, but loses to the key it stands for */
    V_INT,    /* a whole number >= min (and <= max when max > 0) */
    V_LAXINT, /* upstream's pydantic int: also 2.0 and true; below min
                 counts as min, as upstream's max(1, n) */
    V_BOOL,   /* true/false (and YAML 1.1's yes/no/on/off) */
    V_SECS,   /* a positive number of seconds */
    V_MAP,    /* a nested mapping, walked by the handler */
    V_IGNORE, /* upstream key we accept and do not use */
    V_UNUSED  /* upstream key we do not use: accepted with a warning */
};

struct loader {
    up_config *cfg;
    up_source src; /* FILE (line set per value) or FLAG */
    up_error *err;
};

struct key {
    const char *name;
    enum vtype type;
    size_t off; /* of the setting in the struct the table describes */
    long min;   /* V_INT */
    long max;   /* V_INT; 0: no upper bound */
    int (*map)(struct loader *ld, void *base, const up_ynode *node,
               const char *name);
};

static int load_providers(struct loader *ld, void *base, const up_ynode *node,
                          const char *name);
static int load_headers(struct loader *ld, void *base, const up_ynode *node,
                        const char *name);
static int load_aliases(struct loader *ld, void *base, const up_ynode *node,
                        const char *name);
static int load_prices(struct loader *ld, void *base, const up_ynode *node,
                       const char *name);
static int load_cache(struct loader *ld, void *base, const up_ynode *node,
                      const char *name);
static int load_sandbox(struct loader *ld, void *base, const up_ynode *node,
                        const char *name);
static int load_trusted(struct loader *ld, void *base, const up_ynode *node,
                        const char *name);

#define CFG(f)         offsetof(up_config, f)
#define MAX_TOKENS_CAP 10000000L
#define PRV(f)         offsetof(up_provider_cfg, f)

static const struct key top_keys[] = {
    {"skill_generation_model", V_STR, CFG(skill_generation_model), 0, 0, NULL},
    {"model", V_LEGACY, CFG(skill_generation_model), 0, 0, NULL},
    {"eval_model", V_STR, CFG(eval_model), 0, 0, NULL},
    {"test_gen_model", V_STR, CFG(test_gen_model), 0, 0, NULL},
    {"skills_dir", V_PATH, CFG(skills_dir), 0, 0, NULL},
    {"runs_dir", V_PATH, CFG(runs_dir), 0, 0, NULL},
    {"prompts_dir", V_PATH, CFG(prompts_dir), 0, 0, NULL},
    {"max_refine_attempts", V_LAXINT, CFG(max_refine_attempts), 1, 0, NULL},
    {"concurrency", V_INT, CFG(concurrency), 1, 0, NULL},
    {"max_answer_bytes", V_INT, CFG(max_answer_bytes), 1024, 1073741824, NULL},
    {"artifact_max_bytes", V_INT, CFG(artifact_max_bytes), 1024, 1073741824,
     NULL},
    {"max_history_bytes", V_INT, CFG(max_history_bytes), 65536, 1073741824,
     NULL},
    {"workspace_dir", V_PATH, CFG(workspace_dir), 0, 0, NULL},
    {"workspace_max_bytes", V_INT, CFG(workspace_max_bytes), 65536,
     1099511627776L, NULL},
    {"workspace_max_files", V_INT, CFG(workspace_max_files), 16, 100000000,
     NULL},
    {"min_tests", V_INT, CFG(min_tests), 1, 100, NULL},
    {"max_tests", V_INT, CFG(max_tests), 1, 100, NULL},
    {"margin_points", V_INT, CFG(margin_points), 0, 50, NULL},
    {"max_tokens", V_INT, CFG(max_tokens), 1, MAX_TOKENS_CAP, NULL},
    {"auto_eval", V_IGNORE, 0, 0, 0, NULL},
    {"fastagent_config", V_UNUSED, 0, 0, 0, NULL},
    {"providers", V_MAP, 0, 0, 0, load_providers},
    {"aliases", V_MAP, 0, 0, 0, load_aliases},
    {"prices", V_MAP, 0, 0, 0, load_prices},
    {"cache", V_MAP, 0, 0, 0, load_cache},
    {"sandbox", V_MAP, 0, 0, 0, load_sandbox},
    {"trusted_folders", V_MAP, 0, 0, 0, load_trusted},
    {NULL, V_STR, 0, 0, 0, NULL},
};

static const struct key sandbox_keys[] = {
    {"cpu_seconds", V_INT, CFG(sandbox_cpu_s), 1, 86400, NULL},
    {"wall_seconds", V_INT, CFG(sandbox_wall_s), 1, 86400, NULL},
    {"memory_mb", V_INT, CFG(sandbox_memory_mb), 16, 1048576, NULL},
    {"call_memory_mb", V_INT, CFG(sandbox_call_memory_mb), 16, 1048576, NULL},
    {"file_size_mb", V_INT, CFG(sandbox_file_size_mb), 1, 1048576, NULL},
    {"processes", V_INT, CFG(sandbox_processes), 1, 100000, NULL},
    {"output_kb", V_INT, CFG(sandbox_output_kb), 1, 1048576, NULL},
    {NULL, V_STR, 0, 0, 0, NULL},
};

static const struct key cache_keys[] = {
    {"enabled", V_BOOL, CFG(cache_enabled), 0, 0, NULL},
    {"path", V_PATH, CFG(cache_path), 0, 0, NULL},
    {"ttl_days", V_INT, CFG(cache_ttl_days), 0, 0, NULL},
    {"lock_timeout", V_SECS, CFG(cache_lock_timeout), 0, 0, NULL},
    {NULL, V_STR, 0, 0, 0, NULL},
};

static const struct key prov_keys[] = {
    {"base_url", V_STR, PRV(base_url), 0, 0, NULL},
    {"api_key_env", V_STR, PRV(api_key_env), 0, 0, NULL},
    {"headers", V_MAP, 0, 0, 0, load_headers},
    {"connect_timeout", V_SECS, PRV(connect_timeout), 0, 0, NULL},
    {"timeout", V_SECS, PRV(timeout), 0, 0, NULL},
    {"idle_timeout", V_SECS, PRV(idle_timeout), 0, 0, NULL},
    {"first_byte_timeout", V_SECS, PRV(first_byte_timeout), 0, 0, NULL},
    {"max_tokens", V_INT, PRV(max_tokens), 1, MAX_TOKENS_CAP, NULL},
    {NULL, V_STR, 0, 0, 0, NULL},
};

/* ---- small helpers ---------------------------------------------------- */

const char *up_provider_name(enum up_provider_kind kind)
{
    const up_preset *p = up_preset_at((int)kind);

    return p ? p->name : "?";
}

int up_provider_parse(enum up_provider_kind *kind, const char *name)
{
    int i = up_preset_find(name, name ? strlen(name) : 0);

    if (i < 0)
        return UP_ENOTFOUND;
    *kind = (enum up_provider_kind)i;
    return 0;
}

void up_source_format(const up_source *src, up_buf *out)
{
    switch (src->kind) {
    case UP_SRC_DEFAULT:
        up_buf_adds(out, "default");
        break;
    case UP_SRC_ENV:
        up_buf_addf(out, "env %s", src->what);
        break;
    case UP_SRC_FILE:
        up_buf_addf(out, "%s:%d", src->what, src->line);
        break;
    case UP_SRC_FLAG:
        up_buf_addf(out, "flag%s%s", src->what ? " " : "",
                    src->what ? src->what : "");
        break;
    }
}

static const char *real_getenv(const char *name, void *ctx)
{
    (void)ctx;
    return getenv(name);
}

const char *up_config_getenv(const up_config *cfg, const char *name)
{
    return up_config_getenv_src(cfg, name, NULL);
}

static void set_str(up_cfg_str *s, const char *value, up_source src)
{
    free(s->value);
    s->value = value ? up_xstrdup(value) : NULL;
    s->src = src;
}

/* value with a leading "~" or "~/" replaced by $HOME, as a heap string. */
static char *expand_tilde(const up_config *cfg, const char *value)
{
    const char *home = up_config_host_env(cfg, "HOME");
    up_buf b = UP_BUF_INIT;

    if (!home || value[0] != '~' || (value[1] && value[1] != '/'))
        return up_xstrdup(value);
    up_buf_adds(&b, home);
    up_buf_adds(&b, value + 1);
    return up_buf_detach(&b);
}

void up_config_warn(up_config *cfg, const char *fmt, ...)
{
    up_buf b = UP_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    UP_GROW(cfg->warnings, cfg->warnings_cap, cfg->nwarnings + 1);
    cfg->warnings[cfg->nwarnings++] = up_buf_detach(&b);
}

static int is_null(const up_ynode *v)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};

    if (v->kind != UP_Y_SCALAR || v->style != UP_YS_PLAIN)
        return 0;
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
        if (!strcmp(v->value, nulls[i]))
            return 1;
    return 0;
}

static int parse_long(const char *s, long *out)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, long *out)
{
    static const struct {
        const char *word;
        long value;
    } words[] = {{"true", 1}, {"false", 0}, {"yes", 1},
                 {"no", 0},   {"on", 1},    {"off", 0}};

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!strcasecmp(s, words[i].word)) {
            *out = words[i].value;
            return 0;
        }
    }
    return -1;
}

/* A wrong value: "'file':4: key: what" (file) or "--flag: what" (flag). */
static int bad(struct loader *ld, const up_ynode *v, const char *name,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int bad(struct loader *ld, const up_ynode *v, const char *name,
               const char *fmt, ...)
{
    up_buf b = UP_BUF_INIT;
    va_list ap;
    int code = UP_EPARSE;

    if (ld->src.kind == UP_SRC_FILE) {
        up_buf_addf(&b, "'%s':%d: %s: ", ld->src.what, v->line, name);
    } else {
        up_buf_addf(&b, "%s: ", ld->src.what ? ld->src.what : name);
        code = UP_EUSAGE;
    }
    va_start(ap, fmt);
    up_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    up_error_set(ld->err, code, "%s", b.data);
    up_buf_release(&b);
    return code;
}

static up_source src_at(const struct loader *ld, const up_ynode *v)
{
    up_source s = ld->src;

    s.line = v->line;
    return s;
}

/* ---- one value -------------------------------------------------------- */

static int apply_str(struct loader *ld, up_cfg_str *s, const struct key *k,
                     const up_ynode *v, const char *name)
{
    char *text;

    if (k->type == V_LEGACY && s->src.kind == ld->src.kind)
        return 0; /* the key it stands for was given on this layer */
    if (v->kind != UP_Y_SCALAR)
        return bad(ld, v, name, "expected a string, not %s",
                   up_yaml_kind_name(v));
    if (is_null(v)) {
        set_str(s, NULL, src_at(ld, v));
        return 0;
    }
    text = k->type == V_PATH ? expand_tilde(ld->cfg, v->value)
                             : up_xstrdup(v->value);
    set_str(s, text, src_at(ld, v));
    free(text);
    return 0;
}

static int apply_int(struct loader *ld, up_cfg_int *s, const struct key *k,
                     const up_ynode *v, const char *name)
{
    long n;

    if (k->type == V_BOOL) {
        if (v->kind != UP_Y_SCALAR || parse_bool(v->value, &n))
            return bad(ld, v, name, "expected true or false");
    } else if (v->kind != UP_Y_SCALAR || parse_long(v->value, &n)) {
        return bad(ld, v, name, "expected a whole number");
    } else if (k->max > 0 && (n < k->min || n > k->max)) {
        return bad(ld, v, name, "expected a whole number from %ld to %ld",
                   k->min, k->max);
    } else if (n < k->min) {
        return bad(ld, v, name, "expected a whole number of at least %ld",
                   k->min);
    }
    s->value = n;
    s->src = src_at(ld, v);
    return 0;
}

/*
 * A whole number as upstream's pydantic model reads it (lax mode): 3,
 * 2.0 (no fraction), true (1) and false (0); a value below the minimum
 * counts as the minimum, as upstream's max(1, n) does, with a warning.
 */
static int apply_lax_int(struct loader *ld, up_cfg_int *s, const struct key *k,
                         const up_ynode *v, const char *name)
{
    long n;
    double d;

    if (v->kind != UP_Y_SCALAR)
        return bad(ld, v, name, "expected a whole number");
    if (parse_long(v->value, &n) && parse_bool(v->value, &n)) {
        if (parse_double(v->value, &d) || d != floor(d) || fabs(d) > 1e15)
            return bad(ld, v, name, "expected a whole number");
        n = (long)d;
    }
    if (n < k->min) {
        up_config_warn(ld->cfg,
                       "'%s':%d: %s: %s counts as %ld (as upstream's "
                       "max(%ld, n))",
                       ld->src.what, v->line, name, v->value, k->min, k->min);
        n = k->min;
    }
    s->value = n;
    s->src = src_at(ld, v);
    return 0;
}

static int apply_secs(struct loader *ld, up_cfg_num *s, const up_ynode *v,
                      const char *name)
{
    double d;

    if (v->kind != UP_Y_SCALAR || parse_double(v->value, &d) || d <= 0)
        return bad(ld, v, name, "expected a number of seconds above 0");
    s->value = d;
    s->src = src_at(ld, v);
    return 0;
}

static int apply_one(struct loader *ld, void *base, const struct key *k,
                     const up_ynode *v, const char *name)
{
    void *slot = (char *)base + k->off;

    switch (k->type) {
    case V_STR:
    case V_PATH:
    case V_LEGACY:
        return apply_str(ld, slot, k, v, name);
    case V_INT:
    case V_BOOL:
        return apply_int(ld, slot, k, v, name);
    case V_LAXINT:
        return apply_lax_int(ld, slot, k, v, name);
    case V_SECS:
        return apply_secs(ld, slot, v, name);
    case V_MAP:
        return k->map(ld, base, v, name);
    case V_UNUSED:
        up_config_warn(ld->cfg,
                       "'%s':%d: %s is not used by this upskill (see "
                       "docs/config.md)",
                       ld->src.what, v->line, name);
        return 0;
    case V_IGNORE:
        return 0;
    }
    return 0;
}

/* ---- mappings --------------------------------------------------------- */

static const struct key *find_key(const struct key *tab, const char *name)
{
    for (; tab->name; tab++)
        if (!strcmp(tab->name, name))
            return tab;
    return NULL;
}

/* " (did you mean 'KEY'?)" for the key of tab nearest to name, or "". */
static const char *near_key(char *out, size_t size, const struct key *tab,
                            const char *name)
{
    const char *v[64], *pick;
    size_t n = 0;

    for (; tab->name && n < 64; tab++)
        v[n++] = tab->name;
    pick = up_nearest(name, v, n);
    *out = '\0';
    if (pick)
        snprintf(out, size, " (did you mean '%s'?)", pick);
    return out;
}

static const char *key_text(const up_ynode *map, size_t i)
{
    const up_ynode *k = map->keys[i];

    return k->kind == UP_Y_SCALAR && k->value ? k->value : "";
}

static void join_name(up_buf *b, const char *section, const char *key)
{
    up_buf_reset(b);
    if (*section)
        up_buf_addf(b, "%s.", section);
    up_buf_adds(b, key);
}

/* Apply mapping map against table tab into base; section names it. */
static int walk(struct loader *ld, void *base, const struct key *tab,
                const up_ynode *map, const char *section)
{
    up_buf name = UP_BUF_INIT;
    int rc = 0;

    if (is_null(map))
        return 0;
    if (map->kind != UP_Y_MAP)
        return bad(ld, map, section, "expected a mapping, not %s",
                   up_yaml_kind_name(map));
    for (size_t i = 0; i < map->n && !rc; i++) {
        const struct key *k = find_key(tab, key_text(map, i));

        join_name(&name, section, key_text(map, i));
        char hint[UP_NEAR_MAX + 32];

        if (!k)
            up_config_warn(ld->cfg, "'%s':%d: unknown key '%s'%s", ld->src.what,
                           map->keys[i]->line, name.data,
                           near_key(hint, sizeof(hint), tab, key_text(map, i)));
        else
            rc = apply_one(ld, base, k, map->items[i], name.data);
    }
    up_buf_release(&name);
    return rc;
}

static int load_providers(struct loader *ld, void *base, const up_ynode *node,
                          const char *name)
{
    up_buf section = UP_BUF_INIT;
    enum up_provider_kind kind;
    int rc = 0;

    (void)base;
    if (is_null(node))
        return 0;
    if (node->kind != UP_Y_MAP)
        return bad(ld, node, name, "expected a mapping of providers");
    for (size_t i = 0; i < node->n && !rc; i++) {
        if (up_provider_parse(&kind, key_text(node, i))) {
            up_config_warn(ld->cfg,
                           "'%s':%d: unknown provider '%s' (known: anthropic, "
                           "openai, generic, hf)",
                           ld->src.what, node->keys[i]->line,
                           key_text(node, i));
            continue;
        }
        join_name(&section, name, key_text(node, i));
        rc = walk(ld, &ld->cfg->providers[kind], prov_keys, node->items[i],
                  section.data);
    }
    up_buf_release(&section);
    return rc;
}

static void clear_headers(up_provider_cfg *pc)
{
    for (size_t i = 0; i < pc->nheaders; i++) {
        free(pc->headers[i].name);
        free(pc->headers[i].value);
    }
    pc->nheaders = 0;
}

/* A header must not smuggle another one in. */
/* No control byte (a CR or LF would start a header of its own). */
static int no_cntrl(const char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return 0;
    return 1;
}

static int header_ok(const char *name, const char *value)
{
    return *name && !strpbrk(name, ": ") && no_cntrl(name) && no_cntrl(value);
}

static int load_headers(struct loader *ld, void *base, const up_ynode *node,
                        const char *name)
{
    up_provider_cfg *pc = base;

    if (!is_null(node) && node->kind != UP_Y_MAP)
        return bad(ld, node, name,
                   "expected a mapping of header names to "
                   "values");
    for (size_t i = 0; !is_null(node) && i < node->n; i++) {
        const up_ynode *v = node->items[i];

        if (v->kind != UP_Y_SCALAR || !header_ok(key_text(node, i), v->value))
            return bad(ld, v, name,
                       "header '%s': expected a name without ':' or "
                       "spaces and a one-line string value without control "
                       "characters",
                       key_text(node, i));
    }
    clear_headers(pc);
    pc->headers_src = src_at(ld, node);
    for (size_t i = 0; !is_null(node) && i < node->n; i++) {
        UP_GROW(pc->headers, pc->headers_cap, pc->nheaders + 1);
        pc->headers[pc->nheaders].name = up_xstrdup(key_text(node, i));
        pc->headers[pc->nheaders++].value = up_xstrdup(node->items[i]->value);
    }
    return 0;
}

static void add_alias(up_config *cfg, const char *name, const char *target,
                      up_source src)
{
    up_alias *a = (up_alias *)up_config_alias(cfg, name);

    if (!a) {
        UP_GROW(cfg->aliases, cfg->aliases_cap, cfg->naliases + 1);
        a = &cfg->aliases[cfg->naliases++];
        a->name = up_xstrdup(name);
    } else {
        free(a->target);
    }
    a->target = up_xstrdup(target);
    a->src = src;
}

static int load_aliases(struct loader *ld, void *base, const up_ynode *node,
                        const char *name)
{
    (void)base;
    if (is_null(node))
        return 0;
    if (node->kind != UP_Y_MAP)
        return bad(ld, node, name,
                   "expected a mapping of alias names to "
                   "model strings");
    for (size_t i = 0; i < node->n; i++) {
        const up_ynode *v = node->items[i];

        if (!*key_text(node, i) || v->kind != UP_Y_SCALAR || is_null(v))
            return bad(ld, v, name, "alias '%s': expected a model string",
                       key_text(node, i));
        add_alias(ld->cfg, key_text(node, i), v->value, src_at(ld, v));
    }
    return 0;
}

static int load_cache(struct loader *ld, void *base, const up_ynode *node,
                      const char *name)
{
    (void)base;
    return walk(ld, ld->cfg, cache_keys, node, name);
}

static int load_sandbox(struct loader *ld, void *base, const up_ynode *node,
                        const char *name)
{
    (void)base;
    return walk(ld, ld->cfg, sandbox_keys, node, name);
}

/* trusted_folders is read from the user's own file (config_trust.c); a
 * folder's own file cannot trust itself. */
static int load_trusted(struct loader *ld, void *base, const up_ynode *node,
                        const char *name)
{
    (void)base;
    if (ld->cfg->path_project)
        up_config_warn(ld->cfg,
                       "'%s':%d: %s is read only from your own config "
                       "(~/.config/upskill/config.yaml or $UPSKILL_CONFIG); "
                       "ignored here",
                       ld->src.what, node->line, name);
    return 0;
}

static void add_price(up_config *cfg, const char *model, const double v[3],
                      up_source src)
{
    up_price *p = (up_price *)up_config_price(cfg, model, NULL);

    if (!p) {
        UP_GROW(cfg->prices, cfg->prices_cap, cfg->nprices + 1);
        p = &cfg->prices[cfg->nprices++];
        p->model = up_xstrdup(model);
    }
    p->input = v[0];
    p->output = v[1];
    p->cached = v[2] >= 0 ? v[2] : v[0];
    p->src = src;
}

/* prices.<model>: {input, output, cached}, USD per million tokens. */
static int load_price(struct loader *ld, const char *model,
                      const up_ynode *node, const char *name)
{
    static const char *const fields[] = {"input", "output", "cached"};
    double v[3] = {-1, -1, -1};

    if (node->kind != UP_Y_MAP)
        return bad(ld, node, name,
                   "expected a mapping with input, output "
                   "and cached");
    for (size_t i = 0; i < node->n; i++) {
        const up_ynode *x = node->items[i];
        size_t j = 0;

        while (j < 3 && strcmp(fields[j], key_text(node, i)))
            j++;
        if (j == 3) {
            up_config_warn(ld->cfg, "'%s':%d: unknown key '%s.%s'",
                           ld->src.what, node->keys[i]->line, name,
                           key_text(node, i));
            continue;
        }
        if (x->kind != UP_Y_SCALAR || parse_double(x->value, &v[j]) || v[j] < 0)
            return bad(ld, x, name,
                       "%s: expected a number of USD per "
                       "million tokens",
                       fields[j]);
    }
    if (v[0] < 0 || v[1] < 0)
        return bad(ld, node, name, "expected both input and output prices");
    add_price(ld->cfg, model, v, src_at(ld, node));
    return 0;
}

static int load_prices(struct loader *ld, void *base, const up_ynode *node,
                       const char *name)
{
    up_buf section = UP_BUF_INIT;
    int rc = 0;

    (void)base;
    if (is_null(node))
        return 0;
    if (node->kind != UP_Y_MAP)
        return bad(ld, node, name,
                   "expected a mapping of model ids to "
                   "prices");
    for (size_t i = 0; i < node->n && !rc; i++) {
        join_name(&section, name, key_text(node, i));
        rc = load_price(ld, key_text(node, i), node->items[i], section.data);
    }
    up_buf_release(&section);
    return rc;
}

/* ---- life cycle ------------------------------------------------------- */

void up_config_init(up_config *cfg)
{
    up_source def = {UP_SRC_DEFAULT, NULL, 0};

    memset(cfg, 0, sizeof(*cfg));
    cfg->getenv_fn = real_getenv;
    set_str(&cfg->skill_generation_model, "sonnet", def);
    set_str(&cfg->skills_dir, "skills", def);
    set_str(&cfg->runs_dir, "runs", def);
    cfg->max_refine_attempts.value = 2;
    cfg->concurrency.value = 4;
    cfg->max_answer_bytes.value = 1048576;
    cfg->artifact_max_bytes.value = 262144;
    cfg->max_history_bytes.value = 67108864;    /* UP_AGENT_MAX_HISTORY */
    cfg->workspace_max_bytes.value = 268435456; /* UP_WS_QUOTA_BYTES */
    cfg->workspace_max_files.value = 10000;     /* UP_WS_QUOTA_FILES */
    cfg->min_tests.value = 3;
    cfg->max_tests.value = 8;
    cfg->margin_points.value = 5;
    cfg->max_tokens.value = UP_DEFAULT_MAX_TOKENS;
    cfg->cache_enabled.value = 1;
    cfg->cache_ttl_days.value = 30;
    cfg->cache_lock_timeout.value = 5; /* as UP_CACHE_WAIT_MS (cache.h) */
    cfg->sandbox_cpu_s.value = 10;     /* the sandbox's defaults (sandbox.h) */
    cfg->sandbox_wall_s.value = 30;
    cfg->sandbox_memory_mb.value = 1024;
    cfg->sandbox_call_memory_mb.value = 1024;
    cfg->sandbox_file_size_mb.value = 64;
    cfg->sandbox_processes.value = 64;
    cfg->sandbox_output_kb.value = 64;
    for (int i = 0; i < UP_PROV_COUNT; i++) {
        up_provider_cfg *pc = &cfg->providers[i];

        set_str(&pc->base_url, up_preset_at(i)->base_url, def);
        set_str(&pc->api_key_env, up_preset_at(i)->key_env, def);
        pc->connect_timeout.value = 10;
        pc->timeout.value = 600;
        pc->idle_timeout.value = 300;
        pc->first_byte_timeout.value = 45;
    }
}

int up_config_set_max_tokens(up_config *cfg, long n, const char *flag,
                             up_error *err)
{
    if (n == UP_MAX_TOKENS_UNSET)
        return 0;
    if (n < 1 || n > MAX_TOKENS_CAP)
        return up_error_set(err, UP_EUSAGE, "%s must be 1 to %ld", flag,
                            MAX_TOKENS_CAP);
    cfg->max_tokens.value = n;
    cfg->max_tokens.src = (up_source){UP_SRC_FLAG, flag, 0};
    return 0;
}

static void release_strs(up_config *cfg)
{
    up_cfg_str *strs[] = {&cfg->skill_generation_model,
                          &cfg->eval_model,
                          &cfg->test_gen_model,
                          &cfg->skills_dir,
                          &cfg->runs_dir,
                          &cfg->prompts_dir,
                          &cfg->cache_path,
                          &cfg->workspace_dir};

    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        free(strs[i]->value);
    for (int i = 0; i < UP_PROV_COUNT; i++) {
        free(cfg->providers[i].base_url.value);
        free(cfg->providers[i].api_key_env.value);
        clear_headers(&cfg->providers[i]);
        free(cfg->providers[i].headers);
    }
}

void up_config_release(up_config *cfg)
{
    release_strs(cfg);
    for (size_t i = 0; i < cfg->naliases; i++) {
        free(cfg->aliases[i].name);
        free(cfg->aliases[i].target);
    }
    free(cfg->aliases);
    for (size_t i = 0; i < cfg->nprices; i++)
        free(cfg->prices[i].model);
    free(cfg->prices);
    for (size_t i = 0; i < cfg->nwarnings; i++)
        free(cfg->warnings[i]);
    free(cfg->warnings);
    for (size_t i = 0; i < cfg->nfallback; i++) {
        up_fallback_var *v = &cfg->fallback[i];

        memset(v->value, 0, strlen(v->value));
        free(v->value);
        free(v->name);
        free((char *)v->src.what);
    }
    free(cfg->fallback);
    free(cfg->path);
    free(cfg->trust);
    memset(cfg, 0, sizeof(*cfg));
}

void up_config_set_env(up_config *cfg, up_getenv_fn fn, void *ctx)
{
    cfg->getenv_fn = fn ? fn : real_getenv;
    cfg->getenv_ctx = ctx;
}

/* ---- layers ----------------------------------------------------------- */

/* "line N: what" from the YAML parser becomes "'path':N: what". */
static int syntax_error(const char *path, up_error *err)
{
    char msg[UP_ERROR_MAX];
    char *end = NULL;
    long line;

    if (!err)
        return UP_EPARSE;
    memcpy(msg, err->msg, sizeof(msg));
    line = strncmp(msg, "line ", 5) ? 0 : strtol(msg + 5, &end, 10);
    if (line > 0 && end && *end == ':')
        return up_error_set(err, UP_EPARSE, "'%s':%ld:%s", path, line, end + 1);
    return up_error_set(err, UP_EPARSE, "'%s': %s", path, msg);
}

/*
 * Settings that must agree: min_tests <= max_tests when the file gives
 * both (a bound from another layer pulls the other along, see gen.h).
 */
static int check_file(const up_config *cfg, up_error *err)
{
    const up_cfg_int *lo = &cfg->min_tests, *hi = &cfg->max_tests;

    if (lo->src.kind != UP_SRC_FILE || hi->src.kind != UP_SRC_FILE ||
        lo->value <= hi->value)
        return 0;
    return up_error_set(err, UP_EPARSE,
                        "'%s':%d: min_tests: %ld is above max_tests (%ld, "
                        "line %d)",
                        cfg->path, lo->src.line, lo->value, hi->value,
                        hi->src.line);
}

static void set_path(up_config *cfg, const char *path)
{
    char *p = up_xstrdup(path);

    free(cfg->path);
    cfg->path = p;
}

int up_config_parse(up_config *cfg, const char *text, size_t len,
                    const char *path, up_error *err)
{
    up_ydoc doc = {0};
    struct loader ld;
    int rc;

    set_path(cfg, path);
    ld = (struct loader){cfg, {UP_SRC_FILE, cfg->path, 0}, err};
    rc = up_yaml_parse(&doc, text, len, 1, err);
    if (rc) {
        rc = syntax_error(cfg->path, err);
        goto out;
    }
    for (size_t i = 0; i < doc.nissues; i++)
        if (!strstr(doc.issues[i].msg, "flow"))
            up_config_warn(cfg, "'%s':%d: %s", cfg->path, doc.issues[i].line,
                           doc.issues[i].msg);
    if (doc.root && doc.root->kind != UP_Y_MAP && !is_null(doc.root))
        rc = bad(&ld, doc.root, "top level",
                 "expected a mapping of "
                 "settings, not %s",
                 up_yaml_kind_name(doc.root));
    else if (doc.root)
        rc = walk(&ld, cfg, top_keys, doc.root, "");
    if (!rc)
        rc = check_file(cfg, err);
out:
    up_ydoc_release(&doc);
    return rc;
}

/* The preset's base-URL variables, a later one beating an earlier. */
static void apply_env_urls(up_config *cfg, int kind)
{
    const char *const *vars = up_preset_at(kind)->base_envs;
    up_cfg_str *url = &cfg->providers[kind].base_url;

    for (size_t i = 0; i < 3 && vars[i]; i++) {
        up_source src;
        const char *v = up_config_getenv_src(cfg, vars[i], &src);

        /* a fallback file's URL is below the config file and the env */
        if (v && (src.kind == UP_SRC_ENV || url->src.kind == UP_SRC_DEFAULT))
            set_str(url, v, src);
    }
}

void up_config_apply_env(up_config *cfg)
{
    for (int k = 0; k < UP_PROV_COUNT; k++)
        apply_env_urls(cfg, k);
}

/* Where the config file is, in upstream's order; a variable from a
 * fallback file (.env) makes it a file of the folder (config_trust.c). */
static void find_file(up_config *cfg)
{
    up_source es;
    const char *env = up_config_getenv_src(cfg, "UPSKILL_CONFIG", &es);
    const char *home = up_config_host_env(cfg, "HOME");
    up_buf b = UP_BUF_INIT;

    if (env) {
        cfg->path = expand_tilde(cfg, env);
        cfg->why = "UPSKILL_CONFIG env var";
        cfg->path_project = es.kind != UP_SRC_ENV;
    } else if (up_fs_is_file("upskill.config.yaml")) {
        cfg->path = up_xstrdup("upskill.config.yaml");
        cfg->why = "project-local config";
        cfg->path_project = 1;
    } else if (home) {
        up_fs_join(&b, home, ".config/upskill/config.yaml");
        if (up_fs_is_file(b.data)) {
            cfg->path = up_buf_detach(&b);
            cfg->why = "legacy user config";
        }
    }
    cfg->path_exists = cfg->path && up_fs_is_file(cfg->path);
    up_buf_release(&b);
}

/* The response cache defaults to the user's cache folder. */
static void default_cache_path(up_config *cfg)
{
    const char *xdg = up_config_host_env(cfg, "XDG_CACHE_HOME");
    const char *home = up_config_host_env(cfg, "HOME");
    up_buf b = UP_BUF_INIT;

    if (cfg->cache_path.value || cfg->cache_path.src.kind != UP_SRC_DEFAULT)
        return;
    if (xdg)
        up_fs_join(&b, xdg, "upskill/cache.sqlite");
    else if (home)
        up_fs_join(&b, home, ".cache/upskill/cache.sqlite");
    else
        up_buf_adds(&b, ".upskill-cache.sqlite");
    cfg->cache_path.value = up_buf_detach(&b);
}

/* Workspaces go to $TMPDIR when set (left NULL: the eval takes it as it
 * is, never making it), else under the user's cache folder: a disk,
 * never /dev/shm (RAM) unless the user names it. */
static void default_workspace_dir(up_config *cfg)
{
    const char *tmp = up_config_host_env(cfg, "TMPDIR");
    const char *xdg = up_config_host_env(cfg, "XDG_CACHE_HOME");
    const char *home = up_config_host_env(cfg, "HOME");
    up_buf b = UP_BUF_INIT;

    if (cfg->workspace_dir.value ||
        cfg->workspace_dir.src.kind != UP_SRC_DEFAULT)
        return;
    if (tmp && *tmp)
        return;
    if (xdg && *xdg)
        up_fs_join(&b, xdg, "upskill/work");
    else if (home && *home)
        up_fs_join(&b, home, ".cache/upskill/work");
    else
        up_buf_adds(&b, "/tmp");
    cfg->workspace_dir.value = up_buf_detach(&b);
}

int up_config_load(up_config *cfg, up_error *err)
{
    up_buf text = UP_BUF_INIT;
    char *path = NULL;
    int rc = up_config_load_fallbacks(cfg, ".", err);

    if (rc)
        return rc;
    find_file(cfg);
    if (cfg->path_exists) {
        path = up_xstrdup(cfg->path);
        rc = up_fs_read(&text, path, CONFIG_MAX_READ, err);
        if (!rc)
            rc = up_config_parse(cfg, text.data, text.len, path, err);
    }
    if (!rc) {
        up_config_apply_env(cfg);
        default_cache_path(cfg);
        up_config_load_trust(cfg);
        default_workspace_dir(cfg);
        rc = up_config_check_limits(cfg, err);
    }
    free(path);
    up_buf_release(&text);
    return rc;
}

void up_config_load_user(up_config *mine, const up_config *cfg,
                         const char *path)
{
    up_buf text = UP_BUF_INIT;
    up_error err = {0};

    up_config_init(mine);
    up_config_set_env(mine, cfg->getenv_fn, cfg->getenv_ctx);
    if (path && up_fs_is_file(path) &&
        !up_fs_read(&text, path, CONFIG_MAX_READ, &err) &&
        up_config_parse(mine, text.data, text.len, path, &err)) {
        /* half a file is not the user's setting: the defaults then */
        up_config_release(mine);
        up_config_init(mine);
        up_config_set_env(mine, cfg->getenv_fn, cfg->getenv_ctx);
    }
    default_workspace_dir(mine);
    up_buf_release(&text);
}

/* ---- flags and lookups ------------------------------------------------ */

/* The table row for a dotted key, and in *base the struct it lives in. */
static const struct key *flag_key(up_config *cfg, const char *key, void **base)
{
    const char *dot;
    enum up_provider_kind kind;
    char *name;
    int rc;

    *base = cfg;
    if (!strncmp(key, "cache.", 6))
        return find_key(cache_keys, key + 6);
    if (strncmp(key, "providers.", 10))
        return find_key(top_keys, key);
    key += 10;
    dot = strchr(key, '.');
    if (!dot)
        return NULL;
    name = up_xstrndup(key, (size_t)(dot - key));
    rc = up_provider_parse(&kind, name);
    free(name);
    if (rc)
        return NULL;
    *base = &cfg->providers[kind];
    return find_key(prov_keys, dot + 1);
}

int up_config_set(up_config *cfg, const char *key, const char *value,
                  const char *flag, up_error *err)
{
    struct loader ld = {cfg, {UP_SRC_FLAG, flag, 0}, err};
    up_ynode v = {.kind = UP_Y_SCALAR, .style = UP_YS_DQUOTED};
    void *base;
    const struct key *k = flag_key(cfg, key, &base);

    char hint[UP_NEAR_MAX + 32];

    if (!k || k->type >= V_MAP)
        return up_error_set(err, UP_EUSAGE, "unknown setting '%s'%s", key,
                            near_key(hint, sizeof(hint), top_keys, key));
    v.value = (char *)value;
    return apply_one(&ld, base, k, &v, key);
}

const up_alias *up_config_alias(const up_config *cfg, const char *name)
{
    for (size_t i = 0; cfg && i < cfg->naliases; i++)
        if (!strcmp(cfg->aliases[i].name, name))
            return &cfg->aliases[i];
    return NULL;
}

const up_price *up_config_price(const up_config *cfg, const char *resolved,
                                const char *model_id)
{
    const char *keys[] = {resolved, model_id};

    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; keys[k] && i < cfg->nprices; i++)
            if (!strcmp(cfg->prices[i].model, keys[k]))
                return &cfg->prices[i];
    return NULL;
}
