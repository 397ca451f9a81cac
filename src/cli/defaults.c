/*
 * Folder defaults from upskill.config.yaml for commands that do not
 * otherwise need the configuration (list, runs): the flag wins, then the
 * config's skills_dir / runs_dir, then upstream's default.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static up_config cfg;
static int loaded;

static void release(void)
{
    up_config_release(&cfg);
}

const up_config *cli_config(void)
{
    up_error err;

    if (!loaded) {
        loaded = 1;
        up_config_init(&cfg);
        if (up_config_load(&cfg, &err))
            out_warn("%s (using defaults)", err.msg);
        atexit(release);
    }
    return &cfg;
}

const char *cli_config_dir(const char *given, int runs, const char *dflt)
{
    const up_cfg_str *v;

    if (given)
        return given;
    cli_config();
    v = runs ? &cfg.runs_dir : &cfg.skills_dir;
    return v->value && *v->value ? v->value : dflt;
}
