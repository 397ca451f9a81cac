/* The evaluation session's defaults, worked out once for every command. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/eval/session_lib.h"
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
    cr_assert_eq(o.max_turns, UP_AGENT_MAX_TURNS);
    cr_assert_eq(o.agent_inject, UP_INJECT_CATALOG);
    up_session_init(&s, &o, &cfg);
    cr_assert_eq(s.ntargets, 0);
    cr_assert_eq(s.batch_dir.len, 0);
    up_session_release(&s);
    memset(&s, 0, sizeof(s));
    up_session_release(&s); /* a zeroed session releases safely */
    up_config_release(&cfg);
}

/* --inject is one enum in chat and agent mode: each value's meaning in
 * both, and the ones agent mode alone takes.  generate --agent --inject
 * agentskills preloads the Agent Skills form (it used to fall back to
 * upskill's form, its plan's chat injection being fixed). */
Test(session_defaults, inject_values_in_chat_and_agent_mode)
{
    static const struct {
        const char *flag;
        int ok_chat;
        enum up_inject chat, agent;
    } rows[] = {
        {NULL, 1, UP_INJECT_UPSKILL, UP_INJECT_CATALOG},
        {"upskill", 1, UP_INJECT_UPSKILL, UP_INJECT_UPSKILL},
        {"agentskills", 1, UP_INJECT_AGENTSKILLS, UP_INJECT_AGENTSKILLS},
        {"catalog", 0, UP_INJECT_UPSKILL, UP_INJECT_CATALOG},
        {"preload", 0, UP_INJECT_UPSKILL, UP_INJECT_UPSKILL},
    };
    up_session_opts o;

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].flag) {
            cr_assert_eq(up_session_inject_ok(rows[i].flag, 0), rows[i].ok_chat,
                         "%s", rows[i].flag);
            cr_assert(up_session_inject_ok(rows[i].flag, 1), "%s",
                      rows[i].flag);
        }
        cr_assert_eq(up_session_chat_inject(rows[i].flag), rows[i].chat);
        up_session_opts_init(&o);
        up_session_agent_opts(&o, 1, rows[i].flag, 0, 0, 0);
        cr_assert_eq(o.agent_inject, rows[i].agent, "%s",
                     rows[i].flag ? rows[i].flag : "(none)");
    }
    cr_assert_not(up_session_inject_ok("body", 1));
    /* batch_plan.json records these numbers (docs/runs-format.md) */
    cr_assert_eq(UP_INJECT_CATALOG, 0);
    cr_assert_eq(UP_INJECT_UPSKILL, 1);
    cr_assert_eq(UP_INJECT_AGENTSKILLS, 2);
}
