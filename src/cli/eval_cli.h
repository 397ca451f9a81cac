/*
 * Shared by `upskill eval` and `upskill benchmark`: the parsed arguments
 * and the one function that runs either.
 */
#ifndef UPSKILL_EVAL_CLI_H
#define UPSKILL_EVAL_CLI_H

#include "cli.h"

struct eval_args {
    const char *skill_path;
    const char *tests;
    const char *runs_dir;
    const char *base_url;
    const char *api_key_env;
    const char *inject;
    const char *resume;
    const char *judge_model;
    struct strlist models;
    long runs;
    long jobs;
    long seed;
    double fail_under; /* < 0: no gate */
    int no_baseline;
    int verbose;
    int no_log;
    int no_cache; /* --no-cache: neither read nor write the cache */
    int json;
    int require_lift;
    int benchmark; /* 1 for `upskill benchmark` */
};

/* Run the eval described by a; returns the process exit code. */
int eval_cli_run(struct eval_args *a);

/* Report rendering (eval_report.c). */
void eval_report_text(const up_eval_plan *p, const up_eval_summary *s,
                      int verbose);
void eval_report_json(const up_eval_plan *p, const up_eval_summary *s,
                      const char *batch_id);

#endif
