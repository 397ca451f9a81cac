/* Unit tests for upskill.config.yaml: lookup, layers, sources, messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config/config_lib.h"
#include "upskill/upskill.h"

/* A fake environment: NULL-terminated name/value pairs. */
struct fake_env {
    const char *vars[16][2];
};

static const char *fake_getenv(const char *name, void *ctx)
{
    struct fake_env *e = ctx;

    for (size_t i = 0; i < 16 && e->vars[i][0]; i++)
        if (!strcmp(e->vars[i][0], name))
            return e->vars[i][1];
    return NULL;
}

static int parse(up_config *cfg, const char *yaml, up_error *err)
{
    return up_config_parse(cfg, yaml, strlen(yaml), "upskill.config.yaml", err);
}

static char *source_text(const up_source *src)
{
    up_buf b = UP_BUF_INIT;

    up_source_format(src, &b);
    return up_buf_detach(&b);
}

static void assert_source(const up_source *src, const char *want)
{
    char *got = source_text(src);

    cr_assert_str_eq(got, want);
    free(got);
}

Test(config, defaults)
{
    up_config cfg;

    up_config_init(&cfg);
    cr_assert_str_eq(cfg.skill_generation_model.value, "sonnet");
    cr_assert_null(cfg.eval_model.value);
    cr_assert_null(cfg.test_gen_model.value);
    cr_assert_str_eq(cfg.skills_dir.value, "skills");
    cr_assert_str_eq(cfg.runs_dir.value, "runs");
    cr_assert_eq(cfg.max_refine_attempts.value, 2);
    cr_assert_eq(cfg.min_tests.value, 3);
    cr_assert_eq(cfg.max_tests.value, 8);
    assert_source(&cfg.min_tests.src, "default");
    cr_assert_eq(cfg.cache_enabled.value, 1, "the cache is on by default");
    cr_assert_eq(cfg.cache_ttl_days.value, 30);
    cr_assert_str_eq(cfg.providers[UP_PROV_HF].api_key_env.value, "HF_TOKEN");
    assert_source(&cfg.max_refine_attempts.src, "default");
    assert_source(&cfg.providers[UP_PROV_OPENAI].base_url.src, "default");
    cr_assert_null(cfg.path);
    up_config_release(&cfg);
}

static const char full_yaml[] = "# every key\n"
                                "skill_generation_model: opus\n"
                                "eval_model: haiku\n"
                                "test_gen_model: null\n"
                                "skills_dir: ~/skills\n"
                                "runs_dir: ./out/runs\n"
                                "prompts_dir: prompts\n"
                                "max_refine_attempts: 3\n"
                                "concurrency: 8\n"
                                "auto_eval: true\n"
                                "cache:\n"
                                "  enabled: yes\n"
                                "  path: /tmp/c.sqlite\n"
                                "  ttl_days: 7\n"
                                "providers:\n"
                                "  openai:\n"
                                "    base_url: http://127.0.0.1:1/v1\n"
                                "    connect_timeout: 2\n"
                                "aliases: {fast: haiku}\n"
                                "prices:\n"
                                "  claude-haiku-4-5: {input: 1, output: 5}\n"
                                "  anthropic.claude-opus-4-6:\n"
                                "    input: 5\n"
                                "    output: 25\n"
                                "    cached: 0.5\n";

Test(config, every_key_with_lines)
{
    up_config cfg;
    up_error err = {0};
    struct fake_env env = {{{"HOME", "/home/u"}}};
    const up_price *p;

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(parse(&cfg, full_yaml, &err), 0, "%s", err.msg);
    cr_assert_eq(cfg.nwarnings, 0, "%s", cfg.nwarnings ? cfg.warnings[0] : "");
    cr_assert_str_eq(cfg.skill_generation_model.value, "opus");
    assert_source(&cfg.skill_generation_model.src, "upskill.config.yaml:2");
    cr_assert_str_eq(cfg.eval_model.value, "haiku");
    cr_assert_null(cfg.test_gen_model.value);
    assert_source(&cfg.test_gen_model.src, "upskill.config.yaml:4");
    cr_assert_str_eq(cfg.skills_dir.value, "/home/u/skills");
    cr_assert_str_eq(cfg.runs_dir.value, "./out/runs");
    cr_assert_str_eq(cfg.prompts_dir.value, "prompts");
    cr_assert_eq(cfg.max_refine_attempts.value, 3);
    assert_source(&cfg.max_refine_attempts.src, "upskill.config.yaml:8");
    cr_assert_eq(cfg.concurrency.value, 8);
    cr_assert_eq(cfg.cache_enabled.value, 1);
    cr_assert_str_eq(cfg.cache_path.value, "/tmp/c.sqlite");
    cr_assert_eq(cfg.cache_ttl_days.value, 7);
    assert_source(&cfg.cache_ttl_days.src, "upskill.config.yaml:14");
    cr_assert_str_eq(cfg.providers[UP_PROV_OPENAI].base_url.value,
                     "http://127.0.0.1:1/v1");
    assert_source(&cfg.providers[UP_PROV_OPENAI].base_url.src,
                  "upskill.config.yaml:17");
    cr_assert_eq(cfg.providers[UP_PROV_OPENAI].connect_timeout.value, 2.0);
    cr_assert_str_eq(up_config_alias(&cfg, "fast")->target, "haiku");
    p = up_config_price(&cfg, "anthropic.claude-haiku-4-5", "claude-haiku-4-5");
    cr_assert_not_null(p);
    cr_assert_eq(p->output, 5.0);
    cr_assert_eq(p->cached, 1.0, "cached defaults to the input price");
    p = up_config_price(&cfg, "anthropic.claude-opus-4-6", "claude-opus-4-6");
    cr_assert_not_null(p);
    cr_assert_eq(p->cached, 0.5);
    cr_assert_null(up_config_price(&cfg, "openai.gpt-4o", "gpt-4o"));
    up_config_release(&cfg);
}

Test(config, cache_can_be_turned_off)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg, "cache:\n  enabled: false\n", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(cfg.cache_enabled.value, 0);
    assert_source(&cfg.cache_enabled.src, "upskill.config.yaml:2");
    cr_assert_eq(up_config_set(&cfg, "cache.enabled", "true", "--x", &err), 0,
                 "%s", err.msg);
    cr_assert_eq(cfg.cache_enabled.value, 1);
    up_config_release(&cfg);
}

Test(config, sandbox_limits_of_the_run_tool)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(cfg.sandbox_wall_s.value, 30, "the sandbox's defaults");
    cr_assert_eq(cfg.sandbox_memory_mb.value, 1024);
    cr_assert_eq(cfg.sandbox_call_memory_mb.value, 1024);
    cr_assert_eq(cfg.sandbox_output_kb.value, 64);
    cr_assert_eq(parse(&cfg,
                       "sandbox:\n  wall_seconds: 5\n  processes: 16\n"
                       "  cpu_seconds: 2\n  memory_mb: 256\n"
                       "  file_size_mb: 8\n  output_kb: 4\n"
                       "  call_memory_mb: 512\n",
                       &err),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.sandbox_wall_s.value, 5);
    cr_assert_eq(cfg.sandbox_processes.value, 16);
    cr_assert_eq(cfg.sandbox_cpu_s.value, 2);
    cr_assert_eq(cfg.sandbox_memory_mb.value, 256);
    cr_assert_eq(cfg.sandbox_file_size_mb.value, 8);
    cr_assert_eq(cfg.sandbox_output_kb.value, 4);
    cr_assert_eq(cfg.sandbox_call_memory_mb.value, 512);
    assert_source(&cfg.sandbox_wall_s.src, "upskill.config.yaml:2");
    up_config_release(&cfg);
    up_config_init(&cfg);
    cr_assert_neq(parse(&cfg, "sandbox:\n  wall_seconds: 0\n", &err), 0,
                  "a limit cannot be turned off from the config");
    up_config_release(&cfg);
}

Test(config, legacy_model_key)
{
    static const char *const yamls[] = {
        "model: haiku\n",
        "model: haiku\nskill_generation_model: opus\n",
        "skill_generation_model: opus\nmodel: haiku\n",
    };
    static const char *const want[] = {"haiku", "opus", "opus"};

    for (size_t i = 0; i < 3; i++) {
        up_config cfg;

        up_config_init(&cfg);
        cr_assert_eq(parse(&cfg, yamls[i], NULL), 0);
        cr_assert_str_eq(cfg.skill_generation_model.value, want[i]);
        cr_assert_eq(cfg.nwarnings, 0);
        up_config_release(&cfg);
    }
}

Test(config, unknown_keys_warn_with_line)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg,
                       "model: haiku\n"
                       "modle: opus\n"
                       "providers:\n"
                       "  openai:\n"
                       "    base_ulr: x\n"
                       "  mistral: {}\n"
                       "cache: {size: 3}\n"
                       "prices:\n"
                       "  x: {input: 1, output: 2, extra: 3}\n"
                       "fastagent_config: f.yaml\n",
                       &err),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.nwarnings, 6);
    cr_assert_str_eq(cfg.warnings[0],
                     "'upskill.config.yaml':2: unknown key 'modle' (did you "
                     "mean 'model'?)");
    cr_assert_str_eq(cfg.warnings[1], "'upskill.config.yaml':5: unknown key "
                                      "'providers.openai.base_ulr' (did you "
                                      "mean 'base_url'?)");
    cr_assert_str_eq(cfg.warnings[2],
                     "'upskill.config.yaml':6: unknown provider 'mistral' "
                     "(known: anthropic, openai, generic, hf)");
    cr_assert_str_eq(cfg.warnings[3],
                     "'upskill.config.yaml':7: unknown key 'cache.size'");
    cr_assert_str_eq(cfg.warnings[4],
                     "'upskill.config.yaml':9: unknown key 'prices.x.extra'");
    cr_assert(strstr(cfg.warnings[5], "'upskill.config.yaml':10: "
                                      "fastagent_config is not used"));
    cr_assert_str_eq(cfg.skill_generation_model.value, "haiku");
    up_config_release(&cfg);
}

/* max_refine_attempts as upstream's pydantic model and max(1, n) read
   it (issue 25, item 8). */
Test(config, max_refine_attempts_as_upstream_reads_it)
{
    static const struct {
        const char *text;
        long value;
        int warns;
    } cases[] = {{"3", 3, 0},   {"2.0", 2, 0},  {"true", 1, 0},
                 {"0", 1, 1},   {"-1", 1, 1},   {"false", 1, 1},
                 {"yes", 1, 0}, {"\"4\"", 4, 0}};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char yaml[64];
        up_config cfg;
        up_error err = {0};

        snprintf(yaml, sizeof(yaml), "max_refine_attempts: %s\n",
                 cases[i].text);
        up_config_init(&cfg);
        cr_assert_eq(parse(&cfg, yaml, &err), 0, "%s: %s", yaml, err.msg);
        cr_assert_eq(cfg.max_refine_attempts.value, cases[i].value, "%s", yaml);
        cr_assert_eq(cfg.nwarnings, (size_t)cases[i].warns, "%s", yaml);
        if (cases[i].warns)
            cr_assert(strstr(cfg.warnings[0], "counts as 1 (as upstream's "
                                              "max(1, n))"),
                      "%s", cfg.warnings[0]);
        up_config_release(&cfg);
    }
}

static const struct {
    const char *yaml;
    const char *msg;
} type_errors[] = {
    {"model: haiku\nskills_dir: skills\n\nmax_refine_attempts: many\n",
     "'upskill.config.yaml':4: max_refine_attempts: expected a whole number"},
    {"max_refine_attempts: 2.5\n",
     "'upskill.config.yaml':1: max_refine_attempts: expected a whole number"},
    {"concurrency: 0\n", "'upskill.config.yaml':1: concurrency: expected a "
                         "whole number of at least 1"},
    {"min_tests: three\n",
     "'upskill.config.yaml':1: min_tests: expected a whole number"},
    {"max_tests: [5]\n",
     "'upskill.config.yaml':1: max_tests: expected a whole number"},
    {"min_tests: 0\n", "'upskill.config.yaml':1: min_tests: expected a whole "
                       "number from 1 to 100"},
    {"model: x\nmax_tests: 101\n", "'upskill.config.yaml':2: max_tests: "
                                   "expected a whole number from 1 to 100"},
    {"max_tests: 4\nmin_tests: 6\n",
     "'upskill.config.yaml':2: min_tests: 6 is above max_tests (4, line 1)"},
    {"eval_model: [a, b]\n",
     "'upskill.config.yaml':1: eval_model: expected a string, not a list"},
    {"cache:\n  enabled: maybe\n",
     "'upskill.config.yaml':2: cache.enabled: expected true or false"},
    {"providers:\n  hf:\n    timeout: -1\n",
     "'upskill.config.yaml':3: providers.hf.timeout: expected a number of "
     "seconds above 0"},
    {"providers: [anthropic]\n",
     "'upskill.config.yaml':1: providers: expected a mapping of providers"},
    {"providers:\n  openai: fast\n",
     "'upskill.config.yaml':2: providers.openai: expected a mapping, not a "
     "string"},
    {"providers:\n  openai:\n    headers:\n      X-A: \"a\\r\\nX-B: b\"\n",
     "'upskill.config.yaml':4: providers.openai.headers: header 'X-A': "
     "expected a name without ':' or spaces and a one-line string value "
     "without control characters"},
    {"providers:\n  openai:\n    headers:\n      X-A: \"a\\tb\\u0001\"\n",
     "'upskill.config.yaml':4: providers.openai.headers: header 'X-A': "
     "expected a name without ':' or spaces and a one-line string value "
     "without control characters"},
    {"max_tokens: 0\n", "'upskill.config.yaml':1: max_tokens: expected a "
                        "whole number from 1 to 10000000"},
    {"aliases:\n  fast: [haiku]\n", "'upskill.config.yaml':2: aliases: alias "
                                    "'fast': expected a model string"},
    {"prices:\n  m: {input: 1}\n", "'upskill.config.yaml':2: prices.m: "
                                   "expected both input and output prices"},
    {"prices:\n  m: {input: 1, output: -2}\n",
     "'upskill.config.yaml':2: prices.m: output: expected a number of USD "
     "per million tokens"},
    {"- a\n- b\n", "'upskill.config.yaml':1: top level: expected a mapping "
                   "of settings, not a list"},
};

Test(config, wrong_types_fail_with_line)
{
    for (size_t i = 0; i < sizeof(type_errors) / sizeof(type_errors[0]); i++) {
        up_config cfg;
        up_error err = {0};

        up_config_init(&cfg);
        cr_assert_eq(parse(&cfg, type_errors[i].yaml, &err), UP_EPARSE, "%s",
                     type_errors[i].yaml);
        cr_assert_str_eq(err.msg, type_errors[i].msg);
        up_config_release(&cfg);
    }
}

Test(config, test_counts_from_the_file)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg, "min_tests: \"5\"\nmax_tests: 5\n", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(cfg.min_tests.value, 5, "quoted numbers are fine");
    cr_assert_eq(cfg.max_tests.value, 5, "min = max is fine");
    assert_source(&cfg.max_tests.src, "upskill.config.yaml:2");
    up_config_release(&cfg);
    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg, "min_tests: 12\n", &err), 0,
                 "one bound above the other's default is for generate to "
                 "resolve: %s",
                 err.msg);
    up_config_release(&cfg);
}

Test(config, syntax_error_names_file_and_line)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg, "model: haiku\nx: [unclosed\n", &err), UP_EPARSE);
    cr_assert(!strncmp(err.msg, "'upskill.config.yaml':", 22), "%s", err.msg);
    up_config_release(&cfg);
}

Test(config, yaml_strictness_is_fine_duplicates_warn)
{
    up_config cfg;
    up_error err = {0};

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg,
                       "aliases: {a: haiku, b: opus}\n"
                       "prices: {m: {input: 1, output: 2}}\n"
                       "runs_dir: a\n"
                       "runs_dir: b\n",
                       &err),
                 0, "%s", err.msg);
    cr_assert_eq(cfg.nwarnings, 1);
    cr_assert(strstr(cfg.warnings[0], "'upskill.config.yaml':4: duplicate"),
              "%s", cfg.warnings[0]);
    cr_assert_eq(cfg.naliases, 2);
    up_config_release(&cfg);
}

Test(config, env_beats_file_flags_beat_env)
{
    up_config cfg;
    up_error err = {0};
    struct fake_env env = {{{"GENERIC_BASE_URL", "http://127.0.0.1:2/v1"},
                            {"OPENAI_API_BASE", "http://old/v1"},
                            {"OPENAI_BASE_URL", "http://new/v1"},
                            {"ANTHROPIC_BASE_URL", ""}}};

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(parse(&cfg,
                       "providers:\n"
                       "  generic: {base_url: 'http://127.0.0.1:1/v1'}\n"
                       "  anthropic: {base_url: 'http://127.0.0.1:3'}\n",
                       &err),
                 0, "%s", err.msg);
    up_config_apply_env(&cfg);
    cr_assert_str_eq(cfg.providers[UP_PROV_GENERIC].base_url.value,
                     "http://127.0.0.1:2/v1");
    assert_source(&cfg.providers[UP_PROV_GENERIC].base_url.src,
                  "env GENERIC_BASE_URL");
    cr_assert_str_eq(cfg.providers[UP_PROV_OPENAI].base_url.value,
                     "http://new/v1");
    /* An empty variable counts as unset: the file's value stays. */
    assert_source(&cfg.providers[UP_PROV_ANTHROPIC].base_url.src,
                  "upskill.config.yaml:3");
    cr_assert_eq(up_config_set(&cfg, "providers.generic.base_url",
                               "http://127.0.0.1:4/v1", "--base-url", &err),
                 0);
    assert_source(&cfg.providers[UP_PROV_GENERIC].base_url.src,
                  "flag --base-url");
    cr_assert_eq(up_config_set(&cfg, "concurrency", "16", "-j", &err), 0);
    cr_assert_eq(cfg.concurrency.value, 16);
    assert_source(&cfg.concurrency.src, "flag -j");
    cr_assert_eq(
        up_config_set(&cfg, "cache.enabled", "false", "--no-cache", &err), 0);
    cr_assert_eq(up_config_set(&cfg, "concurrency", "lots", "-j", &err),
                 UP_EUSAGE);
    cr_assert_str_eq(err.msg, "-j: expected a whole number");
    cr_assert_eq(up_config_set(&cfg, "providers.x.base_url", "u", "--u", &err),
                 UP_EUSAGE);
    cr_assert_str_eq(err.msg, "unknown setting 'providers.x.base_url'");
    cr_assert_eq(up_config_set(&cfg, "aliases", "x", "--a", &err), UP_EUSAGE);
    up_config_release(&cfg);
}

/* ---- lookup order, in a scratch folder ---------------------------------- */

static void write_file(const char *path, const char *text)
{
    up_buf dir = UP_BUF_INIT;

    up_fs_dirname(&dir, path);
    cr_assert_eq(up_fs_mkdir_p(dir.data, 0755, NULL), 0);
    cr_assert_eq(up_fs_write_atomic(path, text, strlen(text), 0644, NULL), 0);
    up_buf_release(&dir);
}

static void load_with(struct fake_env *env, up_config *cfg)
{
    up_error err = {0};

    up_config_init(cfg);
    up_config_set_env(cfg, fake_getenv, env);
    cr_assert_eq(up_config_load(cfg, &err), 0, "%s", err.msg);
}

Test(config, lookup_order)
{
    char top[] = "/tmp/upskill-config.XXXXXX";
    char home[64], proj[64], legacy[160], explicit[160], local[160];
    struct fake_env env = {{{"HOME", home}, {"UPSKILL_CONFIG", explicit}}};
    up_config cfg;

    cr_assert_not_null(mkdtemp(top));
    snprintf(home, sizeof(home), "%s/home", top);
    snprintf(proj, sizeof(proj), "%s/proj", top);
    snprintf(legacy, sizeof(legacy), "%s/.config/upskill/config.yaml", home);
    snprintf(explicit, sizeof(explicit), "%s/explicit.yaml", top);
    snprintf(local, sizeof(local), "%s/upskill.config.yaml", proj);
    write_file(legacy, "eval_model: legacy\n");
    write_file(local, "eval_model: local\n");
    write_file(explicit, "eval_model: explicit\n");
    cr_assert_eq(chdir(proj), 0);

    load_with(&env, &cfg);
    cr_assert_str_eq(cfg.eval_model.value, "explicit");
    cr_assert_str_eq(cfg.why, "UPSKILL_CONFIG env var");
    up_config_release(&cfg);

    env.vars[1][0] = "UNUSED";
    load_with(&env, &cfg);
    cr_assert_str_eq(cfg.eval_model.value, "local");
    cr_assert_str_eq(cfg.path, "upskill.config.yaml");
    cr_assert_str_eq(cfg.why, "project-local config");
    assert_source(&cfg.eval_model.src, "upskill.config.yaml:1");
    up_config_release(&cfg);

    cr_assert_eq(unlink(local), 0);
    load_with(&env, &cfg);
    cr_assert_str_eq(cfg.eval_model.value, "legacy");
    cr_assert_str_eq(cfg.path, legacy);
    cr_assert_str_eq(cfg.why, "legacy user config");
    up_config_release(&cfg);

    cr_assert_eq(unlink(legacy), 0);
    load_with(&env, &cfg);
    cr_assert_null(cfg.eval_model.value);
    cr_assert_null(cfg.path);
    up_config_release(&cfg);

    /* UPSKILL_CONFIG naming a missing file: used, defaults apply. */
    env.vars[1][0] = "UPSKILL_CONFIG";
    env.vars[1][1] = "~/missing.yaml";
    load_with(&env, &cfg);
    cr_assert(strstr(cfg.path, "/home/missing.yaml"), "%s", cfg.path);
    cr_assert_eq(cfg.path_exists, 0);
    cr_assert_str_eq(cfg.skill_generation_model.value, "sonnet");
    cr_assert(strstr(cfg.cache_path.value, "/home/.cache/upskill/"));
    up_config_release(&cfg);
    cr_assert_eq(chdir("/"), 0);
    unlink(explicit);
    snprintf(legacy, sizeof(legacy), "%s/.config/upskill", home);
    rmdir(legacy);
    snprintf(legacy, sizeof(legacy), "%s/.config", home);
    rmdir(legacy);
    rmdir(home);
    rmdir(proj);
    rmdir(top);
}

Test(config, load_reports_bad_file)
{
    char dir[] = "/tmp/upskill-config.XXXXXX";
    char path[256];
    struct fake_env env = {{{"UPSKILL_CONFIG", path}}};
    up_config cfg;
    up_error err = {0};

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/c.yaml", dir);
    write_file(path, "# c\nconcurrency: x\n");
    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(up_config_load(&cfg, &err), UP_EPARSE);
    cr_assert(strstr(err.msg, ":2: concurrency: expected a whole number"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, path));
    up_config_release(&cfg);
    unlink(path);
    rmdir(dir);
}

/* ---- fallback files: fastagent.secrets.yaml, fastagent.config.yaml, .env */

static const char *env_src(const up_config *cfg, const char *name,
                           char **src_text)
{
    up_source src;
    const char *v = up_config_getenv_src(cfg, name, &src);

    *src_text = source_text(&src);
    return v;
}

Test(config, dotenv_common_format)
{
    static const char text[] = "# comment\n"
                               "export A_KEY=plain value  # note\n"
                               "B_KEY = 'single # kept'\n"
                               "C_KEY=\"dq \\\"x\\\" # kept\" # gone\n"
                               "D_KEY=${A_KEY}\n"
                               "BARE\n"
                               "not a line\n"
                               "E_KEY=\"open\n"
                               "A_KEY=later\r\n";
    struct fake_env env = {{{"B_KEY", "from-env"}}};
    up_config cfg;
    char *src;

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    up_config_parse_dotenv(&cfg, text, strlen(text), ".env");
    cr_assert_str_eq(env_src(&cfg, "A_KEY", &src), "later");
    cr_assert_str_eq(src, ".env:9", "the last line of a name wins");
    free(src);
    cr_assert_str_eq(env_src(&cfg, "B_KEY", &src), "from-env");
    cr_assert_str_eq(src, "env B_KEY", "the environment beats .env");
    free(src);
    cr_assert_str_eq(up_config_getenv(&cfg, "C_KEY"), "dq \"x\" # kept");
    cr_assert_str_eq(up_config_getenv(&cfg, "D_KEY"), "${A_KEY}",
                     "no variable expansion");
    cr_assert_null(up_config_getenv(&cfg, "BARE"));
    cr_assert_null(up_config_getenv(&cfg, "E_KEY"));
    cr_assert_eq(cfg.nwarnings, 2);
    cr_assert_str_eq(cfg.warnings[0], "'.env':7: expected KEY=VALUE (a quote "
                                      "left open?); the line is ignored");
    cr_assert(strstr(cfg.warnings[1], "'.env':8:"));
    cr_assert_null(strstr(cfg.warnings[1], "E_KEY"),
                   "a warning never quotes the line");
    up_config_release(&cfg);
}

/* A folder's .env never sets what places files or decides trust (issue
 * 35, item 3): dropped with a warning naming the variable. */
Test(config, dotenv_host_variables_ignored)
{
    static const char text[] = "HOME=/dev/shm\n"
                               "XDG_CACHE_HOME=/dev/shm/c\n"
                               "export TMPDIR=/dev/shm\n"
                               "UPSKILL_TRUST_CONFIG=1\n"
                               "OPENAI_API_KEY=sk-kept\n";
    struct fake_env env = {{{"HOME", "/home/u"}}};
    up_config cfg;

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    up_config_parse_dotenv(&cfg, text, strlen(text), ".env");
    cr_assert_str_eq(up_config_getenv(&cfg, "HOME"), "/home/u");
    cr_assert_null(up_config_getenv(&cfg, "XDG_CACHE_HOME"));
    cr_assert_null(up_config_getenv(&cfg, "TMPDIR"));
    cr_assert_null(up_config_host_env(&cfg, "UPSKILL_TRUST_CONFIG"));
    cr_assert_str_eq(up_config_getenv(&cfg, "OPENAI_API_KEY"), "sk-kept",
                     "a key still comes from .env");
    cr_assert_eq(cfg.nwarnings, 4);
    cr_assert_str_eq(cfg.warnings[1],
                     "'.env':2: XDG_CACHE_HOME is read from your environment "
                     "only, never from a folder's .env; ignored");
    cr_assert(strstr(cfg.warnings[2], "'.env':3: TMPDIR "));
    up_config_release(&cfg);
}

Test(config, fastagent_providers_map_onto_ours)
{
    static const char secrets[] = "openai:\n"
                                  "  api_key: sk-from-secrets\n"
                                  "mcp: {servers: {}}\n";
    static const char fa_config[] = "default_model: kimi\n"
                                    "openai:\n"
                                    "  api_key: sk-from-config\n"
                                    "generic:\n"
                                    "  api_key: local\n"
                                    "  base_url: http://127.0.0.1:9/v1\n"
                                    "anthropic:\n"
                                    "  api_key: ${ANTHROPIC_API_KEY}\n";
    struct fake_env env = {{{"HOME", "/nonexistent"}}};
    up_config cfg;
    up_error err = {0};
    char *src;

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(up_config_parse_fastagent(&cfg, secrets, strlen(secrets),
                                           "fastagent.secrets.yaml", &err),
                 0, "%s", err.msg);
    cr_assert_eq(up_config_parse_fastagent(&cfg, fa_config, strlen(fa_config),
                                           "fastagent.config.yaml", &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(env_src(&cfg, "OPENAI_API_KEY", &src), "sk-from-secrets");
    cr_assert_str_eq(src, "fastagent.secrets.yaml:2", "secrets beat config");
    free(src);
    cr_assert_str_eq(up_config_getenv(&cfg, "GENERIC_API_KEY"), "local");
    cr_assert_null(up_config_getenv(&cfg, "ANTHROPIC_API_KEY"));
    cr_assert_eq(cfg.nwarnings, 1);
    cr_assert(strstr(cfg.warnings[0], "'fastagent.config.yaml':8: "
                                      "anthropic.api_key: ${...} is not "
                                      "expanded"),
              "%s", cfg.warnings[0]);
    /* A fallback base URL is below the config file and the environment. */
    up_config_apply_env(&cfg);
    cr_assert_str_eq(cfg.providers[UP_PROV_GENERIC].base_url.value,
                     "http://127.0.0.1:9/v1");
    assert_source(&cfg.providers[UP_PROV_GENERIC].base_url.src,
                  "fastagent.config.yaml:6");
    up_config_release(&cfg);

    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(up_config_parse_fastagent(&cfg, fa_config, strlen(fa_config),
                                           "fastagent.config.yaml", &err),
                 0);
    cr_assert_eq(parse(&cfg,
                       "providers:\n"
                       "  generic: {base_url: 'http://127.0.0.1:1/v1'}\n",
                       &err),
                 0, "%s", err.msg);
    up_config_apply_env(&cfg);
    assert_source(&cfg.providers[UP_PROV_GENERIC].base_url.src,
                  "upskill.config.yaml:2");
    up_config_release(&cfg);
}

/* Every preset with a key variable has a fast-agent section that sets
 * it (its own, or the earlier preset's that shares the variable:
 * responses and openai), and one that sets a base-URL variable when it
 * has any: the sections come from the preset table, so a new provider
 * cannot be missed. */
Test(config, fastagent_sections_cover_every_preset)
{
    struct fake_env env = {{{"HOME", "/nonexistent"}}};
    up_buf yaml = UP_BUF_INIT;
    up_config cfg;
    up_error err = {0};

    for (int k = 0; k < up_preset_count(); k++)
        up_buf_addf(&yaml, "%s:\n  api_key: key-%s\n  base_url: url-%s\n",
                    up_preset_at(k)->name, up_preset_at(k)->name,
                    up_preset_at(k)->name);
    up_config_init(&cfg);
    up_config_set_env(&cfg, fake_getenv, &env);
    cr_assert_eq(up_config_parse_fastagent(&cfg, yaml.data, yaml.len,
                                           "fastagent.secrets.yaml", &err),
                 0, "%s", err.msg);
    for (int k = 0; k < up_preset_count(); k++) {
        const up_preset *p = up_preset_at(k);
        const char *const *b = p->base_envs;
        int based = 0;

        if (!p->key_env)
            continue;
        cr_assert_not_null(up_config_getenv(&cfg, p->key_env),
                           "no section sets %s (preset %s)", p->key_env,
                           p->name);
        for (; *b; b++)
            based |= up_config_getenv(&cfg, *b) != NULL;
        cr_assert(based || !p->base_envs[0],
                  "no section sets a base URL of preset %s", p->name);
    }
    cr_assert_str_eq(up_config_getenv(&cfg, "HF_TOKEN"), "key-hf");
    cr_assert_str_eq(up_config_getenv(&cfg, "OPENAI_API_KEY"), "key-openai",
                     "responses has no section of its own");
    cr_assert_str_eq(up_config_getenv(&cfg, "AZURE_OPENAI_ENDPOINT"),
                     "url-azure");
    cr_assert_str_eq(up_config_getenv(&cfg, "OPENAI_BASE_URL"), "url-openai");
    cr_assert_null(up_config_getenv(&cfg, "OPENAI_API_BASE"),
                   "base_url sets the variable that wins");
    up_config_release(&cfg);
    up_buf_release(&yaml);
}

Test(config, fastagent_bad_file_names_file_and_line)
{
    static const char *const bad[] = {"openai:\n  api_key: [sk-x]\n",
                                      "openai: [1]\n", "openai:\n\tapi: x\n"};
    static const char *const want[] = {
        "'fastagent.secrets.yaml':2: openai.api_key: expected a string",
        "'fastagent.secrets.yaml':1: openai: expected a mapping",
        "'fastagent.secrets.yaml': line "};

    for (size_t i = 0; i < 3; i++) {
        up_config cfg;
        up_error err = {0};

        up_config_init(&cfg);
        cr_assert_eq(up_config_parse_fastagent(&cfg, bad[i], strlen(bad[i]),
                                               "fastagent.secrets.yaml", &err),
                     UP_EPARSE);
        cr_assert(strstr(err.msg, want[i]), "%s", err.msg);
        cr_assert_null(strstr(err.msg, "sk-x"), "no value in a message");
        up_config_release(&cfg);
    }
}

/* Where workspaces go and what each holds (issue 23 item 1): a disk by
 * default, never /dev/shm unless named. */
Test(config, workspace_dir_and_quota)
{
    struct fake_env env = {
        {{"HOME", "/home/u"}, {"UPSKILL_CONFIG", "/nonexistent/c.yaml"}}};
    up_config cfg;
    up_error err = {0};

    load_with(&env, &cfg);
    cr_assert_str_eq(cfg.workspace_dir.value, "/home/u/.cache/upskill/work");
    cr_assert_eq(cfg.workspace_max_bytes.value, 268435456);
    cr_assert_eq(cfg.workspace_max_files.value, 10000);
    up_config_release(&cfg);
    env.vars[2][0] = "XDG_CACHE_HOME";
    env.vars[2][1] = "/x";
    load_with(&env, &cfg);
    cr_assert_str_eq(cfg.workspace_dir.value, "/x/upskill/work");
    up_config_release(&cfg);
    env.vars[3][0] = "TMPDIR";
    env.vars[3][1] = "/t";
    load_with(&env, &cfg);
    cr_assert_null(cfg.workspace_dir.value, "TMPDIR: the eval's fallback");
    up_config_release(&cfg);

    up_config_init(&cfg);
    cr_assert_eq(parse(&cfg,
                       "workspace_dir: /w\nworkspace_max_bytes: 65536\n"
                       "workspace_max_files: 16\n",
                       &err),
                 0, "%s", err.msg);
    cr_assert_str_eq(cfg.workspace_dir.value, "/w");
    cr_assert_eq(cfg.workspace_max_bytes.value, 65536);
    cr_assert_eq(cfg.workspace_max_files.value, 16);
    up_config_release(&cfg);
    up_config_init(&cfg);
    cr_assert_neq(parse(&cfg, "workspace_max_files: 0\n", &err), 0,
                  "the quota cannot be turned off");
    up_config_release(&cfg);
}
