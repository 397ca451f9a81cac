/*
 * upskill's entry point: global options, then one command from the table.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "upskill/harness.h"
#include "upskill/sched.h"

/* The commands in --help's order.  A command's name is the first word
 * of its spec's (trace's spec is "trace summarize"), its summary the
 * spec's, so both helps say the same. */
static const struct command {
    const struct cmd_spec *spec;
    int (*run)(int argc, char **argv);
} commands[] = {
    {&cmd_generate_spec, cmd_generate}, {&cmd_validate_spec, cmd_validate},
    {&cmd_eval_spec, cmd_eval},         {&cmd_benchmark_spec, cmd_benchmark},
    {&cmd_models_spec, cmd_models},     {&cmd_list_spec, cmd_list},
    {&cmd_runs_spec, cmd_runs},         {&cmd_plot_spec, cmd_plot},
    {&cmd_report_spec, cmd_report},     {&cmd_select_spec, cmd_select},
    {&cmd_compare_spec, cmd_compare},   {&cmd_merge_spec, cmd_merge},
    {&cmd_config_spec, cmd_config},     {&cmd_cache_spec, cmd_cache},
    {&cmd_trace_spec, cmd_trace},       {NULL, NULL},
};

/* The length of c's name: the first word of its spec's. */
static int name_len(const struct command *c)
{
    return (int)strcspn(c->spec->name, " ");
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: upskill [--version] [--help] [--no-color] "
                "[--trust-config] <command> [options]\n\n"
                "Turn a strong model's know-how into Agent Skills and measure "
                "whether they help\nother models.\n\ncommands:\n");
    for (const struct command *c = commands; c->spec; c++)
        fprintf(fp, "  %-12.*s %s\n", name_len(c), c->spec->name,
                c->spec->summary);
    fprintf(fp, "\nRun 'upskill <command> --help' for a command's options.\n"
                "Exit codes: 0 ok, 1 gate failed, 2 usage, 3 bad input, "
                "4 provider error, 130 interrupted.\n");
}

static int run(int argc, char **argv)
{
    int i = 1, no_color = 0;

    /* internal, not in --help: the network forwarder inside a coding-
     * agent CLI's sandbox (docs/agent-clis.md) */
    if (argc > 1 && !strcmp(argv[1], "__forward"))
        return up_harness_forward_main(argc - 2, argv + 2);
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
        if (!strcmp(argv[i], "--trust-config")) {
            /* read where the config is (config_trust.c): the user's say
             * that this folder's files may receive the user's key and
             * raise the host limits */
            setenv("UPSKILL_TRUST_CONFIG", "1", 1);
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
    for (const struct command *c = commands; c->spec; c++)
        if ((int)strlen(argv[i]) == name_len(c) &&
            !strncmp(c->spec->name, argv[i], (size_t)name_len(c)))
            return c->run(argc - i, argv + i);
    out_error("unknown command '%s'", argv[i]);
    usage(stderr);
    return EXIT_USAGE;
}

/* The library's warnings (up_warn), printed as the CLI's own. */
static void print_warning(void *ud, const char *msg)
{
    (void)ud;
    out_warn("%s", msg);
}

int main(int argc, char **argv)
{
    int rc;

    /* Over a file-size limit (ulimit -f), a write must fail with EFBIG
     * and be reported like a full disk, not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
    up_warn_set_sink(print_warning, NULL);
    rc = run(argc, argv);
    up_loop_release(); /* the command's loop and its connections */

    if (out_finish() && rc == 0)
        rc = EXIT_INPUT;
    return rc;
}
