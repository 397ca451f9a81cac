/*
 * Inside the coding-agent CLI runner: what one run needs, and the pieces
 * of harness_spec.c (each CLI's row, harness_int.h) that
 * harness_run.c puts together.
 */
#ifndef UPSKILL_AGENT_CLI_RUN_INT_H
#define UPSKILL_AGENT_CLI_RUN_INT_H

#include "upskill/harness.h"
#include "upskill/buf.h"
#include "lib/harness/harness_int.h"

#define CLI_WS_INSIDE   "/workspace"
#define CLI_HOME_INSIDE "/home/student"

/* A NULL-ended list of strings, owned. */
typedef struct cli_strv {
    char **v;
    size_t n, cap;
} cli_strv;

void cli_strv_free(cli_strv *v);

/* One run's settings (all borrowed). */
typedef struct cli_run_args {
    const up_harness_spec *spec;
    const char *bin;         /* the CLI's binary, absolute */
    const char *prefix;      /* its install prefix, bound read-only */
    const char *ws;          /* the workspace on the host */
    const char *home;        /* the private home on the host */
    const char *home_inside; /* the home as the CLI sees it */
    const char *prompt;
    const char *model;    /* inner model, or NULL */
    const char *base_url; /* NULL: the CLI's own default */
    const char *key;      /* the key's value, or NULL */
    const char *command;  /* cli.command: the configured command line */
} cli_run_args;

/* Write the CLI's config files into a->home. */
int cli_write_config(const cli_run_args *a, up_error *err);
/* The environment, built from nothing. */
void cli_envp(const cli_run_args *a, cli_strv *v);
/* The CLI's own command line. */
void cli_command(const cli_run_args *a, cli_strv *v);
/* bwrap and its options up to "--". */
void cli_bwrap(const cli_run_args *a, cli_strv *v);
/* The CLI's binary and install prefix; UP_ENOTFOUND saying how to get it. */
int cli_find(const up_harness_spec *s, up_buf *bin, up_buf *prefix,
             up_error *err);

#endif
