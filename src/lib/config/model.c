/*
 * Model strings -> endpoints.
 *
 * A spec is taken apart in a fixed order, the one fast-agent uses, so
 * upstream's strings mean the same here: a trailing ".effort" (also
 * accepted after the ":suffix", where the canonical form puts it), then
 * the ":suffix" (text after the last colon), then aliases are expanded on
 * what remains (config aliases first, then the built-in table), then the
 * "provider." prefix is matched or the provider inferred from a bare name.
 * A user's suffix replaces an alias's; a user's effort beats an alias's.
 *
 * Every table here is data: the alias table is upstream's verbatim, the
 * effort table says what each effort set accepts; the providers are the
 * preset table (upskill/preset.h), and upstream's other provider names
 * are rows here that say what to use instead, so their use gets a clear
 * error instead of a silent fallback.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/config/config_lib.h"
#include "upskill/harness.h"
#include "upskill/alloc.h"
#include "upskill/model.h"
#include "upskill/near.h"
#include "upskill/preset.h"

#define MAX_ALIAS_DEPTH 8

/* fast-agent 0.4.53's aliases (reference/upskill.md §2.10), verbatim. */
static const up_builtin_alias builtin[] = {
    {"sonnet", "claude-sonnet-4-5"},
    {"sonnet45", "claude-sonnet-4-5"},
    {"claude", "claude-sonnet-4-5"},
    {"sonnet4", "claude-sonnet-4-0"},
    {"sonnet35", "claude-3-5-sonnet-latest"},
    {"sonnet37", "claude-3-7-sonnet-latest"},
    {"haiku", "claude-haiku-4-5"},
    {"haiku45", "claude-haiku-4-5"},
    {"haiku3", "claude-3-haiku-20240307"},
    {"haiku35", "claude-3-5-haiku-latest"},
    {"opus", "claude-opus-4-6"},
    {"opus46", "claude-opus-4-6"},
    {"opus4", "claude-opus-4-1"},
    {"opus45", "claude-opus-4-5"},
    {"opus3", "claude-3-opus-latest"},
    {"gpt51", "responses.gpt-5.1"},
    {"gpt52", "responses.gpt-5.2"},
    {"codex", "responses.gpt-5.2-codex"},
    {"codexplan", "codexresponses.gpt-5.3-codex"},
    {"codexplan52", "codexresponses.gpt-5.2-codex"},
    {"codexspark", "codexresponses.gpt-5.3-codex-spark"},
    {"deepseek", "deepseek-chat"},
    {"deepseek3", "deepseek-chat"},
    {"deepseekv3", "deepseek-chat"},
    {"gemini2", "gemini-2.0-flash"},
    {"gemini25", "gemini-2.5-flash-preview-09-2025"},
    {"gemini25pro", "gemini-2.5-pro"},
    {"gemini3", "gemini-3-pro-preview"},
    {"gemini3flash", "gemini-3-flash-preview"},
    {"kimi", "hf.moonshotai/Kimi-K2-Instruct-0905:groq"},
    {"kimigroq", "groq.moonshotai/kimi-k2-instruct-0905"},
    {"kimithink", "hf.moonshotai/Kimi-K2-Thinking:together"},
    {"kimi25", "hf.moonshotai/Kimi-K2.5:fireworks-ai"},
    {"gpt-oss", "hf.openai/gpt-oss-120b:cerebras"},
    {"gpt-oss-20b", "hf.openai/gpt-oss-20b"},
    {"glm", "hf.zai-org/GLM-5:novita"},
    {"glm5", "hf.zai-org/GLM-5:novita"},
    {"glm47", "hf.zai-org/GLM-4.7:cerebras"},
    {"qwen3", "hf.Qwen/Qwen3-Next-80B-A3B-Instruct:together"},
    {"minimax", "hf.MiniMaxAI/MiniMax-M2.1:novita"},
    {"deepseek31", "hf.deepseek-ai/DeepSeek-V3.1"},
    {"deepseek32", "hf.deepseek-ai/DeepSeek-V3.2:fireworks-ai"},
    {"grok-4-fast", "xai.grok-4-fast-non-reasoning"},
    {"grok-4-fast-reasoning", "xai.grok-4-fast-reasoning"},
};

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

/*
 * Effort levels and what each provider is sent, indexed by the preset's
 * effort set (upskill/preset.h); NULL means the provider cannot take
 * that level.  OpenAI (and its Responses API, and Azure) takes every
 * reasoning_effort level it documents; OpenAI-compatible servers
 * (generic, the HF router's backends, the hosted presets) the common
 * subset that llama.cpp, Ollama and vLLM accept; Anthropic takes
 * output_config.effort levels (what a level means on the wire, thinking
 * budgets included, is the provider's business:
 * src/providers/anthropic.c).
 */
static const struct effort_row {
    enum up_effort level;
    const char *name;
    const char *value[UP_EFFORTS_COUNT]; /* anthropic, openai, compat */
} efforts[] = {
    {UP_EFFORT_NONE, "none", {NULL, "none", "none"}},
    {UP_EFFORT_MINIMAL, "minimal", {NULL, "minimal", NULL}},
    {UP_EFFORT_LOW, "low", {"low", "low", "low"}},
    {UP_EFFORT_MEDIUM, "medium", {"medium", "medium", "medium"}},
    {UP_EFFORT_HIGH, "high", {"high", "high", "high"}},
    {UP_EFFORT_XHIGH, "xhigh", {"xhigh", "xhigh", NULL}},
    {UP_EFFORT_MAX, "max", {"max", "max", NULL}},
};

#define NEFFORTS (sizeof(efforts) / sizeof(efforts[0]))

/*
 * upstream's provider names that are not presets: spoken as another
 * preset (as), or not spoken, with the reason and what to use instead
 * (alt: a provider prefix for the same model, or NULL).
 */
static const struct prov_row {
    const char *name;
    const char *as;
    const char *why;
    const char *alt;
} provs[] = {
    {"googleoai", "google", NULL, NULL},
    {"codexresponses", NULL, "it signs in with a ChatGPT account",
     "responses."},
    {"openresponses", NULL, "give any server's Responses API with --base-url",
     "responses."},
    {"tensorzero", NULL,
     "give the gateway's OpenAI-compatible URL with "
     "--base-url",
     "generic."},
    {"bedrock", NULL,
     "AWS signing is not implemented; Claude is served by "
     "Anthropic's API",
     "anthropic."},
    {"fast-agent", NULL,
     "its test models are not models; tests use "
     "fake-llm (docs/fake-llm.md)",
     NULL},
};

/*
 * Bare model names: the provider of upstream's defaults (fast-agent
 * 0.4.53's DEFAULT_PROVIDERS), by prefix so the family's newer names
 * follow, or by the whole name (exact); the first matching row wins.
 * gpt-5 and later speak the Responses API as upstream's do; the o-series
 * stays on Chat Completions (docs/upstream-differences.md).
 */
static const struct bare_row {
    const char *prefix;
    const char *provider;
    int exact; /* the whole name, not a prefix */
} bares[] = {
    {"gpt-5.3-codex-spark", "codexresponses", 1},
    {"qwen3-max", "aliyun", 1},
    {"gpt-5", "responses", 0},
    {"claude-", "anthropic", 0},
    {"gpt-", "openai", 0},
    {"chatgpt-", "openai", 0},
    {"o1", "openai", 0},
    {"o3", "openai", 0},
    {"o4", "openai", 0},
    {"gemini-", "google", 0},
    {"deepseek-", "deepseek", 0},
    {"grok-", "xai", 0},
    {"qwen-", "aliyun", 0},
};

/* A spec taken apart. */
struct parts {
    up_buf base;   /* [provider.]model, no suffix, no effort */
    up_buf suffix; /* after the last ':', without it; may be empty */
    const struct effort_row *effort;
};

const char *up_effort_name(enum up_effort effort)
{
    for (size_t i = 0; i < NEFFORTS; i++)
        if (efforts[i].level == effort)
            return efforts[i].name;
    return NULL;
}

const up_builtin_alias *up_model_builtin_aliases(size_t *n)
{
    *n = NBUILTIN;
    return builtin;
}

void up_model_init(up_model *m)
{
    memset(m, 0, sizeof(*m));
}

void up_model_release(up_model *m)
{
    free(m->spec);
    free(m->alias);
    free(m->model_id);
    free(m->resolved);
    free(m->base_url);
    free(m->api_key_env);
    for (size_t i = 0; i < m->nheaders; i++) {
        free(m->headers[i].name);
        free(m->headers[i].value);
    }
    free(m->headers);
    up_model_init(m);
}

/* If b ends in ".level" with something before it, strip it and say which. */
static const struct effort_row *strip_effort(up_buf *b)
{
    const char *dot = strrchr(b->data, '.');

    if (!dot || dot == b->data)
        return NULL;
    for (size_t i = 0; i < NEFFORTS; i++) {
        if (!strcmp(dot + 1, efforts[i].name)) {
            up_buf_truncate(b, (size_t)(dot - b->data));
            return &efforts[i];
        }
    }
    return NULL;
}

static void parts_init(struct parts *p)
{
    up_buf_init(&p->base);
    up_buf_init(&p->suffix);
    p->effort = NULL;
}

static void parts_release(struct parts *p)
{
    up_buf_release(&p->base);
    up_buf_release(&p->suffix);
}

/* Split text into p (which is reset first). */
static void split(struct parts *p, const char *text)
{
    const char *colon;

    up_buf_reset(&p->base);
    up_buf_reset(&p->suffix);
    up_buf_adds(&p->base, text);
    p->effort = strip_effort(&p->base);
    colon = strrchr(p->base.data, ':');
    if (colon && colon != p->base.data) {
        up_buf_adds(&p->suffix, colon + 1);
        up_buf_truncate(&p->base, (size_t)(colon - p->base.data));
    }
    if (!p->effort)
        p->effort = strip_effort(&p->base);
}

static const char *find_alias(const up_config *cfg, const char *name)
{
    const up_alias *a = up_config_alias(cfg, name);

    if (a)
        return a->target;
    for (size_t i = 0; i < NBUILTIN; i++)
        if (!strcmp(builtin[i].name, name))
            return builtin[i].target;
    return NULL;
}

/* Expand aliases on p->base; the first alias name goes to out->alias. */
static int expand(up_model *out, struct parts *p, const up_config *cfg,
                  up_error *err)
{
    struct parts t;
    const char *target;
    int depth = 0, rc = 0;

    parts_init(&t);
    while ((target = find_alias(cfg, p->base.data))) {
        if (++depth > MAX_ALIAS_DEPTH) {
            rc = up_error_set(err, UP_EPARSE,
                              "'%s': alias loop (more than %d aliases deep)",
                              out->spec, MAX_ALIAS_DEPTH);
            goto out;
        }
        if (!out->alias)
            out->alias = up_xstrdup(p->base.data);
        split(&t, target);
        up_buf_reset(&p->base);
        up_buf_adds(&p->base, t.base.data);
        if (!p->suffix.len)
            up_buf_adds(&p->suffix, t.suffix.data);
        if (!p->effort)
            p->effort = t.effort;
    }
out:
    parts_release(&t);
    return rc;
}

/* "'kimi' resolves to 'x'" or "'x'", for messages. */
static void subject(up_buf *b, const up_model *m, const struct parts *p)
{
    up_buf_addf(b, "'%s'", m->spec);
    if (m->alias)
        up_buf_addf(b, " resolves to '%s'", p->base.data);
}

static int unsupported(const up_model *m, const struct parts *p,
                       const struct prov_row *row, const char *model,
                       up_error *err)
{
    up_buf s = UP_BUF_INIT, alt = UP_BUF_INIT;
    int rc;

    subject(&s, m, p);
    if (row->alt)
        up_buf_addf(&alt, "; use '%s%s' instead", row->alt, model);
    rc = up_error_set(err, UP_EPARSE,
                      "%s: provider '%s' is not supported (%s)%s", s.data,
                      row->name, row->why, alt.data);
    up_buf_release(&s);
    up_buf_release(&alt);
    return rc;
}

/*
 * The preset kind of a provider name, or -1; *row set to the
 * prov_row when the name is upstream's but not a preset's.
 */
static int find_prov(const char *name, size_t len, const struct prov_row **row)
{
    int k = up_preset_find(name, len);

    *row = NULL;
    for (size_t i = 0; k < 0 && i < sizeof(provs) / sizeof(provs[0]); i++)
        if (strlen(provs[i].name) == len && !strncmp(provs[i].name, name, len))
            *row = &provs[i];
    if (*row && (*row)->as) {
        k = up_preset_find((*row)->as, strlen((*row)->as));
        *row = NULL;
    }
    return k;
}

static int infer_prov(const char *model, const struct prov_row **row)
{
    *row = NULL;
    for (size_t i = 0; i < sizeof(bares) / sizeof(bares[0]); i++)
        if (bares[i].exact
                ? !strcmp(model, bares[i].prefix)
                : !strncmp(model, bares[i].prefix, strlen(bares[i].prefix)))
            return find_prov(bares[i].provider, strlen(bares[i].provider), row);
    return -1;
}

/*
 * The provider named before sep ('/' or '.') in base, as fast-agent
 * reads "openai/gpt-4.1" and "openai.gpt-4.1": its kind (-1 when none)
 * and *model after sep; *row as find_prov sets it.
 */
static int named_prov(const char *base, int sep, const char **model,
                      const struct prov_row **row)
{
    const char *at = strchr(base, sep);
    int k;

    *row = NULL;
    if (!at || at == base || (sep == '/' && !at[1]))
        return -1;
    k = find_prov(base, (size_t)(at - base), row);
    if (k >= 0 || *row)
        *model = at + 1;
    return k;
}

/* "did you mean 'ALIAS'? or " for the built-in alias nearest to name. */
static const char *near_alias(char *out, size_t size, const char *name)
{
    size_t n = 0;
    const up_builtin_alias *t = up_model_builtin_aliases(&n);
    const char *v[256], *pick;
    size_t k = 0;

    for (size_t i = 0; i < n && k < 256; i++)
        v[k++] = t[i].name;
    pick = up_nearest(name, v, k);
    *out = '\0';
    if (pick)
        snprintf(out, size, "did you mean '%s'? or ", pick);
    return out;
}

/* Set out->provider and the model id from p: "provider/model" (checked
 * first, as fast-agent does), "provider.model", else a bare name. */
static int pick_provider(up_model *out, const struct parts *p, up_error *err)
{
    const char *base = p->base.data;
    const struct prov_row *row = NULL;
    const char *model = base;
    up_buf s = UP_BUF_INIT;
    int k = named_prov(base, '/', &model, &row);
    char hint[UP_NEAR_MAX + 32];

    if (k < 0 && !row)
        k = named_prov(base, '.', &model, &row);
    if (k < 0 && !row)
        k = infer_prov(base, &row);
    if (row)
        return unsupported(out, p, row, model, err);
    if (k < 0) {
        subject(&s, out, p);
        up_error_set(err, UP_EPARSE,
                     "%s: unknown model or provider (%swrite provider.model, "
                     "e.g. generic.%s, or give a base URL)",
                     s.data, near_alias(hint, sizeof(hint), base), base);
        up_buf_release(&s);
        return UP_EPARSE;
    }
    if (!*model)
        return up_error_set(err, UP_EPARSE, "'%s': empty model name",
                            out->spec);
    out->provider = (enum up_provider_kind)k;
    up_buf_adds(&s, model);
    if (p->suffix.len)
        up_buf_addf(&s, ":%s", p->suffix.data);
    out->model_id = up_buf_detach(&s);
    return 0;
}

static int set_effort(up_model *out, const struct effort_row *e, up_error *err)
{
    up_buf ok = UP_BUF_INIT;
    int set = up_preset_at((int)out->provider)->efforts;

    if (!e)
        return 0;
    if (e->value[set]) {
        out->effort = e->level;
        out->effort_value = e->value[set];
        return 0;
    }
    for (size_t i = 0; i < NEFFORTS; i++)
        if (efforts[i].value[set])
            up_buf_addf(&ok, "%s%s", ok.len ? ", " : "", efforts[i].name);
    up_error_set(err, UP_EPARSE,
                 "'%s': effort '%s' is not supported by %s (supported: %s)",
                 out->spec, e->name, up_provider_name(out->provider), ok.data);
    up_buf_release(&ok);
    return UP_EPARSE;
}

static char *trim_url(const char *url)
{
    size_t n = strlen(url);

    while (n && url[n - 1] == '/')
        n--;
    return up_xstrndup(url, n);
}

static long to_ms(double secs)
{
    return (long)(secs * 1000.0 + 0.5);
}

/*
 * The output cap: a flag, else the provider's key, else the top-level
 * key; 0 when nobody set one (the caller's default applies).
 */
static int pick_max_tokens(const up_config *cfg, const up_provider_cfg *pc)
{
    if (cfg->max_tokens.src.kind == UP_SRC_FLAG || pc->max_tokens.value <= 0)
        return cfg->max_tokens.src.kind == UP_SRC_DEFAULT
                   ? 0
                   : (int)cfg->max_tokens.value;
    return (int)pc->max_tokens.value;
}

static void add_header(up_model *out, const char *name, const char *value)
{
    out->headers[out->nheaders].name = up_xstrdup(name);
    out->headers[out->nheaders++].value = up_xstrdup(value);
}

/* 1 when the config's headers name this one (any case). */
static int config_has(const up_provider_cfg *pc, const char *name)
{
    for (size_t i = 0; i < pc->nheaders; i++)
        if (!strcasecmp(pc->headers[i].name, name))
            return 1;
    return 0;
}

/* The preset's default headers the config does not replace, then the
   config's. */
static void fill_headers(up_model *out, const up_provider_cfg *pc)
{
    const up_preset *p = up_preset_at((int)out->provider);
    size_t np = sizeof(p->headers) / sizeof(p->headers[0]);

    if (!pc->nheaders && !p->headers[0].name)
        return;
    out->headers = up_xcalloc(pc->nheaders + np, sizeof(*out->headers));
    for (size_t i = 0; i < np && p->headers[i].name; i++)
        if (!config_has(pc, p->headers[i].name))
            add_header(out, p->headers[i].name, p->headers[i].value);
    for (size_t i = 0; i < pc->nheaders; i++)
        add_header(out, pc->headers[i].name, pc->headers[i].value);
}

/* Fill the endpoint from cfg's settings for out->provider. */
static void fill_endpoint(up_model *out, const up_config *cfg, int headers)
{
    const up_provider_cfg *pc = &cfg->providers[out->provider];

    out->base_url = trim_url(pc->base_url.value ? pc->base_url.value : "");
    out->base_url_src = pc->base_url.src;
    if (pc->api_key_env.value)
        out->api_key_env = up_xstrdup(pc->api_key_env.value);
    out->key_required =
        out->api_key_env && (!up_preset_at((int)out->provider)->key_optional ||
                             pc->api_key_env.src.kind != UP_SRC_DEFAULT);
    out->connect_timeout_ms = to_ms(pc->connect_timeout.value);
    out->timeout_ms = to_ms(pc->timeout.value);
    out->idle_timeout_ms = to_ms(pc->idle_timeout.value);
    out->first_byte_ms = to_ms(pc->first_byte_timeout.value);
    out->max_tokens = pick_max_tokens(cfg, pc);
    if (headers)
        fill_headers(out, pc);
}

static void set_resolved(up_model *out)
{
    up_buf b = UP_BUF_INIT;
    const char *e = up_effort_name(out->effort);

    up_buf_addf(&b, "%s.%s", up_provider_name(out->provider), out->model_id);
    if (e)
        up_buf_addf(&b, ".%s", e);
    out->resolved = up_buf_detach(&b);
}

/* A model sent as given to an OpenAI-compatible URL from a flag. */
static int resolve_override(up_model *out, struct parts *p, const char *url,
                            const char *key_env, const up_config *cfg,
                            up_error *err)
{
    const char *base = p->base.data, *dot = strchr(base, '.');
    int k = dot ? up_preset_find(base, (size_t)(dot - base)) : -1;
    up_buf id = UP_BUF_INIT;

    if (k >= 0)
        base = dot + 1;
    if (!*base)
        return up_error_set(err, UP_EPARSE, "'%s': empty model name",
                            out->spec);
    up_buf_adds(&id, base);
    if (p->suffix.len)
        up_buf_addf(&id, ":%s", p->suffix.data);
    out->model_id = up_buf_detach(&id);
    out->provider = k >= 0 && up_preset_at(k)->keep_on_override
                        ? (enum up_provider_kind)k
                        : UP_PROV_GENERIC;
    fill_endpoint(out, cfg, 0);
    free(out->base_url);
    free(out->api_key_env);
    out->base_url = trim_url(url);
    out->base_url_src = (up_source){UP_SRC_FLAG, NULL, 0};
    out->api_key_env = key_env ? up_xstrdup(key_env) : NULL;
    out->key_required = key_env != NULL;
    return set_effort(out, p->effort, err);
}

static const struct effort_row *effort_named(const char *name, size_t len)
{
    for (size_t i = 0; i < NEFFORTS; i++)
        if (strlen(efforts[i].name) == len &&
            !strncmp(efforts[i].name, name, len))
            return &efforts[i];
    return NULL;
}

/* ?reasoning=N: a thinking budget in tokens, as the nearest level. */
static const struct {
    long upto;
    const char *level;
} budgets[] = {
    {0, "none"}, {2048, "low"}, {16384, "medium"}, {LONG_MAX, "high"}};

static const struct effort_row *effort_of_budget(const char *v, size_t len)
{
    char num[24];
    long n;

    if (!len || len >= sizeof(num) || strspn(v, "0123456789") != len)
        return NULL;
    memcpy(num, v, len);
    num[len] = '\0';
    n = strtol(num, NULL, 10);
    for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++)
        if (n <= budgets[i].upto)
            return effort_named(budgets[i].level, strlen(budgets[i].level));
    return NULL;
}

/*
 * Upstream's query options after '?': reasoning=LEVEL or reasoning=N
 * (a budget in tokens, taken as the nearest level); it beats a
 * ".effort" suffix.  Any other option is refused by name.
 */
static int take_query(struct parts *p, const char *q, const up_model *m,
                      up_error *err)
{
    while (*q) {
        size_t n = strcspn(q, "&"), k = strcspn(q, "=&");
        const struct effort_row *e = NULL;

        if (k < n && k == 9 && !strncmp(q, "reasoning", 9))
            e = effort_named(q + 10, n - 10);
        if (k < n && k == 9 && !strncmp(q, "reasoning", 9) && !e)
            e = effort_of_budget(q + 10, n - 10);
        if (!e)
            return up_error_set(err, UP_EPARSE,
                                "'%s': query option '%.*s' is not supported "
                                "(expected ?reasoning=LEVEL or "
                                "?reasoning=TOKENS, e.g. ?reasoning=high)",
                                m->spec, (int)n, q);
        p->effort = e;
        q += n + (q[n] == '&');
    }
    return 0;
}

/* Split spec into p, with upstream's "?options" taken. */
static int split_spec(struct parts *p, const up_model *m, up_error *err)
{
    const char *q = strchr(m->spec, '?');
    char *head =
        up_xstrndup(m->spec, q ? (size_t)(q - m->spec) : strlen(m->spec));
    int rc = 0;

    split(p, head);
    free(head);
    if (q)
        rc = take_query(p, q + 1, m, err);
    return rc;
}

/* A preset without a default URL (Azure) needs one from the user. */
static int check_base(const up_model *m, up_error *err)
{
    const up_preset *pr = up_preset_at((int)m->provider);

    if (m->base_url && *m->base_url)
        return 0;
    return up_error_set(err, UP_EPARSE,
                        "'%s': no base URL for provider '%s' (%s)", m->spec,
                        pr->name, pr->note ? pr->note : "set one");
}

/* 1 when a dot of [provider.]model starts, ends or doubles a part. */
static int bad_dots(const char *base)
{
    size_t n = strlen(base);

    return base[0] == '.' || base[n - 1] == '.' || strstr(base, "..");
}

enum up_ref_student up_model_reference(const char *spec)
{
    static const char *const names[] = {"oracle", "null"};

    for (size_t i = 0; spec && i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcmp(spec, names[i]))
            return (enum up_ref_student)(UP_REF_ORACLE + i);
    return UP_REF_NONE;
}

/* A reference student: itself, no endpoint, no key (nothing is sent). */
static void resolve_reference(up_model *out)
{
    out->provider = UP_PROV_GENERIC;
    out->model_id = up_xstrdup(out->spec);
    out->resolved = up_xstrdup(out->spec);
    out->key_required = 0;
}

int up_model_resolve(up_model *out, const char *spec,
                     const char *base_url_override,
                     const char *api_key_env_override, const up_config *cfg,
                     up_error *err)
{
    up_config defaults;
    struct parts p;
    int rc;

    up_model_release(out);
    up_config_init(&defaults);
    parts_init(&p);
    if (!cfg)
        cfg = &defaults;
    out->spec = up_xstrdup(spec ? spec : "");
    if (strncmp(out->spec, "cli.", 4) == 0) { /* a coding-agent CLI */
        rc = up_harness_model_resolve(out, out->spec, base_url_override,
                                      api_key_env_override, err);
        goto out;
    }
    if (up_model_reference(out->spec)) {
        resolve_reference(out);
        rc = 0;
        goto out;
    }
    if ((rc = split_spec(&p, out, err)))
        goto out;
    if (!p.base.len) {
        rc =
            up_error_set(err, UP_EPARSE, "'%s': empty model string", out->spec);
        goto out;
    }
    if (bad_dots(p.base.data)) {
        rc = up_error_set(err, UP_EPARSE,
                          "'%s': a part of the model string is empty "
                          "(expected [provider.]model[.effort], e.g. "
                          "generic.qwen3-4b.high)",
                          out->spec);
        goto out;
    }
    if (base_url_override && *base_url_override) {
        rc = resolve_override(out, &p, base_url_override, api_key_env_override,
                              cfg, err);
    } else {
        rc = expand(out, &p, cfg, err);
        if (!rc)
            rc = pick_provider(out, &p, err);
        if (!rc)
            rc = set_effort(out, p.effort, err);
        if (!rc)
            fill_endpoint(out, cfg, 1);
        if (!rc)
            rc = check_base(out, err);
    }
    if (!rc)
        set_resolved(out);
out:
    parts_release(&p);
    up_config_release(&defaults);
    if (rc) {
        char *keep = out->spec;

        out->spec = NULL;
        up_model_release(out);
        out->spec = keep;
    }
    return rc;
}

int up_model_endpoint(up_endpoint *ep, char ***headers, const up_model *m,
                      const up_config *cfg, up_error *err)
{
    const char *key =
        m->api_key_env && cfg ? up_config_getenv(cfg, m->api_key_env) : NULL;
    char **h = up_xcalloc(m->nheaders + 1, sizeof(*h));

    up_endpoint_init_for(ep, (int)m->provider);
    for (size_t i = 0; i < m->nheaders; i++) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b, "%s: %s", m->headers[i].name, m->headers[i].value);
        h[i] = up_buf_detach(&b);
    }
    ep->base_url = m->base_url;
    ep->api_key = key && *key ? key : NULL;
    ep->headers = (const char *const *)h;
    ep->model = m->model_id;
    ep->effort = m->effort_value;
    ep->connect_timeout_ms = m->connect_timeout_ms;
    ep->total_timeout_ms = m->timeout_ms;
    ep->idle_timeout_ms = m->idle_timeout_ms;
    ep->first_byte_ms = m->first_byte_ms;
    ep->max_tokens = m->max_tokens;
    ep->stream = 1;
    *headers = h;
    if (!up_header_value_ok(key))
        return up_error_set(err, UP_EPARSE,
                            "'%s': the key in this variable contains a "
                            "control character (a line break?); nothing was "
                            "sent",
                            m->api_key_env);
    if (!ep->api_key && m->key_required)
        return up_error_set(err, UP_EAUTH, "no API key for '%s': set %s",
                            m->resolved, m->api_key_env);
    /* a folder's own file must not send the user's key to its server */
    return ep->api_key ? up_config_check_key(cfg, m->base_url, &m->base_url_src,
                                             m->api_key_env, err)
                       : 0;
}
