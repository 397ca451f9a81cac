/* Unit tests for model strings: aliases, providers, efforts, overrides. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/config/config_lib.h"
#include "upskill/upskill.h"

/*
 * Every built-in alias (reference/upskill.md's table): the provider it
 * resolves to and the model id, or (provider NULL) the error it must
 * give, which names what to use instead.
 */
static const struct {
    const char *alias;
    const char *provider; /* NULL: must fail */
    const char *want;     /* model id, or a substring of the error */
} alias_cases[] = {
    {"sonnet", "anthropic", "claude-sonnet-4-5"},
    {"sonnet45", "anthropic", "claude-sonnet-4-5"},
    {"claude", "anthropic", "claude-sonnet-4-5"},
    {"sonnet4", "anthropic", "claude-sonnet-4-0"},
    {"sonnet35", "anthropic", "claude-3-5-sonnet-latest"},
    {"sonnet37", "anthropic", "claude-3-7-sonnet-latest"},
    {"haiku", "anthropic", "claude-haiku-4-5"},
    {"haiku45", "anthropic", "claude-haiku-4-5"},
    {"haiku3", "anthropic", "claude-3-haiku-20240307"},
    {"haiku35", "anthropic", "claude-3-5-haiku-latest"},
    {"opus", "anthropic", "claude-opus-4-6"},
    {"opus46", "anthropic", "claude-opus-4-6"},
    {"opus4", "anthropic", "claude-opus-4-1"},
    {"opus45", "anthropic", "claude-opus-4-5"},
    {"opus3", "anthropic", "claude-3-opus-latest"},
    {"gpt51", "responses", "gpt-5.1"},
    {"gpt52", "responses", "gpt-5.2"},
    {"codex", "responses", "gpt-5.2-codex"},
    {"codexplan", NULL,
     "'codexplan' resolves to 'codexresponses.gpt-5.3-codex': provider "
     "'codexresponses' is not supported (it signs in with a ChatGPT "
     "account); use 'responses.gpt-5.3-codex' instead"},
    {"codexplan52", NULL, "use 'responses.gpt-5.2-codex' instead"},
    {"codexspark", NULL, "use 'responses.gpt-5.3-codex-spark' instead"},
    {"deepseek", "deepseek", "deepseek-chat"},
    {"deepseek3", "deepseek", "deepseek-chat"},
    {"deepseekv3", "deepseek", "deepseek-chat"},
    {"gemini2", "google", "gemini-2.0-flash"},
    {"gemini25", "google", "gemini-2.5-flash-preview-09-2025"},
    {"gemini25pro", "google", "gemini-2.5-pro"},
    {"gemini3", "google", "gemini-3-pro-preview"},
    {"gemini3flash", "google", "gemini-3-flash-preview"},
    {"kimi", "hf", "moonshotai/Kimi-K2-Instruct-0905:groq"},
    {"kimigroq", "groq", "moonshotai/kimi-k2-instruct-0905"},
    {"kimithink", "hf", "moonshotai/Kimi-K2-Thinking:together"},
    {"kimi25", "hf", "moonshotai/Kimi-K2.5:fireworks-ai"},
    {"gpt-oss", "hf", "openai/gpt-oss-120b:cerebras"},
    {"gpt-oss-20b", "hf", "openai/gpt-oss-20b"},
    {"glm", "hf", "zai-org/GLM-5:novita"},
    {"glm5", "hf", "zai-org/GLM-5:novita"},
    {"glm47", "hf", "zai-org/GLM-4.7:cerebras"},
    {"qwen3", "hf", "Qwen/Qwen3-Next-80B-A3B-Instruct:together"},
    {"minimax", "hf", "MiniMaxAI/MiniMax-M2.1:novita"},
    {"deepseek31", "hf", "deepseek-ai/DeepSeek-V3.1"},
    {"deepseek32", "hf", "deepseek-ai/DeepSeek-V3.2:fireworks-ai"},
    {"grok-4-fast", "xai", "grok-4-fast-non-reasoning"},
    {"grok-4-fast-reasoning", "xai", "grok-4-fast-reasoning"},
};

#define NALIAS_CASES (sizeof(alias_cases) / sizeof(alias_cases[0]))

Test(model, every_builtin_alias)
{
    for (size_t i = 0; i < NALIAS_CASES; i++) {
        up_model m;
        up_error err = {0};
        int rc;

        up_model_init(&m);
        rc = up_model_resolve(&m, alias_cases[i].alias, NULL, NULL, NULL, &err);
        if (!alias_cases[i].provider) {
            cr_assert_eq(rc, UP_EPARSE, "%s", alias_cases[i].alias);
            cr_assert(strstr(err.msg, alias_cases[i].want), "%s: %s",
                      alias_cases[i].alias, err.msg);
            cr_assert_null(m.model_id);
        } else {
            cr_assert_eq(rc, 0, "%s: %s", alias_cases[i].alias, err.msg);
            cr_assert_str_eq(up_provider_name(m.provider),
                             alias_cases[i].provider, "%s",
                             alias_cases[i].alias);
            cr_assert_str_eq(m.model_id, alias_cases[i].want);
            cr_assert_str_eq(m.alias, alias_cases[i].alias);
        }
        up_model_release(&m);
    }
}

/* The test table and the built-in table list the same aliases. */
Test(model, alias_table_is_covered)
{
    size_t n;
    const up_builtin_alias *t = up_model_builtin_aliases(&n);

    cr_assert_eq(n, NALIAS_CASES);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;

        while (j < NALIAS_CASES && strcmp(alias_cases[j].alias, t[i].name))
            j++;
        cr_assert(j < NALIAS_CASES, "alias %s has no test", t[i].name);
    }
}

static const struct {
    const char *spec;
    const char *provider;
    const char *model_id;
    const char *resolved;
    const char *effort; /* effort_value, or NULL */
} ok_cases[] = {
    {"anthropic.claude-opus-4-6", "anthropic", "claude-opus-4-6",
     "anthropic.claude-opus-4-6", NULL},
    {"sonnet.high", "anthropic", "claude-sonnet-4-5",
     "anthropic.claude-sonnet-4-5.high", "high"},
    {"haiku.low", "anthropic", "claude-haiku-4-5",
     "anthropic.claude-haiku-4-5.low", "low"},
    {"opus.max", "anthropic", "claude-opus-4-6",
     "anthropic.claude-opus-4-6.max", "max"},
    {"claude-3-7-sonnet-latest", "anthropic", "claude-3-7-sonnet-latest",
     "anthropic.claude-3-7-sonnet-latest", NULL},
    {"openai.gpt-4o", "openai", "gpt-4o", "openai.gpt-4o", NULL},
    {"gpt-4.1", "openai", "gpt-4.1", "openai.gpt-4.1", NULL},
    {"o3-mini.medium", "openai", "o3-mini", "openai.o3-mini.medium", "medium"},
    {"openai.gpt-5.minimal", "openai", "gpt-5", "openai.gpt-5.minimal",
     "minimal"},
    {"responses.gpt-5.1.xhigh", "responses", "gpt-5.1",
     "responses.gpt-5.1.xhigh", "xhigh"},
    {"opus?reasoning=1024", "anthropic", "claude-opus-4-6",
     "anthropic.claude-opus-4-6.low", "low"},
    {"gpt51?reasoning=high", "responses", "gpt-5.1", "responses.gpt-5.1.high",
     "high"},
    {"gpt51.low?reasoning=20000", "responses", "gpt-5.1",
     "responses.gpt-5.1.high", "high"},
    {"kimi:together?reasoning=0", "hf",
     "moonshotai/Kimi-K2-Instruct-0905:together",
     "hf.moonshotai/Kimi-K2-Instruct-0905:together.none", "none"},
    {"gemini-2.5-pro", "google", "gemini-2.5-pro", "google.gemini-2.5-pro",
     NULL},
    {"googleoai.gemini-2.5-pro", "google", "gemini-2.5-pro",
     "google.gemini-2.5-pro", NULL},
    {"grok-4", "xai", "grok-4", "xai.grok-4", NULL},
    {"qwen-max", "aliyun", "qwen-max", "aliyun.qwen-max", NULL},
    {"openrouter.anthropic/claude-3.5-sonnet", "openrouter",
     "anthropic/claude-3.5-sonnet", "openrouter.anthropic/claude-3.5-sonnet",
     NULL},
    {"groq.openai/gpt-oss-20b.low", "groq", "openai/gpt-oss-20b",
     "groq.openai/gpt-oss-20b.low", "low"},
    {"generic.llama3.2", "generic", "llama3.2", "generic.llama3.2", NULL},
    {"generic.llama3.2:latest", "generic", "llama3.2:latest",
     "generic.llama3.2:latest", NULL},
    {"generic.qwen3.none", "generic", "qwen3", "generic.qwen3.none", "none"},
    {"hf.openai/gpt-oss-120b:cerebras", "hf", "openai/gpt-oss-120b:cerebras",
     "hf.openai/gpt-oss-120b:cerebras", NULL},
    {"hf.openai/gpt-oss-120b.high:cerebras", "hf",
     "openai/gpt-oss-120b:cerebras", "hf.openai/gpt-oss-120b:cerebras.high",
     "high"},
    {"hf.openai/gpt-oss-120b:cerebras.high", "hf",
     "openai/gpt-oss-120b:cerebras", "hf.openai/gpt-oss-120b:cerebras.high",
     "high"},
    {"kimi:together", "hf", "moonshotai/Kimi-K2-Instruct-0905:together",
     "hf.moonshotai/Kimi-K2-Instruct-0905:together", NULL},
    {"kimi.low", "hf", "moonshotai/Kimi-K2-Instruct-0905:groq",
     "hf.moonshotai/Kimi-K2-Instruct-0905:groq.low", "low"},
    {"gpt-oss-20b:fastest", "hf", "openai/gpt-oss-20b:fastest",
     "hf.openai/gpt-oss-20b:fastest", NULL},
    {"hf.meta-llama/Llama-3.1-8B-Instruct", "hf",
     "meta-llama/Llama-3.1-8B-Instruct", "hf.meta-llama/Llama-3.1-8B-Instruct",
     NULL},
    /* upstream's bare names and "provider/model" (issue 25, item 4) */
    {"gpt-5", "responses", "gpt-5", "responses.gpt-5", NULL},
    {"gpt-5-mini", "responses", "gpt-5-mini", "responses.gpt-5-mini", NULL},
    {"gpt-5.1", "responses", "gpt-5.1", "responses.gpt-5.1", NULL},
    {"gpt-5.3-codex.high", "responses", "gpt-5.3-codex",
     "responses.gpt-5.3-codex.high", "high"},
    {"gpt-4o-mini", "openai", "gpt-4o-mini", "openai.gpt-4o-mini", NULL},
    {"qwen3-max", "aliyun", "qwen3-max", "aliyun.qwen3-max", NULL},
    {"openai/gpt-4.1", "openai", "gpt-4.1", "openai.gpt-4.1", NULL},
    {"anthropic/claude-haiku-4-5", "anthropic", "claude-haiku-4-5",
     "anthropic.claude-haiku-4-5", NULL},
    {"anthropic/claude-haiku-4-5.high", "anthropic", "claude-haiku-4-5",
     "anthropic.claude-haiku-4-5.high", "high"},
    {"openai/gpt-oss-120b", "openai", "gpt-oss-120b", "openai.gpt-oss-120b",
     NULL},
    {"googleoai/gemini-2.5-pro", "google", "gemini-2.5-pro",
     "google.gemini-2.5-pro", NULL},
};

Test(model, provider_prefixes_and_efforts)
{
    for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
        up_model m;
        up_error err = {0};

        up_model_init(&m);
        cr_assert_eq(
            up_model_resolve(&m, ok_cases[i].spec, NULL, NULL, NULL, &err), 0,
            "%s: %s", ok_cases[i].spec, err.msg);
        cr_assert_str_eq(up_provider_name(m.provider), ok_cases[i].provider,
                         "%s", ok_cases[i].spec);
        cr_assert_str_eq(m.model_id, ok_cases[i].model_id);
        cr_assert_str_eq(m.resolved, ok_cases[i].resolved);
        if (ok_cases[i].effort)
            cr_assert_str_eq(m.effort_value, ok_cases[i].effort);
        else
            cr_assert_null(m.effort_value, "%s", ok_cases[i].spec);
        cr_assert_str_eq(m.spec, ok_cases[i].spec);
        up_model_release(&m);
    }
}

/* The resolved string resolves to itself. */
Test(model, resolved_round_trips)
{
    for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
        up_model m;

        up_model_init(&m);
        cr_assert_eq(
            up_model_resolve(&m, ok_cases[i].resolved, NULL, NULL, NULL, NULL),
            0, "%s", ok_cases[i].resolved);
        cr_assert_str_eq(m.resolved, ok_cases[i].resolved);
        cr_assert_null(m.alias);
        up_model_release(&m);
    }
}

static const struct {
    const char *spec;
    const char *msg; /* the whole message */
} bad_cases[] = {
    {"", "'': empty model string"},
    {"anthropic.", "'anthropic.': a part of the model string is empty "
                   "(expected [provider.]model[.effort], e.g. "
                   "generic.qwen3-4b.high)"},
    {"generic..", "'generic..': a part of the model string is empty "
                  "(expected [provider.]model[.effort], e.g. "
                  "generic.qwen3-4b.high)"},
    {".high", "'.high': a part of the model string is empty "
              "(expected [provider.]model[.effort], e.g. "
              "generic.qwen3-4b.high)"},
    {"generic.a..b", "'generic.a..b': a part of the model string is empty "
                     "(expected [provider.]model[.effort], e.g. "
                     "generic.qwen3-4b.high)"},
    {"llama3", "'llama3': unknown model or provider (write provider.model, "
               "e.g. generic.llama3, or give a base URL)"},
    {"mistral.large", "'mistral.large': unknown model or provider (write "
                      "provider.model, e.g. generic.mistral.large, or give a "
                      "base URL)"},
    {"bedrock.claude-sonnet-4-5",
     "'bedrock.claude-sonnet-4-5': provider 'bedrock' is not supported (AWS "
     "signing is not implemented; Claude is served by Anthropic's API); use "
     "'anthropic.claude-sonnet-4-5' instead"},
    {"gpt-5.3-codex-spark",
     "'gpt-5.3-codex-spark': provider 'codexresponses' is not supported (it "
     "signs in with a ChatGPT account); use 'responses.gpt-5.3-codex-spark' "
     "instead"},
    {"bedrock/claude-sonnet-4-5",
     "'bedrock/claude-sonnet-4-5': provider 'bedrock' is not supported (AWS "
     "signing is not implemented; Claude is served by Anthropic's API); use "
     "'anthropic.claude-sonnet-4-5' instead"},
    {"moonshotai/Kimi-K2", "'moonshotai/Kimi-K2': unknown model or provider "
                           "(write provider.model, e.g. "
                           "generic.moonshotai/Kimi-K2, or give a base URL)"},
    {"fast-agent.passthrough",
     "'fast-agent.passthrough': provider 'fast-agent' is not supported "
     "(its test models are not models; tests use fake-llm "
     "(docs/fake-llm.md))"},
    {"opus?reasoning=lots", "'opus?reasoning=lots': query option "
                            "'reasoning=lots' is not supported (expected "
                            "?reasoning=LEVEL or ?reasoning=TOKENS, e.g. "
                            "?reasoning=high)"},
    {"gpt-4.1?verbosity=low", "'gpt-4.1?verbosity=low': query option "
                              "'verbosity=low' is not supported (expected "
                              "?reasoning=LEVEL or ?reasoning=TOKENS, e.g. "
                              "?reasoning=high)"},
    {"deepseek.deepseek-chat.max", "'deepseek.deepseek-chat.max': effort "
                                   "'max' is not supported by deepseek "
                                   "(supported: none, low, medium, high)"},
    {"anthropic.claude-opus-4-6.minimal",
     "'anthropic.claude-opus-4-6.minimal': effort 'minimal' is not supported "
     "by anthropic (supported: low, medium, high, xhigh, max)"},
    {"sonnet.none", "'sonnet.none': effort 'none' is not supported by "
                    "anthropic (supported: low, medium, high, xhigh, max)"},
    {"generic.qwen3.xhigh", "'generic.qwen3.xhigh': effort 'xhigh' is not "
                            "supported by generic (supported: none, low, "
                            "medium, high)"},
    {"kimi.max", "'kimi.max': effort 'max' is not supported by hf "
                 "(supported: none, low, medium, high)"},
    {"generic.qwen3.minimal", "'generic.qwen3.minimal': effort 'minimal' is "
                              "not supported by generic (supported: none, "
                              "low, medium, high)"},
};

Test(model, errors_are_clear)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        up_model m;
        up_error err = {0};

        up_model_init(&m);
        cr_assert_eq(
            up_model_resolve(&m, bad_cases[i].spec, NULL, NULL, NULL, &err),
            UP_EPARSE, "%s", bad_cases[i].spec);
        cr_assert_str_eq(err.msg, bad_cases[i].msg);
        cr_assert_null(m.resolved);
        up_model_release(&m);
    }
}

Test(model, default_endpoints)
{
    static const struct {
        const char *spec, *url, *key;
    } cases[] = {
        {"sonnet", "https://api.anthropic.com", "ANTHROPIC_API_KEY"},
        {"openai.gpt-4o", "https://api.openai.com/v1", "OPENAI_API_KEY"},
        {"generic.x", "http://localhost:11434/v1", "GENERIC_API_KEY"},
        {"kimi", "https://router.huggingface.co/v1", "HF_TOKEN"},
        {"gpt51", "https://api.openai.com/v1", "OPENAI_API_KEY"},
        {"gemini25pro",
         "https://generativelanguage.googleapis.com/v1beta/openai",
         "GOOGLE_API_KEY"},
        {"deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY"},
        {"grok-4-fast", "https://api.x.ai/v1", "XAI_API_KEY"},
        {"kimigroq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"},
        {"openrouter.x/y", "https://openrouter.ai/api/v1",
         "OPENROUTER_API_KEY"},
        {"qwen-max", "https://dashscope.aliyuncs.com/compatible-mode/v1",
         "ALIYUN_API_KEY"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_model m;

        up_model_init(&m);
        cr_assert_eq(
            up_model_resolve(&m, cases[i].spec, NULL, NULL, NULL, NULL), 0);
        cr_assert_str_eq(m.base_url, cases[i].url);
        cr_assert_str_eq(m.api_key_env, cases[i].key);
        cr_assert_eq(m.base_url_src.kind, UP_SRC_DEFAULT);
        cr_assert_eq(m.connect_timeout_ms, 10000);
        cr_assert_eq(m.timeout_ms, 600000);
        cr_assert_eq(m.idle_timeout_ms, 300000);
        up_model_release(&m);
    }
}

Test(model, base_url_override)
{
    up_model m;
    up_error err = {0};

    up_model_init(&m);
    /* qwen3 is an alias, but with a base URL it is the server's name. */
    cr_assert_eq(up_model_resolve(&m, "qwen3:4b", "http://127.0.0.1:8080/v1/",
                                  "LOCAL_KEY", NULL, &err),
                 0, "%s", err.msg);
    cr_assert_eq(m.provider, UP_PROV_GENERIC);
    cr_assert_str_eq(m.model_id, "qwen3:4b");
    cr_assert_str_eq(m.base_url, "http://127.0.0.1:8080/v1");
    cr_assert_str_eq(m.api_key_env, "LOCAL_KEY");
    cr_assert_eq(m.base_url_src.kind, UP_SRC_FLAG);
    cr_assert_null(m.alias);
    cr_assert_str_eq(m.resolved, "generic.qwen3:4b");

    cr_assert_eq(up_model_resolve(&m, "generic.llama3.2.high",
                                  "http://127.0.0.1:1", NULL, NULL, &err),
                 0);
    cr_assert_str_eq(m.model_id, "llama3.2");
    cr_assert_str_eq(m.effort_value, "high");
    cr_assert_null(m.api_key_env);

    cr_assert_eq(up_model_resolve(&m, "openai.gpt-4o", "http://127.0.0.1:1",
                                  NULL, NULL, &err),
                 0);
    cr_assert_str_eq(m.model_id, "gpt-4o");
    cr_assert_eq(m.provider, UP_PROV_GENERIC);

    cr_assert_eq(up_model_resolve(&m, "local.xhigh", "http://127.0.0.1:1", NULL,
                                  NULL, &err),
                 UP_EPARSE);
    cr_assert(strstr(err.msg, "effort 'xhigh' is not supported by generic"));
    up_model_release(&m);
}

static void cfg_alias(up_config *cfg, const char *yaml)
{
    up_error err = {0};

    cr_assert_eq(up_config_parse(cfg, yaml, strlen(yaml), "c.yaml", &err), 0,
                 "%s", err.msg);
}

Test(model, config_aliases_extend_and_override)
{
    up_config cfg;
    up_model m;
    up_error err = {0};

    up_config_init(&cfg);
    up_model_init(&m);
    cfg_alias(&cfg, "aliases:\n"
                    "  sonnet: anthropic.claude-sonnet-4-6\n"
                    "  fast: haiku\n"
                    "  think: anthropic.claude-opus-4-6.high\n"
                    "  loop1: loop2\n"
                    "  loop2: loop1\n");
    cr_assert_eq(up_model_resolve(&m, "sonnet", NULL, NULL, &cfg, &err), 0);
    cr_assert_str_eq(m.model_id, "claude-sonnet-4-6");
    cr_assert_eq(up_model_resolve(&m, "fast", NULL, NULL, &cfg, &err), 0);
    cr_assert_str_eq(m.resolved, "anthropic.claude-haiku-4-5");
    cr_assert_str_eq(m.alias, "fast");
    cr_assert_eq(up_model_resolve(&m, "think", NULL, NULL, &cfg, &err), 0);
    cr_assert_str_eq(m.effort_value, "high");
    cr_assert_eq(up_model_resolve(&m, "think.low", NULL, NULL, &cfg, &err), 0);
    cr_assert_str_eq(m.effort_value, "low");
    cr_assert_eq(up_model_resolve(&m, "loop1", NULL, NULL, &cfg, &err),
                 UP_EPARSE);
    cr_assert(strstr(err.msg, "'loop1': alias loop"), "%s", err.msg);
    up_model_release(&m);
    up_config_release(&cfg);
}

Test(model, endpoint_from_config)
{
    up_config cfg;
    up_model m;
    up_error err = {0};

    up_config_init(&cfg);
    up_model_init(&m);
    cfg_alias(&cfg, "providers:\n"
                    "  generic:\n"
                    "    base_url: http://127.0.0.1:9999/v1\n"
                    "    api_key_env: LOCAL_KEY\n"
                    "    headers:\n"
                    "      X-Team: evals\n"
                    "    timeout: 30\n"
                    "    idle_timeout: 1.5\n");
    cr_assert_eq(up_model_resolve(&m, "generic.qwen3", NULL, NULL, &cfg, &err),
                 0);
    cr_assert_str_eq(m.base_url, "http://127.0.0.1:9999/v1");
    cr_assert_eq(m.base_url_src.kind, UP_SRC_FILE);
    cr_assert_eq(m.base_url_src.line, 3);
    cr_assert_str_eq(m.api_key_env, "LOCAL_KEY");
    cr_assert_eq(m.nheaders, 1);
    cr_assert_str_eq(m.headers[0].name, "X-Team");
    cr_assert_str_eq(m.headers[0].value, "evals");
    cr_assert_eq(m.timeout_ms, 30000);
    cr_assert_eq(m.idle_timeout_ms, 1500);
    up_model_release(&m);
    up_config_release(&cfg);
}

Test(model, provider_names)
{
    enum up_provider_kind k;

    for (int i = 0; i < UP_PROV_COUNT; i++) {
        cr_assert_eq(up_provider_parse(&k, up_provider_name(i)), 0);
        cr_assert_eq((int)k, i);
    }
    cr_assert_eq(up_provider_parse(&k, "google"), 0);
    cr_assert_eq(up_provider_parse(&k, "bedrock"), UP_ENOTFOUND);
    cr_assert_str_eq(up_effort_name(UP_EFFORT_XHIGH), "xhigh");
    cr_assert_null(up_effort_name(UP_EFFORT_UNSET));
}

Test(model, key_required_for_hosted_providers_not_local_servers)
{
    static const struct {
        const char *spec, *base_url, *key_env;
        int required;
    } cases[] = {
        {"anthropic.claude-haiku-4-5", NULL, NULL, 1},
        {"openai.gpt-4.1-mini", NULL, NULL, 1},
        {"hf.moonshotai/Kimi-K2-Instruct", NULL, NULL, 1},
        {"generic.qwen3", NULL, NULL, 0},
        {"qwen3", "http://127.0.0.1:8080/v1", NULL, 0},
        {"qwen3", "http://127.0.0.1:8080/v1", "MY_KEY", 1},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_model m;
        up_error err;

        up_model_init(&m);
        cr_assert_eq(up_model_resolve(&m, cases[i].spec, cases[i].base_url,
                                      cases[i].key_env, NULL, &err),
                     0, "%s: %s", cases[i].spec, err.msg);
        cr_expect_eq(m.key_required, cases[i].required, "%s", cases[i].spec);
        up_model_release(&m);
    }
}

Test(model, empty_parts_refused_with_a_base_url_too)
{
    up_model m;
    up_error err = {0};

    up_model_init(&m);
    cr_assert_eq(
        up_model_resolve(&m, ".high", "http://127.0.0.1:1", NULL, NULL, &err),
        UP_EPARSE);
    cr_assert(strstr(err.msg, "'.high': a part of the model string is empty"),
              "%s", err.msg);
    cr_assert_eq(up_model_resolve(&m, "generic..", "http://127.0.0.1:1", NULL,
                                  NULL, &err),
                 UP_EPARSE);
    cr_assert_eq(up_model_resolve(&m, "qwen2.5-7b.high", "http://127.0.0.1:1",
                                  NULL, NULL, &err),
                 0, "a dot inside the name is fine: %s", err.msg);
    cr_assert_str_eq(m.model_id, "qwen2.5-7b");
    up_model_release(&m);
}

Test(model, max_tokens_flag_then_provider_then_top_level)
{
    up_config cfg;
    up_model m;
    up_error err = {0};

    up_config_init(&cfg);
    up_model_init(&m);
    cr_assert_eq(up_model_resolve(&m, "generic.q", NULL, NULL, &cfg, &err), 0);
    cr_assert_eq(m.max_tokens, 0, "nobody set one: the caller's default");
    cfg_alias(&cfg, "max_tokens: 2000\n"
                    "providers:\n"
                    "  generic:\n"
                    "    max_tokens: 500\n");
    cr_assert_eq(up_model_resolve(&m, "generic.q", NULL, NULL, &cfg, &err), 0);
    cr_assert_eq(m.max_tokens, 500, "the provider's key first");
    cr_assert_eq(up_model_resolve(&m, "openai.gpt-x", NULL, NULL, &cfg, &err),
                 0);
    cr_assert_eq(m.max_tokens, 2000, "else the top-level key");
    cr_assert_eq(
        up_model_resolve(&m, "q", "http://127.0.0.1:1", NULL, &cfg, &err), 0);
    cr_assert_eq(m.max_tokens, 500, "a base URL flag is generic's");
    cr_assert_eq(up_config_set_max_tokens(&cfg, 64, "--max-tokens", &err), 0);
    cr_assert_eq(up_model_resolve(&m, "generic.q", NULL, NULL, &cfg, &err), 0);
    cr_assert_eq(m.max_tokens, 64, "the flag beats both");
    cr_assert_eq(up_config_set_max_tokens(&cfg, 0, "--max-tokens", &err),
                 UP_EUSAGE);
    cr_assert_str_eq(err.msg, "--max-tokens must be 1 to 10000000");
    cr_assert_eq(up_config_set_max_tokens(&cfg, UP_MAX_TOKENS_UNSET,
                                          "--max-tokens", &err),
                 0, "not given: no change");
    up_model_release(&m);
    up_config_release(&cfg);
}

/* The reference students of Harbor tasks resolve to themselves, with no
 * endpoint and no key, even when a key variable is missing; a near name
 * is an ordinary model string. */
Test(model, reference_students_need_no_endpoint)
{
    static const char *const names[] = {"oracle", "null"};

    for (size_t i = 0; i < 2; i++) {
        up_model m;
        up_error err = {0};

        up_model_init(&m);
        cr_assert_eq(up_model_resolve(&m, names[i], NULL, NULL, NULL, &err), 0,
                     "%s: %s", names[i], err.msg);
        cr_expect_str_eq(m.resolved, names[i]);
        cr_expect_null(m.base_url);
        cr_expect_not(m.key_required);
        cr_expect_eq(up_model_reference(names[i]),
                     i ? UP_REF_NULL : UP_REF_ORACLE);
        up_model_release(&m);
    }
    cr_expect_eq(up_model_reference("oracle.high"), UP_REF_NONE);
    cr_expect_eq(up_model_reference("Oracle"), UP_REF_NONE);
    cr_expect_eq(up_model_reference(NULL), UP_REF_NONE);
}
