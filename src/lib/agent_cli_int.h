/*
 * Internal to the CLI stream parsers: the state one parse carries and
 * the helpers the per-format event readers (agent_cli_events.c) share
 * with the driver (agent_cli_parse.c).
 */
#ifndef AGENT_CLI_INT_H
#define AGENT_CLI_INT_H

#include <jansson.h>

#include "upskill/agent_cli.h"
#include "upskill/buf.h"

/* Call ids remembered to attribute a later result to its tool. */
#define CLI_MAX_IDS 4096

typedef struct cli_state {
    up_cli_result *r;
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

int up_cli__claude_event(cli_state *st, const json_t *ev);
int up_cli__codex_event(cli_state *st, const json_t *ev);
int up_cli__opencode_event(cli_state *st, const json_t *ev);
int up_cli__gemini_event(cli_state *st, const json_t *ev);

/* j[key] as a string, or NULL when absent or not a string. */
const char *up_cli__str(const json_t *j, const char *key);
/* j[key] as a non-negative count (integer or real), else 0. */
long up_cli__count(const json_t *j, const char *key);
/*
 * One call of tool `name` (NULL: "unknown") with id (may be NULL) and
 * its input (any JSON, may be NULL); checks it for activation.
 * Returns the tool's index.
 */
size_t up_cli__call(cli_state *st, const char *name, const char *id,
                    const json_t *input);
/* The call with this id failed (unknown ids, and ids already failed, are
   ignored). */
void up_cli__call_failed(cli_state *st, const char *id);
/* The tool at index failed. */
void up_cli__tool_failed(cli_state *st, size_t tool);
/* Replace the answer with text (NULL: leave it). */
void up_cli__set_answer(cli_state *st, const char *text);
/* Check a text (a shell command) for reads of the skill's files. */
void up_cli__scan_text(cli_state *st, const char *text);

#endif
