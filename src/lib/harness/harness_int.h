/*
 * Internal to the coding-agent CLIs: the row each CLI is (one table,
 * harness_spec.c, as curl keeps one handler row per protocol), the
 * state one parse of its event stream carries, and the helpers the
 * per-CLI event readers (harness_events.c) share with the driver
 * (harness_parse.c).
 */
#ifndef AGENT_CLI_INT_H
#define AGENT_CLI_INT_H

#include <jansson.h>

#include "lib/harness/harness_events.h"
#include "upskill/buf.h"

/* Call ids remembered to attribute a later result to its tool. */
#define CLI_MAX_IDS 4096

typedef struct cli_state {
    up_harness_result *r;
    const char *skill; /* the skill's folder name, or NULL: any */
    char **ids;        /* call id -> ... */
    size_t *id_tool;   /* ... index in r->tools */
    size_t nids, idcap;
    size_t filecap;
    up_buf answer;   /* the answer being built */
    up_buf last_msg; /* Claude Code: the id of the last assistant message */
    int in_model;    /* Gemini: inside one model response's events */
    long first_ts, last_ts; /* opencode: event timestamps (ms) */
} cli_state;

/* Reads one event (a JSON object); 1 when its type is unknown. */
typedef int (*cli_event_fn)(cli_state *st, const json_t *ev);

struct cli_run_args; /* harness_run_int.h */
struct cli_strv;
typedef struct up_harness_spec up_harness_spec; /* as in upskill/harness.h */

/*
 * One coding-agent CLI: everything upskill knows about it.  Adding a CLI
 * is adding a row to up_harness__rows (and an up_harness_format for its stream)
 * with the functions it names.
 */
struct up_harness_spec {
    const char *name;         /* "claude-code": the model string's tail */
    up_harness_format format; /* its event stream: its own row's index */
    const char *bin;          /* the binary's name on PATH: "claude"; NULL:
                                 the command line in UPSKILL_CLI_COMMAND */
    const char *provider;     /* the preset its default provider is */
    const char *key_env;      /* the CLI's provider variable */
    const char *model;        /* the inner model when none is given, or
                                 NULL: the CLI's own default */
    const char *skills;       /* the discovery folder in the project */
    const char *v1;           /* appended to a --base-url ("/v1"), or
                                 NULL: the URL is the server's root */
    const char *url;          /* its provider's URL when none is given */
    const char *key_header;   /* the header its provider reads the key
                                 from, or NULL: the wire's rule */
    int wire;                 /* what it speaks to its model: enum
                                 up_wire_kind or UP_WIRE_GEMINI */
    /* ---- its event stream (up_harness_parse) ---- */
    const char
        *format_name;       /* up_harness_format_name: "claude-code", "plain" */
    cli_event_fn event;     /* reads one event; NULL: plain stdout */
    const char *skill_tool; /* the tool that loads a skill by name, or
                               NULL: none ("Skill") */
    const char *skill_arg;  /* its argument naming the skill ("skill") */
    const char *const *readers; /* tools whose arguments name files they
                                   read (or commands that may); NULL-ended */
    /* ---- one run (harness_run.c) ---- */
    /* its binary and install prefix; UP_ENOTFOUND saying how to get it */
    int (*find)(const up_harness_spec *s, up_buf *bin, up_buf *prefix,
                up_error *err);
    /* writes its config files into a->home */
    int (*config)(const struct cli_run_args *a, up_error *err);
    /* adds its arguments after the binary */
    void (*argv)(const struct cli_run_args *a, struct cli_strv *v);
    /* adds its own environment variables */
    void (*env)(const struct cli_run_args *a, struct cli_strv *v);
};

/* The CLIs, row i of format i (harness_spec.c). */
extern const up_harness_spec up_harness__rows[UP_HARNESS_FORMAT_COUNT];

int up_harness__claude_event(cli_state *st, const json_t *ev);
int up_harness__codex_event(cli_state *st, const json_t *ev);
int up_harness__opencode_event(cli_state *st, const json_t *ev);
int up_harness__gemini_event(cli_state *st, const json_t *ev);

/* j[key] as a string, or NULL when absent or not a string. */
const char *up_harness__str(const json_t *j, const char *key);
/* j[key] as a non-negative count (integer or real), else 0. */
long up_harness__count(const json_t *j, const char *key);
/*
 * One call of tool `name` (NULL: "unknown") with id (may be NULL) and
 * its input (any JSON, may be NULL); checks it for activation.
 * Returns the tool's index.
 */
size_t up_harness__call(cli_state *st, const char *name, const char *id,
                        const json_t *input);
/* The call with this id failed (unknown ids, and ids already failed, are
   ignored). */
void up_harness__call_failed(cli_state *st, const char *id);
/* The tool at index failed. */
void up_harness__tool_failed(cli_state *st, size_t tool);
/* Replace the answer with text (NULL: leave it). */
void up_harness__set_answer(cli_state *st, const char *text);
/* Check a text (a shell command) for reads of the skill's files. */
void up_harness__scan_text(cli_state *st, const char *text);

#endif
