/*
 * Provider presets: every configured provider is one row of one table
 * (src/providers/presets.c) that the config (names, default base URL and
 * key variable, base-URL environment variables), the model resolver
 * (provider prefixes, effort levels, whether a key is needed) and the
 * providers (wire, OpenAI-compat rule, auth header, URL quirks) all
 * read.  A new provider on an existing wire is one row; a new wire is
 * one file in src/providers/ plus one row of its ops table.
 *
 * The row's index is its enum up_provider_kind (below); the first rows
 * are the ones the enum names.
 */
#ifndef UPSKILL_PRESET_H
#define UPSKILL_PRESET_H

#include <stddef.h>

/*
 * The providers we speak to: the index of a row of the preset table,
 * which is also the index in up_config.providers.  The first rows are
 * named here; the others (responses, google, deepseek, xai, groq,
 * openrouter, aliyun, azure) are only rows of the table.
 */
enum up_provider_kind {
    UP_PROV_ANTHROPIC,
    UP_PROV_OPENAI,
    UP_PROV_GENERIC,
    UP_PROV_HF
};

/* How many providers there are (rows of the preset table). */
#define UP_PROV_COUNT (up_preset_count())

/* Which reasoning-effort levels a provider takes (model.c's table). */
enum up_effort_set {
    UP_EFFORTS_ANTHROPIC, /* output_config.effort: low..max */
    UP_EFFORTS_OPENAI,    /* reasoning_effort / reasoning.effort: all */
    UP_EFFORTS_COMPAT,    /* the common subset: none, low, medium, high */
    UP_EFFORTS_COUNT
};

/* The most presets config arrays hold (up_config.providers). */
#define UP_PRESET_MAX 24

typedef struct up_preset {
    const char *name;         /* the provider prefix: "deepseek" */
    int wire;                 /* enum up_wire_kind (provider.h) */
    int compat;               /* up_endpoint.compat */
    const char *base_url;     /* default base URL; NULL: the user must set one
                                 (Azure: the resource's URL) */
    const char *key_env;      /* the key's variable, or NULL */
    const char *base_envs[3]; /* variables that set the base URL, NULL-ended;
                                 a later one beats an earlier one */
    int efforts;              /* enum up_effort_set */
    int key_optional;         /* 1: a local server may take no key */
    const char *key_header;   /* up_endpoint.key_header, or NULL */
    const char *query;        /* up_endpoint.query, or NULL */
    int deployment;           /* up_endpoint.deployment */
    int keep_on_override;     /* 1: with --base-url the model keeps this
                                 provider's wire (responses.) instead of
                                 becoming generic */
    const char *note;         /* a sentence for docs and errors, or NULL */
    struct {
        const char *name, *value;
    } headers[2]; /* default request headers (name NULL: none); the
                     config's providers.<p>.headers of the same name
                     replace them */
} up_preset;

/* The number of presets. */
int up_preset_count(void);

/* The preset of an enum up_provider_kind, or NULL out of range. */
const up_preset *up_preset_at(int kind);

/* The kind whose name is the first len bytes of name, or -1. */
int up_preset_find(const char *name, size_t len);

#endif
