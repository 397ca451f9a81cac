/*
 * upskill list: the skills in a folder, as a tree or as JSON.
 *
 * Each sub-folder of DIR that holds a SKILL.md is loaded with the library
 * (up_catalog_scan: up_skill_load, tests counted with up_suite_parse).  A
 * skill that fails to load is listed with its error instead of stopping
 * the listing.  Exit 0 then, and for a missing folder, as upstream's list
 * (validate is the command whose exit code judges skills).  Rendering:
 * list_report.c.
 */
#include <stdlib.h>

#include "cli.h"

/* ---- command ----------------------------------------------------------- */

static const char *dir;
static int verbose, as_json;

static const struct opt opts[] = {
    {'d', "dir", OPT_STRING, &dir, "DIR",
     "skills folder (default: config skills_dir, else ./skills)"},
    {'v', "verbose", OPT_FLAG, &verbose, NULL,
     "show files, token estimates and test counts"},
    {0, "json", OPT_FLAG, &as_json, NULL, "print one JSON document"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_list_spec = {
    "list",
    NULL,
    "list skills in a folder",
    "Every sub-folder of DIR holding a SKILL.md is listed by folder name with\n"
    "its description.  A skill that fails to load is listed with its error\n"
    "(exit 0, as upstream; 'upskill validate DIR' exits 3 on it).  Token\n"
    "counts are estimates (words x 1.3).",
    opts,
    0,
    0};

/* Upstream's line and exit 0; --json gets an empty listing. */
static int missing_dir(up_catalog *l)
{
    if (as_json) {
        out_warn("no skills directory found at '%s'", dir);
        list_print_json(l, dir);
    } else {
        printf("No skills directory found at %s\n", out_safe(dir));
    }
    return EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
    up_catalog l = {NULL, 0, 0, 0, 0};
    char **args = NULL;
    up_error err;
    int nargs, rc = opt_parse(&cmd_list_spec, argc, argv, &args, &nargs);

    free(args);
    if (rc)
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    dir = cli_config_dir(dir, 0, "./skills");
    if (!up_fs_exists(dir))
        return missing_dir(&l);
    if (!up_fs_is_dir(dir)) {
        out_error("'%s' is not a folder", dir);
        return EXIT_INPUT;
    }
    if (up_catalog_scan(&l, dir, &err)) {
        rc = out_fail(&err);
        goto out;
    }
    for (size_t i = 0; i < l.n; i++)
        for (size_t k = 0; k < l.v[i].skill.nwarnings; k++)
            out_warn("%s", l.v[i].skill.warnings[k]);
    if (as_json)
        list_print_json(&l, dir);
    else if (!l.n)
        printf("No skills found in %s\n", out_safe(dir));
    else
        list_print_tree(&l, dir, verbose);
    if (l.failed)
        out_warn("%zu skill%s could not be loaded (upskill validate '%s' "
                 "tells why and exits 3)",
                 l.failed, l.failed == 1 ? "" : "s", dir);
    rc = EXIT_OK;
out:
    up_catalog_release(&l);
    return rc;
}
