/*
 * upskill's entry point: global options, then one command from the table.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"generate", cmd_generate, "have a teacher write a skill, measure, refine"},
    {"validate", cmd_validate, "check skills against the Agent Skills spec"},
    {"eval", cmd_eval, "measure a skill's lift on one or more models"},
    {"benchmark", cmd_benchmark, "evaluate a skill across models and runs"},
    {"models", cmd_models, "list an endpoint's models, or ping models"},
    {"list", cmd_list, "list skills in a folder"},
    {"runs", cmd_runs, "show results from the runs folder"},
    {"plot", cmd_plot, "upstream's deprecated name for runs"},
    {"report", cmd_report, "write an HTML report of eval batches"},
    {"select", cmd_select,
     "name the cheapest model that meets a target pass rate"},
    {"compare", cmd_compare, "paired A/B of two skills on the same cases"},
    {"merge", cmd_merge, "combine the shard batches of a sharded eval"},
    {"config", cmd_config, "show the resolved configuration"},
    {"cache", cmd_cache, "show or empty the response cache"},
    {"trace", cmd_trace, "show what a trace would send to the teacher"},
    {NULL, NULL, NULL},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: upskill [--version] [--help] [--no-color] <command> "
                "[options]\n\n"
                "Turn a strong model's know-how into Agent Skills and measure "
                "whether they help\nother models.\n\ncommands:\n");
    for (const struct command *c = commands; c->name; c++)
        fprintf(fp, "  %-12s %s\n", c->name, c->summary);
    fprintf(fp, "\nRun 'upskill <command> --help' for a command's options.\n"
                "Exit codes: 0 ok, 1 gate failed, 2 usage, 3 bad input, "
                "4 provider error, 130 interrupted.\n");
}

static int run(int argc, char **argv)
{
    int i = 1, no_color = 0;

    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--version")) {
            printf("upskill %s\n", UPSKILL_VERSION);
            return 0;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--no-color")) {
            no_color = 1;
            continue;
        }
        out_error("unknown option '%s'", argv[i]);
        usage(stderr);
        return EXIT_USAGE;
    }
    out_init(no_color);
    if (i >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    for (const struct command *c = commands; c->name; c++)
        if (!strcmp(c->name, argv[i]))
            return c->run(argc - i, argv + i);
    out_error("unknown command '%s'", argv[i]);
    usage(stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    int rc;

    /* Over a file-size limit (ulimit -f), a write must fail with EFBIG
     * and be reported like a full disk, not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
    rc = run(argc, argv);

    if (out_finish() && rc == 0)
        rc = EXIT_INPUT;
    return rc;
}
