/*
 * Coding-agent CLIs as eval students: the model strings cli.claude-code,
 * cli.codex, cli.opencode and cli.gemini (docs/agent-clis.md) and the
 * runner that runs one CLI conversation per eval job.
 *
 * Each conversation gets a private folder holding a workspace (the
 * case's files; in the skill arm the skill in the CLI's discovery
 * folder) and a HOME with the CLI's config written by us.  The CLI runs
 * under bubblewrap with the system read-only, the workspace bound at
 * /workspace and the home at /home/student as the only writable places,
 * and the host's network (it must reach its provider); its environment
 * is built from nothing: the provider's key reaches only the CLI's
 * provider variable.  A wall-clock limit ends a run that hangs.  The
 * runner is a small process pool driven by poll(2), off the scheduler.
 */
#ifndef UPSKILL_AGENT_CLI_RUN_H
#define UPSKILL_AGENT_CLI_RUN_H

#include <signal.h>
#include <stddef.h>

#include "upskill/agent_cli.h"
#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/eval.h"
#include "upskill/model.h"
#include "upskill/provider.h"
#include "upskill/suite.h"

/* One coding-agent CLI: a row of agent_cli_spec.c's table, its fields
 * in src/lib/agent_cli_int.h. */
typedef struct up_cli_spec up_cli_spec;

/* The wall clock of one CLI run when the eval sets none (--time-limit). */
#define UP_CLI_WALL_MS_DEFAULT 600000L
/* Bytes of the raw event stream kept in the case artifact. */
#define UP_CLI_KEEP_STREAM ((size_t)256 << 10)
/* The most CLI conversations at once (a lower -j lowers it): each CLI
 * takes 0.5-5 s of a core to start (bench/README.md), so more than this
 * on a small machine only queues for the CPU. */
#define UP_CLI_JOBS_DEFAULT 4

/* The CLI a model string or resolved id names ("cli.codex/gpt-5"), or
 * NULL when it names none. */
const up_cli_spec *up_cli_spec_of(const char *model);

/*
 * Resolve spec "cli.NAME[/MODEL]" into out (released first): model_id
 * the inner model (or the CLI's default), resolved "cli.NAME[/MODEL]",
 * base_url the override (NULL: the CLI's own default endpoint), the key
 * variable api_key_env_override or the CLI's own.  Errors: UP_EPARSE
 * naming the CLIs for an unknown NAME or an empty inner model.
 */
int up_cli_model_resolve(up_model *out, const char *spec,
                         const char *base_url_override,
                         const char *api_key_env_override, up_error *err);

/* After each CLI job of up_cli_eval_run: j filled (answer and usage in
 * res, j->workspace set until the call returns). */
typedef void (*up_cli_land_fn)(void *ud, up_eval_job *j, up_response *res);

/*
 * Run the plan jobs idx[0..n) (each of a cli.* model, endpoint eps[model])
 * at most jobs at once (at most UP_CLI_JOBS_DEFAULT), calling land after
 * each.  A conversation that fails (no sandbox, the CLI missing or
 * failing, the wall clock) lands with its error; *stop ends the rest
 * early.  Returns 0, or UP_EINTR when stopped.
 */
int up_cli_eval_run(up_eval_plan *p, const up_endpoint *eps, const size_t *idx,
                    size_t n, int jobs, volatile sig_atomic_t *stop,
                    up_cli_land_fn land, void *ud, up_error *err);

/*
 * `eval --trigger`: replace suite s by its inputs alone (prompts that
 * should trigger the skill, *npos of them, first) followed by a fixed set
 * of unrelated prompts that should not; no assertions.  Errors: those of
 * up_suite_parse.
 */
int up_cli_trigger_suite(up_suite *s, size_t *npos, up_error *err);

/* One line for model m of a --trigger run: how often the skill was
 * loaded for each kind of prompt, and a sentence when that is wrong. */
void up_cli_trigger_text(up_buf *out, const up_eval_plan *p, size_t m,
                         size_t npos);

#endif
