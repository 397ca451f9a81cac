/*
 * Which files may send the user's key where: the trust of the current
 * folder.
 *
 * A cloned repository's upskill.config.yaml, .env or fastagent.*.yaml
 * can set a provider's base URL.  Were the key then read from the
 * user's environment, the repository's server would receive it.  The
 * invariant: a base URL from a file of the current folder (a "project
 * source") receives only a key from a project source too, unless the
 * user trusts the folder: the global flag --trust-config (which sets
 * UPSKILL_TRUST_CONFIG=1 in the environment), or the folder's real path
 * in trusted_folders of the user's own config file.  Everything that
 * decides trust is read from the process environment and the user's
 * file only, never from a file of the folder being judged (a .env could
 * otherwise set HOME, UPSKILL_CONFIG or UPSKILL_TRUST_CONFIG).
 *
 * The same trust guards the host: a setting that bounds what a run may
 * take of the machine (the guards table: workspace place and quotas,
 * sandbox limits, the memory cgroup's size, sizes held in memory,
 * requests at once) from a file of the current folder may lower the
 * user's own value (the user's config file, else the default) but not
 * raise it, nor move the workspaces, unless the folder is trusted.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "upskill/alloc.h"
#include "upskill/config.h"
#include "upskill/fs.h"
#include "util/yaml.h"

#define TRUST_MAX_READ    (1024u * 1024u) /* as the config file's own cap */
#define TRUST_MAX_FOLDERS 1000            /* entries of trusted_folders read */

/* A variable of the process environment only (no fallback file). */
static const char *real_env(const up_config *cfg, const char *name)
{
    return up_config_host_env(cfg, name);
}

/* s into out, a leading ~ as $HOME (of the process environment). */
static void add_path(const up_config *cfg, const char *s, up_buf *out)
{
    const char *home = real_env(cfg, "HOME");

    if (s[0] == '~' && (s[1] == '/' || !s[1]) && home)
        up_buf_addf(out, "%s%s", home, s + 1);
    else
        up_buf_adds(out, s);
}

/* The user's own config file into out: $UPSKILL_CONFIG, else
 * $HOME/.config/upskill/config.yaml; 0 when neither can be named. */
static int user_config_path(const up_config *cfg, up_buf *out)
{
    const char *env = real_env(cfg, "UPSKILL_CONFIG");
    const char *home = real_env(cfg, "HOME");

    if (env)
        add_path(cfg, env, out);
    else if (home)
        up_fs_join(out, home, ".config/upskill/config.yaml");
    return out->len > 0;
}

int up_config_src_is_project(const up_config *cfg, const up_source *src)
{
    if (src->kind != UP_SRC_FILE || !src->what)
        return 0;
    /* every other file source is a fallback file, read from "." */
    if (cfg->path && !strcmp(src->what, cfg->path))
        return cfg->path_project;
    return 1;
}

/* The real path of entry (a leading ~ is $HOME) into out; 0 when it is
 * not absolute. */
static int entry_path(const up_config *cfg, const char *entry, up_buf *out)
{
    char real[PATH_MAX];

    add_path(cfg, entry, out);
    if (out->data[0] != '/')
        return 0;
    if (realpath(out->data, real)) {
        up_buf_reset(out);
        up_buf_adds(out, real);
    }
    return 1;
}

/* 1 when the sequence node lists the folder cwd (a real path). */
static int lists_cwd(up_config *cfg, const up_ynode *seq, const char *path,
                     const char *cwd)
{
    up_buf b = UP_BUF_INIT;
    int found = 0;

    for (size_t i = 0; i < seq->n && i < TRUST_MAX_FOLDERS && !found; i++) {
        const up_ynode *x = seq->items[i];

        up_buf_reset(&b);
        if (x->kind != UP_Y_SCALAR || !x->value)
            up_config_warn(cfg, "'%s':%d: trusted_folders: expected a path",
                           path, x->line);
        else if (!entry_path(cfg, x->value, &b))
            up_config_warn(cfg,
                           "'%s':%d: trusted_folders: '%s' is not an "
                           "absolute path; ignored",
                           path, x->line, x->value);
        else
            found = !strcmp(b.data, cwd);
    }
    up_buf_release(&b);
    return found;
}

/* 1 when the user's own config lists cwd in trusted_folders. */
static int listed(up_config *cfg, const char *path, const char *cwd)
{
    up_buf text = UP_BUF_INIT;
    up_ydoc doc = {0};
    const up_ynode *seq = NULL;
    int found = 0;

    if (!up_fs_is_file(path) || up_fs_read(&text, path, TRUST_MAX_READ, NULL) ||
        up_yaml_parse(&doc, text.data, text.len, 1, NULL))
        goto out; /* the config's own load reports a bad file */
    if (doc.root && doc.root->kind == UP_Y_MAP)
        seq = up_yaml_get(doc.root, "trusted_folders");
    if (seq && seq->kind == UP_Y_SEQ)
        found = lists_cwd(cfg, seq, path, cwd);
    else if (seq && seq->kind != UP_Y_SCALAR)
        up_config_warn(cfg,
                       "'%s':%d: trusted_folders: expected a list of "
                       "absolute paths",
                       path, seq->line);
out:
    up_ydoc_release(&doc);
    up_buf_release(&text);
    return found;
}

/* Warn for each provider whose project-sourced URL receives a key from
 * the environment because the folder is trusted. */
static void warn_trusted(up_config *cfg)
{
    for (int k = 0; k < UP_PROV_COUNT; k++) {
        const up_provider_cfg *pc = &cfg->providers[k];
        up_source ks;

        if (!up_config_src_is_project(cfg, &pc->base_url.src) ||
            !pc->base_url.value || !pc->api_key_env.value ||
            !up_config_getenv_src(cfg, pc->api_key_env.value, &ks) ||
            up_config_src_is_project(cfg, &ks))
            continue;
        up_config_warn(cfg,
                       "'%s':%d: providers.%s.base_url '%.300s' comes from "
                       "this folder and receives the key in %s from your "
                       "environment (trusted by %s)",
                       pc->base_url.src.what, pc->base_url.src.line,
                       up_provider_name((enum up_provider_kind)k),
                       pc->base_url.value, pc->api_key_env.value, cfg->trust);
    }
}

void up_config_load_trust(up_config *cfg)
{
    const char *flag = real_env(cfg, "UPSKILL_TRUST_CONFIG");
    up_buf path = UP_BUF_INIT, why = UP_BUF_INIT;
    char cwd[PATH_MAX];

    free(cfg->trust);
    cfg->trust = NULL;
    if (flag && strcmp(flag, "0"))
        up_buf_adds(&why, "--trust-config");
    else if (realpath(".", cwd) && user_config_path(cfg, &path) &&
             listed(cfg, path.data, cwd))
        up_buf_addf(&why, "trusted_folders in '%s'", path.data);
    if (why.len)
        cfg->trust = up_buf_detach(&why);
    if (cfg->trust)
        warn_trusted(cfg);
    up_buf_release(&path);
    up_buf_release(&why);
}

/* What the user types to trust the folder, after a refusal. */
static void trust_hint(up_buf *b)
{
    char cwd[PATH_MAX];

    if (!realpath(".", cwd))
        snprintf(cwd, sizeof(cwd), "%s", "this folder");
    up_buf_addf(b,
                "If you trust this folder, run 'upskill --trust-config "
                "<command> ...' or add '%.300s' to trusted_folders in your "
                "own config (~/.config/upskill/config.yaml; see "
                "docs/config.md)",
                cwd);
}

static int refuse(up_buf *b, up_error *err)
{
    trust_hint(b);
    return up_error_set(err, UP_EUSAGE, "%s", b->data);
}

int up_config_check_key(const up_config *cfg, const char *url,
                        const up_source *url_src, const char *key_env,
                        up_error *err)
{
    up_source ks;
    up_buf b = UP_BUF_INIT;
    int rc;

    if (cfg->trust || !up_config_src_is_project(cfg, url_src) || !key_env ||
        !up_config_getenv_src(cfg, key_env, &ks) ||
        up_config_src_is_project(cfg, &ks))
        return 0;
    up_buf_addf(&b,
                "'%s':%d: base URL '%.200s' comes from a file in this "
                "folder, and the key in %s from your environment; nothing "
                "was sent. ",
                url_src->what, url_src->line, url, key_env);
    rc = refuse(&b, err);
    up_buf_release(&b);
    return rc;
}

/* ---- host-safety settings ----------------------------------------------- */

enum guard_kind {
    G_LIMIT, /* an up_cfg_int whose larger value takes more of the host */
    G_PLACE  /* an up_cfg_str naming where files go (NULL: $TMPDIR) */
};

#define GCFG(f) offsetof(up_config, f)

/* The host-safety keys: every key of docs/config.md that bounds a
 * resource of the machine, or says where the workspaces go. */
static const struct guard {
    const char *name; /* the key, as docs/config.md names it */
    enum guard_kind kind;
    size_t off; /* of the setting in up_config */
} guards[] = {
    {"concurrency", G_LIMIT, GCFG(concurrency)},
    {"max_answer_bytes", G_LIMIT, GCFG(max_answer_bytes)},
    {"artifact_max_bytes", G_LIMIT, GCFG(artifact_max_bytes)},
    {"max_history_bytes", G_LIMIT, GCFG(max_history_bytes)},
    {"workspace_dir", G_PLACE, GCFG(workspace_dir)},
    {"workspace_max_bytes", G_LIMIT, GCFG(workspace_max_bytes)},
    {"workspace_max_files", G_LIMIT, GCFG(workspace_max_files)},
    {"sandbox.cpu_seconds", G_LIMIT, GCFG(sandbox_cpu_s)},
    {"sandbox.wall_seconds", G_LIMIT, GCFG(sandbox_wall_s)},
    {"sandbox.memory_mb", G_LIMIT, GCFG(sandbox_memory_mb)},
    {"sandbox.call_memory_mb", G_LIMIT, GCFG(sandbox_call_memory_mb)},
    {"sandbox.file_size_mb", G_LIMIT, GCFG(sandbox_file_size_mb)},
    {"sandbox.processes", G_LIMIT, GCFG(sandbox_processes)},
    {"sandbox.output_kb", G_LIMIT, GCFG(sandbox_output_kb)},
};

/* What a weaker value does, by kind. */
static const char *const guard_does[] = {
    [G_LIMIT] = "raises a host limit",
    [G_PLACE] = "moves the workspaces",
};

static const up_source *guard_src(const struct guard *g, const up_config *c)
{
    const char *slot = (const char *)c + g->off;

    return g->kind == G_LIMIT ? &((const up_cfg_int *)(const void *)slot)->src
                              : &((const up_cfg_str *)(const void *)slot)->src;
}

/* The value of g in c, as a message shows it, into out. */
static void guard_text(const struct guard *g, const up_config *c, up_buf *out)
{
    const void *slot = (const char *)c + g->off;
    const char *s;

    if (g->kind == G_LIMIT) {
        up_buf_addf(out, "%ld", ((const up_cfg_int *)slot)->value);
        return;
    }
    s = ((const up_cfg_str *)slot)->value;
    if (s)
        up_buf_addf(out, "'%.300s'", s);
    else
        up_buf_adds(out, "$TMPDIR or /tmp");
}

/* 1 when cfg's value of g takes more of the host than the user's own. */
static int weaker(const struct guard *g, const up_config *cfg,
                  const up_config *mine)
{
    const void *a = (const char *)cfg + g->off;
    const void *b = (const char *)mine + g->off;
    const char *sa, *sb;

    if (g->kind == G_LIMIT)
        return ((const up_cfg_int *)a)->value > ((const up_cfg_int *)b)->value;
    sa = ((const up_cfg_str *)a)->value;
    sb = ((const up_cfg_str *)b)->value;
    return sa && sb ? strcmp(sa, sb) != 0 : sa != sb;
}

/* "'file':N: key VALUE comes from ... (yours: MINE)" into b. */
static void guard_say(const struct guard *g, const up_config *cfg,
                      const up_config *mine, const char *how, up_buf *b)
{
    const up_source *src = guard_src(g, cfg);

    up_buf_addf(b, "'%s':%d: %s ", src->what, src->line, g->name);
    guard_text(g, cfg, b);
    up_buf_addf(b, " comes from %s and %s (yours: ", how, guard_does[g->kind]);
    guard_text(g, mine, b);
    up_buf_adds(b, ")");
}

/* Check every guard against the user's own settings in mine. */
static int check_guards(up_config *cfg, const up_config *mine, up_error *err)
{
    up_buf b = UP_BUF_INIT;
    int rc = 0;

    for (size_t i = 0; i < sizeof(guards) / sizeof(guards[0]) && !rc; i++) {
        const struct guard *g = &guards[i];

        if (!up_config_src_is_project(cfg, guard_src(g, cfg)) ||
            !weaker(g, cfg, mine))
            continue;
        up_buf_reset(&b);
        if (cfg->trust) {
            guard_say(g, cfg, mine, "this folder", &b);
            up_config_warn(cfg, "%s (trusted by %s)", b.data, cfg->trust);
            continue;
        }
        guard_say(g, cfg, mine, "a file in this folder", &b);
        up_buf_adds(&b, "; nothing was run. ");
        rc = refuse(&b, err);
    }
    up_buf_release(&b);
    return rc;
}

int up_config_check_limits(up_config *cfg, up_error *err)
{
    up_config mine;
    up_buf path = UP_BUF_INIT;
    int rc;

    if (!cfg->path_project)
        return 0; /* only a config file sets these; .env cannot */
    user_config_path(cfg, &path);
    up_config_load_user(&mine, cfg, path.len ? path.data : NULL);
    rc = check_guards(cfg, &mine, err);
    up_config_release(&mine);
    up_buf_release(&path);
    return rc;
}
