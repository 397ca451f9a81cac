/*
 * upskill plot: upstream's deprecated name for `runs`.  It takes
 * upstream's plot flags only (-d, -s, -m, --metric: no --csv, as
 * upstream), says it is deprecated, as upstream does, and prints what
 * `runs` prints with them: the same bars.  Ours: --html FILE writes
 * `upskill report` of the runs folder instead (-s/-m do not filter it).
 */
#include <stdlib.h>

#include "cli.h"

static const char *dir, *metric, *html;
static struct strlist skills, models;

static const struct opt opts[] = {
    {'d', "dir", OPT_STRING, &dir, "DIR",
     "runs folder (default: config runs_dir, else runs)"},
    {'s', "skill", OPT_LIST, &skills, "NAME", "only this skill"},
    {'m', "model", OPT_LIST, &models, "MODEL",
     "only this model (aliases resolved)"},
    {0, "metric", OPT_STRING, &metric, "M", "success (default) or tokens"},
    {0, "html", OPT_STRING, &html, "FILE",
     "write 'upskill report' of the runs folder to FILE instead"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_plot_spec = {
    "plot",
    NULL,
    "upstream's deprecated name for 'runs': the same bars",
    "Takes upstream's plot flags and prints what 'upskill runs' prints.",
    opts,
    0,
    0};

int cmd_plot(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_plot_spec, argc, argv, &args, &nargs);

    strlist_release(&skills);
    strlist_release(&models);
    free(args);
    if (rc)
        return rc > 0 ? 0 : EXIT_USAGE;
    if (html) {
        static char name[] = "report", o[] = "-o";
        char *rargv[] = {name, (char *)cli_config_dir(dir, 1, "runs"), o,
                         (char *)html, NULL};

        return cmd_report(4, rargv);
    }
    out_warn("'plot' is deprecated: use 'upskill runs' instead");
    return cmd_runs(argc, argv);
}
