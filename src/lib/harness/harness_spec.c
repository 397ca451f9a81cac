/*
 * The coding-agent CLIs: one row each (up_harness__rows, at the end; its
 * fields in harness_int.h), their model strings, and what one run of
 * each needs: the config files in its private home, its command line and
 * its environment (docs/agent-clis.md shows them as a user would type
 * them).  A row names its functions; those of its event stream are in
 * harness_events.c, those of a run here, grouped by CLI.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upskill/harness.h"
#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "upskill/sandbox.h"
#include "upskill/preset.h"
#include "lib/harness/harness_run_int.h"
#include "lib/harness/harness_wire.h"

#define PREFIX "cli."

/* The base URL as the CLI wants it: the user's without a trailing /v1
 * (or /v1beta), plus v1 ("/v1") for the OpenAI-style CLIs. */
static char *cli_url(const char *url, const char *v1)
{
    size_t len = strlen(url);
    up_buf b = UP_BUF_INIT;

    while (len > 1 && url[len - 1] == '/')
        len--;
    if (len > 3 && strncmp(url + len - 3, "/v1", 3) == 0)
        len -= 3;
    else if (len > 7 && strncmp(url + len - 7, "/v1beta", 7) == 0)
        len -= 7;
    up_buf_addf(&b, "%.*s%s", (int)len, url, v1 ? v1 : "");
    return up_buf_detach(&b);
}

/* ---- what a run is made of ---- */

static void strv_add(cli_strv *v, const char *s)
{
    UP_GROW(v->v, v->cap, v->n + 2);
    v->v[v->n++] = up_xstrdup(s);
    v->v[v->n] = NULL;
}

static void strv_addf(cli_strv *v, const char *name, const char *value)
{
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b, "%s=%s", name, value);
    strv_add(v, b.data);
    up_buf_release(&b);
}

void cli_strv_free(cli_strv *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->v[i]);
    free(v->v);
    memset(v, 0, sizeof(*v));
}

/* Write text as home/rel (folders made); 0 or the write's error. */
static int home_file(const char *home, const char *rel, const char *text,
                     up_error *err)
{
    up_buf path = UP_BUF_INIT, dir = UP_BUF_INIT;
    int rc;

    up_fs_join(&path, home, rel);
    up_fs_dirname(&dir, path.data);
    rc = up_fs_mkdir_p(dir.data, 0700, err);
    if (!rc)
        rc = up_fs_write_atomic(path.data, text, strlen(text), 0600, err);
    up_buf_release(&path);
    up_buf_release(&dir);
    return rc;
}

static int config_none(const cli_run_args *a, up_error *err)
{
    (void)a;
    (void)err;
    return 0;
}

static void env_none(const cli_run_args *a, cli_strv *v)
{
    (void)a;
    (void)v;
}

/* What a folder holding credentials has in it: such a folder is never
 * bound into a CLI's sandbox (~/.cargo has credentials.toml). */
static const char *const secret_entries[] = {
    ".ssh",        ".gnupg",           ".aws",
    ".azure",      ".config",          ".docker",
    ".kube",       ".netrc",           ".npmrc",
    ".pypirc",     ".git-credentials", ".password-store",
    "credentials", "credentials.toml", NULL};

/* Why dir (resolved) may not be bound into a sandbox, or NULL: the home
 * folder, a folder above it, or one holding credentials (the entry
 * found, into why). */
static const char *unsafe_prefix(const char *dir, up_buf *why)
{
    const char *h = getenv("HOME");
    char home[PATH_MAX];
    size_t len = strlen(dir);
    up_buf p = UP_BUF_INIT;

    if (len == 1)
        return "the root folder";
    if (h && *h && realpath(h, home) && strncmp(home, dir, len) == 0 &&
        (home[len] == '/' || !home[len]))
        return home[len] ? "a folder above your home" : "your home folder";
    for (size_t i = 0; secret_entries[i] && !why->len; i++) {
        up_buf_reset(&p);
        up_fs_join(&p, dir, secret_entries[i]);
        if (access(p.data, F_OK) == 0)
            up_buf_addf(why, "a folder holding credentials (%s)",
                        secret_entries[i]);
    }
    up_buf_release(&p);
    return why->len ? why->data : NULL;
}

/* path's install prefix, the folder above its bin/ (both resolved), into
 * prefix and the binary in it into bin: 1, or 0 when path is no
 * executable.  A prefix that may not be bound read-only into the sandbox
 * is an error (UP_EUNSAFE) naming it, saying how to install the CLI. */
static int prefix_of(const char *path, up_buf *bin, up_buf *prefix,
                     up_error *err)
{
    char real[PATH_MAX];
    up_buf dir = UP_BUF_INIT, why = UP_BUF_INIT;
    const char *bad;

    if (access(path, X_OK) != 0)
        return 0;
    up_fs_dirname(&dir, path);
    if (realpath(dir.data, real)) {
        up_buf_reset(&dir);
        up_buf_adds(&dir, real);
    }
    up_fs_dirname(prefix, dir.data);
    up_buf_addf(bin, "%s/%s", dir.data,
                strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    bad = unsafe_prefix(prefix->data, &why);
    if (bad)
        up_error_set(err, UP_EUNSAFE,
                     "'%s': the CLI's install folder '%s' is %s, and it "
                     "would be readable in the CLI's sandbox: install the "
                     "CLI with `make clis` (then UPSKILL_CLIS) or into a "
                     "prefix of its own (npm install --global --prefix DIR)",
                     path, prefix->data, bad);
    up_buf_release(&dir);
    up_buf_release(&why);
    return bad ? UP_EUNSAFE : 1;
}

/* The CLI's binary in UPSKILL_CLIS/NAME/bin (make clis), else on PATH. */
static int find_installed(const up_harness_spec *s, up_buf *bin, up_buf *prefix,
                          up_error *err)
{
    const char *dir = getenv("UPSKILL_CLIS");
    const char *path = getenv("PATH");
    up_buf b = UP_BUF_INIT;
    int found = 0;

    if (dir && *dir) {
        up_buf_addf(&b, "%s/%s/bin/%s", dir, s->name, s->bin);
        found = prefix_of(b.data, bin, prefix, err);
    }
    for (const char *p = path; !found && p && *p;) {
        size_t len = strcspn(p, ":");

        up_buf_reset(&b);
        up_buf_addf(&b, "%.*s/%s", (int)len, p, s->bin);
        if (len)
            found = prefix_of(b.data, bin, prefix, err);
        p += len + (p[len] == ':');
    }
    up_buf_release(&b);
    if (found)
        return found < 0 ? found : 0;
    return up_error_set(err, UP_ENOTFOUND,
                        "'%s': the CLI of cli.%s is not installed (not in "
                        "UPSKILL_CLIS/%s/bin nor on PATH): make clis",
                        s->bin, s->name, s->name);
}

/* ---- Claude Code ---- */

static void argv_claude(const cli_run_args *a, cli_strv *v)
{
    const char *fixed[] = {"-p",
                           a->prompt,
                           "--output-format",
                           "stream-json",
                           "--verbose",
                           "--allowedTools",
                           "Bash Read Write Edit Glob Grep Skill",
                           "--dangerously-skip-permissions",
                           NULL};

    for (size_t i = 0; fixed[i]; i++)
        strv_add(v, fixed[i]);
    if (a->model && *a->model) {
        strv_add(v, "--model");
        strv_add(v, a->model);
    }
}

static void env_claude(const cli_run_args *a, cli_strv *v)
{
    /* the proxy: its scheduler retries, not the CLI */
    strv_addf(v, "ANTHROPIC_BASE_URL", a->base_url);
    strv_add(v, "CLAUDE_CODE_MAX_RETRIES=0");
    strv_add(v, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1");
    strv_add(v, "DISABLE_TELEMETRY=1");
    strv_add(v, "DISABLE_AUTOUPDATER=1");
    strv_add(v, "IS_SANDBOX=1");
}

/* ---- Codex ---- */

static int config_codex(const cli_run_args *a, up_error *err)
{
    up_buf b = UP_BUF_INIT;
    int rc;

    up_buf_addf(&b,
                "model = \"%s\"\nmodel_provider = \"upskill\"\n"
                "check_for_update_on_startup = false\n"
                "[model_providers.upskill]\nname = \"upskill\"\n"
                "base_url = \"%s\"\nenv_key = \"%s\"\n"
                "wire_api = \"responses\"\n"
                "[analytics]\nenabled = false\n[feedback]\nenabled = false\n",
                a->model, a->base_url ? a->base_url : UP_OPENAI_BASE_URL,
                a->spec->key_env);
    rc = home_file(a->home, ".codex/config.toml", b.data, err);
    up_buf_release(&b);
    return rc;
}

static void argv_codex(const cli_run_args *a, cli_strv *v)
{
    /* codex's own sandbox (Landlock) is replaced by ours (bubblewrap) */
    const char *fixed[] = {"exec",
                           "--disable",
                           "plugins",
                           "--disable",
                           "apps",
                           "--json",
                           "--skip-git-repo-check",
                           "--dangerously-bypass-approvals-and-sandbox",
                           a->prompt,
                           NULL};

    for (size_t i = 0; fixed[i]; i++)
        strv_add(v, fixed[i]);
}

static void env_codex(const cli_run_args *a, cli_strv *v)
{
    up_buf b = UP_BUF_INIT;

    up_fs_join(&b, a->home_inside, ".codex");
    strv_addf(v, "CODEX_HOME", b.data);
    up_buf_release(&b);
}

/* ---- opencode ---- */

static int config_opencode(const cli_run_args *a, up_error *err)
{
    up_buf b = UP_BUF_INIT;
    int rc;

    /* the key stays in the environment: {env:NAME} is opencode's own
     * substitution, so no file holds it.  A path outside the workspace
     * is "ask" by default, which headless `opencode run` auto-rejects,
     * and a rejection ends the run mid-turn (exit 0, no answer); "deny"
     * is a tool error the model reads, and the loop goes on as under the
     * other CLIs.  continue_loop_on_deny keeps any other rejected prompt
     * (doom_loop, a .env read) from ending the run either. */
    up_buf_addf(&b,
                "{\"$schema\": \"https://opencode.ai/config.json\", "
                "\"model\": \"upskill/%s\", \"autoupdate\": false, "
                "\"share\": \"disabled\", "
                "\"permission\": {\"edit\": \"allow\", \"bash\": \"allow\", "
                "\"webfetch\": \"deny\", \"external_directory\": \"deny\"}, "
                "\"experimental\": {\"continue_loop_on_deny\": true}, "
                "\"provider\": {\"upskill\": {\"npm\": "
                "\"@ai-sdk/openai-compatible\", \"options\": {\"baseURL\": "
                "\"%s\", \"apiKey\": \"{env:%s}\"}, \"models\": {\"%s\": "
                "{}}}}}\n",
                a->model, a->base_url ? a->base_url : UP_OPENAI_BASE_URL,
                a->spec->key_env, a->model);
    rc = home_file(a->home, ".config/opencode/opencode.json", b.data, err);
    up_buf_release(&b);
    return rc;
}

static void argv_opencode(const cli_run_args *a, cli_strv *v)
{
    const char *fixed[] = {"run",  "--pure",  "--format",
                           "json", a->prompt, NULL};

    for (size_t i = 0; fixed[i]; i++)
        strv_add(v, fixed[i]);
}

static void env_opencode(const cli_run_args *a, cli_strv *v)
{
    (void)a;
    strv_add(v, "OPENCODE_DISABLE_MODELS_FETCH=1");
    strv_add(v, "OPENCODE_DISABLE_AUTOUPDATE=1");
    strv_add(v, "OPENCODE_DISABLE_DEFAULT_PLUGINS=1");
    strv_add(v, "OPENCODE_DISABLE_LSP_DOWNLOAD=1");
    strv_add(v, "OPENCODE_DISABLE_SHARE=1");
}

/* ---- Gemini CLI ---- */

static int config_gemini(const cli_run_args *a, up_error *err)
{
    return home_file(a->home, ".gemini/settings.json",
                     "{\"security\": {\"auth\": {\"selectedType\": "
                     "\"gemini-api-key\"}}, \"privacy\": "
                     "{\"usageStatisticsEnabled\": false}}\n",
                     err);
}

static void argv_gemini(const cli_run_args *a, cli_strv *v)
{
    const char *fixed[] = {"-m",      a->model,          "-y",          "-p",
                           a->prompt, "--output-format", "stream-json", NULL};

    for (size_t i = 0; fixed[i]; i++)
        strv_add(v, fixed[i]);
}

static void env_gemini(const cli_run_args *a, cli_strv *v)
{
    strv_addf(v, "GOOGLE_GEMINI_BASE_URL", a->base_url);
    strv_add(v, "GEMINI_CLI_TRUST_WORKSPACE=true");
}

/* ---- any other agent: the command line in UPSKILL_CLI_COMMAND ---- */

/* The first word of a configured command line, found like a shell would
 * (a '/' in it: as it is; else on PATH). */
static int find_command(const char *cmd, up_buf *bin, up_buf *prefix,
                        up_error *err)
{
    const char *w = cmd + strspn(cmd, " ");
    size_t len = strcspn(w, " ");
    const char *path = getenv("PATH");
    up_buf b = UP_BUF_INIT, dir = UP_BUF_INIT;
    int found = 0;

    if (memchr(w, '/', len)) {
        up_buf_addf(&b, "%.*s", (int)len, w);
        found = prefix_of(b.data, &dir, prefix, err);
    }
    for (const char *p = path; len && !found && !memchr(w, '/', len) && p && *p;
         p += strcspn(p, ":"), p += *p == ':') {
        up_buf_reset(&b);
        up_buf_addf(&b, "%.*s/%.*s", (int)strcspn(p, ":"), p, (int)len, w);
        found = prefix_of(b.data, &dir, prefix, err);
    }
    if (found > 0) {
        char real[PATH_MAX];

        up_buf_adds(bin, realpath(b.data, real) ? real : b.data);
    }
    up_buf_release(&b);
    up_buf_release(&dir);
    if (found)
        return found < 0 ? found : 0;
    return up_error_set(err, UP_ENOTFOUND,
                        "'%.*s': the command of cli.command "
                        "(UPSKILL_CLI_COMMAND) was not found",
                        (int)len, w);
}

static int find_configured(const up_harness_spec *s, up_buf *bin,
                           up_buf *prefix, up_error *err)
{
    const char *cmd = getenv("UPSKILL_CLI_COMMAND");

    (void)s;
    if (!cmd || !*cmd)
        return up_error_set(err, UP_EUSAGE,
                            "cli.command needs its command line in "
                            "UPSKILL_CLI_COMMAND (with {prompt}, e.g. "
                            "'myagent --cwd {workspace} {prompt}')");
    return find_command(cmd, bin, prefix, err);
}

/* word with {prompt}, {workspace}, {model} and {base_url} replaced. */
static void substitute(const cli_run_args *a, const char *word, size_t len,
                       up_buf *out)
{
    static const char *const names[] = {"{prompt}", "{workspace}", "{model}",
                                        "{base_url}"};
    const char *values[] = {a->prompt, a->ws_inside, a->model ? a->model : "",
                            a->base_url ? a->base_url : ""};

    for (size_t i = 0; i < len;) {
        size_t k = 0;

        while (k < 4 && (strlen(names[k]) > len - i ||
                         strncmp(word + i, names[k], strlen(names[k])) != 0))
            k++;
        if (k < 4) {
            up_buf_adds(out, values[k]);
            i += strlen(names[k]);
        } else {
            up_buf_addc(out, word[i++]);
        }
    }
}

/* The configured command line after its first word (the binary found),
 * split at spaces (no quoting). */
static void argv_command(const cli_run_args *a, cli_strv *v)
{
    const char *p = a->command + strspn(a->command, " ");
    up_buf w = UP_BUF_INIT;

    p += strcspn(p, " ");
    while (*(p += strspn(p, " "))) {
        size_t len = strcspn(p, " ");

        up_buf_reset(&w);
        substitute(a, p, len, &w);
        strv_add(v, w.data ? w.data : "");
        p += len;
    }
    up_buf_release(&w);
}

/* ---- the rows ---- */

/* NULL-ended lists of tool names (a file-scope compound literal is static). */
#define TOOLS(...) ((const char *const[]){__VA_ARGS__, NULL})

const up_harness_spec up_harness__rows[UP_HARNESS_FORMAT_COUNT] = {
    [UP_HARNESS_CLAUDE_CODE] = {.name = "claude-code",
                                .wire = UP_WIRE_ANTHROPIC,
                                .url = UP_ANTHROPIC_BASE_URL,
                                .key_header = "x-api-key",
                                .format = UP_HARNESS_CLAUDE_CODE,
                                .bin = "claude",
                                .provider = "anthropic",
                                .key_env = "ANTHROPIC_API_KEY",
                                .skills = ".claude/skills",
                                .format_name = "claude-code",
                                .event = up_harness__claude_event,
                                .skill_tool = "Skill",
                                .skill_arg = "skill",
                                .readers = TOOLS("Read", "Bash"),
                                .find = find_installed,
                                .config = config_none,
                                .argv = argv_claude,
                                .env = env_claude},
    [UP_HARNESS_CODEX] = {.name = "codex",
                          .wire = UP_WIRE_RESPONSES,
                          .url = UP_OPENAI_BASE_URL,
                          .format = UP_HARNESS_CODEX,
                          .bin = "codex",
                          .provider = "responses",
                          .key_env = "OPENAI_API_KEY",
                          .model = "gpt-5",
                          .skills = ".agents/skills",
                          .v1 = "/v1",
                          .format_name = "codex",
                          .event = up_harness__codex_event,
                          .skill_tool =
                              NULL, /* it reads SKILL.md with its shell */
                          .readers =
                              TOOLS("shell", "exec_command", "local_shell"),
                          .find = find_installed,
                          .config = config_codex,
                          .argv = argv_codex,
                          .env = env_codex},
    [UP_HARNESS_OPENCODE] = {.name = "opencode",
                             .wire = UP_WIRE_OPENAI,
                             .url = UP_OPENAI_BASE_URL,
                             .format = UP_HARNESS_OPENCODE,
                             .bin = "opencode",
                             .provider = "openai",
                             .key_env = "OPENAI_API_KEY",
                             .model = "gpt-5-mini",
                             .skills = ".opencode/skill",
                             .v1 = "/v1",
                             .format_name = "opencode",
                             .event = up_harness__opencode_event,
                             .skill_tool = "skill",
                             .skill_arg = "name",
                             .readers = TOOLS("read", "bash"),
                             .find = find_installed,
                             .config = config_opencode,
                             .argv = argv_opencode,
                             .env = env_opencode},
    [UP_HARNESS_GEMINI] = {.name = "gemini",
                           .wire = UP_WIRE_GEMINI,
                           .url = "https://generativelanguage.googleapis.com",
                           .key_header = "x-goog-api-key",
                           .format = UP_HARNESS_GEMINI,
                           .bin = "gemini",
                           .provider = "google",
                           .key_env = "GEMINI_API_KEY",
                           .model = "gemini-2.5-flash",
                           .skills = ".gemini/skills",
                           .format_name = "gemini",
                           .event = up_harness__gemini_event,
                           .skill_tool = "activate_skill",
                           .skill_arg = "name",
                           .readers = TOOLS("read_file", "read_many_files",
                                            "run_shell_command"),
                           .find = find_installed,
                           .config = config_gemini,
                           .argv = argv_gemini,
                           .env = env_gemini},
    /* any other agent: no binary of its own but UPSKILL_CLI_COMMAND's;
     * stdout is its answer unless UPSKILL_CLI_FORMAT names another row's
     * stream */
    [UP_HARNESS_PLAIN] = {.name = "command",
                          .wire = UP_WIRE_OPENAI,
                          .url = UP_OPENAI_BASE_URL,
                          .format = UP_HARNESS_PLAIN,
                          .provider = "openai",
                          .key_env = "OPENAI_API_KEY",
                          .skills = ".agents/skills",
                          .format_name = "plain",
                          /* other agents' usual names */
                          .readers = TOOLS("view", "cat"),
                          .find = find_configured,
                          .config = config_none,
                          .argv = argv_command,
                          .env = env_none},
};

/* ---- model strings ---- */

const up_harness_spec *up_harness_spec_of(const char *model)
{
    size_t len;

    if (!model || strncmp(model, PREFIX, strlen(PREFIX)) != 0)
        return NULL;
    model += strlen(PREFIX);
    len = strcspn(model, "/");
    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++)
        if (strlen(up_harness__rows[i].name) == len &&
            strncmp(up_harness__rows[i].name, model, len) == 0)
            return &up_harness__rows[i];
    return NULL;
}

static int unknown_cli(const char *spec, up_error *err)
{
    up_buf names = UP_BUF_INIT;
    int rc;

    for (size_t i = 0; i < UP_HARNESS_FORMAT_COUNT; i++)
        up_buf_addf(&names, "%scli.%s", i ? ", " : "",
                    up_harness__rows[i].name);
    rc = up_error_set(err, UP_EPARSE,
                      "'%s': unknown coding-agent CLI (expected one of %s, "
                      "with an optional /MODEL)",
                      spec, names.data);
    up_buf_release(&names);
    return rc;
}

int up_harness_model_resolve(up_model *out, const char *spec,
                             const char *base_url_override,
                             const char *api_key_env_override, up_error *err)
{
    const up_harness_spec *s = up_harness_spec_of(spec);
    const char *inner = spec ? strchr(spec, '/') : NULL;
    int kind;
    up_buf b = UP_BUF_INIT;

    if (!s)
        return unknown_cli(spec ? spec : "", err);
    if (inner && !inner[1])
        return up_error_set(err, UP_EPARSE,
                            "'%s': empty model after '/' (expected "
                            "cli.NAME/MODEL, e.g. cli.claude-code/sonnet)",
                            spec);
    kind = up_preset_find(s->provider, strlen(s->provider));
    out->provider = kind >= 0 ? (enum up_provider_kind)kind : UP_PROV_GENERIC;
    /* "" (never NULL: a provider call must not crash on a CLI's model,
     * e.g. `models -m cli.claude-code`): the CLI's own default */
    out->model_id = up_xstrdup(inner ? inner + 1 : s->model ? s->model : "");
    up_buf_addf(&b, PREFIX "%s%s%s", s->name, *out->model_id ? "/" : "",
                out->model_id);
    out->resolved = up_buf_detach(&b);
    if (base_url_override && *base_url_override) {
        out->base_url = cli_url(base_url_override, s->v1);
        out->base_url_src.kind = UP_SRC_FLAG;
    }
    out->api_key_env = up_xstrdup(api_key_env_override && *api_key_env_override
                                      ? api_key_env_override
                                      : s->key_env);
    out->key_required = !out->base_url;
    return 0;
}

/* ---- one run ---- */

int cli_find(const up_harness_spec *s, up_buf *bin, up_buf *prefix,
             up_error *err)
{
    return s->find(s, bin, prefix, err);
}

int cli_write_config(const cli_run_args *a, up_error *err)
{
    return a->spec->config(a, err);
}

/* The index in v of variable word's NAME, or v->n. */
static size_t env_find(const cli_strv *v, const char *word)
{
    size_t k = strcspn(word, "=") + 1;

    for (size_t i = 0; i < v->n; i++)
        if (!strncmp(v->v[i], word, k))
            return i;
    return v->n;
}

/* The task's ENV words into v: PATH after the CLI's install folder's
 * bin; any other name upskill set itself (HOME, the key, the CLI's
 * settings) stays upskill's. */
static void task_env(const cli_run_args *a, cli_strv *v)
{
    for (size_t i = 0; a->env && a->env[i]; i++) {
        size_t at = env_find(v, a->env[i]);
        up_buf b = UP_BUF_INIT;

        if (!strncmp(a->env[i], "PATH=", 5) && at < v->n) {
            up_buf_addf(&b, "PATH=%s/bin:%s", a->prefix, a->env[i] + 5);
            free(v->v[at]);
            v->v[at] = up_buf_detach(&b);
        } else if (at == v->n) {
            strv_add(v, a->env[i]);
        }
        up_buf_release(&b);
    }
}

void cli_envp(const cli_run_args *a, cli_strv *v)
{
    up_buf path = UP_BUF_INIT;

    up_buf_addf(&path, "PATH=%s/bin:/usr/local/bin:/usr/bin:/bin", a->prefix);
    strv_add(v, path.data);
    up_buf_release(&path);
    strv_addf(v, "HOME", a->home_inside);
    strv_add(v, "LANG=C.UTF-8");
    strv_add(v, "TERM=dumb");
    strv_add(v, "NO_COLOR=1");
    strv_add(v, "TMPDIR=/tmp");
    /* a dummy key: the proxy puts the real one on the way out */
    strv_addf(v, a->spec->key_env, CLI_DUMMY_KEY);
    a->spec->env(a, v);
    task_env(a, v);
}

void cli_command(const cli_run_args *a, cli_strv *v)
{
    strv_add(v, a->bin);
    a->spec->argv(a, v);
}

static void add_word(void *ud, const char *w)
{
    strv_add(ud, w);
}

/* The sandbox's bwrap line with a network of its own (only loopback),
 * its install folder read-only, the workspace and home, upskill as the
 * forwarder (under the process cap) and the model proxy's socket. */
void cli_bwrap(const cli_run_args *a, cli_strv *v)
{
    up_sandbox_bwrap_base(add_word, v);
    const char *tail[] = {
        "--ro-bind",     a->prefix,    a->prefix,       "--bind",
        a->ws,           a->ws_inside, "--bind",        a->home,
        CLI_HOME_INSIDE, "--ro-bind",  a->exe,          CLI_FORWARD_INSIDE,
        "--bind",        a->sock,      CLI_SOCK_INSIDE, NULL};
    const char *forward[] = {CLI_FORWARD_INSIDE, "__forward", CLI_PORT_INSIDE,
                             CLI_SOCK_INSIDE,    "--",        NULL};

    for (size_t i = 0; tail[i]; i++)
        strv_add(v, tail[i]);
    up_sandbox_places_args(add_word, v, a->ws, a->ws_inside, a->places);
    strv_add(v, "--chdir");
    strv_add(v, a->ws_inside);
    strv_add(v, "--");
    up_sandbox_nproc_wrap(add_word, v, a->nproc);
    for (size_t i = 0; forward[i]; i++)
        strv_add(v, forward[i]);
}
