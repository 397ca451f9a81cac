/* The evaluation session's defaults, worked out once for every command. */
#include <criterion/criterion.h>
#include <string.h>

#include "upskill/session.h"

Test(session_defaults, jobs_flag_then_config_then_four)
{
    up_config cfg;

    up_config_init(&cfg);
    cr_assert_eq(up_session_jobs(9, &cfg), 9);
    cfg.concurrency.value = 0;
    cr_assert_eq(up_session_jobs(0, &cfg), UP_SESSION_JOBS);
    cfg.concurrency.value = 12;
    cr_assert_eq(up_session_jobs(-1, &cfg), 12);
    up_config_release(&cfg);
}

Test(session_defaults, runs_dir_flag_then_config_then_runs)
{
    up_config cfg;

    up_config_init(&cfg);
    cr_assert_str_eq(up_session_runs_dir("out", &cfg), "out");
    cr_assert_str_eq(up_session_runs_dir(NULL, &cfg),
                     cfg.runs_dir.value ? cfg.runs_dir.value : "runs");
    up_config_release(&cfg);
}

Test(session_defaults, agent_options_ready_but_off)
{
    up_session_opts o;
    up_session s;
    up_config cfg;

    up_config_init(&cfg);
    up_session_opts_init(&o);
    cr_assert_eq(o.agent, 0);
    cr_assert_eq(o.max_turns, UP_SESSION_MAX_TURNS);
    cr_assert_eq(o.agent_inject, UP_SESSION_INJECT_CATALOG);
    up_session_init(&s, &o, &cfg);
    cr_assert_eq(s.ntargets, 0);
    cr_assert_eq(s.batch_dir.len, 0);
    up_session_release(&s);
    memset(&s, 0, sizeof(s));
    up_session_release(&s); /* a zeroed session releases safely */
    up_config_release(&cfg);
}
