/*
 * upskill config: show the resolved settings and where each came from
 * (the document and its rendering: config_report.c).
 */
#include <stdlib.h>

#include "cli.h"

static int json_out;

static const struct opt opts[] = {
    {0, "json", OPT_FLAG, &json_out, NULL, "print the settings as JSON"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_config_spec = {
    "config",
    NULL,
    "show the resolved configuration and where each setting came from",
    "Precedence: flags > environment > config file > defaults.  The file "
    "is\n$UPSKILL_CONFIG, else ./upskill.config.yaml, else "
    "~/.config/upskill/config.yaml.\nAPI keys are shown only as set or "
    "unset.",
    opts,
    0,
    0,
};

int cmd_config(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_config_spec, argc, argv, &args, &nargs);
    up_config cfg;
    up_error err = {0};
    json_t *doc;

    free(args);
    if (rc)
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    up_config_init(&cfg);
    rc = up_config_load(&cfg, &err);
    for (size_t i = 0; i < cfg.nwarnings; i++)
        out_warn("%s", cfg.warnings[i]);
    if (rc) {
        up_config_release(&cfg);
        return out_fail(&err);
    }
    doc = config_report_build(&cfg);
    if (json_out)
        out_json(doc);
    else
        config_report_text(&cfg, doc);
    json_decref(doc);
    up_config_release(&cfg);
    return EXIT_OK;
}
