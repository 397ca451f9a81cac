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
 * As up_config_getenv, and *src (when not NULL) says where the value came
 * from: UP_SRC_ENV with the name, or UP_SRC_FILE with a fallback file and
 * line; UP_SRC_DEFAULT when unset.
 */
const char *up_config_getenv_src(const up_config *cfg, const char *name,
                                 up_source *src);

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
 * Apply one flag: key is a config key ("eval_model", "concurrency",
 * "providers.generic.base_url", "cache.enabled"), value its text, flag
 * the flag's name for the source (borrowed: it must outlive cfg).
 * Errors: UP_EUSAGE for an unknown key or a value of the wrong type,
 * "--flag: expected a whole number".
 */
int up_config_set(up_config *cfg, const char *key, const char *value,
                  const char *flag, up_error *err);

#endif
