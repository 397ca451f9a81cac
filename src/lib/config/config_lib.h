/*
 * Configuration: the calls of upskill/config.h that the library's other parts
 * and the tests make and src/cli never does (issue 33: include/upskill is what
 * src/cli needs).
 */
#ifndef UPSKILL_LIB_CONFIG_CONFIG_LIB_H
#define UPSKILL_LIB_CONFIG_CONFIG_LIB_H

#include "upskill/config.h"

/* Read the environment through fn(name, ctx) instead (tests). */
void up_config_set_env(up_config *cfg, up_getenv_fn fn, void *ctx);

/*
 * Look up one environment variable through cfg's hook; "" counts as unset.
 * When the environment does not set it, the fallback files' value (see
 * up_config_load_fallbacks), if any.
 */
const char *up_config_getenv(const up_config *cfg, const char *name);

/*
 * A variable of the process environment alone (through cfg's hook; ""
 * counts as unset), never a fallback file's: what places files or
 * decides trust (HOME, TMPDIR, XDG_CACHE_HOME, UPSKILL_TRUST_CONFIG) is
 * read with it.  A .env line setting such a variable is dropped with a
 * warning naming it.
 */
const char *up_config_host_env(const up_config *cfg, const char *name);

/*
 * Read the fallback files in dir, highest first: fastagent.secrets.yaml
 * and fastagent.config.yaml (fast-agent's provider sections: api_key and
 * base_url of anthropic, openai, generic, hf and the other providers'
 * api_key), then .env (KEY=VALUE lines).  Missing files are fine.  A
 * fast-agent file that is not YAML, or a provider setting of the wrong
 * type: UP_EPARSE naming the file and line.  A .env line that is not
 * KEY=VALUE only adds a warning (as python-dotenv), never its text.
 */
int up_config_load_fallbacks(up_config *cfg, const char *dir, up_error *err);

/* The fast-agent layer from len bytes of YAML; path names it. */
int up_config_parse_fastagent(up_config *cfg, const char *text, size_t len,
                              const char *path, up_error *err);

/* The .env layer from len bytes of text; path names it.  Never fails. */
void up_config_parse_dotenv(up_config *cfg, const char *text, size_t len,
                            const char *path);

/*
 * Apply len bytes of YAML text as the file layer; path names it in
 * messages and becomes cfg->path.  Errors as up_config_load.
 */
int up_config_parse(up_config *cfg, const char *text, size_t len,
                    const char *path, up_error *err);

/*
 * Apply the environment layer: ANTHROPIC_BASE_URL, OPENAI_BASE_URL (or
 * else OPENAI_API_BASE), GENERIC_BASE_URL.
 */
void up_config_apply_env(up_config *cfg);

/*
 * 1 when src is a file of the current folder: the config file when
 * cfg->path_project, or a fallback file (.env, fastagent.*.yaml).
 */
int up_config_src_is_project(const up_config *cfg, const up_source *src);

/*
 * Decide the folder's trust into cfg->trust: UPSKILL_TRUST_CONFIG set
 * (not "0") in the process environment (the flag --trust-config sets it),
 * or the current folder's real path listed in trusted_folders of the
 * user's own config ($UPSKILL_CONFIG, else ~/.config/upskill/config.yaml;
 * both read from the process environment only).  When trusted, a warning
 * per provider whose base URL from this folder receives a key from the
 * environment.  up_config_load calls it.
 */
void up_config_load_trust(up_config *cfg);

/*
 * Before the key in key_env goes to url: UP_EUSAGE, naming the file,
 * line and URL and the ways to trust the folder, when url_src is a file
 * of the current folder, the key comes from elsewhere (the environment)
 * and cfg->trust is NULL.  0 otherwise, also when key_env is NULL or
 * unset (no key is sent).  The key's value is never read into a message.
 */
int up_config_check_key(const up_config *cfg, const char *url,
                        const up_source *url_src, const char *key_env,
                        up_error *err);

/*
 * The host-safety settings (docs/config.md, "A folder's files and your
 * machine"): each one of the guards table (workspace_dir, the workspace
 * quotas, sandbox.*, concurrency and the byte caps held in memory) that
 * a file of the current folder sets must not take more of the host than
 * the user's own value (see up_config_load_user); when it would,
 * UP_EUSAGE naming the file, line, key, both values and the ways to
 * trust the folder, or, when cfg->trust is set, a warning and 0.  A
 * lower limit is always fine.  up_config_load calls it last.
 */
int up_config_check_limits(up_config *cfg, up_error *err);

/*
 * The user's own settings into mine (initialised here; release it):
 * the defaults, then the user's own config file path (NULL: none) when
 * it exists and parses, with cfg's environment hook; never a file of
 * the current folder.  A file that does not parse counts as none.
 */
void up_config_load_user(up_config *mine, const up_config *cfg,
                         const char *path);

/* The target of a config-file alias, or NULL. */
const up_alias *up_config_alias(const up_config *cfg, const char *name);

/*
 * The price for a model: the entry whose key equals resolved
 * ("anthropic.claude-sonnet-4-5") or else model_id ("claude-sonnet-4-5");
 * NULL when none.  Either argument may be NULL.
 */
const up_price *up_config_price(const up_config *cfg, const char *resolved,
                                const char *model_id);

/* Add a warning (printf-style) to cfg->warnings, for the caller to show. */
void up_config_warn(up_config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
