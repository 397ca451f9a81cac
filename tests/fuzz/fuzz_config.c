/*
 * libFuzzer target for the config parser: arbitrary YAML bytes must load
 * or fail with a message, never crash, leak or read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/config/config_lib.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *no_env(const char *name, void *ctx)
{
    (void)name;
    (void)ctx;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_config cfg;
    up_error err;

    up_config_init(&cfg);
    up_config_set_env(&cfg, no_env, NULL);
    up_config_parse(&cfg, (const char *)data, size, "fuzz.yaml", &err);
    up_config_release(&cfg);
    return 0;
}
