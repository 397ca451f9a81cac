/*
 * Model strings, as upstream upskill (fast-agent) writes them:
 *
 *     [provider.]model[.effort][:suffix]
 *
 * resolved against a built-in alias table (upstream's, fast-agent 0.4.53)
 * that the config can extend or override, into one endpoint: which
 * protocol, where, which key variable, which model id, which effort.
 * The resolved string (up_model.resolved) is what records must carry,
 * never only the alias.  docs/models.md describes the rules.
 *
 * Ownership: an up_model owns its strings; up_model_release frees them.
 */
#ifndef UPSKILL_MODEL_H
#define UPSKILL_MODEL_H

#include <stddef.h>

#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/provider.h"

/* Reasoning effort from the ".effort" suffix; UP_EFFORT_UNSET when none. */
enum up_effort {
    UP_EFFORT_UNSET,
    UP_EFFORT_NONE,
    UP_EFFORT_MINIMAL,
    UP_EFFORT_LOW,
    UP_EFFORT_MEDIUM,
    UP_EFFORT_HIGH,
    UP_EFFORT_XHIGH,
    UP_EFFORT_MAX
};

typedef struct up_model {
    char *spec;  /* the string as the user gave it: "sonnet.high" */
    char *alias; /* the alias that was expanded ("sonnet"), or NULL */
    enum up_provider_kind provider;
    char *model_id; /* sent as "model": "claude-sonnet-4-5",
                       "moonshotai/Kimi-K2-Instruct-0905:groq" */
    char *resolved; /* what records carry: provider.model_id[.effort],
                       e.g. "anthropic.claude-sonnet-4-5.high" */
    enum up_effort effort;
    const char *effort_value; /* static: the level as the provider names it
                                 (reasoning_effort for OpenAI-like,
                                 output_config.effort for Anthropic), or
                                 NULL when effort is unset */
    char *base_url;           /* no trailing slash */
    up_source base_url_src;
    char *api_key_env;  /* NAME of the key's variable, or NULL: send
                           no key */
    int key_required;   /* 1: a missing key is an error before sending
                           (hosted providers, or a variable the user
                           named); 0: a local server may take none */
    up_header *headers; /* extra headers (copies), in order */
    size_t nheaders;
    long connect_timeout_ms;
    long timeout_ms;
    long idle_timeout_ms;
    long first_byte_ms;
    int max_tokens; /* output cap: a --max-tokens flag, else
                       providers.<name>.max_tokens, else max_tokens;
                       0: none set (the caller's default applies) */
} up_model;

void up_model_init(up_model *m);
void up_model_release(up_model *m);

/*
 * The reference students of Harbor tasks (docs/harbor.md): "oracle" runs
 * the task's solution/solve.sh in the workspace, "null" does nothing.
 * Neither has an endpoint or a key, and neither sends a request; they
 * resolve to themselves.  UP_REF_NONE for any other model string.
 */
enum up_ref_student { UP_REF_NONE, UP_REF_ORACLE, UP_REF_NULL };
enum up_ref_student up_model_reference(const char *spec);

/*
 * Resolve spec into out (which must be initialised; it is released
 * first).
 *
 * Without base_url_override: the ":suffix" is split off, the ".effort"
 * suffix taken, aliases expanded (the config's first, then the built-in
 * table; an alias may name another, up to 8 deep), the provider taken
 * from the "provider." prefix (a preset, upskill/preset.h) or inferred
 * from a bare name (claude-* is anthropic, gpt-* and o1/o3/o4 are openai,
 * gemini-* google, deepseek-* deepseek, grok-* xai, qwen-* aliyun), and
 * the endpoint filled from cfg's providers (built-in defaults when cfg is
 * NULL).  A user's ":suffix" replaces an alias's (kimi:together).
 * Upstream's "?reasoning=LEVEL" (or =TOKENS, the nearest level) sets the
 * effort and beats a ".effort" suffix.
 *
 * With base_url_override (the --base-url / --eval-base-url flags): the
 * model goes to that OpenAI-compatible endpoint as provider generic; no
 * alias is expanded, one leading preset name ("anthropic.", "openai.",
 * "deepseek."...) is dropped, the effort suffix is still taken; the key
 * variable is api_key_env_override (NULL: no key); the timeouts are
 * generic's.  "responses." keeps its own wire (the server's Responses
 * API) and timeouts.
 *
 * Errors (UP_EPARSE, message names the spec in quotes): empty spec or
 * model, unknown model or provider, a provider upstream knows that we do
 * not speak (codexresponses, bedrock, ...: the message names what to use
 * instead), an effort level the provider cannot take, a query option
 * other than reasoning, an alias loop, a preset without a default URL
 * (azure) given none.
 */
int up_model_resolve(up_model *out, const char *spec,
                     const char *base_url_override,
                     const char *api_key_env_override, const up_config *cfg,
                     up_error *err);

/*
 * An endpoint for model m: the wire kind, URL, key (read from the
 * variable m names, through cfg's environment), headers and timeouts.
 * *headers receives the header lines, owned by the caller (free with
 * up_strv_free, also on error); the endpoint points into m and them.
 * UP_EAUTH when the provider needs a key and its variable is unset (a
 * local OpenAI-compatible server without one is fine), UP_EPARSE when
 * the key holds a control character (the variable is named, never the
 * value), UP_EUSAGE when the URL comes from a file of the current folder
 * and the key from the environment of an untrusted folder
 * (up_config_check_key).
 */
int up_model_endpoint(up_endpoint *ep, char ***headers, const up_model *m,
                      const up_config *cfg, up_error *err);

/* The effort level's name ("high"), or NULL for UP_EFFORT_UNSET. */
const char *up_effort_name(enum up_effort effort);

/* One row of the built-in alias table. */
typedef struct up_builtin_alias {
    const char *name;
    const char *target;
} up_builtin_alias;

/* The built-in alias table, upstream's, *n rows. */
const up_builtin_alias *up_model_builtin_aliases(size_t *n);

#endif
