/*
 * The provider presets: one row per provider (include/upskill/preset.h).
 * Endpoints and key variables: reference/provider-protocols.md §1.1,
 * §2.1, §3.5; the hosted OpenAI-compatible ones from their providers'
 * documentation, key variables as fast-agent names them
 * (reference/upskill.md §5).
 */
#include <string.h>

#include "upskill/preset.h"
#include "upskill/provider.h"

/* The Azure OpenAI API version sent as api-version (GA, 2024-10-21). */
#define AZURE_API_VERSION "api-version=2024-10-21"

/*
 * One row per provider; unset fields are 0/NULL: no base-URL variable,
 * a key required, the bearer header, no query, no deployment path, no
 * default headers.  The first four rows are preset.h's named kinds.
 */
static const up_preset presets[] = {
    [UP_PROV_ANTHROPIC] = {.name = "anthropic",
                           .wire = UP_WIRE_ANTHROPIC,
                           .compat = 1,
                           .base_url = UP_ANTHROPIC_BASE_URL,
                           .key_env = "ANTHROPIC_API_KEY",
                           .base_envs = {"ANTHROPIC_BASE_URL"},
                           .efforts = UP_EFFORTS_ANTHROPIC},
    [UP_PROV_OPENAI] = {.name = "openai",
                        .wire = UP_WIRE_OPENAI,
                        .compat = 0,
                        .base_url = UP_OPENAI_BASE_URL,
                        .key_env = "OPENAI_API_KEY",
                        .base_envs = {"OPENAI_API_BASE", "OPENAI_BASE_URL"},
                        .efforts = UP_EFFORTS_OPENAI},
    [UP_PROV_GENERIC] = {.name = "generic",
                         .wire = UP_WIRE_OPENAI,
                         .compat = 1,
                         .base_url = "http://localhost:11434/v1",
                         .key_env = "GENERIC_API_KEY",
                         .base_envs = {"GENERIC_BASE_URL"},
                         .efforts = UP_EFFORTS_COMPAT,
                         .key_optional = 1},
    [UP_PROV_HF] = {.name = "hf",
                    .wire = UP_WIRE_OPENAI,
                    .compat = 1,
                    .base_url = "https://router.huggingface.co/v1",
                    .key_env = "HF_TOKEN",
                    .efforts = UP_EFFORTS_COMPAT},
    {.name = "responses",
     .wire = UP_WIRE_RESPONSES,
     .base_url = UP_OPENAI_BASE_URL,
     .key_env = "OPENAI_API_KEY",
     .base_envs = {"OPENAI_API_BASE", "OPENAI_BASE_URL"},
     .efforts = UP_EFFORTS_OPENAI,
     .keep_on_override = 1,
     .note = "OpenAI's Responses API (POST /responses)"},
    {.name = "google",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://generativelanguage.googleapis.com/v1beta/openai",
     .key_env = "GOOGLE_API_KEY",
     .efforts = UP_EFFORTS_COMPAT,
     .note = "Gemini's OpenAI-compatible endpoint"},
    {.name = "deepseek",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://api.deepseek.com",
     .key_env = "DEEPSEEK_API_KEY",
     .efforts = UP_EFFORTS_COMPAT},
    {.name = "xai",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://api.x.ai/v1",
     .key_env = "XAI_API_KEY",
     .base_envs = {"XAI_BASE_URL"},
     .efforts = UP_EFFORTS_COMPAT},
    {.name = "groq",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://api.groq.com/openai/v1",
     .key_env = "GROQ_API_KEY",
     .efforts = UP_EFFORTS_COMPAT},
    {.name = "openrouter",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://openrouter.ai/api/v1",
     .key_env = "OPENROUTER_API_KEY",
     .base_envs = {"OPENROUTER_BASE_URL"},
     .efforts = UP_EFFORTS_COMPAT,
     .headers = {{"X-Title", "upskill"}}}, /* app attribution */
    {.name = "aliyun",
     .wire = UP_WIRE_OPENAI,
     .compat = 1,
     .base_url = "https://dashscope.aliyuncs.com/compatible-mode/v1",
     .key_env = "ALIYUN_API_KEY",
     .efforts = UP_EFFORTS_COMPAT},
    {.name = "azure",
     .wire = UP_WIRE_OPENAI,
     .compat = -1, /* OpenAI's own rules */
     .base_url = NULL,
     .key_env = "AZURE_OPENAI_API_KEY",
     .base_envs = {"AZURE_OPENAI_ENDPOINT"},
     .efforts = UP_EFFORTS_OPENAI,
     .key_header = "api-key",
     .query = AZURE_API_VERSION,
     .deployment = 1,
     .note = "the model is the deployment name; set the resource URL "
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
