/*
 * The provider presets: one row per provider (include/upskill/preset.h).
 * Endpoints and key variables: reference/provider-protocols.md §1.1,
 * §2.1, §3.5; the hosted OpenAI-compatible ones from their providers'
 * documentation, key variables as fast-agent names them
 * (reference/upskill.md §5).
 */
#include <string.h>

#include "upskill/config.h"
#include "upskill/preset.h"
#include "upskill/provider.h"

/* The Azure OpenAI API version sent as api-version (GA, 2024-10-21). */
#define AZURE_API_VERSION "api-version=2024-10-21"

static const up_preset presets[] = {
    [UP_PROV_ANTHROPIC] = {"anthropic",
                           UP_PROVIDER_ANTHROPIC,
                           1,
                           UP_ANTHROPIC_BASE_URL,
                           "ANTHROPIC_API_KEY",
                           {"ANTHROPIC_BASE_URL"},
                           UP_EFFORTS_ANTHROPIC,
                           0,
                           NULL,
                           NULL,
                           0,
                           0,
                           NULL},
    [UP_PROV_OPENAI] = {"openai",
                        UP_PROVIDER_OPENAI,
                        0,
                        UP_OPENAI_BASE_URL,
                        "OPENAI_API_KEY",
                        {"OPENAI_API_BASE", "OPENAI_BASE_URL"},
                        UP_EFFORTS_OPENAI,
                        0,
                        NULL,
                        NULL,
                        0,
                        0,
                        NULL},
    [UP_PROV_GENERIC] = {"generic",
                         UP_PROVIDER_OPENAI,
                         1,
                         "http://localhost:11434/v1",
                         "GENERIC_API_KEY",
                         {"GENERIC_BASE_URL"},
                         UP_EFFORTS_COMPAT,
                         1,
                         NULL,
                         NULL,
                         0,
                         0,
                         NULL},
    [UP_PROV_HF] = {"hf",
                    UP_PROVIDER_OPENAI,
                    1,
                    "https://router.huggingface.co/v1",
                    "HF_TOKEN",
                    {NULL},
                    UP_EFFORTS_COMPAT,
                    0,
                    NULL,
                    NULL,
                    0,
                    0,
                    NULL},
    {"responses",
     UP_PROVIDER_RESPONSES,
     0,
     UP_OPENAI_BASE_URL,
     "OPENAI_API_KEY",
     {"OPENAI_API_BASE", "OPENAI_BASE_URL"},
     UP_EFFORTS_OPENAI,
     0,
     NULL,
     NULL,
     0,
     1,
     "OpenAI's Responses API (POST /responses)"},
    {"google",
     UP_PROVIDER_OPENAI,
     1,
     "https://generativelanguage.googleapis.com/v1beta/openai",
     "GOOGLE_API_KEY",
     {NULL},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     "Gemini's OpenAI-compatible endpoint"},
    {"deepseek",
     UP_PROVIDER_OPENAI,
     1,
     "https://api.deepseek.com",
     "DEEPSEEK_API_KEY",
     {NULL},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     NULL},
    {"xai",
     UP_PROVIDER_OPENAI,
     1,
     "https://api.x.ai/v1",
     "XAI_API_KEY",
     {"XAI_BASE_URL"},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     NULL},
    {"groq",
     UP_PROVIDER_OPENAI,
     1,
     "https://api.groq.com/openai/v1",
     "GROQ_API_KEY",
     {NULL},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     NULL},
    {"openrouter",
     UP_PROVIDER_OPENAI,
     1,
     "https://openrouter.ai/api/v1",
     "OPENROUTER_API_KEY",
     {"OPENROUTER_BASE_URL"},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     NULL},
    {"aliyun",
     UP_PROVIDER_OPENAI,
     1,
     "https://dashscope.aliyuncs.com/compatible-mode/v1",
     "ALIYUN_API_KEY",
     {NULL},
     UP_EFFORTS_COMPAT,
     0,
     NULL,
     NULL,
     0,
     0,
     NULL},
    {"azure",
     UP_PROVIDER_OPENAI,
     -1,
     NULL,
     "AZURE_OPENAI_API_KEY",
     {"AZURE_OPENAI_ENDPOINT"},
     UP_EFFORTS_OPENAI,
     0,
     "api-key",
     AZURE_API_VERSION,
     1,
     0,
     "the model is the deployment name; set the resource URL "
     "(https://NAME.openai.azure.com) in AZURE_OPENAI_ENDPOINT or "
     "providers.azure.base_url"},
};

#define NPRESETS ((int)(sizeof(presets) / sizeof(presets[0])))

_Static_assert(sizeof(presets) / sizeof(presets[0]) <= UP_PRESET_MAX,
               "raise UP_PRESET_MAX");

int up_preset_count(void)
{
    return NPRESETS;
}

const up_preset *up_preset_at(int kind)
{
    return kind >= 0 && kind < NPRESETS ? &presets[kind] : NULL;
}

int up_preset_find(const char *name, size_t len)
{
    for (int i = 0; name && i < NPRESETS; i++)
        if (strlen(presets[i].name) == len &&
            strncmp(presets[i].name, name, len) == 0)
            return i;
    return -1;
}
