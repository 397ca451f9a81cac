/*
 * The fallback files upstream users keep their keys in, below the
 * environment: fast-agent's fastagent.secrets.yaml and
 * fastagent.config.yaml (provider sections mapped onto the variables we
 * read, "openai: {api_key}" -> OPENAI_API_KEY, from the preset table)
 * and a .env in the working directory.  Values are stored as variables
 * the environment lookup falls back on; they may be secrets, so no
 * message ever quotes one.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "upskill/alloc.h"
#include "upskill/config.h"
#include "upskill/fs.h"
#include "upskill/preset.h"
#include "util/yaml.h"

#define FALLBACK_MAX_READ (1024u * 1024u)

/* A fast-agent provider section and the variables it stands for. */
struct fa_map {
    const char *section;
    const char *key_var;  /* api_key */
    const char *base_var; /* base_url; NULL: not ours to set */
};

/*
 * The section of preset kind, read from the preset table so that a new
 * provider has one: fast-agent names its sections as we name our
 * presets; api_key stands for the preset's key variable, base_url for
 * the last of its base-URL variables (the one that wins).  0 when the
 * preset has no section: no key variable, or an earlier preset's
 * (responses shares openai's, and the openai section sets it).
 */
static int fa_map_of(int kind, struct fa_map *m)
{
    const up_preset *p = up_preset_at(kind);
    size_t n = 0;

    if (!p || !p->key_env)
        return 0;
    for (int i = 0; i < kind; i++)
        if (up_preset_at(i)->key_env &&
            !strcmp(up_preset_at(i)->key_env, p->key_env))
            return 0;
    while (n < sizeof(p->base_envs) / sizeof(p->base_envs[0]) &&
           p->base_envs[n])
        n++;
    *m = (struct fa_map){p->name, p->key_env, n ? p->base_envs[n - 1] : NULL};
    return 1;
}

/* The fallback entry for name from file path, or NULL. */
static up_fallback_var *find_var(up_config *cfg, const char *name,
                                 const char *path)
{
    for (size_t i = 0; i < cfg->nfallback; i++)
        if (!strcmp(cfg->fallback[i].name, name) &&
            (!path || !strcmp(cfg->fallback[i].src.what, path)))
            return &cfg->fallback[i];
    return NULL;
}

/*
 * Add name=value from path (owned by the entry: path strings are kept
 * per entry so a source outlives the loader); a later line of the same
 * file replaces the earlier one, as python-dotenv and YAML do.
 */
static void add_var(up_config *cfg, const char *name, const char *value,
                    const char *path, int line)
{
    up_fallback_var *v = find_var(cfg, name, path);

    if (!v) {
        UP_GROW(cfg->fallback, cfg->fallback_cap, cfg->nfallback + 1);
        v = &cfg->fallback[cfg->nfallback++];
        v->name = up_xstrdup(name);
        v->src = (up_source){UP_SRC_FILE, up_xstrdup(path), line};
    } else {
        free(v->value);
        v->src.line = line;
    }
    v->value = up_xstrdup(value);
}

/*
 * Variables upskill reads from the process environment only: they place
 * files (workspaces, the cache, the user's config) or decide trust, so a
 * folder's .env setting one is ignored with a warning.  Any other name a
 * .env sets is looked up only as a key, a base URL or UPSKILL_CONFIG.
 */
static const char *const env_only[] = {
    "HOME",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "UPSKILL_TRUST_CONFIG",
    "PATH",
    "UPSKILL_CLIS",
    "UPSKILL_CLI_COMMAND",
    "UPSKILL_CLI_FORMAT",
    "NO_COLOR",
    "TMP",
    "TEMP",
    "XDG_CONFIG_HOME",
};

static int is_env_only(const char *name)
{
    for (size_t i = 0; i < sizeof(env_only) / sizeof(env_only[0]); i++)
        if (!strcmp(env_only[i], name))
            return 1;
    return 0;
}

const char *up_config_host_env(const up_config *cfg, const char *name)
{
    const char *v = cfg->getenv_fn(name, cfg->getenv_ctx);

    return v && *v ? v : NULL;
}

const char *up_config_getenv_src(const up_config *cfg, const char *name,
                                 up_source *src)
{
    const char *v = cfg->getenv_fn(name, cfg->getenv_ctx);

    if (v && *v) {
        if (src)
            *src = (up_source){UP_SRC_ENV, name, 0};
        return v;
    }
    for (size_t i = 0; i < cfg->nfallback; i++)
        if (!strcmp(cfg->fallback[i].name, name) && *cfg->fallback[i].value) {
            if (src)
                *src = cfg->fallback[i].src;
            return cfg->fallback[i].value;
        }
    if (src)
        *src = (up_source){UP_SRC_DEFAULT, NULL, 0};
    return NULL;
}

/* ---- fast-agent's files ----------------------------------------------- */

static int fa_value(up_config *cfg, const up_ynode *v, const char *section,
                    const char *key, const char *var, const char *path,
                    up_error *err)
{
    if (!v ||
        (v->kind == UP_Y_SCALAR && v->style == UP_YS_PLAIN &&
         (!strcmp(v->value, "null") || !strcmp(v->value, "~") || !*v->value)))
        return 0;
    if (v->kind != UP_Y_SCALAR)
        return up_error_set(err, UP_EPARSE,
                            "'%s':%d: %s.%s: expected a string, not %s", path,
                            v->line, section, key, up_yaml_kind_name(v));
    if (strstr(v->value, "${")) {
        up_config_warn(
            cfg,
            "'%s':%d: %s.%s: ${...} is not expanded here; the value is "
            "ignored (set %s in the environment instead)",
            path, v->line, section, key, var);
        return 0;
    }
    add_var(cfg, var, v->value, path, v->line);
    return 0;
}

static int fa_section(up_config *cfg, const up_ynode *root,
                      const struct fa_map *m, const char *path, up_error *err)
{
    const up_ynode *sec = up_yaml_get(root, m->section);
    int rc;

    if (!sec || sec->kind == UP_Y_SCALAR)
        return 0;
    if (sec->kind != UP_Y_MAP)
        return up_error_set(err, UP_EPARSE,
                            "'%s':%d: %s: expected a mapping, not %s", path,
                            sec->line, m->section, up_yaml_kind_name(sec));
    rc = fa_value(cfg, up_yaml_get(sec, "api_key"), m->section, "api_key",
                  m->key_var, path, err);
    if (!rc && m->base_var)
        rc = fa_value(cfg, up_yaml_get(sec, "base_url"), m->section, "base_url",
                      m->base_var, path, err);
    return rc;
}

int up_config_parse_fastagent(up_config *cfg, const char *text, size_t len,
                              const char *path, up_error *err)
{
    up_ydoc doc = {0};
    int rc = up_yaml_parse(&doc, text, len, 1, err);

    if (rc) {
        /* the parser says "line N: what"; no value is quoted */
        char msg[UP_ERROR_MAX];

        memcpy(msg, err->msg, sizeof(msg));
        rc = up_error_set(err, UP_EPARSE, "'%s': %s", path, msg);
        goto out;
    }
    if (!doc.root || doc.root->kind != UP_Y_MAP)
        goto out;
    for (int k = 0; k < up_preset_count() && !rc; k++) {
        struct fa_map m;

        if (fa_map_of(k, &m))
            rc = fa_section(cfg, doc.root, &m, path, err);
    }
out:
    up_ydoc_release(&doc);
    return rc;
}

/* ---- .env --------------------------------------------------------------- */

static int is_name_char(char c, int first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

/* After a value: only blanks, then an optional # comment. */
static int rest_ok(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p == end || *p == '#';
}

/* A quoted value from p (at the quote); 0 when it does not close. */
static int quoted(up_buf *out, const char *p, const char *end)
{
    char q = *p++;

    for (; p < end && *p != q; p++) {
        if (q == '"' && *p == '\\' && p + 1 < end) {
            static const char from[] = "nt\"\\", to[] = "\n\t\"\\";
            const char *f = strchr(from, p[1]);

            if (f) {
                up_buf_addc(out, to[f - from]);
                p++;
                continue;
            }
        }
        up_buf_addc(out, *p);
    }
    return p < end && rest_ok(p + 1, end);
}

static void unquoted(up_buf *out, const char *p, const char *end)
{
    const char *e = p;

    /* a # starts a comment only after a blank */
    while (e < end && !(*e == '#' && e > p && (e[-1] == ' ' || e[-1] == '\t')))
        e++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    up_buf_add(out, p, (size_t)(e - p));
}

/*
 * One line: 1 added, 0 blank or comment or a bare KEY (python-dotenv
 * ignores those), -1 not KEY=VALUE.
 */
static int dotenv_line(up_config *cfg, const char *p, const char *end,
                       const char *path, int line)
{
    up_buf name = UP_BUF_INIT, value = UP_BUF_INIT;
    int rc = -1;

    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end > p && end[-1] == '\r')
        end--;
    if (p == end || *p == '#')
        return 0;
    if (end - p > 7 && !strncmp(p, "export ", 7))
        p += 7;
    for (; p < end && is_name_char(*p, !name.len); p++)
        up_buf_addc(&name, *p);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (name.len && rest_ok(p, end)) {
        rc = 0;
        goto out;
    }
    if (!name.len || p == end || *p++ != '=')
        goto out;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && (*p == '"' || *p == '\'')) {
        if (!quoted(&value, p, end))
            goto out;
    } else {
        unquoted(&value, p, end);
    }
    if (is_env_only(name.data))
        up_config_warn(cfg,
                       "'%s':%d: %s is read from your environment only, "
                       "never from a folder's .env; ignored",
                       path, line, name.data);
    else
        add_var(cfg, name.data, value.len ? value.data : "", path, line);
    rc = 1;
out:
    up_buf_release(&name);
    up_buf_release(&value);
    return rc;
}

void up_config_parse_dotenv(up_config *cfg, const char *text, size_t len,
                            const char *path)
{
    const char *p = text, *end = text + len;

    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;

        if (dotenv_line(cfg, p, e, path, line) < 0)
            up_config_warn(
                cfg,
                "'%s':%d: expected KEY=VALUE (a quote left open?); the "
                "line is ignored",
                path, line);
        p = nl ? nl + 1 : end;
    }
}

/* ---- loading ------------------------------------------------------------ */

/* 0 read, 1 no such file, or an error. */
static int read_file(up_buf *text, const char *dir, const char *name,
                     up_buf *path, up_error *err)
{
    up_buf_reset(path);
    if (!strcmp(dir, "."))
        up_buf_adds(path, name);
    else
        up_fs_join(path, dir, name);
    if (!up_fs_is_file(path->data))
        return 1;
    up_buf_reset(text);
    return up_fs_read(text, path->data, FALLBACK_MAX_READ, err);
}

int up_config_load_fallbacks(up_config *cfg, const char *dir, up_error *err)
{
    static const char *const fa_files[] = {"fastagent.secrets.yaml",
                                           "fastagent.config.yaml"};
    up_buf text = UP_BUF_INIT, path = UP_BUF_INIT;
    int rc = 0;

    for (size_t i = 0; i < 2 && !rc; i++) {
        rc = read_file(&text, dir, fa_files[i], &path, err);
        if (!rc)
            rc = up_config_parse_fastagent(cfg, text.data, text.len, path.data,
                                           err);
        if (rc > 0)
            rc = 0;
    }
    if (!rc && !(rc = read_file(&text, dir, ".env", &path, err)))
        up_config_parse_dotenv(cfg, text.data, text.len, path.data);
    up_buf_release(&text);
    up_buf_release(&path);
    return rc > 0 ? 0 : rc;
}
