/*
 * upskill.config.yaml and the settings it resolves.
 *
 * Layers, lowest first: built-in defaults, the config file, the
 * environment, command-line flags.  Each setting records where its value
 * came from (up_source) so `upskill config` can say so.  Providers name
 * the environment variable that holds the key (api_key_env), and only the
 * HTTP layer reads its value.  Below the environment lie the fallback
 * files upstream users keep keys in (fastagent.secrets.yaml,
 * fastagent.config.yaml, .env): their values are held in memory
 * (fallback) and never printed, logged, hashed or put in a message.
 *
 * Ownership: an up_config owns every string it points to, except the
 * `what` of a flag source (borrowed, normally a string literal) and the
 * environment hook's context; up_config_release frees the rest.
 */
#ifndef UPSKILL_CONFIG_H
#define UPSKILL_CONFIG_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/preset.h"

/* "anthropic", "openai", "generic", "hf", "deepseek"...; "?" out of
   range. */
const char *up_provider_name(enum up_provider_kind kind);
/* Set *kind from a provider name; UP_ENOTFOUND when it is none of ours. */
int up_provider_parse(enum up_provider_kind *kind, const char *name);

enum up_src_kind { UP_SRC_DEFAULT, UP_SRC_ENV, UP_SRC_FILE, UP_SRC_FLAG };

/* Where a setting's value came from. */
typedef struct up_source {
    enum up_src_kind kind;
    const char *what; /* ENV: variable name (static); FILE: the config
                         path (owned by the up_config); FLAG: the flag as
                         given to up_config_set (borrowed); DEFAULT: NULL */
    int line;         /* FILE only: 1-based line of the value */
} up_source;

/* "default", "env GENERIC_BASE_URL", "upskill.config.yaml:4", "flag --x". */
void up_source_format(const up_source *src, up_buf *out);

typedef struct up_cfg_str {
    char *value; /* NULL: unset (YAML null) */
    up_source src;
} up_cfg_str;

typedef struct up_cfg_int {
    long value; /* booleans are 0 or 1 */
    up_source src;
} up_cfg_int;

typedef struct up_cfg_num {
    double value;
    up_source src;
} up_cfg_num;

typedef struct up_header {
    char *name;
    char *value;
} up_header;

/* providers.<name> */
typedef struct up_provider_cfg {
    up_cfg_str base_url;
    up_cfg_str api_key_env; /* the NAME of the variable, never its value */
    up_header *headers;     /* extra request headers, in file order */
    size_t nheaders;
    size_t headers_cap;            /* private: allocated entries */
    up_source headers_src;         /* where the headers mapping came from */
    up_cfg_num connect_timeout;    /* seconds */
    up_cfg_num timeout;            /* seconds, whole request */
    up_cfg_num idle_timeout;       /* seconds without a byte */
    up_cfg_num first_byte_timeout; /* seconds until a streamed reply begins */
    up_cfg_int max_tokens;         /* output cap; 0: the top-level max_tokens */
} up_provider_cfg;

/* aliases.<name>: a model string, which may name another alias. */
typedef struct up_alias {
    char *name;
    char *target;
    up_source src;
} up_alias;

/* prices.<model id>: USD per million tokens. */
typedef struct up_price {
    char *model; /* a resolved model id, with or without "provider." */
    double input;
    double output;
    double cached; /* cached input tokens; equals input when not given */
    up_source src;
} up_price;

/*
 * One variable from a fallback file: fast-agent's provider settings under
 * the variable they stand for ("openai.api_key" -> OPENAI_API_KEY), or a
 * .env line.  value may be a secret: never print it.
 */
typedef struct up_fallback_var {
    char *name;
    char *value;
    up_source src; /* UP_SRC_FILE: the file and line */
} up_fallback_var;

/* Reads one environment variable: NULL when unset. */
typedef const char *(*up_getenv_fn)(const char *name, void *ctx);

typedef struct up_config {
    char *path;       /* the config file in use, or NULL for none */
    const char *why;  /* "UPSKILL_CONFIG env var", "project-local config",
                         "legacy user config", or NULL */
    int path_exists;  /* 0 when UPSKILL_CONFIG names a missing file */
    int path_project; /* 1: path is a file of the current folder (the
                         project-local config, or UPSKILL_CONFIG or HOME
                         taken from a fallback file), not the user's own */
    char *trust;      /* why this folder's files may send a key from the
                         environment ("--trust-config", "trusted_folders in
                         'FILE'"); NULL: they may not (config_trust.c) */
    up_cfg_str skill_generation_model; /* legacy key: model */
    up_cfg_str eval_model;
    up_cfg_str test_gen_model;
    up_cfg_str skills_dir;
    up_cfg_str runs_dir;
    up_cfg_str prompts_dir; /* NULL: the built-in prompts */
    up_cfg_int max_refine_attempts;
    up_cfg_int concurrency;
    up_cfg_int max_answer_bytes;   /* eval: bytes kept per answer */
    up_cfg_int artifact_max_bytes; /* message text per case artifact */
    /* agent mode: tool arguments and results one conversation may hold */
    up_cfg_int max_history_bytes;
    /* agent mode: where workspaces go, and what each may hold */
    up_cfg_str workspace_dir; /* default: $TMPDIR, else the cache folder */
    up_cfg_int workspace_max_bytes;
    up_cfg_int workspace_max_files;
    up_cfg_int min_tests; /* generate: fewest cases to ask for (1..100) */
    up_cfg_int max_tests; /* generate: most cases to ask for (1..100) */
    /* the verdict's "no meaningful effect" margin in points (0..50) */
    up_cfg_int margin_points;
    up_cfg_int max_tokens; /* output cap per answer; a flag sets src FLAG,
                              which beats providers.<name>.max_tokens */
    up_cfg_int cache_enabled;
    up_cfg_str cache_path;
    up_cfg_int cache_ttl_days;
    up_cfg_num cache_lock_timeout; /* seconds to wait for a locked cache */
    /* the run tool's limits per call (sandbox.*; docs/config.md) */
    up_cfg_int sandbox_cpu_s;
    up_cfg_int sandbox_wall_s;
    up_cfg_int sandbox_memory_mb;
    up_cfg_int sandbox_call_memory_mb; /* the whole call (memory cgroup) */
    up_cfg_int sandbox_file_size_mb;
    up_cfg_int sandbox_processes;
    up_cfg_int sandbox_output_kb;
    up_provider_cfg providers[UP_PRESET_MAX]; /* UP_PROV_COUNT used */
    up_alias *aliases;                        /* from the file, in file order */
    size_t naliases;
    up_price *prices;
    size_t nprices;
    char **warnings; /* "'file':3: unknown key 'x'", for the CLI to print */
    size_t nwarnings;
    size_t aliases_cap, prices_cap, warnings_cap; /* private: allocated */
    up_getenv_fn getenv_fn; /* how the environment is read */
    void *getenv_ctx;
    /* below the environment, first match wins (see config_secrets.c) */
    up_fallback_var *fallback;
    size_t nfallback, fallback_cap;
} up_config;

/*
 * Fill cfg with the built-in defaults; the environment hook is the
 * process environment.  Never fails.
 */
void up_config_init(up_config *cfg);
void up_config_release(up_config *cfg);

/* Read the environment through fn(name, ctx) instead (tests). */
void up_config_set_env(up_config *cfg, up_getenv_fn fn, void *ctx);

/*
 * The --max-tokens flag: n becomes the output cap of every model, above
 * the config's keys.  flag names the flag in messages and in the
 * source; UP_MAX_TOKENS_UNSET (the flag's initial value: not given)
 * changes nothing.  UP_EUSAGE when n is out of range (1 to 10,000,000).
 */
#define UP_MAX_TOKENS_UNSET (-1L)
int up_config_set_max_tokens(up_config *cfg, long n, const char *flag,
                             up_error *err);

/*
 * Look up one environment variable through cfg's hook; "" counts as unset.
 * When the environment does not set it, the fallback files' value (see
 * up_config_load_fallbacks), if any.
 */
const char *up_config_getenv(const up_config *cfg, const char *name);

/*
 * As up_config_getenv, and *src (when not NULL) says where the value came
 * from: UP_SRC_ENV with the name, or UP_SRC_FILE with a fallback file and
 * line; UP_SRC_DEFAULT when unset.
 */
const char *up_config_getenv_src(const up_config *cfg, const char *name,
                                 up_source *src);

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
 * Find the config file in upstream's order (UPSKILL_CONFIG, used even
 * when missing; ./upskill.config.yaml; ~/.config/upskill/config.yaml),
 * parse it into cfg when it exists, then apply the environment.  cfg must
 * have been initialised.  Errors: UP_EPARSE (syntax or a wrong type,
 * naming file and line), UP_EIO, UP_ETOOBIG.  Unknown keys only add
 * warnings.
 */
int up_config_load(up_config *cfg, up_error *err);

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
 * Apply one flag: key is a config key ("eval_model", "concurrency",
 * "providers.generic.base_url", "cache.enabled"), value its text, flag
 * the flag's name for the source (borrowed: it must outlive cfg).
 * Errors: UP_EUSAGE for an unknown key or a value of the wrong type,
 * "--flag: expected a whole number".
 */
int up_config_set(up_config *cfg, const char *key, const char *value,
                  const char *flag, up_error *err);

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
