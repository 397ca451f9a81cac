/*
 * upskill config, the document and its rendering.
 *
 * One JSON document is built from the config (flat dotted keys, the same
 * names up_config_set takes, each with its source); --json prints it,
 * otherwise it is rendered as text.  An API key's variable is shown by
 * name with "set" or "unset", never its value; header values are never
 * shown.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

/* The CLI sees only the public headers, so it keeps its own one-liner. */
static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *source(const up_source *src)
{
    up_buf b = UP_BUF_INIT;
    json_t *j;

    up_source_format(src, &b);
    j = json_string(b.data);
    up_buf_release(&b);
    return j;
}

/* settings[name] = {"value": value, "source": ...}; returns the entry. */
static json_t *put(json_t *settings, const char *name, json_t *value,
                   const up_source *src)
{
    json_t *e = json_pack("{s:o,s:o}", "value", value, "source", source(src));

    json_object_set_new(settings, name, e);
    return e;
}

/* A model setting, with what it resolves to (or why it does not). */
static void put_model(json_t *st, const char *name, const up_cfg_str *s,
                      const up_config *cfg)
{
    json_t *e = put(st, name, str_or_null(s->value), &s->src);
    up_model m;
    up_error err = {0};

    if (!s->value)
        return;
    up_model_init(&m);
    if (up_model_resolve(&m, s->value, NULL, NULL, cfg, &err) == 0)
        json_object_set_new(e, "resolved", json_string(m.resolved));
    else
        json_object_set_new(e, "error", json_string(err.msg));
    up_model_release(&m);
}

/*
 * "key": "set" or "unset", never the value, and "key_source": where a set
 * key comes from ("env OPENAI_API_KEY", "fastagent.secrets.yaml:3").
 */
static void put_key(json_t *e, const up_config *cfg, const char *var)
{
    up_source src;
    const char *v = var ? up_config_getenv_src(cfg, var, &src) : NULL;

    json_object_set_new(e, "key", json_string(v ? "set" : "unset"));
    if (v)
        json_object_set_new(e, "key_source", source(&src));
}

static void put_provider(json_t *st, const up_config *cfg,
                         enum up_provider_kind k)
{
    const up_provider_cfg *pc = &cfg->providers[k];
    const char *pn = up_provider_name(k);
    json_t *names = json_array(), *e;
    char name[96];

#define PNAME(f) (snprintf(name, sizeof(name), "providers.%s.%s", pn, f), name)
    put(st, PNAME("base_url"), str_or_null(pc->base_url.value),
        &pc->base_url.src);
    e = put(st, PNAME("api_key_env"), str_or_null(pc->api_key_env.value),
            &pc->api_key_env.src);
    put_key(e, cfg, pc->api_key_env.value);
    for (size_t i = 0; i < pc->nheaders; i++)
        json_array_append_new(names, json_string(pc->headers[i].name));
    put(st, PNAME("headers"), names, &pc->headers_src);
    put(st, PNAME("connect_timeout"), json_real(pc->connect_timeout.value),
        &pc->connect_timeout.src);
    put(st, PNAME("timeout"), json_real(pc->timeout.value), &pc->timeout.src);
    put(st, PNAME("idle_timeout"), json_real(pc->idle_timeout.value),
        &pc->idle_timeout.src);
    put(st, PNAME("first_byte_timeout"),
        json_real(pc->first_byte_timeout.value), &pc->first_byte_timeout.src);
    put(st, PNAME("max_tokens"),
        pc->max_tokens.value > 0 ? json_integer(pc->max_tokens.value)
                                 : json_null(),
        &pc->max_tokens.src);
#undef PNAME
}

/* The settings that are one value each, in the order shown. */
enum kind { K_STR, K_INT, K_BOOL };

static const struct plain {
    const char *name;
    enum kind kind;
    size_t off; /* of the up_cfg_str or up_cfg_int in up_config */
} plain[] = {
#define S(name, kind, field)                                                   \
    {                                                                          \
        name, kind, offsetof(up_config, field)                                 \
    }
    S("skills_dir", K_STR, skills_dir),
    S("runs_dir", K_STR, runs_dir),
    S("prompts_dir", K_STR, prompts_dir),
    S("max_refine_attempts", K_INT, max_refine_attempts),
    S("concurrency", K_INT, concurrency),
    S("max_answer_bytes", K_INT, max_answer_bytes),
    S("artifact_max_bytes", K_INT, artifact_max_bytes),
    S("max_history_bytes", K_INT, max_history_bytes),
    S("workspace_dir", K_STR, workspace_dir),
    S("workspace_max_bytes", K_INT, workspace_max_bytes),
    S("workspace_max_files", K_INT, workspace_max_files),
    S("min_tests", K_INT, min_tests),
    S("max_tests", K_INT, max_tests),
    S("margin_points", K_INT, margin_points),
    S("max_tokens", K_INT, max_tokens),
    S("cache.enabled", K_BOOL, cache_enabled),
    S("cache.path", K_STR, cache_path),
    S("cache.ttl_days", K_INT, cache_ttl_days),
    S("sandbox.cpu_seconds", K_INT, sandbox_cpu_s),
    S("sandbox.wall_seconds", K_INT, sandbox_wall_s),
    S("sandbox.memory_mb", K_INT, sandbox_memory_mb),
    S("sandbox.call_memory_mb", K_INT, sandbox_call_memory_mb),
    S("sandbox.file_size_mb", K_INT, sandbox_file_size_mb),
    S("sandbox.processes", K_INT, sandbox_processes),
    S("sandbox.output_kb", K_INT, sandbox_output_kb),
#undef S
};

static void put_plain(json_t *st, const up_config *cfg, const struct plain *p)
{
    const char *field = (const char *)cfg + p->off;
    const up_cfg_str *s = (const up_cfg_str *)(const void *)field;
    const up_cfg_int *n = (const up_cfg_int *)(const void *)field;

    if (p->kind == K_STR)
        put(st, p->name, str_or_null(s->value), &s->src);
    else
        put(st, p->name,
            p->kind == K_BOOL ? json_boolean(n->value) : json_integer(n->value),
            &n->src);
}

static json_t *build_settings(const up_config *cfg)
{
    json_t *st = json_object(), *al = json_object(), *pr = json_object();

    put_model(st, "skill_generation_model", &cfg->skill_generation_model, cfg);
    put_model(st, "eval_model", &cfg->eval_model, cfg);
    put_model(st, "test_gen_model", &cfg->test_gen_model, cfg);
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        put_plain(st, cfg, &plain[i]);
    put(st, "cache.lock_timeout", json_real(cfg->cache_lock_timeout.value),
        &cfg->cache_lock_timeout.src);
    for (int k = 0; k < UP_PROV_COUNT; k++)
        put_provider(st, cfg, (enum up_provider_kind)k);
    for (size_t i = 0; i < cfg->naliases; i++)
        put(al, cfg->aliases[i].name, json_string(cfg->aliases[i].target),
            &cfg->aliases[i].src);
    for (size_t i = 0; i < cfg->nprices; i++) {
        const up_price *p = &cfg->prices[i];

        put(pr, p->model,
            json_pack("{s:f,s:f,s:f}", "input", p->input, "output", p->output,
                      "cached", p->cached),
            &p->src);
    }
    return json_pack("{s:o,s:o,s:b,s:o,s:o,s:o}", "config_file",
                     str_or_null(cfg->path), "config_source",
                     str_or_null(cfg->why), "config_exists", cfg->path_exists,
                     "settings", st, "aliases", al, "prices", pr);
}

static json_t *warnings(const up_config *cfg)
{
    json_t *a = json_array();

    for (size_t i = 0; i < cfg->nwarnings; i++)
        json_array_append_new(a, json_string(cfg->warnings[i]));
    return a;
}

/* Header names, comma-separated; their values are never shown. */
static void print_names(const json_t *a)
{
    size_t i;
    json_t *x;

    if (!json_array_size(a))
        printf("(none)");
    json_array_foreach(a, i, x)
    {
        printf("%s%s", i ? ", " : "", out_safe(json_string_value(x)));
    }
}

/* A price: "input 3, output 15, cached 0.3". */
static void print_fields(const json_t *o)
{
    const char *k;
    json_t *x;
    int first = 1;

    json_object_foreach((json_t *)o, k, x)
    {
        printf("%s%s %g", first ? "" : ", ", out_safe(k), json_number_value(x));
        first = 0;
    }
}

static void print_value(const json_t *e)
{
    const json_t *v = json_object_get(e, "value"), *x;
    char *s;

    if (json_is_null(v)) {
        printf("(unset)");
    } else if (json_is_string(v)) {
        printf("%s", out_safe(json_string_value(v)));
    } else if (json_is_real(v)) {
        printf("%g", json_real_value(v));
    } else if (json_is_array(v)) {
        print_names(v);
    } else if (json_is_object(v)) {
        print_fields(v);
    } else {
        s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        printf("%s", out_safe(s));
        free(s);
    }
    if ((x = json_object_get(e, "resolved")))
        printf(" -> %s", out_safe(json_string_value(x)));
    if ((x = json_object_get(e, "error")))
        printf(" -> %serror: %s%s", out_c(C_RED),
               out_safe(json_string_value(x)), out_c(C_RESET));
    if ((x = json_object_get(e, "key")))
        printf(": %s", out_safe(json_string_value(x)));
    if ((x = json_object_get(e, "key_source")))
        printf(" (%s)", out_safe(json_string_value(x)));
}

static void print_section(const json_t *obj, const char *title)
{
    const char *name;
    json_t *e;

    if (title && json_object_size(obj))
        printf("\n%s:\n", title);
    json_object_foreach((json_t *)obj, name, e)
    {
        printf("%s%-36s ", title ? "  " : "", out_safe(name));
        print_value(e);
        printf("  %s[%s]%s\n", out_c(C_DIM),
               json_string_value(json_object_get(e, "source")), out_c(C_RESET));
    }
}

void config_report_text(const up_config *cfg, const json_t *doc)
{
    if (!cfg->path)
        printf("config file: defaults (no config file found)\n\n");
    else if (!cfg->path_exists)
        printf("config file: %s (%s; file missing, using defaults)\n\n",
               out_safe(cfg->path), cfg->why);
    else
        printf("config file: %s (%s)\n\n", out_safe(cfg->path), cfg->why);
    print_section(json_object_get(doc, "settings"), NULL);
    print_section(json_object_get(doc, "aliases"),
                  "aliases from the config (built-in ones: docs/models.md)");
    print_section(json_object_get(doc, "prices"),
                  "prices (USD per million tokens)");
}

json_t *config_report_build(const up_config *cfg)
{
    json_t *doc = build_settings(cfg);

    json_object_set_new(doc, "warnings", warnings(cfg));
    return doc;
}
