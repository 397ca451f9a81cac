/*
 * upskill models: the first thing to run when setting up.  Lists the
 * models an endpoint serves, or pings each -m model with a one-line
 * prompt and prints the resolved id, latency and tokens.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char *provider = "generic", *base_url, *api_key_env;
static struct strlist models;
static int json;

static const struct opt opts[] = {
    {'m', "model", OPT_LIST, &models, "MODEL", "ping this model"},
    {0, "provider", OPT_STRING, &provider, "NAME",
     "list a provider preset's models: generic (default), openai, "
     "anthropic, deepseek... (docs/models.md)"},
    {0, "base-url", OPT_STRING, &base_url, "URL",
     "OpenAI-compatible endpoint (e.g. http://localhost:8080/v1)"},
    {0, "api-key-env", OPT_STRING, &api_key_env, "NAME",
     "variable holding that endpoint's key"},
    {0, "json", OPT_FLAG, &json, NULL, "print JSON"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_models_spec = {
    "models",
    NULL,
    "list an endpoint's models, or ping models",
    "Without -m, lists the models of --base-url or --provider.  With -m,\n"
    "sends each model one short prompt and shows what answered.",
    opts,
    0,
    0};

/* Resolve spec to an endpoint; the caller releases m and headers. */
static int endpoint(up_endpoint *ep, char ***headers, up_model *m,
                    const char *model_spec, const up_config *cfg, up_error *err)
{
    int rc = up_model_resolve(m, model_spec, base_url, api_key_env, cfg, err);

    if (!rc)
        rc = up_model_endpoint(ep, headers, m, cfg, err);
    return rc;
}

/*
 * 1 when the server's name for the model that answered (its reply's
 * "model") is not the one asked for: neither is a prefix of the other
 * (a dated snapshot of the name is the same model), ":suffix" aside.
 */
static int other_model(const char *asked, const char *answered)
{
    size_t a = strcspn(asked, ":"), b = strlen(answered);
    size_t n = a < b ? a : b;

    return *answered && strncmp(asked, answered, n) != 0;
}

/*
 * The one model a single-model server lists when it is not id (such a
 * server, llama-server for one, answers to any name and may echo it
 * back), as a new string; NULL otherwise or when there is no list.
 */
static char *only_other(const up_endpoint *ep, const char *id)
{
    char **ids = NULL;
    size_t n = 0;
    char *only = NULL;

    if (!up_provider_models(ep, &ids, &n, NULL) && n == 1 &&
        other_model(id, ids[0]))
        only = up_xstrdup(ids[0]);
    up_strv_free(ids);
    return only;
}

/* The ping's JSON entry. */
static json_t *ping_json(const char *model_spec, const up_model *m, int rc,
                         const up_response *res, const char *served)
{
    const char *by = res->model[0] ? res->model : NULL;
    int other =
        !rc && m->model_id && (served || (by && other_model(m->model_id, by)));

    return json_pack(
        "{s:s, s:s?, s:s?, s:s?, s:b, s:b, s:I, s:I, s:I, s:s?, s:s?}", "model",
        model_spec, "resolved", m->resolved, "answered_by", by, "served",
        served, "other_model", other, "ok", rc == 0, "latency_ms",
        (json_int_t)res->latency_ms, "input_tokens",
        (json_int_t)res->usage.input, "output_tokens",
        (json_int_t)res->usage.output, "reply", rc ? NULL : res->text, "error",
        rc ? res->err.msg : NULL);
}

static int ping(const char *model_spec, const up_config *cfg, json_t *out)
{
    up_model m;
    up_endpoint ep;
    up_request rq;
    up_response res;
    up_message msg = {"user", "Reply with the single word: ok"};
    char **headers = NULL, *served = NULL;
    int rc;

    up_model_init(&m);
    up_response_init(&res);
    rc = endpoint(&ep, &headers, &m, model_spec, cfg, &res.err);
    if (!rc) {
        ep.max_tokens = 64;
        up_request_init(&rq);
        rq.messages = &msg;
        rq.n_messages = 1;
        rc = up_provider_complete(&ep, &rq, NULL, NULL, NULL, &res);
    }
    if (!rc)
        served = only_other(&ep, m.model_id);
    json_array_append_new(out, ping_json(model_spec, &m, rc, &res, served));
    free(served);
    up_response_release(&res);
    up_strv_free(headers);
    up_model_release(&m);
    return rc;
}

/* Bytes of s's first max characters: never half a UTF-8 character. */
static int utf8_cut(const char *s, int max)
{
    int n = 0, chars = 0;

    for (; s[n]; n++)
        if (((unsigned char)s[n] & 0xC0) != 0x80 && ++chars > max)
            break;
    return n;
}

static void print_ok(const json_t *p)
{
    const char *reply = json_string_value(json_object_get(p, "reply"));
    const char *by = json_string_value(json_object_get(p, "answered_by"));
    const char *served = json_string_value(json_object_get(p, "served"));
    char cut[256];

    /* the first 60 characters, cut on a character, then escaped */
    snprintf(cut, sizeof(cut), "%.*s", reply ? utf8_cut(reply, 60) : 0,
             reply ? reply : "");
    printf(
        "  %sok%s  %lld ms  %lld in / %lld out tokens  \"%s\"", out_c(C_GREEN),
        out_c(C_RESET), json_integer_value(json_object_get(p, "latency_ms")),
        json_integer_value(json_object_get(p, "input_tokens")),
        json_integer_value(json_object_get(p, "output_tokens")), out_safe(cut));
    printf("%s%s\n", by ? "  answered by " : "", by ? out_safe(by) : "");
    if (json_is_true(json_object_get(p, "other_model")))
        printf("  %swarning:%s the server %s '%s', not the model asked for "
               "(a single-model server answers to any name)\n",
               out_c(C_YELLOW), out_c(C_RESET),
               served ? "serves only" : "answered as",
               out_safe(served ? served : by));
}

static void print_pings(const json_t *a)
{
    size_t i;
    json_t *p;

    json_array_foreach(a, i, p)
    {
        const char *err = json_string_value(json_object_get(p, "error"));
        const char *res = json_string_value(json_object_get(p, "resolved"));

        printf("%s%s%s -> %s\n", out_c(C_BOLD),
               out_safe(json_string_value(json_object_get(p, "model"))),
               out_c(C_RESET), res ? out_safe(res) : "?");
        if (err)
            printf("  %sfailed:%s %s\n", out_c(C_RED), out_c(C_RESET),
                   out_safe(err));
        else
            print_ok(p);
    }
}

static int list(const up_config *cfg)
{
    up_model m;
    up_endpoint ep;
    char **headers = NULL, **ids = NULL, spec_buf[64];
    size_t n = 0;
    up_error err;
    int rc;

    snprintf(spec_buf, sizeof(spec_buf), "%s.list", provider);
    up_model_init(&m);
    rc = endpoint(&ep, &headers, &m, base_url ? "list" : spec_buf, cfg, &err);
    if (!rc)
        rc = up_provider_models(&ep, &ids, &n, &err);
    if (rc)
        rc = out_fail(&err);
    if (!rc && json) {
        json_t *a = json_array();

        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, json_string(ids[i]));
        out_json(a);
        json_decref(a);
    }
    for (size_t i = 0; !rc && !json && i < n; i++)
        printf("%s\n", out_safe(ids[i]));
    up_strv_free(ids);
    up_strv_free(headers);
    up_model_release(&m);
    return rc;
}

int cmd_models(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_models_spec, argc, argv, &args, &nargs);
    up_config cfg;
    up_error err;
    json_t *pings = json_array();

    up_config_init(&cfg);
    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    rc = up_config_load(&cfg, &err);
    if (rc) {
        rc = out_fail(&err);
        goto out;
    }
    if (!models.n) {
        rc = list(&cfg);
        goto out;
    }
    for (size_t i = 0; i < models.n; i++) {
        int prc = ping(models.v[i], &cfg, pings);

        if (prc && !rc) /* the first failure's exit code */
            rc = up_exit_code(prc);
    }
    if (json)
        out_json(pings);
    else
        print_pings(pings);
out:
    json_decref(pings);
    up_config_release(&cfg);
    strlist_release(&models);
    free(args);
    return rc;
}
