/* Coding-agent CLIs as students: model strings and the activation line. */
#include <criterion/criterion.h>
#include <string.h>

#include "upskill/harness.h"
#include "upskill/upskill.h"

Test(cli_run, model_strings)
{
    up_model m;
    up_error err = {0};

    up_model_init(&m);
    cr_assert_eq(
        up_model_resolve(&m, "cli.claude-code", NULL, NULL, NULL, &err), 0,
        "%s", err.msg);
    cr_assert_str_eq(m.resolved, "cli.claude-code");
    cr_assert_str_eq(m.model_id, "", "the CLI's own default");
    cr_assert_null(m.base_url, "the CLI's own endpoint by default");
    cr_assert_str_eq(m.api_key_env, "ANTHROPIC_API_KEY");
    cr_assert(m.key_required);
    cr_assert_eq(up_model_resolve(&m, "cli.codex/gpt-5.1",
                                  "http://127.0.0.1:9/", NULL, NULL, &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(m.resolved, "cli.codex/gpt-5.1");
    cr_assert_str_eq(m.model_id, "gpt-5.1");
    cr_assert_str_eq(m.base_url, "http://127.0.0.1:9/v1");
    cr_assert_not(m.key_required, "a local server may take no key");
    cr_assert_eq(up_model_resolve(&m, "cli.gemini", "http://h:1/v1beta", "K",
                                  NULL, &err),
                 0);
    cr_assert_str_eq(m.base_url, "http://h:1");
    cr_assert_str_eq(m.api_key_env, "K");
    cr_assert_str_eq(m.resolved, "cli.gemini/gemini-2.5-flash");
    cr_assert_eq(
        up_model_resolve(&m, "cli.opencode", "http://h:1/v1", NULL, NULL, &err),
        0);
    cr_assert_str_eq(m.base_url, "http://h:1/v1");
    cr_assert_eq(up_model_resolve(&m, "cli.nope", NULL, NULL, NULL, &err),
                 UP_EPARSE);
    cr_assert(strstr(err.msg, "cli.claude-code, cli.codex"), "%s", err.msg);
    cr_assert_eq(up_model_resolve(&m, "cli.codex/", NULL, NULL, NULL, &err),
                 UP_EPARSE);
    up_model_release(&m);
    cr_assert_not_null(up_harness_spec_of("cli.opencode/x"));
    cr_assert_null(up_harness_spec_of("claude-code"));
    cr_assert_null(up_harness_spec_of("cli.claude-codex"));
}

Test(cli_run, low_activation_sentence)
{
    up_eval_summary s;
    up_buf b = UP_BUF_INIT;

    memset(&s, 0, sizeof(s));
    s.arm[UP_ARM_SKILL].agent_jobs = 5;
    s.arm[UP_ARM_SKILL].skill_reads = 2;
    up_eval_activation_text(&b, &s);
    cr_assert(strstr(b.data, "skill read in 2 of 5 conversations (40%): its "
                             "description made the model open SKILL.md in "
                             "fewer than half"),
              "%s", b.data);
    up_buf_reset(&b);
    s.arm[UP_ARM_SKILL].skill_reads = 3;
    up_eval_activation_text(&b, &s);
    cr_assert_null(strstr(b.data, "fewer than half"), "%s", b.data);
    up_buf_release(&b);
}
